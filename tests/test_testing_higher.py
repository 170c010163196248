"""The second-order checker checks itself: every oracle must catch a slightly wrong graph-mode rule.

A wrong engine here is a fresh copy of ``autograd/engine.py`` in which the
graph-mode twin of ONE rule (the rule ``backward(create_graph=True)`` runs)
sends shares whose *second-order part* is multiplied by ``factor``: the share
``g * p(v)`` becomes ``g * p(v) + (factor - 1) * g.data * (p(v) - p(v).data)``.
Its value is unchanged, so the first-order gradient (and every first-order
oracle) is still right; only d(share)/dv, the term ``g * p'(v)``, is scaled.
``factor = 0`` is the classic bug of a rule that multiplies by ``.data``, a
constant, instead of the Value, so that the second-derivative term vanishes.
"""

import io
import subprocess
import sys
from contextlib import redirect_stdout
from fractions import Fraction
from pathlib import Path
from types import ModuleType

import pytest
import sympy

import autograd
import autograd.engine
from autograd.testing import (
    GradientMismatch,
    Graph,
    Node,
    assert_hessian_exact,
    assert_hessian_fd,
    assert_hessian_symbolic,
    assert_third_exact,
    check_second_order,
    gradgradcheck,
    supports_higher_order,
)
from autograd.testing.ops import OPS
from autograd.testing.oracles import EPS
from autograd.testing.oracles.higher import engine_derivatives, hessian_tolerances, snippet
from tests.graph_mode_engines import (
    EXACT_GRAPHS,
    FLOAT_GRAPHS,
    HAND_GRAPH,
    SECOND_ORDER_OPS,
    first_order_graph_mode_wrong,
    wrong_graph_engine,
)
from tests.wrong_engines import TINY


def _has_second_partials(op: str) -> bool:
    n = {"vsum": 3, "dot": 5}.get(op, OPS[op].arity)
    symbols = sympy.symbols(f"a0:{n}", real=True)
    const = OPS[op].consts[0] if OPS[op].consts else None
    if op == "powc":
        const = 3
    expr = OPS[op].sym(symbols, const)
    return any(sympy.diff(expr, s, t) != 0 for s in symbols for t in symbols)


def test_every_op_with_a_second_derivative_has_a_graph_here():
    assert set(SECOND_ORDER_OPS) == {op for op in OPS if _has_second_partials(op)}
    closed = {op for op in FLOAT_GRAPHS if any(OPS[op].rational(c) for c in OPS[op].consts or (None,))}
    assert set(EXACT_GRAPHS) == closed
    assert all(graph.rational for graph in EXACT_GRAPHS.values())


# (oracle, its graphs, the smallest error it must catch): exact and symbolic see 1e-9, FD 1e-4
ORACLES = {
    "exact": (assert_hessian_exact, EXACT_GRAPHS, TINY),
    "symbolic": (assert_hessian_symbolic, FLOAT_GRAPHS, 1 + 1e-9),
    "fd": (assert_hessian_fd, FLOAT_GRAPHS, 1 + 1e-4),
}


@pytest.mark.parametrize(
    ("oracle", "op"), [(name, op) for name, (_, graphs, _) in ORACLES.items() for op in sorted(graphs)]
)
def test_oracle_passes_the_engine_and_catches_a_slightly_wrong_or_vanished_second_order_term(oracle, op):
    check, graphs, off = ORACLES[oracle]
    graph = graphs[op]
    check(graph, autograd)
    check(graph, wrong_graph_engine(op, 1))  # the copy itself is faithful
    for factor in (off, 0):
        with pytest.raises(GradientMismatch):
            check(graph, wrong_graph_engine(op, factor))


@pytest.mark.parametrize("op", ["mul", "powc", "div"])
def test_third_order_oracle_catches_a_second_order_term_off_by_1e_9(op):
    # x0 * (op of the leaves): its third derivatives go through the op's second-order term
    base = EXACT_GRAPHS[op]
    n = len(base.leaves)
    graph = Graph(base.leaves, (*base.nodes, Node("mul", (n, 0)), Node("mul", (n + 1, 0))))
    assert_third_exact(graph, autograd)
    with pytest.raises(GradientMismatch):
        assert_third_exact(graph, wrong_graph_engine(op, TINY))


