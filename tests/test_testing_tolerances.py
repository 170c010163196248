"""The oracles' tolerances, term by term (see the derivation in autograd/testing/oracles/symbolic.py).

Each term is pinned two ways, on small graphs whose numbers are worked out by hand
here (never by calling the code under test for the expected value):

* NEEDED: a correct engine's real error on a graph that only this term covers is
  above what the other terms allow, and below the full tolerance: drop or shrink
  the term and a correct engine is rejected;
* BOUNDED: the tolerance is pinned to its hand-derived value, and a slip just
  outside it (a rule off by a factor chosen just above the bound) is rejected
  while one just inside passes: inflate the term and a wrong engine passes.

The same for finite differences: the step, its kink-avoiding shrink, Richardson's
extrapolation and each term of ``|D(h) - D(2h)| + 4 eps F / h + rtol |numeric| + atol``.
These tests are the oracle mutation run's (`.ci/mutation_gate.py --target oracles`):
keep them fast.
"""

import functools
import math
import re
from fractions import Fraction

import mpmath
import pytest

import autograd
from autograd.testing import (
    GradcheckReport,
    GradientMismatch,
    Graph,
    Node,
    OracleInconclusive,
    assert_grads_exact,
    assert_grads_fd,
    assert_grads_symbolic,
    gradcheck,
)
from autograd.testing.engines import Engine, resolve_engine
from autograd.testing.ops import OPS
from autograd.testing.oracles import LeafComparison, symbolic_tolerances
from autograd.testing.oracles.fd import _central, _fd_row
from tests.wrong_engines import vsum_off_engine, wrong_engine

EPS = 2.0**-52  # the derivation's constants, written out: the tests pin them too
TINY = 2.0**-1074
C = 16
H0 = EPS ** (1 / 3)  # the finite-difference step at |x| <= 1


def near(x, rel=1e-12):
    """x within a relative error (pytest.approx alone would also accept anything within 1e-12)."""
    return pytest.approx(x, rel=rel, abs=0)


def mul(a, b):
    return Node("mul", (a, b))


def verdicts(graph, engine):
    """Per-leaf ok of the symbolic oracle, whether or not it raised."""
    try:
        report = assert_grads_symbolic(graph, engine)
    except GradientMismatch as mismatch:
        report = mismatch.report
    return [row.ok for row in report.rows]


def engine_error(graph, j):
    """|our engine's gradient - the exact one| for leaf j, in exact rationals (graph of + - *)."""
    values = graph.build(autograd)
    values[graph.out].backward()
    exact = graph.with_leaves([Fraction(x) for x in graph.leaves]).build(autograd)
    exact[graph.out].backward()
    return abs(Fraction(values[j].grad) - exact[j].grad)


# ---------------------------------------------------------------------- symbolic: W, backward rounding
A, B = 0.75, -1.25  # few bits: sums and products of them round to nothing
PRODUCT = Graph((A, B), (mul(0, 1),))  # x0 * x1: one edge per leaf, nothing forward can move


def test_w_of_one_product_is_the_partial_times_rounded_product_accumulation_and_partial():
    # W_0 = |d out/d x0| * (2 + partial_err(mul) = 2) = 4 |x1|; no forward term (the partial x1 is a leaf)
    tols, forward = symbolic_tolerances(PRODUCT)
    assert tols == [near(C * EPS * 4 * abs(B), rel=1e-12), near(C * EPS * 4 * A, rel=1e-12)]
    # forward: the product's own rounding, |v| * |d out / d v| = |x0 x1| * 1
    assert forward == near(C * EPS * abs(A * B), rel=1e-12)


def test_w_is_bounded_a_product_rule_off_by_72_eps_is_caught_and_56_eps_is_not():
    # tol_j = 64 eps |g_j|: the engine's g_j = x1 * factor, off by (factor - 1) |g_j| (+ 1/2 ulp)
    assert verdicts(PRODUCT, wrong_engine("mul", 1 + 56 * EPS)) == [True, True]
    assert verdicts(PRODUCT, wrong_engine("mul", 1 + 72 * EPS)) == [False, False]


def test_w_is_needed_by_an_engine_that_rounds_its_backward_products_the_other_way():
    # The model lets an engine's mul rule be off by 4 eps (its partial, the product, the
    # accumulation).  PRODUCT's reference sweep is exact (R = 0) and nothing moves its
    # gradients (S = 0), so only W admits such an engine: without it, tol = C * TINY * (1 + U).
    engine = wrong_engine("mul", 1 + 4 * EPS)
    assert verdicts(PRODUCT, engine) == [True, True]
    w = C * EPS * 4 * abs(B)
    assert symbolic_tolerances(PRODUCT)[0][0] - w < 4 * EPS * abs(B) <= w


def test_our_engines_rounded_backward_product_is_covered():
    # x0 * x1 * x2: the engine rounds d/dx0 = x1 * x2, the exact one is not rounded; W bounds it,
    # and the reference sweep, which rounds the same product, adds its measured error R = 16 |err|
    graph = Graph((0.7, -1.3, 1.1), (mul(0, 1), mul(3, 2)))
    error = engine_error(graph, 0)
    assert error > 0
    tol = symbolic_tolerances(graph)[0][0]
    w = C * EPS * abs(-1.3 * 1.1) * (4 + 4)  # one path, two edges: |x1 x2| * (4 + 4)
    assert tol == near(w + C * float(error), rel=1e-9)
    assert C * TINY < error <= tol
    assert verdicts(graph, autograd) == [True, True, True]


# A chain through tanh: its partial 1 - t*t is evaluated from the rounded output t, partial_err
# 3 + 2 t^2 / (1 - t^2); and the partial depends on the node below, so S is not 0 either.
# S is measured by moving each node by its error bound in doubles, so it is known to about an
# ulp of the gradient, and tanh's rounding adds the sweep's measured error R: pinned to 25 %.
CHAIN = Graph((A, B), (mul(0, 1), Node("tanh", (2,))))


def test_w_and_s_through_tanh_by_hand():
    n = A * B
    t = math.tanh(n)
    slope = 1 - t * t
    w_edges = (2 + 3 + 2 * t * t / slope) + (2 + 2)  # tanh's edge, then mul's edge
    # S: node n's rounding |n| moves g_0 = x1 (1 - tanh(n)^2) by |x1| * 2 |t| (1 - t^2) per unit;
    # the output's own rounding moves no gradient
    s0, s1 = abs(n) * abs(B) * 2 * abs(t) * slope, abs(n) * A * 2 * abs(t) * slope
    tols, forward = symbolic_tolerances(CHAIN)
    assert tols[0] == near(C * EPS * (abs(B) * slope * w_edges + s0), rel=0.25)
    assert tols[1] == near(C * EPS * (A * slope * w_edges + s1), rel=0.25)
    # forward: n's rounding through d out/d n = 1 - t^2, the output's own |t|, and the sweep's
    # measured error (its tanh is rounded): R = C * |tanh(n) in doubles - tanh(n)|
    with mpmath.workdps(50):
        rounding = float(abs(mpmath.mpf(t) - mpmath.tanh(mpmath.mpf(n))))
    assert forward == near(C * EPS * (abs(n) * slope + abs(t)) + C * rounding, rel=0.05)


