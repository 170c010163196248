"""A copy of our engine whose graph-mode exp rule is broken everywhere (it reads an attribute
Values do not have): not a missing feature but a crash at every point, and reported as one."""

from tests.wrong_engines import with_graph_rule


def _broken_exp_back_graph(engine, out):
    engine._give(out._a, out.grad * out.value)


_engine = with_graph_rule(__name__, "_exp_back_graph", _broken_exp_back_graph)
Value, vsum, dot = _engine.Value, _engine.vsum, _engine.dot