def test_the_wrong_engines_first_order_gradients_are_still_right():
    # so that what the second-order oracles catch is the graph-mode term alone
    from autograd.testing import assert_grads_exact, assert_grads_symbolic

    assert_grads_exact(EXACT_GRAPHS["mul"], wrong_graph_engine("mul", 0))
    assert_grads_symbolic(FLOAT_GRAPHS["tanh"], wrong_graph_engine("tanh", 0))
    engine = wrong_graph_engine("tanh", 0)
    x = engine.Value(0.7)
    y = x.tanh()
    y.backward(create_graph=True)
    assert x.grad.data == 1 - y.data * y.data


# ---------------------------------------------------------------------- by hand
def hand_function(x, y):
    return x * x * x * y + y / x


def hand_hessian(x, y):
    """d2/dx2 = 6xy + 2y/x^3, d2/dxdy = 3x^2 - 1/x^2, d2/dy2 = 0."""
    cross = 3 * x * x - 1 / (x * x)
    return [[6 * x * y + 2 * y / x**3, cross], [cross, 0]]


def test_the_hessian_of_a_hand_computed_function_equals_hand_calculus_exactly():
    x, y = HAND_GRAPH.leaves
    want = hand_hessian(x, y)
    got = engine_derivatives(HAND_GRAPH, autograd, 2)
    assert [[got[(i, j)] for j in range(2)] for i in range(2)] == want
    report = assert_hessian_exact(HAND_GRAPH)  # sympy agrees with the hand result too
    assert [r.oracle for r in report.rows] == [want[0][0], want[0][1], want[1][0], want[1][1]]


def test_third_derivatives_of_a_hand_computed_function():
    # f = x^3 y + y/x: d3/dx3 = 6y - 6y/x^4, d3/dx2dy = 6x + 2/x^3, d3/dxdy2 = 0, d3/dy3 = 0
    x, y = HAND_GRAPH.leaves
    xxx, xxy = 6 * y - 6 * y / x**4, 6 * x + 2 / x**3
    got = engine_derivatives(HAND_GRAPH, autograd, 3)
    want = {(0, 0, 0): xxx, (0, 0, 1): xxy, (0, 1, 0): xxy, (1, 0, 0): xxy}
    assert got == {idx: want.get(idx, 0) for idx in got}
    assert len(got) == 8
    assert assert_third_exact(HAND_GRAPH).ok


def test_gradgradcheck_matches_hand_calculus_and_reports_one_row_per_entry():
    report = gradgradcheck(hand_function, [0.5, -0.75])
    assert report.ok
    assert [r.name for r in report.rows] == ["x0,x0", "x0,x1", "x1,x0", "x1,x1"]
    want = [v for row in hand_hessian(0.5, -0.75) for v in row]
    assert [r.engine for r in report.rows] == pytest.approx(want, rel=1e-14, abs=1e-14)
    assert [r.oracle for r in report.rows] == pytest.approx(want, rel=1e-8, abs=1e-8)
    text = str(report)
    assert text.startswith("gradgradcheck of hand_function (central differences of the gradient")
    assert ": ok" in text and "x0,x1" in text and "engine" in text and "oracle" in text


def test_gradgradcheck_catches_a_wrong_graph_mode_rule_in_the_entries_it_affects():
    engine = wrong_graph_engine("tanh", 1 + 1e-4)
    with pytest.raises(GradientMismatch) as info:
        gradgradcheck(lambda x, y: y.tanh() * x, [0.3, -1.2], engine=engine)
    assert [r.ok for r in info.value.report.rows] == [True, True, True, False]  # only d2/dy2 has tanh''
    message = str(info.value)
    assert "MISMATCH" in message and "<-- differs" in message


