"""Wrong engines for the second-order checker, shared by tests/test_testing_higher.py and
tests/test_testing_hessian.py (a plain module: a test module must not import another).

A wrong engine here is a fresh copy of ``autograd/engine.py`` (``tests.wrong_engines.engine_copy``)
whose graph-mode twin of ONE rule (the rule ``backward(create_graph=True)`` runs) is scaled.
"""

from fractions import Fraction
from types import ModuleType

from autograd.testing import Graph, Node
from tests.wrong_engines import OP_GRAPHS, engine_copy
from tests.wrong_engines import RULES as FAST_RULES

# The ops whose second partials are not all zero (sympy decides: see the first test), with the
# engine rule (fast path) behind each and the one-node graph of tests/wrong_engines.py.
SECOND_ORDER_OPS = ("mul", "div", "rdiv", "powc", "vpow", "rpow", "exp", "log", "tanh", "sigmoid", "dot")
RULES = {op: FAST_RULES[op] for op in SECOND_ORDER_OPS}
FLOAT_GRAPHS = {op: OP_GRAPHS[op] for op in SECOND_ORDER_OPS}
# The rational ones (an integer power: x ** 3).
EXACT_GRAPHS = {
    "mul": Graph((Fraction(7, 10), Fraction(-13, 10)), (Node("mul", (0, 1)),)),
    "div": Graph((Fraction(7, 10), Fraction(-13, 10)), (Node("div", (0, 1)),)),
    "rdiv": Graph((Fraction(7, 10),), (Node("rdiv", (0,), Fraction(3, 2)),)),
    "powc": Graph((Fraction(7, 10),), (Node("powc", (0,), 3),)),
    "dot": Graph((Fraction(1, 2), -2, 3, Fraction(2, 3), 1), (Node("dot", (0, 1, 2, 3, 4)),)),
}


def wrong_graph_engine(op: str, factor) -> ModuleType:
    """A copy of the engine whose graph-mode rule for ``op`` scales its second-order part."""
    module = engine_copy(f"wrong_{op}_graph_engine")
    rule = getattr(module, RULES[op])
    twin = module._GRAPH_RULES[rule]
    Value = module.Value

    def scaled(out):
        operands = list({id(v): v for v in out._prev}.values())  # each once, even in a * a
        twin(out)
        full = [v.grad for v in operands]
        g = out.grad  # again with g a constant: the shares g.data * p(v), whose derivative is the
        out.grad = module._constant(g.data)  # second-order term alone
        for v in operands:
            v.grad = 0
        twin(out)
        detached = [v.grad for v in operands]
        out.grad = g
        for v, share, alone in zip(operands, full, detached, strict=True):
            v.grad = share + (alone - alone.data) * (factor - 1) if type(alone) is Value else share

    module._GRAPH_RULES[rule] = scaled
    return module


def first_order_graph_mode_wrong(op: str, factor) -> ModuleType:
    """A copy whose graph-mode rule for ``op`` scales its whole share (first-order values too)."""
    module = wrong_graph_engine(op, 1)
    rule = getattr(module, RULES[op])
    twin = module._GRAPH_RULES[rule]

    def scaled(out):
        operands = list({id(v): v for v in out._prev}.values())
        before = [v.grad for v in operands]
        twin(out)
        for v, b in zip(operands, before, strict=True):
            v.grad = b + (v.grad - b) * factor

    module._GRAPH_RULES[rule] = scaled
    return module


# x**3 * y + y / x at (1/2, -3/4): its derivatives are written out by hand in the tests
HAND_GRAPH = Graph(
    (Fraction(1, 2), Fraction(-3, 4)),
    (Node("powc", (0,), 3), Node("mul", (2, 1)), Node("div", (1, 0)), Node("add", (3, 4))),
)