# ---------------------------------------------------------------------- fan-out: paths and adjoints add up
# n2 = x0 x1, n3 = n2 x0, n4 = n3 n2 = x0^3 x1^2: x0 reaches the output three ways, n2 two ways.
FAN = Graph((A, B), (mul(0, 1), mul(2, 0), mul(3, 2)))


def test_fan_out_sums_every_path_and_every_node_by_hand():
    a, b = A, B
    # W: paths of x0 (|product of partials|, edges): n3-n4 (a^2 b^2, 2), n2-n4 (a^2 b^2, 2),
    # n2-n3-n4 (a^2 b^2, 3); of x1: n2-n4 (|a^3 b|, 2), n2-n3-n4 (|a^3 b|, 3); 4 per mul edge
    w0, w1 = (8 + 8 + 12) * a * a * b * b, (8 + 12) * abs(a**3 * b)
    # S: d g/d v_k with v_k free and everything above it recomputed (worked out on paper):
    # g0 = v2^2 + 2 b x0 v2 -> d/dv2 = 4ab; g0 = (ab)^2 + (v3 + a^2 b) b -> d/dv3 = b;
    # g1 = 2 a^2 v2 -> 2a^2; g1 = (v3 + a^2 b) a -> a.  Forward errors: |ab|, |a^2 b|.
    s0 = abs(a * b) * 4 * abs(a * b) + abs(a * a * b) * abs(b)
    s1 = abs(a * b) * 2 * a * a + abs(a * a * b) * a
    tols, forward = symbolic_tolerances(FAN)  # S measured in doubles: to about an ulp of g
    assert tols[0] == near(C * EPS * (w0 + s0), rel=0.05)
    assert tols[1] == near(C * EPS * (w1 + s1), rel=0.05)
    # forward: |n2| |d out/d n2| + |n3| |d out/d n3| + |n4| = |ab| 2|a^2 b| + |a^2 b| |ab| + |a^3 b^2|
    assert forward == near(C * EPS * 4 * abs(a**3 * b * b), rel=0.05)


def test_nodes_that_do_not_reach_the_output_add_nothing():
    # exp(x0) first, unused; the product after it must still be counted
    dead_first = Graph((A, B), (Node("exp", (0,)), mul(0, 1)))
    assert symbolic_tolerances(dead_first) == symbolic_tolerances(PRODUCT)
    # the output is not the last node: the square after it is not part of the function
    early_out = Graph((A, B), (mul(0, 1), mul(2, 2)), output=2)
    assert symbolic_tolerances(early_out) == symbolic_tolerances(PRODUCT)


# ---------------------------------------------------------------------- symbolic: S, forward rounding
# x2 * vsum(x0, x1): 1 + (-0.75) is exact in floats, but a 2-term sum may be off by
# 2 * (|x0| + |x1|) eps, which moves d/dx2 = the sum by as much: S_2 = 2 * 1.75 = 3.5.
CANCEL = Graph((1.0, -0.75, 1.5), (Node("vsum", (0, 1)), mul(3, 2)))


def test_s_of_a_cancelling_sum_by_hand():
    n = 0.25
    tols, forward = symbolic_tolerances(CANCEL)
    w2 = abs(n) * 4
    assert tols[2] == near(C * EPS * (2 * 1.75 + w2), rel=1e-7)
    assert tols[0] == near(C * EPS * 1.5 * (4 + 4), rel=1e-7)  # S_0 = 0: d/dx0 = x2
    # forward: the sum's bound 3.5 through d out/d n = x2, and the product's own rounding
    assert forward == near(C * EPS * (3.5 * 1.5 + abs(n * 1.5)), rel=1e-12)


def test_s_is_bounded_a_slip_just_above_it_is_caught_just_below_it_is_not():
    n = 0.25
    tol = C * EPS * (2 * 1.75 + 4 * n)  # d/dx2 = n; the mul rule's slip moves it by n (factor - 1)
    assert verdicts(CANCEL, wrong_engine("mul", 1 + 0.9 * tol / n))[2]
    assert not verdicts(CANCEL, wrong_engine("mul", 1 + 1.1 * tol / n))[2]


def test_s_is_needed_by_an_engine_whose_sum_rounds_differently():
    # x2 * vsum(x0, x1) with x0 + x1 = 2**-20 exactly: a 2-term sum may be off by 2 * (|x0| + |x1|)
    # eps (about 4 eps); an engine off by eps moves d/dx2 by eps.  The sweep is exact (R = 0) and
    # W_2 = 16 eps * 4 * 2**-20, so only S_2 = 16 * 4 eps admits it.
    graph = Graph((1.0, -(1 - 2.0**-20), 1.5), (Node("vsum", (0, 1)), mul(3, 2)))
    assert verdicts(graph, vsum_off_engine(EPS))[2]
    tol = symbolic_tolerances(graph)[0][2]
    w = C * EPS * 4 * 2.0**-20
    assert tol == near(C * EPS * 2 * (2 - 2.0**-20) + w, rel=1e-9)
    assert tol - C * EPS * 2 * (2 - 2.0**-20) < EPS <= tol


def test_our_engines_sum_that_rounds_away_is_within_s_and_r():
    # 1 + 2**-55 - 1 is 0 in floats and 2**-55 exactly: d/dx3 = that sum, so our engine is off by
    # 2**-55; W_3 = 4 * 0 = 0, S_3 = 16 eps * 3 * 2 (the sum's bound), R_3 = 16 * 2**-55 (the
    # sweep rounds the same way)
    graph = Graph((1.0, 2.0**-55, -1.0, 1.5), (Node("vsum", (0, 1, 2)), mul(4, 3)))
    assert engine_error(graph, 3) == Fraction(2) ** -55
    tol = symbolic_tolerances(graph)[0][3]
    assert tol == near(C * EPS * 3 * 2 + C * 2.0**-55, rel=1e-9)
    assert verdicts(graph, autograd) == [True, True, True, True]


def test_s_steps_relative_to_a_large_node():
    # n = x0 x1 = 2**26, out = n * n: g_0 = 2 n x1, moved by 2 |x1| per unit of n (a step absolute
    # to 1e-6 would vanish next to 2**26); W_0 = |x1| (|n| 4 * 2 + 4 * 2 |n|) = 16 |x1 n|
    x = 8192.0
    n = x * x
    graph = Graph((x, x), (mul(0, 1), mul(2, 2)))
    assert symbolic_tolerances(graph)[0] == [near(C * EPS * (n * 2 * x + 16 * x * n), rel=1e-9)] * 2


