"""A copy of our engine with no second derivative of exp: its graph-mode rule says so
(NotImplementedError), as PyTorch's hardsigmoid does ("derivative for ... is not implemented").
A missing feature: the edge probe of second derivatives reports it as unsupported, once."""

from tests.wrong_engines import with_graph_rule


def _no_exp_back_graph(engine, out):
    raise NotImplementedError("the second derivative of exp is not implemented")


_engine = with_graph_rule(__name__, "_exp_back_graph", _no_exp_back_graph)
Value, vsum, dot = _engine.Value, _engine.vsum, _engine.dot