def test_gradgradcheck_raise_exception_false_returns_the_failing_report():
    report = gradgradcheck(lambda x: x.sigmoid(), [0.5], engine=wrong_graph_engine("sigmoid", 0),
                           raise_exception=False)  # fmt: skip
    assert not report.ok
    (row,) = report.rows
    assert row.engine == 0 or abs(row.engine) < 1e-17  # the sigmoid'' term vanished...
    assert row.oracle == pytest.approx(-0.0575, abs=1e-4)  # ...where s(1-s)(1-2s) at 0.5 is not 0


def test_gradgradcheck_refuses_an_engine_without_higher_order():
    from micrograd import engine as micrograd_engine

    assert not supports_higher_order(micrograd_engine)
    with pytest.raises(TypeError, match=r"gradgradcheck: the engine micrograd\.engine has no backward\("):
        gradgradcheck(lambda x: x * x, [1.0], engine=micrograd_engine)
    with pytest.raises(NotImplementedError, match=r"check_second_order: the engine micrograd\.engine"):
        check_second_order(micrograd_engine, FLOAT_GRAPHS["mul"])


def test_supports_higher_order_says_yes_for_ours():
    assert supports_higher_order(autograd)
    assert supports_higher_order(autograd.Value)


def test_check_second_order_uses_the_exact_oracle_on_rational_graphs_and_the_symbolic_one_on_floats():
    check_second_order(autograd, EXACT_GRAPHS["div"])
    check_second_order(autograd, FLOAT_GRAPHS["tanh"])
    with pytest.raises(GradientMismatch, match="exact order-2 oracle"):
        check_second_order(wrong_graph_engine("div", TINY), EXACT_GRAPHS["div"])
    with pytest.raises(GradientMismatch, match="symbolic order-2 oracle"):
        check_second_order(wrong_graph_engine("tanh", 1 + 1e-9), FLOAT_GRAPHS["tanh"])


# ---------------------------------------------------------------------- messages and tolerances
def test_mismatch_message_shows_every_entry_the_expression_and_a_runnable_snippet():
    with pytest.raises(GradientMismatch) as info:
        assert_hessian_symbolic(FLOAT_GRAPHS["mul"], wrong_graph_engine("mul", 0))
    message = str(info.value)
    for text in ("x0,x0", "x0,x1", "x1,x0", "x1,x1", "abs err", "x0*x1", "n2 = x0 * x1",
                 "backward(create_graph=True)", "graph description: Graph("):  # fmt: skip
        assert text in message
    assert [r.ok for r in info.value.report.rows] == [True, False, False, True]  # the cross terms vanished
    assert [r.oracle for r in info.value.report.rows] == [0, 1, 1, 0]


def test_the_snippet_prints_the_engines_hessian_rows():
    out = io.StringIO()
    with redirect_stdout(out):
        exec(snippet(HAND_GRAPH, "autograd", 2), {})
    x, y = HAND_GRAPH.leaves
    assert out.getvalue().splitlines() == [str(row) for row in hand_hessian(x, y)]


def test_the_third_order_snippet_runs_on_its_own():
    code = snippet(HAND_GRAPH, "autograd", 3)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          cwd=Path(autograd.__file__).parent.parent)  # fmt: skip
    rows = done.stdout.splitlines()
    assert len(rows) == 4
    x, y = HAND_GRAPH.leaves
    assert rows[0] == str([6 * y - 6 * y / x**4, 6 * x + 2 / x**3])


def test_exact_oracles_refuse_a_float_graph_by_name():
    with pytest.raises(ValueError, match="assert_hessian_exact: needs rational ops on Fraction leaves"):
        assert_hessian_exact(FLOAT_GRAPHS["tanh"])
    with pytest.raises(ValueError, match="assert_third_exact: needs rational ops"):
        assert_third_exact(FLOAT_GRAPHS["mul"])


def test_symbolic_tolerance_is_the_documented_one_for_a_single_product():
    # d2(x0 x1): M = 1 on the cross entries, paths 1, w2 = 2 + 2 + 4 = 8 ulps; the output's own
    # rounding moves no second derivative (nothing consumes it); plus the underflow term
    tiny = 2.0**-1074
    tols = hessian_tolerances(FLOAT_GRAPHS["mul"])
    assert tols == [[16 * tiny, 16 * EPS * 8 + 16 * tiny * 9], [16 * EPS * 8 + 16 * tiny * 9, 16 * tiny]]