def test_s_steps_stay_on_one_side_of_a_nearby_kink():
    # x1 * relu(-x0) at x0 = -1.5e-6: moving the relu input by its 1e-6 step keeps it positive, so
    # S_0 = 0 and tol_0 = W_0 = |x1| (4 + 2 + 4) (mul, relu with an exact partial, neg); a step of
    # 2e-6 would cross 0 and count relu's jump as a sensitivity of 0.5 / 4e-6 per unit
    graph = Graph((-1.5e-6, 0.5), (Node("neg", (0,)), Node("relu", (2,)), mul(3, 1)))
    tols, _ = symbolic_tolerances(graph)
    assert tols[0] == near(C * EPS * 0.5 * 10, rel=1e-9)


# ---------------------------------------------------------------------- symbolic: underflow
# x2 * (x0 * x1) at x0 = x1 = 1e-200: x0 x1 = 1e-400 underflows to 0, so d/dx2 is 0 in floats
UNDERFLOW = Graph((1e-200, 1e-200, 1.5), (mul(0, 1), mul(3, 2)))


def test_underflow_terms_are_needed_and_count_tiny_where_nothing_else_is_left():
    tols, forward = symbolic_tolerances(UNDERFLOW)
    # W_2 = |n| * 4 = 0 and n's relative error is 0; n may underflow by TINY: S_2 = C * TINY
    # (d/dx2 = n); the backward product 1 * n may too: C * TINY * (1 + U_2) with U_2 = (1 + 1) * 1
    # (the edge out -> x2); R_2 = C * 1e-400, which is 0 in doubles
    assert tols[2] == 4 * C * TINY
    # forward: n moved by C * TINY moves the output by 1.5 times that, the output itself by C * TINY,
    # and C * TINY
    assert forward == (1.5 + 1 + 1) * C * TINY
    assert verdicts(UNDERFLOW, autograd) == [True, True, True]  # the engine is off by 1e-400


# ---------------------------------------------------------------------- the reports
def test_each_oracle_titles_its_report_and_fills_every_column():
    exact = assert_grads_exact(Graph((Fraction(1, 3), 2), (mul(0, 1),)))
    assert exact.title == "exact oracle (sympy derivative at the rational point, zero tolerance)"
    assert [(r.name, r.value, r.engine, r.oracle, r.tol) for r in exact.rows] == [
        ("x0", Fraction(1, 3), 2, 2, 0.0), ("x1", 2, Fraction(1, 3), Fraction(1, 3), 0.0)
    ]  # fmt: skip
    symbolic = assert_grads_symbolic(PRODUCT)
    assert symbolic.title == "symbolic oracle (sympy derivative, exact/interval reference, derived tolerance)"
    assert [(r.name, r.value, r.engine, r.oracle) for r in symbolic.rows] == [
        ("x0", A, B, B),
        ("x1", B, A, A),
    ]
    fd = assert_grads_fd(PRODUCT, rtol=1e-6, atol=0.5)
    assert fd.title == "finite differences (central, Richardson, rtol=1e-06, atol=0.5)"
    assert [(r.name, r.value, r.engine) for r in fd.rows] == [("x0", A, B), ("x1", B, A)]
    assert all(r.ok and r.oracle == near(r.engine, rel=1e-9) for r in fd.rows)


def softplus(x):
    return (x.exp() + 1).log()


def test_gradcheck_names_the_function_or_calls_it_f():
    named = gradcheck(softplus, [0.5])
    assert named.title == "gradcheck of softplus (central differences, rtol=1e-07, atol=1e-10)"
    unnamed = functools.partial(softplus)
    assert (
        gradcheck(unnamed, [0.5], rtol=0.5, atol=0).title
        == "gradcheck of f (central differences, rtol=0.5, atol=0)"
    )
    assert gradcheck(unnamed, [0.5]).rows[0].value == 0.5


@pytest.mark.parametrize("oracle", [assert_grads_exact, assert_grads_symbolic, assert_grads_fd])
def test_a_mismatch_reproduces_with_the_engine_under_test(oracle):
    graph = Graph((Fraction(1, 2), Fraction(-3, 2)), (mul(0, 1),))
    engine = wrong_engine("mul", 2)
    with pytest.raises(GradientMismatch) as info:
        oracle(graph if oracle is assert_grads_exact else graph.with_leaves([0.5, -1.5]), engine)
    details = info.value.report.details
    assert "from wrong_mul_engine import Value" in details
    assert "n2 = x0 * x1" in details and "graph description: Graph(leaves=(" in details
    assert str(info.value).endswith(details)


def test_exact_oracle_refuses_a_float_graph_naming_it():
    with pytest.raises(
        ValueError, match=r"assert_grads_exact: needs rational ops on Fraction leaves, got Graph\("
    ):
        assert_grads_exact(PRODUCT)


def test_report_table_columns_line_up_and_show_every_number_type():
    with mpmath.workdps(50):  # a reference as the symbolic oracle holds it
        third = mpmath.mpf(1) / 3
    rows = [
        LeafComparison("x0", 0.5, Fraction(1, 3), third, 1e-3, 2e-3, 1.5e-3, False),
        LeafComparison("x12", 2, 0.25, 0.25, 0.0, 0.0, 0.0, True),
    ]
    text = str(GradcheckReport("some oracle", rows))
    title, head, *lines = text.split("\n")
    assert title == "some oracle: MISMATCH"
    assert head.split() == ["input", "value", "engine", "oracle", "abs", "err", "rel", "err", "tol"]
    assert lines[0].split() == ["x0", "0.5", "1/3", "0.33333333333333333", "1.00e-03", "2.00e-03", "1.50e-03",
                                "<--", "differs"]  # fmt: skip
    assert lines[1].split() == ["x12", "2", "0.25", "0.25", "0.00e+00", "0.00e+00", "0.00e+00"]

    def right_edges(line):  # where each of the six right-aligned columns ends
        return [m.end() for m in re.finditer(r"\S+", line)][1:7]

    head_edges = [m.end() for m in re.finditer(r"\S+", head)]
    head_edges = [*head_edges[1:4], head_edges[5], head_edges[7], head_edges[8]]  # "abs err", "rel err"
    assert right_edges(lines[0]) == right_edges(lines[1]) == head_edges
    good = str(GradcheckReport("all good", rows[1:]))
    assert good.startswith("all good: ok\n") and good.endswith("0.00e+00")  # nothing after the table
    assert str(GradcheckReport("with details", rows[1:], details="why")).endswith("0.00e+00\nwhy")


# ---------------------------------------------------------------------- comparing
def test_a_zero_oracle_has_relative_error_0_when_met_and_infinite_when_missed():
    def cancel(x):
        return x + -x  # d/dx = 1 - 1 = 0, and every finite difference is exactly 0

    (met,) = gradcheck(cancel, [0.5]).rows
    assert (met.oracle, met.engine, met.rel_err, met.ok) == (0.0, 0.0, 0.0, True)
    (missed,) = gradcheck(cancel, [0.5], engine=wrong_engine("neg", 2), raise_exception=False).rows
    assert (missed.engine, missed.abs_err, missed.rel_err, missed.ok) == (-1.0, 1.0, math.inf, False)


