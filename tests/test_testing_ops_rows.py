"""The op rows (autograd.testing.ops): every fact about an op is a field of its row.

The probes, the graph and the state machine read an op's facts from its row, through the public
table (``OPS``, ``CATALOGUE``); which ops an engine has is found by trying each row on the
engine (``autograd.testing.engines.support``).
"""

import math
from fractions import Fraction

import pytest
import sympy

import autograd
from autograd.testing import Graph, Node, resolve_engine
from autograd.testing.engines import Engine
from autograd.testing.engines.support import supported, usable_consts
from autograd.testing.ops import (
    CATALOGUE,
    OPS,
    PARTNER,
    Call,
    OpSpec,
    Variadic,
    rational_binary,
    rational_unary,
    registered,
)
from autograd.testing.probes.edges import edge_points
from tests.engines import refuses_int_constants

ROWS = {
    **{f"table:{name}": spec for name, spec in OPS.items()},
    **{f"catalogue:{s.name}": s for s in CATALOGUE},
}


# ---------------------------------------------------------------------- every row, through the table
def inside(region):
    """PARTNER if the region holds it, else the middle of its first interval (or one inside its end)."""
    if region.contains(PARTNER) is sympy.true:
        return PARTNER
    first = region.args[0] if isinstance(region, sympy.Union) else region
    lo, hi = first.inf, first.sup
    if lo.is_finite and hi.is_finite:
        return float((lo + hi) / 2)
    return float(lo + 1) if lo.is_finite else float(hi - 1)


@pytest.mark.parametrize("key", list(ROWS))
def test_every_row_has_the_fields_the_probes_need(key):
    row = ROWS[key]
    n = row.sample_arity
    const = (row.consts or (None,))[0]
    assert row.name and row.label and n >= 1 and row.takes(n)
    # its expression, on as many operands as its example point has, is a sympy expression of them
    symbols = sympy.symbols(f"a0:{n}", real=True)
    expr = row.sym(symbols, const)
    assert isinstance(expr, sympy.Expr) and expr.free_symbols <= set(symbols)
    # its example (how a report shows the op) names each operand of the example point
    names = list(row.operand_names)
    assert len(names) == n and all(name in row.example for name in names)
    # one set per operand at most (the others are the reals), each a sympy set
    sets = row.region(const)
    assert 1 <= len(sets) <= max(n, 2) and all(isinstance(s, sympy.Set) for s in sets)
    # the error model gives finite, non-negative numbers at a point inside the region
    at = [inside(sets[i]) if i < len(sets) else PARTNER for i in range(n)]
    out = row.num(at, const)
    assert math.isfinite(row.fwd_err(at, const, out)) and row.fwd_err(at, const, out) >= 0
    assert math.isfinite(row.partial_err(at, const, out)) and row.partial_err(at, const, out) >= 0
    assert isinstance(row.bounded_partials, bool) and isinstance(row.rational(const), bool)
    assert all(isinstance(k, float) for k in row.kinks)
    assert all(isinstance(rank, int) for rank, _ in row.machine_steps)


def test_the_rows_are_the_tables_ops_in_the_order_hypothesis_shrinks_towards():
    assert list(OPS) == [
        "add", "mul", "neg", "sub", "div", "addc", "rsub", "mulc", "rdiv", "powc", "vpow", "rpow", "exp",
        "log", "tanh", "relu", "sigmoid", "vsum", "dot", "radd", "subc", "vmulc", "divc",
    ]  # fmt: skip
    assert OPS["powc"].consts == (2, 3, -1, -2, 0, 1, Fraction(1, 2), Fraction(3, 2), 0.5, 1.5, 2.0, -0.5)


def test_a_missing_op_is_shown_by_its_rows_example():
    examples = {name: OPS[name].example for name in ("add", "addc", "rdiv", "powc", "exp", "vsum", "dot")}
    assert examples == {
        "add": "x + y", "addc": "x + 1", "rdiv": "1 / x", "powc": "x ** 2", "exp": "x.exp()",
        "vsum": "vsum([x, y])", "dot": "dot([w], [x], b)",
    }  # fmt: skip


def test_the_exact_state_machine_takes_its_ops_and_order_from_the_rows():
    assert rational_binary() == ("add", "sub", "mul", "div")
    assert rational_unary() == (
        ("neg", None), ("relu", None), ("powc", 2), ("powc", -1), ("mulc", Fraction(-1, 2)), ("addc", 1),
    )  # fmt: skip
    assert type(rational_unary()[4][1]) is Fraction  # -1/2 exactly, never the float -0.5
    assert all(OPS[op].rational(c) for op, c in rational_unary())  # each stays exact on rationals


