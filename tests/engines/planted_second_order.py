"""Planted for ``second_order``: a copy of our engine whose graph-mode mul rule detaches the
other operand (``out.grad * b.data`` instead of ``out.grad * b``).  First derivatives, and the
values of create_graph gradients, are right; d2(x*y)/dx dy comes out 0 instead of 1."""

from tests.wrong_engines import engine_copy

_engine = engine_copy("tests.engines.planted_second_order")


def _detached_mul_back_graph(out):
    a, b = out._a, out._b
    _engine._give(a, out.grad * b.data)
    _engine._give(b, out.grad * a.data)


for _rule, _twin in list(_engine._GRAPH_RULES.items()):
    if _twin is _engine._mul_back_graph:
        _engine._GRAPH_RULES[_rule] = _detached_mul_back_graph

Value = _engine.Value
vsum = _engine.vsum
dot = _engine.dot
Value.__module__ = __name__