class Unfinished:
    """An engine whose backward leaves a non-number in .grad."""

    def __init__(self, data):
        self.data, self.grad = data, "not computed"

    def __mul__(self, other):
        return Unfinished(self.data * other.data)

    def backward(self):
        pass


def test_a_gradient_that_is_not_a_number_is_a_mismatch_not_a_crash():
    engine = Engine(Unfinished, name=__name__)  # given explicitly: discovery would refuse it
    report = gradcheck(lambda a, b: a * b, [2.0, 3.0], engine=engine, raise_exception=False)
    assert [r.ok for r in report.rows] == [False, False]
    assert all(math.isnan(r.abs_err) and math.isnan(r.rel_err) for r in report.rows)
    assert [r.oracle for r in report.rows] == [near(3.0, rel=1e-9), near(2.0, rel=1e-9)]


# ---------------------------------------------------------------------- finite differences
def cubic_at(c):
    """(x - c)**3: at x = c its derivative is 0 and D(h) = h**2 exactly, D(2h) = 4 h**2."""
    return lambda x: (x[0] - c) ** 3


@pytest.mark.parametrize("x", [0.5, -1.0, 3.0])
def test_fd_step_and_richardson_by_hand(x):
    h = H0 * max(1, abs(x))
    row = _fd_row(cubic_at(x), [x], 0, 0.0, "x0", 0.0, 0.0)
    # |D(h) - D(2h)| = 3 h**2; rounding 4 eps F / h with F = 8 h**3; numeric (4 h^2 - 4 h^2) / 3 = 0
    assert row.tol == near(3 * h * h + 32 * EPS * h * h, rel=1e-6)
    assert abs(row.oracle) < 1e-6 * h * h and row.ok


def test_fd_shrinks_the_step_by_four_until_twice_it_is_allowed():
    asked = []

    def step_ok(x, j, step):
        asked.append(step)
        return step < H0 / 4

    row = _fd_row(cubic_at(0.5), [0.5], 0, 0.0, "x0", 0.0, 0.0, step_ok)
    assert asked == [2 * H0, 2 * H0 / 4, 2 * H0 / 16]
    h = H0 / 16
    assert row.tol == near(3 * h * h + 32 * EPS * h * h, rel=1e-6)


def test_fd_shrinks_until_the_step_vanishes_and_then_gives_no_verdict():
    asked = []
    with pytest.raises(OracleInconclusive, match="no step along x0 avoids a kink or a jump"):
        _fd_row(cubic_at(0.5), [0.5], 0, 0.0, "x0", 0.0, 0.0, lambda x, j, step: asked.append(step))
    assert asked == [2 * H0 / 4**k for k in range(len(asked))]
    assert 0.5 + asked[-1] != 0.5 and 0.5 + asked[-1] / 4 == 0.5  # the last step that moved x


def spike(where, big=1e6):
    """0 * x + 1, except |f| = big at x = 0.5 + where (and its mirror): D(h) = D(2h) = 0."""

    def f(a):
        return a * 0 + (big if abs(abs(a.data - 0.5) - where) < H0 / 8 else 1.0)

    return f


@pytest.mark.parametrize("where", [0, H0, 2 * H0])
def test_fd_rounding_term_uses_the_largest_value_seen_at_any_of_the_five_points(where):
    (row,) = gradcheck(spike(where), [0.5], rtol=0, atol=0).rows
    assert (row.engine, row.oracle) == (0.0, 0.0)
    assert row.tol == near(4 * EPS * 1e6 / H0, rel=1e-12)


def test_fd_rtol_and_atol_are_added():
    (row,) = gradcheck(spike(0, big=1.0), [0.5], rtol=0.5, atol=0.25).rows
    assert row.tol == near(4 * EPS / H0 + 0.25, rel=1e-12)  # numeric 0: rtol adds nothing
    (row,) = gradcheck(lambda a: a * 3, [0.5], rtol=0.5, atol=0.25).rows
    assert row.tol == near(0.5 * 3 + 0.25, rel=1e-9)


# relu kinks: steps are shrunk until no relu input changes sign within x +- 2h
def test_fd_shrinks_a_step_that_would_cross_a_kink_below():
    graph = Graph((1e-5,), (Node("relu", (0,)),))  # 2 H0 = 1.2e-5 reaches below 0; H0 / 2 does not
    (row,) = assert_grads_fd(graph).rows
    assert row.oracle == near(1.0, rel=1e-9)
    assert row.tol < 2e-7  # rtol + atol + rounding: no kink in the difference
    with pytest.raises(GradientMismatch):
        assert_grads_fd(graph, wrong_engine("relu", 1 + 1e-4))


def test_fd_shrinks_a_step_that_would_cross_a_kink_above_on_a_later_relu():
    # x1 * relu(-x0) at x0 = -1e-5: the kink is above x0, and the relu is not the first node
    graph = Graph((-1e-5, 0.5), (Node("neg", (0,)), Node("relu", (2,)), mul(1, 3)))
    rows = assert_grads_fd(graph).rows
    assert rows[0].oracle == near(-0.5, rel=1e-9) and rows[0].tol < 2e-7


def test_fd_shrinks_a_step_that_would_leave_the_domain():
    # log(x0) at 1e-5 (next to a relu elsewhere): x0 - 2 H0 < 0, where log is undefined
    graph = Graph((1e-5, 0.5), (Node("log", (0,)), Node("relu", (1,)), Node("add", (2, 3))))
    rows = assert_grads_fd(graph).rows
    assert rows[0].oracle == near(1e5, rel=1e-3) and rows[1].oracle == near(1.0, rel=1e-9)


def test_fd_shrinks_a_step_whose_upper_side_leaves_the_domain():
    # log(-x0) at x0 = -1e-5: x0 + 2 H0 > 0 fails (and is tried first), not a step to take
    graph = Graph((-1e-5,), (Node("neg", (0,)), Node("log", (1,))))
    (row,) = assert_grads_fd(graph).rows
    assert row.oracle == near(-1e5, rel=1e-3) and row.ok


# ---------------------------------------------------------------------- the error columns of the op table
def test_partial_error_of_tanh_near_saturation():
    # tanh'(x) = 1 - t*t from a rounded t loses 2 t^2 / (1 - t^2) eps relative: at x = 2.981 our
    # (correct) engine is off by more than the 16 * (2 + 2) eps that a plain partial would get;
    # the reference sweep computes 1 - t*t the same way, so R adds 16 times that error
    x = 2.981
    value = autograd.Value(x)
    value.tanh().backward()
    with mpmath.workdps(50):
        exact = 1 / mpmath.cosh(mpmath.mpf(x)) ** 2
        error = float(abs(mpmath.mpf(value.grad) - exact))
    slope = float(exact)
    assert error > C * EPS * 4 * slope
    t = math.tanh(x)
    (tol,), _ = symbolic_tolerances(Graph((x,), (Node("tanh", (0,)),)))
    assert tol == near(C * EPS * slope * (2 + 3 + 2 * t * t / (1 - t * t)) + C * error, rel=1e-6)
    assert error <= tol


