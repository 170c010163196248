"""The second-order oracles' verdict logic, pinned: the Hessian's derived tolerance term by term
on graphs worked out by hand, the reference's precision rule, and what each report says.

Like tests/test_testing_tolerances.py for the gradient: every expected number is derived here
from the formula's ingredients (the module doc of autograd.testing.oracles.hessian_bound: path sums A, AW
backward and T, TW forward, w = 2 + partial_err ulps per edge, w2 = w + 4 per second partial of
magnitude M, forward errors fwd_err through |dH/dv|), never by calling the code under test; and a
slip just outside the tolerance is caught while one just inside passes.  These tests are the
`higher` mutation target's (`.ci/mutation_gate.py --target higher`): keep them fast.
"""

import operator
from fractions import Fraction

import pytest
import sympy

import autograd
from autograd.testing import (
    GradientMismatch,
    Graph,
    Node,
    OracleInconclusive,
    assert_hessian_exact,
    assert_hessian_fd,
    assert_hessian_symbolic,
    assert_third_exact,
    check_second_order,
    gradgradcheck,
)
from autograd.testing.ops import Call, OpSpec, registered
from autograd.testing.oracles.derivatives import engine_gradient
from autograd.testing.oracles.higher import (
    assert_graph_mode_gradient,
    engine_derivatives,
    hessian_tolerances,
    snippet,
)
from tests.engines.float32 import f32
from tests.graph_mode_engines import (
    EXACT_GRAPHS,
    FLOAT_GRAPHS,
    HAND_GRAPH,
    first_order_graph_mode_wrong,
    wrong_graph_engine,
)
from tests.wrong_engines import TINY, vsum_off_engine, wrong_engine

EPS = 2.0**-52  # the derivation's constants, written out
C = 16


def near(x, rel=1e-9):
    """x within a relative error, and no absolute slack (pytest.approx's default 1e-12 would
    accept any tolerance of these sizes)."""
    return pytest.approx(x, rel=rel, abs=0)


def mul(a, b):
    return Node("mul", (a, b))


def report_of(check, *args, **kwargs):
    """The report of a check, whether it passed or raised GradientMismatch."""
    try:
        return check(*args, **kwargs)
    except GradientMismatch as mismatch:
        return mismatch.report


def message_of(check, *args, **kwargs) -> str:
    with pytest.raises(GradientMismatch) as info:
        check(*args, **kwargs)
    return str(info.value)


# ---------------------------------------------------------------------- the tolerance by hand
# x**8 as three squarings: v = x*x, u = v*v, y = u*u.  Every mul has w = 2 + 2 = 4, w2 = 8, and
# second partials M = 1 on its two cross entries (both operands the same node here).
#   backward: A_y = 1, AW_y = 0; A_u = 2|u|, AW_u = 2|u| * 4; A_v = 2|v| A_u = 4|uv|,
#             AW_v = 2|v| (AW_u + 4 A_u) = 32|uv|
#   forward:  T_x = 1, TW_x = 0; T_v = 2|x|, TW_v = 2|x| * 4; T_u = 2|v| T_v = 4|vx|,
#             TW_u = 2|v| (TW_v + 4 T_v) = 32|vx|
#   W = sum over the nodes of 2 * (AW_k T^2 + A_k (8 T^2 + 2 TW T)) with T, TW the operand's:
#       node v: 2 (32|uv| + 4|uv| * 8) = 128 x^6; node u: 2 (8|u| 4x^2 + 2|u| (32 + 32) x^2) = 320 x^6;
#       node y: 2 (8 * 16 v^2 x^2 + 2 * 32 * 4 v^2 x^2) = 768 x^6: W = 1216 x^6
#   S: H as a function of a node's value with the rest recomputed (partials of a node come from
#       its operands): H(v) = 8 v^3 + 48 v^2 x^2, dH/dv = 120 x^4, v off by |v| = x^2 ulps;
#       H(u) = 8 u v + 16 u x^2 + 32 v^2 x^2, dH/du = 24 x^2, u off by x^4; y moves nothing: 144 x^6
#       dH/dv is measured by a central difference with step h = 1e-6 (|v| <= 1): exact but for
#       the cubic's h^2 (d3H/dv3) / 6 = 8 h^2, which adds x^2 * 8e-12 (visible at small x)
# tol = C eps (1360 x^6 + 8e-12 x^2) (the underflow term C * 2**-1074 (1 + W) is below its ulp).
# H itself is 56 x^6.
def eighth_power(x, dead_first=False):
    dead = (Node("exp", (0,)),) if dead_first else ()  # computed first, used by nothing
    k = len(dead) + 1
    return Graph((x,), (*dead, mul(0, 0), mul(k, k), mul(k + 1, k + 1)))