def test_symbolic_tolerance_of_a_square_of_a_square_is_the_documented_sum():
    # y = v * v with v = x * x, at x = 0.7 (all by hand, see the module doc of oracles.hessian_bound):
    # path sums T_v = 2|x|, TW_v = 2|x| * 4; A_v = 2|v|, AW_v = 2|v| * 4; w2 = 8 for both products.
    # W: node y contributes 2 * (8 T_v^2 + 2 T_v TW_v), node v 2 * (AW_v + A_v * 8).
    # S: v's rounding (|v| ulps) moves H = 12 x^2 through y's adjoint 2v: |v| * 4.
    x = 0.7
    v = x * x
    t_v, tw_v, a_v, aw_v = 2 * x, 2 * x * 4, 2 * v, 2 * v * 4
    bound = 2 * (8 * t_v * t_v + 2 * t_v * tw_v) + 2 * (aw_v + a_v * 8)
    sens = v * 4
    graph = Graph((x,), (Node("mul", (0, 0)), Node("mul", (1, 1))))
    ((tol,),) = hessian_tolerances(graph)
    # abs=0: pytest.approx's default absolute 1e-12 would accept any tolerance of this size (3e-13)
    assert tol == pytest.approx(16 * EPS * (bound + sens) + 16 * 2.0**-1074 * (1 + bound), rel=1e-6, abs=0)


# ---------------------------------------------------------------------- the stateful machine
def leaky_engine() -> ModuleType:
    """A copy of the engine in which create_graph, once asked for, sticks to every later backward()."""
    module = wrong_graph_engine("mul", 1)  # a faithful copy
    original = module.Value.backward
    leaked = []

    def backward(self, create_graph=False):
        leaked.append(create_graph)
        original(self, create_graph=any(leaked))

    module.Value.backward = backward
    return module


def test_the_stateful_machine_passes_the_engine_with_create_graph_steps():
    from autograd.testing.checks import run_stateful

    run_stateful(autograd, max_examples=30)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("engine", "says"),
    [(lambda: wrong_graph_engine("mul", TINY), "create_graph=True)"),
     (lambda: wrong_graph_engine("div", 0), "create_graph=True)"),
     (lambda: wrong_graph_engine("powc", TINY), "create_graph=True)"),
     (leaky_engine, "model says a number")],
    ids=["mul off by 1e-9", "div's second-order term dropped", "powc off by 1e-9", "create_graph leaks"],
)  # fmt: skip
def test_the_stateful_machine_catches_wrong_second_derivatives_and_leaking_create_graph(engine, says, alone):
    if not alone:
        return  # judged by the same test run alone (see conftest.alone): the sample is one stream
    from hypothesis import Phase

    from autograd.testing.checks import run_stateful

    with pytest.raises(AssertionError, match="stateful: node") as info:
        # 1000: the derandomized stream follows the machine's source (100, then 200, 400 and 600 missed
        # div: its rule runs only for v / w, since a number divided or dividing has a rule of its own)
        run_stateful(engine(), max_examples=1000, phases=[Phase.explicit, Phase.generate])
    assert says in str(info.value)  # the reproducer shows the create_graph step


