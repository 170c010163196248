"""Planted for ``second_order``: a copy of our engine whose graph-mode mul rule detaches the
other operand (``out.grad * b.data`` instead of ``out.grad * b``).  First derivatives, and the
values of create_graph gradients, are right; d2(x*y)/dx dy comes out 0 instead of 1."""

from tests.wrong_engines import with_graph_rule


def _detached_mul_back_graph(engine, out):
    a, b = out._a, out._b
    engine._give(a, out.grad * b.data)
    engine._give(b, out.grad * a.data)


_engine = with_graph_rule(__name__, "_mul_back_graph", _detached_mul_back_graph)
Value, vsum, dot = _engine.Value, _engine.vsum, _engine.dot