def test_the_partials_formed_from_bounded_quantities_are_tanhs_and_sigmoids():
    assert {name for name, spec in OPS.items() if spec.bounded_partials} == {"tanh", "sigmoid"}


# ---------------------------------------------------------------------- variadic operand counts
def _vprod(least: int, step: int, names: tuple[str, ...]) -> OpSpec:
    return OpSpec(
        name="test_vprod", form="vprod([v, ...])", arity=0, variadic_arity=Variadic(least, step, names),
        call=Call("vprod", (), fused=True),
        sym=lambda s, c: sympy.Mul(*s), num=lambda x, c: math.prod(x), source=lambda n, c: " * ".join(n),
    )  # fmt: skip


def test_a_variadic_ops_edge_points_have_as_many_operands_as_its_row_says():
    assert {len(p.args) for p in edge_points("vsum")} == {2}
    assert {len(p.args) for p in edge_points("dot")} == {3}
    with registered(_vprod(3, 2, ("a", "b", "c"))):
        assert {len(p.args) for p in edge_points("test_vprod")} == {3}


def test_a_name_registered_again_with_another_row_gets_that_rows_answers():
    # two engines' extra ops may share a name and differ (a method `f` identified as tanh in one
    # engine, as sigmoid in another): nothing cached for one row is ever served for the other
    with registered(_vprod(2, 2, ("a", "b"))):
        assert {len(p.args) for p in edge_points("test_vprod")} == {2}
    with registered(_vprod(3, 2, ("a", "b", "c"))):
        assert {len(p.args) for p in edge_points("test_vprod")} == {3}
    for expr, want in ((sympy.tanh, 0.46211715726000974), (sympy.atan, 0.4636476090008061)):
        row = OpSpec(
            name="test_f", form="v.f()", arity=1, call=Call("f"), sym=lambda s, c, e=expr: e(s[0]),
            num=lambda x, c, e=expr: float(e(x[0])), source=lambda n, c: f"{n[0]}.f()",
        )  # fmt: skip
        with registered(row):
            graph = Graph((0.5,), (Node("test_f", (0,)),))
            assert float(graph.reference().value) == pytest.approx(want, rel=1e-15)
            assert str(graph.sympy()[1]) == f"{expr.__name__}(x0)"


def test_a_graph_takes_the_operand_counts_a_variadic_row_allows():
    with registered(_vprod(2, 2, ("a", "b"))):
        for n in (2, 4):
            Graph(leaves=(1.0,) * n, nodes=(Node("test_vprod", tuple(range(n))),))
        for n in (1, 3):
            with pytest.raises(ValueError, match="wrong number of operands"):
                Graph(leaves=(1.0,) * n, nodes=(Node("test_vprod", tuple(range(n))),))


# ---------------------------------------------------------------------- what an engine supports
class Arcs:
    """An engine with ``asin`` (refused outside [-1, 1]) and ``+`` only."""

    def __init__(self, data):
        self.data, self.grad = data, 0.0

    def __add__(self, other):
        return Arcs(self.data + other.data)

    def asin(self):
        return Arcs(math.asin(self.data))

    def backward(self):
        self.grad = 1.0


def _asin(probe: tuple[float, ...] = ()) -> OpSpec:
    return OpSpec(
        name="test_asin", arity=1, call=Call("asin"), sym=lambda s, c: sympy.asin(s[0]),
        num=lambda x, c: math.asin(x[0]), source=lambda n, c: f"{n[0]}.asin()", probe=probe,
    )  # fmt: skip


def test_an_op_is_tried_where_its_row_says():
    eng = Engine(Arcs, name="arcs")
    assert supported(eng, OPS["add"]) and not supported(eng, OPS["mul"])
    assert not supported(eng, _asin())  # tried at 1.5, which asin refuses
    assert supported(eng, _asin(probe=(-0.6,)))


def test_the_usable_constants_are_those_the_engine_takes():
    eng = resolve_engine(refuses_int_constants.Value)
    assert usable_consts(eng, OPS["mulc"]) == (Fraction(-1, 2), 0.5, 1.5)
    assert usable_consts(resolve_engine(autograd), OPS["mulc"]) == OPS["mulc"].consts


def test_a_fused_function_the_engine_lacks_is_unsupported_and_one_it_has_is_tried_on_the_rows_count():
    assert not supported(resolve_engine(refuses_int_constants.Value), OPS["dot"])
    assert supported(resolve_engine(autograd), OPS["dot"])  # dot([w], [x], b): three operands