@pytest.mark.parametrize(
    ("op", "args", "const", "out", "fwd_err", "partial_err"),
    [
        ("add", (0.5, -2.0), None, -1.5, 1.5, 2),  # correctly rounded: |out| eps; partials exact: 2
        ("exp", (1.0,), None, math.e, math.e, 2),
        ("div", (1.0, 4.0), None, 0.25, 0.25, 3),  # the partial -a / b**2 is one more rounding
        ("rdiv", (4.0,), 1, 0.25, 0.25, 3),
        ("powc", (3.0,), 2, 9.0, 18.0, 3),  # pow is within 2 ulp; c * x**(c-1)
        ("vpow", (2.0, 3.0), None, 8.0, 16.0, 4),
        ("rpow", (3.0,), 2, 8.0, 16.0, 4),
        ("relu", (-1.0,), None, 0.0, 0.0, 0),  # its partial is exactly 0 or 1
        ("sigmoid", (0.0,), None, 0.5, 2.0, 4 + 0.5 / 0.5),  # s (1 - s) from a rounded s
        ("tanh", (0.0,), None, 0.5, 0.5, 3 + 2 * 0.25 / 0.75),  # out = t: only t matters here
        ("vsum", (1.0, -2.0, 0.5), None, -0.5, 3 * 3.5, 2),  # n-term sum: n * sum |terms|
        ("dot", (2.0, -3.0, 0.5, 1.0, 4.0), None, 0.0, 5 * (4.0 + 1.0 + 3.0), 2),  # 2k+1 terms
    ],
)
def test_error_columns_of_the_op_table(op, args, const, out, fwd_err, partial_err):
    assert OPS[op].fwd_err(args, const, out) == near(fwd_err, rel=1e-15)
    assert OPS[op].partial_err(args, const, out) == near(partial_err, rel=1e-15)


# ---------------------------------------------------------------------- the corrected derivation's extras
def test_a_long_fraction_prints_as_17_significant_digits_and_a_short_one_as_it_is():
    short, long = Fraction(1, 10**21 + 1), Fraction(1, 10**22 + 1)  # 24 and 25 characters
    third = Fraction(10**23 + 1, 3 * 10**23)  # 0.333333333333333333333336667
    rows = [LeafComparison("x0", short, long, third, 0.0, 0.0, 0.0, True)]
    (line,) = str(GradcheckReport("t", rows)).split("\n")[2:]
    assert line.split()[1:4] == ["1/1000000000000000000001", "1.0e-22", "0.33333333333333333"]


def test_the_symbolic_rows_tolerance_is_the_derived_one_widened_by_the_references_radius():
    graph = CHAIN  # tanh: an interval reference with a radius (settled far below an ulp of tol here)
    radius = graph.reference().gradient_radius
    assert radius and all(r > 0 for r in radius)
    rows = assert_grads_symbolic(graph).rows
    assert [r.tol for r in rows] == [t + float(r) for t, r in zip(symbolic_tolerances(graph)[0], radius)]


# relu(x0 - x0) * x1: the relu input is exactly 0 in floats and exactly
ON_KINK = Graph((0.5, 2.0), (Node("sub", (0, 0)), Node("relu", (2,)), mul(3, 1)))


def test_a_relu_input_exactly_0_both_ways_is_judged_only_under_a_declared_convention():
    with pytest.raises(OracleInconclusive, match="too close to the kink"):
        assert_grads_symbolic(ON_KINK)
    with pytest.raises(OracleInconclusive, match="too close to the kink"):
        assert_grads_symbolic(ON_KINK, relu_grad_at_zero=1)
    rows = assert_grads_symbolic(ON_KINK, relu_grad_at_zero=0).rows  # our engine: relu'(0) = 0
    assert [(r.engine, r.ok) for r in rows] == [(0.0, True), (0.0, True)]


@pytest.mark.parametrize(("k", "judged"), [(60, False), (68, True)])
@pytest.mark.parametrize("relu_grad_at_zero", [None, 0])  # the convention is about inputs exactly 0 only
def test_a_relu_input_within_its_forward_error_bound_is_not_judged(k, judged, relu_grad_at_zero):
    # relu(x0 + x1) * x2 with x0 + x1 = k eps exactly: the sum's bound is C * 2 * (|x0| + |x1|) eps,
    # about 64 eps, so at 60 eps a correct engine could have the input on either side of 0
    graph = Graph((1.0, -(1 - k * EPS), 2.0), (Node("vsum", (0, 1)), Node("relu", (3,)), mul(4, 2)))
    if judged:
        assert assert_grads_symbolic(graph, relu_grad_at_zero=relu_grad_at_zero).ok
    else:
        with pytest.raises(OracleInconclusive, match="too close to the kink"):
            assert_grads_symbolic(graph, relu_grad_at_zero=relu_grad_at_zero)


def test_every_relu_is_checked_after_one_exactly_on_its_kink():
    # relu(x0 - x0) (on the kink both ways, judged under relu'(0) = 0), then relu(x1 + x2) 60 eps from 0
    leaves = (0.5, 1.0, -(1 - 60 * EPS))
    nodes = (Node("sub", (0, 0)), Node("relu", (3,)), Node("vsum", (1, 2)), Node("relu", (5,)), mul(4, 6))
    with pytest.raises(OracleInconclusive, match="relu n6: its input n5"):
        assert_grads_symbolic(Graph(leaves, nodes), relu_grad_at_zero=0)


def test_fd_where_f_fails_at_a_step_gives_no_verdict_and_says_where():
    with pytest.raises(
        OracleInconclusive, match=rf"finite differences: f fails at x0 \+- {1.5 * H0:.3g} \(log"
    ):
        gradcheck(lambda a: (a - 1.5).log(), [1.5 + 1e-6])


def test_fd_a_rejection_that_a_finer_step_does_not_confirm_is_inconclusive():
    # x**3 at 2 by an engine whose mul rule is off by 1e-10 (so d/dx off by about 2e-9): outside
    # the first estimate's tolerance (3 h**2 + 4 eps F / h, about 1e-9), inside the one with a step
    # 8 times smaller (8 times the rounding term, about 5e-9): no verdict
    h = 2 * H0
    with pytest.raises(OracleInconclusive) as info:
        gradcheck(lambda a: a * a * a, [2.0], engine=wrong_engine("mul", 1 + 1e-10), rtol=0, atol=0)
    message = str(info.value)
    assert message.startswith("finite differences along x0 did not converge: 12.0")
    assert (
        f"at step {h:.3g}, 12.0" in message and f"at step {h / 8:.3g}; the engine says 12.0000000" in message
    )
    # off by 6e-9, both estimates reject it: a confirmed mismatch
    with pytest.raises(GradientMismatch):
        gradcheck(lambda a: a * a * a, [2.0], engine=wrong_engine("mul", 1 + 3e-10), rtol=0, atol=0)