# ---------------------------------------------------------------------- corners
def test_graph_mode_gradients_that_differ_from_the_fast_paths_are_reported():
    from autograd.testing.oracles.higher import assert_graph_mode_gradient

    assert_graph_mode_gradient(EXACT_GRAPHS["mul"])
    assert_graph_mode_gradient(FLOAT_GRAPHS["tanh"])
    with pytest.raises(AssertionError) as info:
        assert_graph_mode_gradient(EXACT_GRAPHS["mul"], first_order_graph_mode_wrong("mul", TINY))
    message = str(info.value)
    assert message.startswith(
        "graph mode: d out/dx0 is Fraction(-13000000013, 10000000000) after "
        "backward(create_graph=True) but Fraction(-13, 10) after backward()"
    )
    script = message.split("reproduce with (runnable):\n")[1].replace("wrong_mul_graph_engine", "autograd")
    out = io.StringIO()
    with redirect_stdout(out):
        exec(script, {})
    assert out.getvalue().splitlines() == [  # run on our engine, the two passes agree
        "create_graph: [Fraction(-13, 10), Fraction(7, 10)]",
        "plain:        [Fraction(-13, 10), Fraction(7, 10)]",
    ]
    with pytest.raises(AssertionError, match="graph mode: d out/dx0 is"):
        assert_graph_mode_gradient(FLOAT_GRAPHS["tanh"], first_order_graph_mode_wrong("tanh", 1 + 1e-9))


def test_second_derivatives_through_sympys_abs_and_dirac_delta():
    # (x * x) ** -0.5 is 1/|x| to sympy: its second derivative carries DiracDelta(x), 0 off the kink
    graph = Graph((0.5,), (Node("mul", (0, 0)), Node("powc", (1,), -0.5)))
    report = assert_hessian_symbolic(graph)
    assert report.rows[0].oracle == 16  # 2 / |x|**3 at 0.5


def test_fd_oracle_shrinks_its_step_away_from_a_relu_kink():
    # relu's input is 3e-6 from its kink, less than the default step: the step shrinks and
    # the estimate still sees relu(x) * x = x**2 (d2 = 2)
    graph = Graph((3e-6,), (Node("relu", (0,)), Node("mul", (1, 0))))
    (row,) = assert_hessian_fd(graph).rows
    assert row.engine == 2 and row.oracle == pytest.approx(2, rel=1e-6)


def test_the_symbolic_reference_is_exact_or_certified():
    exact_at_any_precision = Graph((0.7, -1.3), (Node("mul", (0, 1)), Node("mul", (2, 2))))
    cross = assert_hessian_symbolic(exact_at_any_precision).rows[1]
    assert cross.oracle == 4 * Fraction(0.7) * Fraction(-1.3)  # (x0 x1)**2: d2/dx0dx1 = 4 x0 x1
    # tanh''(0.7) = -2 tanh (1 - tanh**2) = -0.76723231009191655549868... (mpmath, 60 digits)
    (row,) = assert_hessian_symbolic(FLOAT_GRAPHS["tanh"]).rows
    assert float(row.oracle) == -0.7672323100919165


def test_symbolic_tolerance_ignores_nodes_that_do_not_reach_the_output():
    square_of_square = (Node("mul", (0, 0)), Node("mul", (1, 1)))
    alone = hessian_tolerances(Graph((0.7,), square_of_square))
    dangling = hessian_tolerances(Graph((0.7,), (*square_of_square, Node("exp", (2,))), output=2))
    assert dangling == alone


def test_fd_oracle_shrinks_its_step_inside_the_domain_too():
    # log(x) at 3e-6: a step of 6e-6 would leave log's domain (the float function raises there)
    graph = Graph((3e-6,), (Node("relu", (0,)), Node("log", (0,)), Node("add", (1, 2))))
    (row,) = assert_hessian_fd(graph).rows
    assert row.ok and row.engine == pytest.approx(-1 / 3e-6**2, rel=1e-12)
    assert row.oracle == pytest.approx(row.engine, rel=1e-2)  # a steep function: a looser estimate


def test_the_symbolic_reference_settles_where_the_tolerance_is_subnormal():
    # found by generation: d2/dx0dx0 of 2**x0 * x2 at x2 = 2.2e-309 has a tolerance of a few
    # subnormals, whose millionth is 0 in floats; the two precisions must be compared in mpmath
    graph = Graph((0.0, 0.0, 2.225073858507203e-309), (Node("rpow", (0,), 2), Node("mul", (3, 2))))
    report = assert_hessian_symbolic(graph)
    ln2 = 0.6931471805599453
    want = ln2 * ln2 * 2.225073858507203e-309
    assert report.ok and float(report.rows[0].oracle) == pytest.approx(want, rel=1e-15, abs=0)
