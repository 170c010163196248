"""Planted for the second vote on Hessians: a copy of our engine whose plain mul rule (the one
``backward()`` runs) sends back twice the gradient, while its twin over Values (the one
``backward(create_graph=True)`` runs) is right.

A Hessian is read as a ``create_graph`` pass and then a plain pass over each gradient, so every
mul term of it comes out twice sympy's; so do the finite differences of the engine's own plain
gradient, which shares the defect.  Only differences of the reference gradient, independent of
the engine, confirm it.  (Twice as a float: the engine is not exact, so no Hessian of it is judged by
exact equality, which needs no second vote.)"""

from tests.wrong_engines import engine_copy

_engine = engine_copy("tests.engines.plain_mul_doubled")
_right = _engine._mul_back


def _mul_back_doubled(out):
    a, b = out._a, out._b
    a.grad += 2.0 * out.grad * b.data
    b.grad += 2.0 * out.grad * a.data


_engine._RULE_NAMES[_mul_back_doubled] = _engine._RULE_NAMES[_right]
_engine._GRAPH_RULES[_mul_back_doubled] = _engine._GRAPH_RULES[_right]
_engine._mul_back = _mul_back_doubled

Value = _engine.Value
vsum = _engine.vsum
dot = _engine.dot
Value.__module__ = __name__