def test_fd_tolerance_of_a_graph_adds_the_float_functions_forward_bound_over_h():
    # x0 * x1 at (0.75, -1.25), along x0 (h = H0): the product may be off by f_err = C eps |x0 x1|,
    # which moves a difference by 2 f_err / h; rounding 4 eps F / h with F = |x0 x1| (to 1e-5)
    (row, _) = assert_grads_fd(PRODUCT, rtol=0, atol=0).rows
    f = abs(A * B)
    assert row.tol == near((4 * EPS * f + 2 * C * EPS * f) / H0, rel=0.05)


def test_fd_tolerance_of_a_graph_adds_the_symbolic_gradient_tolerance():
    # x0 * x1 at (0.75, 0), along x1: f = 0.75 x1 is 0 at x1 and exact at x1 +- h (up to an ulp):
    # rounding 4 eps F / h = 4 eps * 0.75 * 2h / h = 6 eps, f_err about C TINY; the engine's
    # gradient may be off by tol_1 = C eps * 4 * 0.75 = 48 eps, which the estimate must allow too
    (_, row) = assert_grads_fd(Graph((A, 0.0), (mul(0, 1),)), rtol=0, atol=0).rows
    assert row.tol == near(54 * EPS, rel=0.05)


# ---------------------------------------------------------------------- edges the mutation run found
def test_central_difference_says_why_it_gives_no_verdict():
    with pytest.raises(OracleInconclusive) as info:
        _central(lambda x: x[0], [1.0], 0, 1e-20)  # 1 +- 1e-20 are both 1
    assert str(info.value) == "finite differences: the step 1e-20 vanishes next to x0 = 1.0"

    def infinite_above_1(x):
        return math.inf if x[0] > 1 else x[0]

    for up_is_infinite in (True, False):  # ONE side not finite is enough
        x = [1.0] if up_is_infinite else [-1.0]
        f = infinite_above_1 if up_is_infinite else (lambda x: infinite_above_1([-x[0]]))
        with pytest.raises(OracleInconclusive) as info:
            _central(f, x, 0, 0.5)
        sides = "(inf, 0.5)" if up_is_infinite else "(0.5, inf)"
        assert str(info.value) == f"finite differences: f is not finite at x0 +- 0.5 {sides}"


def test_fd_confirmation_widens_by_the_float_functions_bound_over_its_own_step():
    # 3 x at 0.5 (h = H0): a float function off by f_err = 3e-12 widens the first estimate by
    # 2 f_err / h = 1e-6 and the confirmation (step h / 8) by 8e-6; an engine off by 4e-6 is
    # rejected by the first and accepted by the confirmation: no verdict, never a mismatch
    def f(x):
        return 3 * x[0]

    f_err = 3e-12
    assert 2 * f_err / H0 == near(9.9e-7, rel=0.01)
    with pytest.raises(OracleInconclusive, match="did not converge"):
        _fd_row(f, [0.5], 0, 3 + 4e-6, "x0", 0.0, 0.0, f_err=f_err)
    # off by 9e-6, beyond both: a confirmed mismatch (the row is returned, not ok)
    assert not _fd_row(f, [0.5], 0, 3 + 9e-6, "x0", 0.0, 0.0, f_err=f_err).ok


@pytest.mark.parametrize(
    ("leaves", "step"),
    [
        # x0 x1 = 1 (|node| <= 1: it may move by 0.01); 2 H0 would move it by 0.0124: shrunk once
        ((1 / 1024, 1024.0), H0 / 4),
        # x0 x1 = 2048: it may move by 20.48, 2 h = 2 H0 1024 moves it by 0.025: not shrunk
        ((1024.0, 2.0), H0 * 1024),
    ],
)
def test_fd_node_change_limit_is_one_percent_of_the_nodes_magnitude_or_of_1(leaves, step):
    # f = x0 x1 is linear in x0 with a power-of-2 or exact slope: D(h) = D(2h) exactly, so the
    # tolerance is the rounding term (4 eps F + 2 f_err) / h, F = max |f| at x0 +- 2h and
    # f_err = C eps |f| (the product's forward bound), plus tol_0 = W_0 = C eps |x1| (2 + 2) of the
    # symbolic oracle; a shrink too many or too few moves the tolerance by a factor 4
    (row, _) = assert_grads_fd(Graph(leaves, (mul(0, 1),)), rtol=0, atol=0).rows
    f = leaves[0] * leaves[1]
    big_f = f + 2 * step * leaves[1]
    grad_tol = C * EPS * leaves[1] * 4
    assert row.tol == near((4 * EPS * big_f + 2 * C * EPS * f) / step + grad_tol, rel=1e-3)


def test_a_relu_on_a_leaf_exactly_0_is_not_judged_without_the_convention():
    # relu(x0) * x1 at x0 = 0: a leaf has no forward error (bound 0), so only the declared
    # convention relu'(0) = 0 judges it
    graph = Graph((0.0, 2.0), (Node("relu", (0,)), mul(2, 1)))
    with pytest.raises(OracleInconclusive) as info:
        assert_grads_symbolic(graph)
    assert str(info.value) == (
        "relu n2: its input x0 is 0.0 in floats and 0 exactly, forward error bound 0: "
        "too close to the kink to judge"
    )
    assert assert_grads_symbolic(graph, relu_grad_at_zero=0).ok


def test_a_relu_inputs_error_bound_adds_its_operands_bounds():
    # relu((x0 + x1) * x2) with x0 + x1 = 60 eps exactly: the sum's bound (about 64 eps) reaches the
    # relu input through * x2 = 1; the product's own bound is only C * 60 eps * eps
    graph = Graph((1.0, -(1 - 60 * EPS), 1.0), (Node("vsum", (0, 1)), mul(3, 2), Node("relu", (4,))))
    with pytest.raises(
        OracleInconclusive, match=re.escape(f"relu n5: its input n4 is {60 * EPS!r} in floats")
    ):
        assert_grads_symbolic(graph)