@pytest.mark.parametrize("x", [0.75, 0.01])  # 0.01: H is 6e-11, a rounding of the sum formula shows
def test_the_hessian_tolerance_of_x_to_the_8_through_three_squarings_is_the_hand_sum(x):
    ((tol,),) = hessian_tolerances(eighth_power(x))
    assert tol == near(C * EPS * (1360 * x**6 + 8e-12 * x**2))


def test_a_node_that_reaches_nothing_computed_first_changes_no_term():
    # the dead exp comes before every live node: the sums must go on past it
    ((tol,),) = hessian_tolerances(eighth_power(0.75, dead_first=True))
    assert tol == near(C * EPS * (1360 * 0.75**6 + 8e-12 * 0.75**2))


def test_a_slip_just_outside_the_hessian_tolerance_is_caught_and_one_inside_is_not():
    # every mul's second-order term scaled by f moves H = 56 x^6 by (f - 1) H; tol / H =
    # 1360 C eps / 56; our engine's own rounding is a few eps of H (10 % of the tolerance is 39 eps)
    x = 0.75
    graph = eighth_power(x)
    relative = C * EPS * 1360 / 56
    assert assert_hessian_symbolic(graph, wrong_graph_engine("mul", 1 + 0.9 * relative)).ok
    (row,) = report_of(assert_hessian_symbolic, graph, wrong_graph_engine("mul", 1 + 1.1 * relative)).rows
    assert not row.ok
    assert row.tol == near(C * EPS * (1360 * x**6 + 8e-12 * x**2))


def test_the_tolerance_of_a_power_after_a_product_counts_its_second_partial_by_size():
    # y = v**3, v = x*x (x**6): powc has w = 2 + 3 = 5, w2 = 9, M = |6 v|; mul as above.
    #   A_v = 3 v^2, AW_v = 3 v^2 * 5; T_v = 2|x|, TW_v = 8|x|
    #   W: node v 2 (15 v^2 + 3 v^2 * 8) = 78 x^4; node y 6|v| (9 * 4 x^2 + 2 * 8 * 2 x^2) = 408 x^4
    #   S: H(v) = 3 v^2 * 2 + 6 v (2x)^2, dH/dv = 12 v + 24 x^2 = 36 x^2, v off by x^2 ulps: 36 x^4
    x = 0.75
    graph = Graph((x,), (mul(0, 0), Node("powc", (1,), 3)))
    ((tol,),) = hessian_tolerances(graph)
    assert tol == near(C * EPS * (78 + 408 + 36) * x**4)


def test_the_forward_step_is_relative_to_a_large_node():
    # y = n * n, n = x0 x1 = 2**26: W_01 = 24|n| (node n: AW_n = 8|n|, A_n = 2|n|, w2 = 8) + 32|n|
    # (node y: 2 (8 + 4 + 4) x0 x1); S_01 = |n| * 2 (H_01 = 2 n + 2 x0 x1); W_00 = 2 (8 + 8) x1^2.
    # A step of 1e-6 would vanish next to 2**26: n + h == n, and S would be 0.
    x = 8192.0
    n = x * x
    tols = hessian_tolerances(Graph((x, x), (mul(0, 1), mul(2, 2))))
    diagonal, cross = near(C * EPS * 32 * n), near(C * EPS * 58 * n)
    assert tols == [[diagonal, cross], [cross, diagonal]]


