"""Planted for ``edge_second_order``: a copy of our engine whose graph-mode division rule forms
d(a/b)/db as -a / (b * b) instead of -(a/b) / b.  The value is the same number wherever b * b
is finite, and so are the second derivatives at ordinary points; at b = 1e300, b * b overflows
and the second pass meets inf / inf, where d2(a/b)/db2 = 2a/b**3 is 0 in floats."""

from tests.wrong_engines import with_graph_rule


def _squared_div_back_graph(engine, out):
    a, b = out._a, out._b
    engine._give(a, out.grad / b)
    engine._give(b, -(out.grad * a / (b * b)))


_engine = with_graph_rule(__name__, "_div_back_graph", _squared_div_back_graph)
Value, vsum, dot = _engine.Value, _engine.vsum, _engine.dot