def test_symbolic_oracle_says_why_a_sweep_leaves_the_float_range():
    # log(x0 - x0) = log(0): the unbumped sweep already fails
    with pytest.raises(OracleInconclusive) as info:
        symbolic_tolerances(Graph((0.5,), (Node("sub", (0, 0)), Node("log", (1,)))))
    assert str(info.value) == (
        "symbolic oracle: the reference sweep leaves the float range (math domain error)"
    )
    # log(x0 * x1) with x0 x1 = 16 TINY: its bound C * (16 TINY eps + TINY) = 16 TINY (rounded) moves
    # it up to 32 TINY (fine) and down to 0, where log fails
    with pytest.raises(OracleInconclusive) as info:
        symbolic_tolerances(Graph((16 * TINY, 1.0), (mul(0, 1), Node("log", (2,)))))
    assert str(info.value) == (
        f"symbolic oracle: moving node 2 by {-16 * TINY:.3g} to size the tolerance fails (math domain error)"
    )
    # exp(709) = 8.2e307: W = |exp(709)| * (2 + 2) overflows
    with pytest.raises(OracleInconclusive) as info:
        symbolic_tolerances(Graph((709.0,), (Node("exp", (0,)),)))
    assert str(info.value) == "symbolic oracle: a derived tolerance leaves the float range: [inf]"


@pytest.mark.parametrize("x0", [8 * TINY, -8 * TINY])
def test_s_moves_each_node_both_ways(x0):
    # x1 * relu(-x0) with -x0 = -+8 TINY: moving the neg node by its bound 16 TINY moves the relu
    # input across 0 one way only (up from -8 TINY, down from +8 TINY), which changes d/dx0 by
    # |x1| = 0.5; every other term is a few TINY, lost next to 0.5
    graph = Graph((x0, 0.5), (Node("neg", (0,)), Node("relu", (2,)), mul(3, 1)))
    assert symbolic_tolerances(graph)[0][0] == near(0.5)


def test_u_sums_every_edge_and_every_path_to_the_leaf():
    # (x0 x1) * (x2 + x2) at x0 = x1 = 1e-200: n = x0 x1 underflows to 0, d/dx2 = 2 n is 0 in floats.
    # S_2: n moved by C TINY moves d/dx2 by 2 C TINY = 32 TINY; s = x2 + x2 moved changes nothing.
    # U_2 over the edges: s -> x2 twice (1 + |n|) * 1 = 2, out -> s (1 + 1) * |ds/dx2| = 2 * 2 = 4:
    # U_2 = 6, and C * TINY * (1 + U_2) = 112 TINY. W_2 = 0 (the path's partial n is 0), R_2 = 0.
    graph = Graph((1e-200, 1e-200, 1.5), (mul(0, 1), Node("add", (2, 2)), mul(3, 4)))
    assert symbolic_tolerances(graph)[0][2] == 144 * TINY


def test_fd_estimates_that_agree_exactly_confirm_a_mismatch_even_at_zero_tolerance():
    # f = 0: both estimates are exactly 0 with tolerance 0 (no rounding, rtol = atol = 0), so an
    # engine that says 1 is a confirmed mismatch: estimates that coincide did converge
    row = _fd_row(lambda x: 0.0, [0.5], 0, 1.0, "x0", 0.0, 0.0)
    assert (row.oracle, row.tol, row.ok) == (0.0, 0.0, False)


@pytest.mark.parametrize("judged", [True, False])
def test_a_relu_input_exactly_0_but_nonzero_in_floats_beyond_its_bound(judged):
    # relu(+-((1 - (1 - t)) * (1 - (1 - t)) - x3)), t = 2**-60, x3 = t**2: each factor is 0 in floats
    # and t exactly, so the product's first-order bound (C TINY) misses t**2. The input is exactly 0
    # and -+t**2 in floats: below 0 both relu' agree (0, Step(0) = 0) and it is judged; above 0 a
    # correct engine's relu' = 1 differs from Step(0): no verdict, never a mismatch
    t = 2.0**-60
    sub = functools.partial(Node, "sub")
    factors = (sub((0, 1)), sub((0, 4)), sub((0, 2)), sub((0, 6)), mul(5, 7))
    graph = Graph((1.0, t, t, t * t), (*factors, sub((8, 3) if judged else (3, 8)), Node("relu", (9,))))
    if judged:
        assert assert_grads_symbolic(graph).ok
    else:
        with pytest.raises(
            OracleInconclusive, match=re.escape(f"relu n10: its input n9 is {t * t!r} in floats")
        ):
            assert_grads_symbolic(graph)


# ---------------------------------------------------------------------- working precision (float32 engines)
def test_a_number_is_rounded_as_a_float32_engine_holds_it():
    from autograd.testing.oracles import to_precision

    assert to_precision(0.1, "float64") == 0.1
    assert to_precision(0.1, "float32") == 0.100000001490116119384765625  # 13421773 / 2**27
    assert to_precision(2.0**-149, "float32") == 2.0**-149  # float32's smallest subnormal survives
    assert to_precision(1e39, "float32") == math.inf  # beyond float32's range
    assert to_precision(-1e39, "float32") == -math.inf
    assert to_precision(-math.inf, "float32") == -math.inf
    assert math.isnan(to_precision(math.nan, "float32"))


def test_a_range_limit_is_anything_but_zero_outside_the_normal_numbers_of_the_precision():
    from autograd.testing.oracles import in_precision_range

    assert in_precision_range("float32", 0.0, 1.0, -2.0**-126, 3.4028234663852886e38)
    assert not in_precision_range("float32", 1.0, 2.0**-127)  # float32 subnormal
    assert not in_precision_range("float32", -3.5e38)
    assert in_precision_range("float64", 2.0**-1022, 1e308, -1e-300)
    assert not in_precision_range("float64", 1e-310)  # float64 subnormal
    assert in_precision_range("float32")  # nothing to judge: in range


def test_the_working_precision_is_the_one_named_float64_by_default():
    from autograd.testing.oracles import working_precision

    assert working_precision("float32") == (2.0**-23, 2.0**-149)
    assert working_precision("float64") == (2.0**-52, 2.0**-1074)
    resolve_engine("tests.engines.float32")  # resolving an engine sets nothing global
    assert working_precision() == (2.0**-52, 2.0**-1074)


def test_float32_tolerances_scale_with_float32s_eps_and_move_the_leaves():
    graph = Graph((0.1, 0.3), (Node("mul", (0, 1)),))
    grads64, fwd64 = symbolic_tolerances(graph, precision="float64")
    grads32, fwd32 = symbolic_tolerances(graph, precision="float32")
    # d(x*y)/dx = y: float32 rounds the leaf y (by up to 0.3 * 2**-24), a float64 engine does not
    assert grads64[0] < 1e-14
    assert 16 * 0.3 * 2.0**-23 <= grads32[0] < 1e-4
    assert 16 * 0.1 * 2.0**-23 <= grads32[1] < 1e-4
    assert fwd64 < 1e-15 and 16 * 0.03 * 2.0**-23 <= fwd32 < 1e-5
    # a leaf within float32's rounding of 0 under a log: moving it by that rounding leaves log's domain
    near = Graph((1e-44,), (Node("log", (0,)),))
    with pytest.raises(OracleInconclusive, match="moving a leaf to size the tolerance fails"):
        symbolic_tolerances(near, precision="float32")