def test_the_forward_step_stays_on_one_side_of_a_nearby_kink():
    # y = r * r, r = relu(n), n = x0 * x1 = 1.5e-6 (x1 = 1): a step of 1e-6 keeps n positive.
    # W_00 = 2 (8 + 2 * (4 + 2)) T_r0^2 = 40 (relu: w = 2, exact partial); S_00 = 0 (H_00 = 2 x1^2).
    # A step of 2e-6 would cross the kink, where H_00 drops to 0: S_00 = 1.5e-6 * 2 / 4e-6 = 0.75.
    graph = Graph((1.5e-6, 1.0), (mul(0, 1), Node("relu", (2,)), mul(3, 3)))
    assert hessian_tolerances(graph)[0][0] == near(C * EPS * 40)


def test_the_tolerance_of_a_single_product_is_exact_and_a_slip_past_it_is_caught():
    # x0 * x1: H_01 = 1 with tol C eps 8 = 128 eps (W alone: one node, w2 = 8, paths 1)
    graph = FLOAT_GRAPHS["mul"]
    assert hessian_tolerances(graph)[0][1] == C * EPS * 8 + C * 2.0**-1074 * 9
    inside = report_of(assert_hessian_symbolic, graph, wrong_graph_engine("mul", 1 + 120 * EPS))
    outside = report_of(assert_hessian_symbolic, graph, wrong_graph_engine("mul", 1 + 136 * EPS))
    assert [r.ok for r in inside.rows] == [True, True, True, True]
    assert [r.ok for r in outside.rows] == [True, False, False, True]


# ---------------------------------------------------------------------- the symbolic reference
def test_the_reference_is_exact_when_every_op_maps_rationals_to_rationals():
    # (x0 / x1) ** 3 on float leaves: floats are rationals, so sympy's Hessian is exact Fractions
    x0, x1 = Fraction(0.7), Fraction(-1.3)
    graph = Graph((0.7, -1.3), (Node("div", (0, 1)), Node("powc", (2,), 3)))
    report = assert_hessian_symbolic(graph)
    cross = -9 * x0**2 / x1**4
    assert [r.oracle for r in report.rows] == [6 * x0 / x1**3, cross, cross, 12 * x0**3 / x1**5]
    assert all(type(r.oracle) is Fraction for r in report.rows)


def test_the_float_reference_is_certified_to_round_to_the_true_second_derivative():
    # tanh''(x) = -2 tanh(x) (1 - tanh(x)**2) at x = 0.7, by mpmath at 60 digits (closed form):
    # -0.76723231009191655549868262897...
    (row,) = assert_hessian_symbolic(FLOAT_GRAPHS["tanh"]).rows
    assert float(row.oracle) == -0.7672323100919165



# ---------------------------------------------------------------------- what a report says
def test_each_row_shows_the_leaf_differentiated_last_as_its_value():
    # HAND_GRAPH's leaves are 1/2 and -3/4; row "xi,xj" (",xk") shows the last leaf's value
    x, y = HAND_GRAPH.leaves
    second = assert_hessian_exact(HAND_GRAPH)
    assert [(r.name, r.value) for r in second.rows] == [
        ("x0,x0", x),
        ("x0,x1", y),
        ("x1,x0", x),
        ("x1,x1", y),
    ]
    third = assert_third_exact(HAND_GRAPH)
    assert third.title == "exact order-3 oracle (sympy's diff at the rational point, zero tolerance)"
    assert [r.name for r in third.rows][:3] == ["x0,x0,x0", "x0,x0,x1", "x0,x1,x0"]
    assert [r.value for r in third.rows] == [x, y] * 4


def test_each_oracle_titles_its_report():
    assert assert_hessian_symbolic(FLOAT_GRAPHS["tanh"]).title == (
        "symbolic order-2 oracle (sympy's diff, exact or mpmath reference, derived tolerance)"
    )
    assert assert_hessian_fd(FLOAT_GRAPHS["tanh"], rtol=1e-6, atol=1e-9).title == (
        "finite differences of the engine's gradient (central, Richardson, rtol=1e-06, atol=1e-09)"
    )