def test_a_float32_engine_rounds_its_leaves_so_a_relu_input_near_its_kink_is_not_judged():
    from autograd.testing.oracles import kink_check

    # relu(x - y) at x = 0.1, y = 0.1 + 1e-9: in doubles the difference -1e-9 is far from its error
    # bound; a float32 engine rounds each leaf by up to 0.1 * 2**-24, which can flip its sign.
    graph = Graph((0.1, 0.1 + 1e-9), (Node("sub", (0, 1)), Node("relu", (2,))))
    kink_check(graph, graph.reference())  # float64: judged
    # bound = 16 (0.1 eps32) + 16 ((0.1 + 1e-9) eps32) + sub's own 16 (|err| eps32): 3.81e-07
    with pytest.raises(OracleInconclusive, match=r"forward error bound 3\.81e-07: too close"):
        kink_check(graph, graph.reference(), precision="float32")


def test_a_float32_relu_on_a_leaf_exactly_0_is_not_judged_without_the_convention():
    from autograd.testing.oracles import kink_check

    graph = Graph((0.0,), (Node("relu", (0,)),))
    with pytest.raises(OracleInconclusive, match="too close to the kink"):
        kink_check(graph, graph.reference(), precision="float32")


# ------------------------------------------------- float32 engines: finite differences, leaf moves
EPS32 = 2.0**-23  # float32's eps, written out


def float32_mul_slip(slip):
    """The float32 fixture engine with d(a*b)/da = b * (1 + slip) (d/db right)."""
    from tests.engines import float32

    class Value(float32.Value):
        def __mul__(self, other):
            other = self._lift(other)
            a, b = self.data, other.data
            return self._with_partials(a * b, (self, other), (b * (1 + slip), a))

    return Value


def test_fd_of_a_float32_engine_widens_by_the_double_precision_function_bound():
    # x0 * x1 at (0.75, -1.25) along x0, engine in float32: the engine's gradient may be off by the
    # symbolic tol_0 of float32 = S_0 + W_0 = C eps32 |x1| (the leaf x1 rounded) + C eps32 |x1| (2 + 2)
    # = 100 eps32; finite differences evaluate f in DOUBLES, so f_err is the double-precision forward
    # bound C eps |x0 x1| = 15 eps (2 f_err / h), with rounding 4 eps F / h, F = |x0 x1| (to 1e-5).
    # float32's f_err (45 eps32, over h: about 1.8) would accept any gradient at all.
    (row, _) = assert_grads_fd(PRODUCT, "tests.engines.float32", rtol=0, atol=0).rows
    f = abs(A * B)
    assert row.tol == near(100 * EPS32 + (4 * EPS * f + 2 * C * EPS * f) / H0, rel=1e-4)
    # a slip of 1.25 * 2**-16 = 160 eps32 is caught, one of 80 eps32 is not
    with pytest.raises(GradientMismatch):
        assert_grads_fd(PRODUCT, float32_mul_slip(2.0**-16), rtol=0, atol=0)
    assert assert_grads_fd(PRODUCT, float32_mul_slip(2.0**-17), rtol=0, atol=0).ok


def test_float32_leaf_moves_take_the_larger_side_of_a_curved_function():
    # exp(x0) at 20 in float32: the leaf moves by b = C * 20 * eps32 either way; exp is convex, so the
    # move up changes d/dx0 = exp(x0) (and the output) by e**20 (e**b - 1), more than the move down,
    # e**20 (1 - e**-b). W_0 = C eps32 e**20 (2 + 2); the node's own move adds C eps32 e**20 to the
    # forward bound only (exp's partial comes from its input). U and R are below 1e-15 of these.
    b = mpmath.mpf(C * 20 * EPS32)
    grads, forward = symbolic_tolerances(Graph((20.0,), (Node("exp", (0,)),)), precision="float32")
    e20 = mpmath.exp(20)
    assert grads[0] == near(float(e20 * (mpmath.expm1(b) + 4 * C * EPS32)), rel=1e-9)
    assert forward == near(float(e20 * (mpmath.expm1(b) + C * EPS32)), rel=1e-9)
    lower_side_only = float(e20 * (-mpmath.expm1(-b) + 4 * C * EPS32))
    assert grads[0] > lower_side_only * (1 + 1e-6)  # what the test tells apart


def test_fd_node_change_limit_allows_a_move_of_exactly_one_percent():
    # x0 * x1 + x2 at x0 = 0, x2 = 2, with x1 chosen so that the step 2 h = 2 H0 along x0 moves the
    # product from 0 to exactly +-0.01 in floats: "more than 1 %" is shrunk, exactly 1 % is not.
    # Along x0 the tolerance is the rounding (4 eps F + 2 f_err) / h with F = 2.01 and f_err = C eps 2
    # (the sum's bound; the product's at 0 is C TINY), plus W_0 = C eps x1 (2 + 2 + 2 + 2) and
    # |D(h) - D(2h)| (below 1 % of the rest): a step shrunk once would make it 4 times larger.
    x1 = 0.01 / (2 * H0)
    while 2 * H0 * x1 < 0.01:  # the nearest double that lands on 0.01 exactly (the first, here)
        x1 = math.nextafter(x1, math.inf)
    while 2 * H0 * x1 > 0.01:
        x1 = math.nextafter(x1, -math.inf)
    assert 2 * H0 * x1 == 0.01 and -2 * H0 * x1 == -0.01
    graph = Graph((0.0, x1, 2.0), (mul(0, 1), Node("add", (3, 2))))
    (row, _, _) = assert_grads_fd(graph, rtol=0, atol=0).rows
    assert row.tol == near((4 * EPS * 2.01 + 2 * C * EPS * 2) / H0 + 8 * C * EPS * x1, rel=0.02)


def test_the_symbolic_oracle_judges_a_float32_engine_by_its_own_precision():
    # the tolerances and the kink check follow the engine's precision, passed with the engine: a
    # correct float32 engine is off from the float64 truth by float32's rounding, which is no defect
    f32 = resolve_engine("tests.engines.float32")
    graph = Graph((0.1, 0.3), (Node("mul", (0, 1)), Node("exp", (2,))))
    got = [row.engine for row in assert_grads_symbolic(graph, f32).rows]
    assert_grads_fd(graph, f32, rtol=0, atol=0)  # finite differences size their tolerance by it too
    with pytest.raises(GradientMismatch):  # the same gradients judged as a float64 engine's
        assert_grads_symbolic(graph, resolve_engine("tests.engines.sound"), grads=got)
    # relu(x - y) with x - y = -1e-9: float32 rounds each leaf by more than that, so the sign of
    # the relu input is not known for a float32 engine (a float64 one is judged there)
    near_kink = Graph((0.1, 0.1 + 1e-9), (Node("sub", (0, 1)), Node("relu", (2,))))
    with pytest.raises(OracleInconclusive, match="too close"):
        assert_grads_symbolic(near_kink, f32)
    assert_grads_symbolic(near_kink, resolve_engine("tests.engines.sound"))