@pytest.mark.parametrize("check", [assert_hessian_exact, assert_hessian_symbolic, assert_hessian_fd])
def test_a_hessian_mismatch_reproduces_the_hessian_with_the_engine_under_test(check):
    graph = EXACT_GRAPHS["mul"] if check is assert_hessian_exact else FLOAT_GRAPHS["mul"]
    message = message_of(check, graph, wrong_graph_engine("mul", 0))
    script = message.split("reproduce with (runnable):\n")[1]
    assert "from wrong_mul_graph_engine import Value" in script
    assert "print(grads_of(gi, False))  # a row of the Hessian" in script
    assert "gij" not in script


def test_a_third_order_mismatch_reproduces_the_third_derivatives():
    base = EXACT_GRAPHS["mul"]
    graph = Graph(base.leaves, (*base.nodes, mul(2, 0), mul(3, 0)))
    message = message_of(assert_third_exact, graph, wrong_graph_engine("mul", TINY))
    assert "    for gij in grads_of(gi, True):\n        print(grads_of(gij, False))" in message
    assert "from wrong_mul_graph_engine import Value" in message


def test_the_defaults_are_second_order():
    got = engine_derivatives(HAND_GRAPH, autograd)
    assert sorted(got) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    code = snippet(HAND_GRAPH, "autograd")
    assert code.endswith("print(grads_of(gi, False))  # a row of the Hessian")


def test_the_snippet_uses_the_engine_it_is_given():
    code = snippet(HAND_GRAPH, wrong_graph_engine("mul", 1))
    assert "from wrong_mul_graph_engine import Value" in code


@pytest.mark.parametrize("check", [assert_hessian_symbolic, assert_hessian_fd])
def test_fraction_leaves_are_judged_at_the_float_point(check):
    # the float oracles judge the engine on the leaves' nearest floats, not exactly on Fractions
    report = check(EXACT_GRAPHS["div"])
    assert all(type(r.value) is float for r in report.rows)
    assert all(type(r.engine) is float for r in report.rows[1:])  # d2/dx0^2 is the integer 0
    x0, x1 = 0.7, -1.3
    assert report.rows[3].engine == 2 * x0 / x1**3  # d2 (x0 / x1) / dx1^2, as the engine rounds it


# ---------------------------------------------------------------------- finite differences
def plain_mul_off(factor) -> object:
    """A copy whose plain backward() rule for mul scales its shares by ``factor`` (its graph-mode
    twin is the original): its gradient is off, and so is its Hessian, whose last pass is plain."""
    module = wrong_engine("mul", factor)
    scaled = module._mul_back
    name = module._RULE_NAMES[scaled]
    module._GRAPH_RULES[scaled] = next(
        t for r, t in module._GRAPH_RULES.items() if module._RULE_NAMES[r] == name
    )
    return module


def test_the_fd_oracle_differences_the_engines_own_gradient():
    # the copy's d(x0 x1)/dx0 is 1.001 x1, and its Hessian's cross entry 1.001: consistent with its
    # own gradient, which is all this oracle judges (the first-order oracles catch the rule)
    engine = plain_mul_off(1.001)
    assert engine_derivatives(FLOAT_GRAPHS["mul"], engine)[(0, 1)] == 1.001
    report = assert_hessian_fd(FLOAT_GRAPHS["mul"], engine)
    assert report.rows[1].oracle == near(1.001, rel=1e-9)


def test_the_fd_oracle_allows_for_the_differenced_gradients_own_error():
    # y = x0^2 + x0 x1 + x0 x2 with x1 = -x2 = 1e6: the engine accumulates d/dx0 = 2 x0 + x1 + x2
    # from shares of 1e6, so the gradient is off by about 1e-10 (its tolerance from the first-order
    # oracle), not by an ulp of 1.4; differenced over h = 6e-6, that is far above the rounding
    # term 4 eps |g| / h, and only the gradient's bound 2 tol_0 / h admits it
    graph = Graph((0.7, 1e6, -1e6), (mul(0, 0), mul(0, 1), mul(0, 2), Node("vsum", (3, 4, 5))))
    values = graph.build(autograd)
    values[graph.out].backward()
    assert abs(values[0].grad - 1.4) > 1e-11  # the accumulation error
    assert assert_hessian_fd(graph).ok


def test_the_fd_oracle_allows_the_engines_hessian_its_own_bound_and_no_more():
    # x0 * x0 at 0, rtol = atol = 0: the gradient 2 x0 is exact and linear, so the estimate is 2
    # exactly (spread 0) and its rounding term is 4 eps max|g| / h = 4 eps * 4h / h = 16 eps; the
    # gradient's bound is 0 (its partial x0 is 0) but for subnormals; the Hessian's own bound is
    # C eps W = 16 eps * 2 * 8 = 256 eps (one mul, w2 = 8, M = 1 on both cross entries).  An engine
    # whose second-order term is off by k eps is off by 2k eps: allowed while 2k <= 272.
    graph = Graph((0.0,), (mul(0, 0),))
    (inside,) = assert_hessian_fd(graph, wrong_graph_engine("mul", 1 + 130 * EPS), rtol=0, atol=0).rows
    assert inside.engine == 2 + 260 * EPS and inside.oracle == 2 and inside.tol == near(272 * EPS)
    (outside,) = report_of(
        assert_hessian_fd, graph, wrong_graph_engine("mul", 1 + 140 * EPS), rtol=0, atol=0
    ).rows
    assert not outside.ok


def test_a_relu_whose_input_no_step_moves_does_not_stop_the_fd_oracle():
    # relu(x1 - x1) is relu(0) wherever the step goes: no step crosses its kink
    graph = Graph((0.7, 0.5), (Node("sub", (1, 1)), Node("relu", (2,)), mul(0, 0), Node("add", (4, 3))))
    report = assert_hessian_fd(graph)
    assert [r.engine for r in report.rows] == [2, 0, 0, 0]


# ---------------------------------------------------------------------- gradgradcheck
class Square:
    """A callable without a __name__."""

    def __call__(self, x):
        return x * x


def test_gradgradcheck_calls_a_function_without_a_name_f():
    report = gradgradcheck(Square(), [0.5])
    assert report.title.startswith("gradgradcheck of f (central differences of the gradient")


# ---------------------------------------------------------------------- graph mode, first order
PRODUCT = Graph((0.75, -1.25), (mul(0, 1),))  # tol_0 = 64 eps |x1|, tol_1 = 64 eps |x0| (tolerances)


def test_graph_mode_allows_twice_the_first_order_tolerance_and_no_more():
    # the graph-mode gradient is the plain one times f = 1 + k eps: off by 1.25 k eps in x0
    # (allowed 2 * 64 * 1.25 eps = 160 eps) and 0.75 k eps in x1 (allowed 96 eps)
    assert_graph_mode_gradient(PRODUCT, first_order_graph_mode_wrong("mul", 1 + 120 * EPS))
    with pytest.raises(AssertionError) as info:
        assert_graph_mode_gradient(PRODUCT, first_order_graph_mode_wrong("mul", 1 + 136 * EPS))
    message = str(info.value)
    assert message.startswith("graph mode: d out/dx0 is ")
    assert f"(allowed difference {160 * EPS:.3g})" in message
    assert "from wrong_mul_graph_engine import Value" in message


def test_graph_mode_on_a_rational_graph_demands_equality():
    off = Fraction(1) + Fraction(1, 10**20)  # far below any float tolerance
    with pytest.raises(AssertionError, match="graph mode: d out/dx0 is Fraction"):
        assert_graph_mode_gradient(EXACT_GRAPHS["mul"], first_order_graph_mode_wrong("mul", off))


def test_graph_mode_compares_the_engine_with_itself():
    # an engine whose vsum value is off by 1e-3 gives that wrong d/dx2 in both passes: consistent
    graph = Graph((0.7, -1.3, 1.5), (Node("vsum", (0, 1)), mul(3, 2)))
    assert_graph_mode_gradient(graph, vsum_off_engine(1e-3))


# ---------------------------------------------------------------------- underflow (a false alarm, fixed)
@pytest.mark.parametrize("a", [1.7e-160, 1.9e-160])
def test_a_sum_of_subnormal_products_in_a_hessian_entry_is_no_mismatch(a):
    # d2/dx0dx1 of x0 x1 * vsum(p, ..., p) (64 times p = a * a, about 3e-320) is that sum: each p
    # is rounded to the subnormal grid, off by up to 2**-1075, so our engine's entry is off by up to
    # 32 * 2**-1074, while the tolerance counted no underflow of a node's value (16 * 2**-1074 in
    # all): a false alarm on a correct engine.  A node may now also be off by 2**-1074 (as at
    # first order), which moves this entry 64-fold.
    graph = Graph((1.0, 1.0, a), (mul(2, 2), Node("vsum", (3,) * 64), mul(0, 1), mul(5, 4)))
    report = assert_hessian_symbolic(graph)
    assert report.rows[1].engine == 64 * (a * a)
    assert report.rows[1].tol >= C * 64 * 2.0**-1074


# ---------------------------------------------------------------------- derivatives already read
# x0 * x1 on Fraction leaves and on their floats: its Hessian is [[0, 1], [1, 0]]
EXACT_PRODUCT = Graph((Fraction(1, 2), Fraction(-3, 4)), (mul(0, 1),))
FLOAT_PRODUCT = EXACT_PRODUCT.with_leaves([0.5, -0.75])
RIGHT = {(0, 0): 0, (0, 1): 1, (1, 0): 1, (1, 1): 0}
CROSS_TWICE = {(0, 0): 0, (0, 1): 2, (1, 0): 1, (1, 1): 0}  # d2/dx0dx1 read as 2


def test_the_engines_gradient_is_read_from_the_engine_given():
    # a copy whose mul sends twice its shares: d(x0 x1) = (2 x1, 2 x0) = (-1.5, 1)
    assert engine_gradient(FLOAT_PRODUCT, wrong_engine("mul", 2)) == [-1.5, 1.0]
    assert engine_gradient(FLOAT_PRODUCT, autograd) == [-0.75, 0.5]


@pytest.mark.parametrize(
    ("check", "graph", "title"),
    [
        (assert_hessian_exact, EXACT_PRODUCT, "exact order-2"),
        (assert_hessian_symbolic, FLOAT_PRODUCT, "symbolic order-2"),
        (assert_hessian_fd, FLOAT_PRODUCT, "finite differences of the reference gradient"),
    ],
)
def test_derivatives_already_read_are_the_ones_judged(check, graph, title):
    # the engine (ours) is right; the Hessian handed over is not, and it is the one judged
    report = report_of(check, graph, autograd, derivatives=CROSS_TWICE)
    assert report.title.startswith(title)
    assert [(r.name, r.engine, r.ok) for r in report.rows] == [
        ("x0,x0", 0, True),
        ("x0,x1", 2, False),
        ("x1,x0", 1, True),
        ("x1,x1", 0, True),
    ]


@pytest.mark.parametrize("graph", [EXACT_PRODUCT, FLOAT_PRODUCT])
def test_check_second_order_judges_the_derivatives_it_is_given(graph):
    oracle = "exact order-2" if graph is EXACT_PRODUCT else "symbolic order-2"
    with pytest.raises(GradientMismatch, match=oracle):
        check_second_order(autograd, graph, derivatives=CROSS_TWICE)
    check_second_order(autograd, graph, derivatives=RIGHT)


def test_the_fd_oracle_differences_the_reference_gradient_when_given_the_derivatives():
    # d/dx0 (x0 x1) = x1 and d/dx1 = x0, by the reference at each step: linear, so Richardson's
    # estimate is the exact partial but for rounding (the step is about 6e-6)
    report = assert_hessian_fd(FLOAT_PRODUCT, autograd, rtol=1e-6, atol=1e-9, derivatives=RIGHT)
    assert report.title == (
        "finite differences of the reference gradient (central, Richardson, rtol=1e-06, atol=1e-09)"
    )
    assert [r.oracle for r in report.rows] == [0, near(1, rel=1e-9), near(1, rel=1e-9), 0]


def test_a_partial_with_no_value_at_the_leaves_is_inconclusive():
    # d2 (x0 / x1) / dx1^2 = 2 x0 / x1**3 at x1 = 0: no number (the engine is not run: derivatives given)
    graph = Graph((Fraction(1), Fraction(0)), (Node("div", (0, 1)),))
    with pytest.raises(OracleInconclusive) as info:
        assert_hessian_exact(graph, autograd, derivatives={(0, 0): 0, (0, 1): 0, (1, 0): 0, (1, 1): 0})
    assert str(info.value) == "symbolic order-2 oracle: a partial is not a finite real number at the leaves"


def test_second_partials_that_no_precision_settles_are_inconclusive():
    # x**2 (sin(x)**2 + cos(x)**2 - 1) * 2**10000 is exactly 0 (an op that maps rationals to
    # rationals), but sympy keeps it: its second derivative 2 (sin**2 + cos**2 - 1) 2**10000 is an
    # interval about 0 some 2**1800 wide at 8192 bits still, so no float is certain
    s = sympy.Symbol("s", real=True)
    hidden_zero = s**2 * (sympy.sin(s) ** 2 + sympy.cos(s) ** 2 - 1) * 2**10000
    spec = OpSpec(
        "test_hidden_zero_square", 1, Call(operator.mul, ("v0",), numbers=(0,)),
        lambda a, c: hidden_zero.subs(s, a[0]), lambda x, c: x[0] * 0, lambda n, c: f"{n[0]} * 0",
        form="v * 0", rational=lambda c: True,
    )  # fmt: skip
    with registered(spec):
        graph = Graph((Fraction(1, 2),), (Node("test_hidden_zero_square", (0,)),))
        with pytest.raises(OracleInconclusive) as info:
            assert_hessian_exact(graph)
    assert str(info.value) == (
        "symbolic order-2 oracle: sympy's partials: "
        "the reference did not settle: the intervals are still wide at 8192 bits"
    )


def test_a_dead_op_that_is_not_rational_makes_the_reference_certified_not_exact():
    # x**8 with an exp computed first and used by nothing: every op but the exp maps rationals to
    # rationals; with it, the reference is an mpmath number certified to round to 56 x**6, not a Fraction
    (alive,) = assert_hessian_symbolic(eighth_power(0.75)).rows
    (dead,) = assert_hessian_symbolic(eighth_power(0.75, dead_first=True)).rows
    assert type(alive.oracle) is Fraction and alive.oracle == 56 * Fraction(0.75) ** 6
    assert type(dead.oracle) is not Fraction and float(dead.oracle) == 56 * 0.75**6


# ---------------------------------------------------------------------- a float32 engine
class F32:
    """A float32 engine with ``backward(create_graph=True)`` (+ - * and relu): every number it
    holds is rounded to float32; under create_graph each share is a Value, scaled by ``1 + slip``."""

    slip = 0.0

    def __init__(self, data, parents=(), partials=()):
        self.data = f32(data)
        self.grad = 0
        self.parents, self.partials = parents, partials

    def lift(self, x):
        return x if isinstance(x, F32) else type(self)(x)

    def __add__(self, other):
        other = self.lift(other)
        return type(self)(self.data + other.data, (self, other), (1, 1))

    __radd__ = __add__

    def __sub__(self, other):
        other = self.lift(other)
        return type(self)(self.data - other.data, (self, other), (1, -1))

    def __mul__(self, other):
        other = self.lift(other)
        return type(self)(self.data * other.data, (self, other), (other, self))

    __rmul__ = __mul__

    def relu(self):
        return type(self)(max(self.data, 0.0), (self,), (float(self.data > 0),))

    def backward(self, create_graph=False):
        order, seen = [], set()

        def visit(v):
            if id(v) not in seen:
                seen.add(id(v))
                for p in v.parents:
                    visit(p)
                order.append(v)

        visit(self)
        for v in order:
            if v.parents:
                v.grad = 0
        self.grad = type(self)(1) if create_graph else 1
        for v in reversed(order):
            for p, d in zip(v.parents, v.partials, strict=True):
                if create_graph:
                    p.grad = p.grad + v.grad * d * (1 + self.slip)
                else:
                    p.grad = f32(p.grad + f32(v.grad * (d.data if isinstance(d, F32) else d)))


class F32GraphModeSlip(F32):
    slip = 2.0**-20


PRODUCT32 = Graph((0.75, -1.25), (mul(0, 1),))  # float32 numbers: the leaves are not rounded


def test_the_fd_oracle_allows_a_float32_engine_its_gradients_rounding():
    # the engine's own gradient d/dx0 = x1 is differenced along x1: it holds x1 +- h rounded to
    # float32 (by up to 2**-24 * 1.25 each), so the estimate is off by up to some 1e-2 over a step
    # of 7.6e-6, far beyond a double's bound, within the float32 gradient's (2 * 100 eps32 / h)
    report = assert_hessian_fd(PRODUCT32, F32, rtol=0, atol=0)
    assert [r.engine for r in report.rows] == [0, 1, 1, 0]
    assert abs(report.rows[1].oracle - 1) > 1e-4  # the float32 rounding shows in the estimate
    assert report.ok


def test_the_symbolic_oracle_uses_the_engines_precision_near_a_kink():
    # relu(x0 - x1) at 0.1, 0.1 + 1e-9: a float32 engine rounds each leaf by up to 0.1 * 2**-24,
    # which can flip the sign of -1e-9 (a double engine's cannot)
    graph = Graph((0.1, 0.1 + 1e-9), (Node("sub", (0, 1)), Node("relu", (2,)), mul(3, 3)))
    assert assert_hessian_symbolic(graph, autograd).ok
    with pytest.raises(OracleInconclusive, match=r"forward error bound 3\.81e-07: too close to the kink"):
        assert_hessian_symbolic(graph, F32)


def test_graph_mode_allows_a_float32_engine_its_precisions_difference():
    # graph mode's d/dx0 = x1 (1 + 2**-20): off by 1.25 * 2**-20 = 10 eps32, inside twice the
    # float32 tolerance 100 eps32 (PRODUCT above, in float32), far outside the double one (160 eps)
    assert_graph_mode_gradient(PRODUCT32, F32GraphModeSlip)
    with pytest.raises(AssertionError, match="graph mode: d out/dx0 is "):
        assert_graph_mode_gradient(PRODUCT32, first_order_graph_mode_wrong("mul", 1 + 2.0**-20))


def test_a_hessian_tolerance_past_the_float_range_is_inconclusive_not_a_pass():
    # x0 x1 x2 + x0 x1 x3 at (1, 1, 1e307, -1e307): d2/dx0 dx1 = x2 + x3 = 0, but the bound on the
    # rounding of that entry sums |x2| + |x3| scaled, past the largest float: no tolerance can be
    # derived there, so no Hessian may pass, the wrong one below (5 for 0) least of all
    graph = Graph((1.0, 1.0, 1e307, -1e307), (mul(0, 1), mul(4, 2), mul(4, 3), Node("add", (5, 6))))
    right = {(i, j): 0.0 for i in range(4) for j in range(4)}
    for i, j in ((0, 2), (0, 3), (1, 2), (1, 3)):
        right[i, j] = right[j, i] = 1.0
    wrong = {**right, (0, 1): 5.0, (1, 0): 5.0}
    for derivatives in (right, wrong):
        with pytest.raises(OracleInconclusive, match="Hessian tolerance leaves the float range"):
            assert_hessian_symbolic(graph, autograd, derivatives=derivatives)
