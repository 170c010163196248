"""The references the oracles judge against (graph.py), judged by mathematics the code does not use.

Every expected value here is known independently: Fractions computed by hand, mpmath at 400 bits,
relu and its derivative at +-1e-300 and at an exact 0, the sign of |x|'s derivative, the tightest
enclosure of 1/3 at a given precision.  Also the graph description itself: its validation, the
text it prints (``expression``, ``code``, ``repr``) and the reproducer snippet, which is executed.

graph.py caches the functions it compiles per graph structure; under mutmut the root conftest.py
empties them before each test, so that a mutant of the code that compiles them runs and is judged.
"""

import contextlib
import io
import math
from fractions import Fraction

import mpmath
import pytest
import sympy

import autograd
from autograd.testing.graph import Graph, Node, OracleInconclusive, sym_value
from autograd.testing.oracles.reference import MAX_PREC as REFERENCE_MAX_PREC
from autograd.testing.oracles.reference import REL_WIDTH as REFERENCE_REL_WIDTH
from autograd.testing.oracles.reference import START_PREC as REFERENCE_START_PREC

TRUE_PREC = 400  # bits of the independent mpmath values
SLACK = Fraction(1, 2**300)  # their own error, far below every radius judged here


def exact(x):
    """An int, Fraction or mpf as the exact rational it is (an mpf's own bits, not rounded)."""
    if isinstance(x, (int, Fraction)):
        return Fraction(x)
    sign, man, exp, _ = x._mpf_
    return (-1) ** sign * Fraction(man) * Fraction(2) ** exp


def true(f, *args):
    """``f`` (an mpmath function of mpf arguments) at TRUE_PREC bits, as a Fraction."""
    with mpmath.workprec(TRUE_PREC):
        return exact(mpmath.mpf(f(*(mpmath.mpf(a.numerator) / a.denominator for a in map(Fraction, args)))))


def encloses(mid, rad, value):
    return abs(exact(mid) - value) <= exact(rad) + SLACK


def inconclusive_reason(graph, point=None):
    with pytest.raises(OracleInconclusive) as info:
        graph.reference(point)
    return info.value.reason


def run(code):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(code, {})
    return out.getvalue().splitlines()


# ---------------------------------------------------------------------- exact references
def test_a_rational_graph_is_evaluated_exactly_in_fractions():
    # f = (1/3 + x0 * x1) / x0 = 1/(3 x0) + x1; at x0 = 1/2, x1 = 2/3: f = 4/3, df/dx0 = -1/(3 x0^2) = -4/3
    nodes = (Node("mul", (0, 1)), Node("radd", (2,), Fraction(1, 3)), Node("div", (3, 0)))
    ref = Graph((Fraction(1, 2), Fraction(2, 3)), nodes).reference()
    assert ref.exact is True and ref.kink_inputs == {}
    assert (ref.value, ref.gradient) == (Fraction(4, 3), (Fraction(-4, 3), Fraction(1)))
    assert all(type(x) is Fraction for x in (ref.value, *ref.gradient))
    # floats are rationals: the same at another point given as floats (0.25 and 2.0)
    ref = Graph((1.0, 1.0), nodes).reference((0.25, 2.0))
    assert (ref.value, ref.gradient) == (Fraction(10, 3), (Fraction(-16, 3), Fraction(1)))


@pytest.mark.parametrize(
    ("x", "value", "slope"),
    [
        (Fraction(1, 2), Fraction(1, 2), 1),
        (Fraction(3, 2), Fraction(3, 2), 1),
        (Fraction(-1, 2), 0, 0),
        (Fraction(0), 0, 0),
    ],
)
def test_exact_relu_and_its_derivative_with_zero_at_the_kink(x, value, slope):
    ref = Graph((x,), (Node("relu", (0,)),)).reference()
    assert (ref.value, ref.gradient, ref.kink_inputs) == (value, (slope,), {1: x})


def test_exact_relu_inputs_are_keyed_by_the_relu_slot_and_only_where_they_reach_the_output():
    # slot 2: relu(x1), unused; slot 4: relu(x0 * x1) = relu(-1/6); output x0 + relu(x0 * x1) = 1/2
    nodes = (Node("relu", (1,)), Node("mul", (0, 1)), Node("relu", (3,)), Node("add", (4, 0)))
    ref = Graph((Fraction(1, 2), Fraction(-1, 3)), nodes).reference()
    assert ref.kink_inputs == {4: Fraction(-1, 6)}
    assert (ref.value, ref.gradient) == (Fraction(1, 2), (1, 0))


def test_the_exact_reference_dividing_by_zero_is_inconclusive_and_says_so():
    reason = inconclusive_reason(Graph((Fraction(1), Fraction(0)), (Node("div", (0, 1)),)))
    assert "not a finite real number" in reason


def test_a_float_constant_makes_the_reference_an_interval_one():
    # 0.1 * x is a float program in an engine: the reference must not claim exactness
    ref = Graph((0.5,), (Node("mulc", (0,), 0.1),)).reference()
    assert ref.exact is False and isinstance(ref.value, mpmath.mpf)
    assert encloses(ref.value, ref.value_radius, Fraction(0.1) / 2)


# ---------------------------------------------------------------------- interval references
@pytest.mark.parametrize("x", [0.5, -2.0])
def test_tanh_reference_encloses_the_true_value_tightly(x):
    ref = Graph((x,), (Node("tanh", (0,)),)).reference()
    assert ref.exact is False
    assert encloses(ref.value, ref.value_radius, true(mpmath.tanh, x))
    assert encloses(ref.gradient[0], ref.gradient_radius[0], true(lambda t: 1 - mpmath.tanh(t) ** 2, x))
    assert 0 < exact(ref.value_radius) < Fraction(1, 2**100)
    assert abs(float(ref.value) - math.tanh(x)) <= 2 * math.ulp(math.tanh(x))  # stated bound of libm


def test_fraction_leaves_enter_the_intervals_exactly():
    ref = Graph((Fraction(1, 3),), (Node("exp", (0,)),)).reference()
    assert encloses(ref.value, ref.value_radius, true(mpmath.exp, Fraction(1, 3)))
    assert exact(ref.value_radius) < Fraction(1, 2**100)


def test_the_radius_is_half_the_width_of_the_tightest_enclosure():
    # Regression: the midpoint was (a + b) / 2 rounded to the interval's precision, which for two
    # neighbours a, b is a or b itself, so that mid +- rad missed half the interval (here 2/3).
    # Output slot 2 = x0 * x1 (the exp node only makes the graph non-rational); at REFERENCE_START_PREC
    # bits 1/3 lies between two neighbours one unit in the last place apart: 2**-(prec + 1), as
    # 1/3 is in [1/4, 1/2).  x1 = 2 is exact, so d/dx0 = 2 has radius 0, d/dx1 = 1/3 half that
    # unit, and the value 2/3 (the enclosure doubled) one unit of 1/3.
    nodes = (Node("mul", (0, 1)), Node("exp", (1,)))
    ref = Graph((Fraction(1, 3), 2.0), nodes, output=2).reference()
    unit = Fraction(1, 2 ** (REFERENCE_START_PREC + 1))
    assert ref.exact is False
    assert (exact(ref.value_radius), tuple(map(exact, ref.gradient_radius))) == (unit, (0, unit / 2))
    assert encloses(ref.value, ref.value_radius, Fraction(2, 3))
    assert exact(ref.gradient[0]) == 2 and encloses(ref.gradient[1], ref.gradient_radius[1], Fraction(1, 3))


@pytest.mark.parametrize("x0", [1e-300, -1e-300, 0.0, 0.5])
def test_interval_relu_at_and_around_its_kink(x0):
    # relu(x0) * exp(x1) at x1 = 0 (exp(0) = 1 exactly): value relu(x0), d/dx0 = step(x0) with
    # step(0) = 0 (the engine's convention), d/dx1 = relu(x0)
    nodes = (Node("relu", (0,)), Node("exp", (1,)), Node("mul", (2, 3)))
    ref = Graph((x0, 0.0), nodes).reference()
    relu, step = max(x0, 0.0), 1 if x0 > 0 else 0
    assert ref.exact is False
    assert (ref.value, ref.gradient, ref.kink_inputs) == (relu, (step, relu), {2: x0})
    assert exact(ref.value_radius) == 0


@pytest.mark.parametrize("x0", [0.5, -0.5, 0.0])
def test_interval_relu_through_tanh(x0):
    # relu(tanh(x0)): tanh(0) is exactly 0 in intervals too, where relu' is 0
    ref = Graph((x0,), (Node("tanh", (0,)), Node("relu", (1,)))).reference()
    t = true(mpmath.tanh, x0)
    assert list(ref.kink_inputs) == [2] and math.isclose(ref.kink_inputs[2], t, rel_tol=1e-15, abs_tol=0)
    if x0 > 0:
        assert encloses(ref.value, ref.value_radius, t)
        assert encloses(ref.gradient[0], ref.gradient_radius[0], 1 - t * t)
    else:
        assert (ref.value, ref.gradient, exact(ref.value_radius)) == (0, (0,), 0)


@pytest.mark.parametrize("sign", [1, -1])
@pytest.mark.parametrize("factor", [0.5, 0.0])
def test_a_kink_input_straddling_0_is_resolved_by_more_precision(sign, factor):
    # relu((x0 + x1) - x2) * factor with x0 = x2 = +-1, x1 = +-1e-300: the relu input is +-1e-300,
    # but (1 + 1e-300) - 1 at REFERENCE_START_PREC bits is [0, 2**-127]; only some 1,000 bits tell
    # its sign.  With factor 0.0 (the float constant keeps the graph on intervals) the gradient has
    # no step left: the sign must be certain all the same.
    nodes = (Node("add", (0, 1)), Node("sub", (3, 2)), Node("relu", (4,)), Node("mulc", (5,), factor))
    ref = Graph((sign * 1.0, sign * 1e-300, sign * 1.0), nodes).reference()
    step = factor if sign > 0 else 0
    assert ref.gradient == (step, step, -step)
    assert ref.value == factor * max(sign * 1e-300, 0)
    (kink,) = ref.kink_inputs.values()
    assert list(ref.kink_inputs) == [5] and math.isclose(float(kink), sign * 1e-300, rel_tol=1e-6)


def test_a_kink_input_that_is_exactly_0_but_not_computed_so_is_inconclusive():
    # tanh(x0) - tanh(x1) at x0 = x1: 0, but no interval of it, at any precision, excludes both signs
    nodes = (Node("tanh", (0,)), Node("tanh", (1,)), Node("sub", (2, 3)), Node("relu", (4,)))
    reason = inconclusive_reason(Graph((0.5, 0.5), nodes))
    assert "met a kink or a pole" in reason and f"at {REFERENCE_MAX_PREC} bits" in reason


def test_a_pole_is_inconclusive_and_says_it_is_no_finite_real_number():
    # x0 / x1 at x1 = 0 (the float constant keeps the graph on intervals): [-inf, +inf], and
    # sympy on the exact point says why: a pole
    nodes = (Node("div", (0, 1)), Node("mulc", (2,), 0.5))
    reason = inconclusive_reason(Graph((1.0, 0.0), nodes))
    assert reason == "no reference: the output or its gradient is not a finite real number here"


def test_an_interval_ending_at_0_is_not_settled_and_is_no_pole():
    # -(tanh(x0) - tanh(x1))**2 * x2**16 at x0 = x1 = 0.5, x2 = 2**1000 is 0, but its intervals are
    # [-d, 0] with d far from underflowing (x2**16 = 2**16000) at every precision
    nodes = (
        Node("tanh", (0,)), Node("tanh", (1,)), Node("sub", (3, 4)), Node("powc", (5,), 2),
        Node("powc", (2,), 16), Node("mul", (6, 7)), Node("neg", (8,)),
    )  # fmt: skip
    reason = inconclusive_reason(Graph((0.5, 0.5, 2.0**1000), nodes))
    assert reason.endswith(f"the intervals are still wide at {REFERENCE_MAX_PREC} bits")


def test_a_point_outside_the_domain_is_inconclusive_and_the_reason_names_the_error():
    reason = inconclusive_reason(Graph((-1.0,), (Node("log", (0,)),)))  # log(-1): not a real number
    assert reason.endswith("not a finite real number here")


@pytest.mark.parametrize(("x0", "slope"), [(0.5, 1), (-0.5, -1), (0.0, 0)])
def test_the_derivative_of_abs_is_the_sign(x0, slope):
    # (x0 * x0) ** (1/2) is |x0| on the reals: sympy differentiates it to sign(x0), 0 at 0
    nodes = (Node("mul", (0, 0)), Node("powc", (1,), Fraction(1, 2)))
    ref = Graph((x0,), nodes).reference()
    assert (ref.value, ref.gradient) == (abs(x0), (slope,))


@pytest.mark.parametrize("sign", [1, -1])
def test_a_sign_whose_argument_straddles_0_is_resolved_by_more_precision(sign):
    # 1 + |(x0 + x1) - x2| with x0 = x2 = +-1, x1 = +-1e-300: the value rounds to 1.0 at once,
    # the gradient sign(1e-300) * (1, 1, -1) needs some 1,000 bits
    nodes = (
        Node("add", (0, 1)), Node("sub", (3, 2)), Node("mul", (4, 4)),
        Node("powc", (5,), Fraction(1, 2)), Node("addc", (6,), 1),
    )  # fmt: skip
    ref = Graph((sign * 1.0, sign * 1e-300, sign * 1.0), nodes).reference()
    assert ref.gradient == (sign, sign, -sign)
    assert encloses(ref.value, ref.value_radius, 1 + Fraction(1e-300))


def test_a_cancelling_output_is_refined_until_it_is_relatively_narrow():
    # exp(x0) - x1 - x2 with x1 + x2 the first 106 bits of exp(x0): about 1e-33 * exp(x0), whose
    # interval at REFERENCE_START_PREC bits is relatively wide (some 2**-21): more precision needed
    x0 = 0.5
    e = true(mpmath.exp, x0)
    x1 = float(e)
    x2 = float(e - Fraction(x1))
    nodes = (Node("exp", (0,)), Node("sub", (3, 1)), Node("sub", (4, 2)))
    ref = Graph((x0, x1, x2), nodes).reference()
    want = e - Fraction(x1) - Fraction(x2)
    assert encloses(ref.value, ref.value_radius, want)
    assert exact(ref.value_radius) <= REFERENCE_REL_WIDTH * abs(want)
    assert float(ref.value) == float(want)


def test_an_output_rounding_to_one_double_is_settled_at_the_first_precision():
    # exp(x0) - x1, x1 = exp(x0) rounded: about 3e-19 * exp(x0), relatively wider than
    # REFERENCE_REL_WIDTH at REFERENCE_START_PREC bits, but both ends round to the same double,
    # which settles it there: the radius is of that precision, not of a later one
    x0 = 0.0126953125  # 13/1024: the difference is positive and below its nearest double
    e = true(mpmath.exp, x0)
    x1 = float(e)
    ref = Graph((x0, x1), (Node("exp", (0,)), Node("sub", (2, 1)))).reference()
    want = e - Fraction(x1)
    assert encloses(ref.value, ref.value_radius, want) and float(ref.value) == float(want)
    assert exact(ref.value_radius) > Fraction(1, 2 ** (2 * REFERENCE_START_PREC))


def test_a_value_on_a_rounding_boundary_settles_by_its_relative_width():
    # Regression: x0 * tanh(x1) / tanh(x2) at x1 = x2 is x0, here the midpoint between the doubles
    # 0.5 and 0.5 + 2**-53; every interval of it straddles that midpoint, so its ends never round to
    # one double, and only the relative width can settle it.  _settled compared the ends rounded to
    # mpmath's working precision (53 bits): one double apart, never relatively narrow (inconclusive).
    midpoint = Fraction(2**53 + 1, 2**54)
    nodes = (Node("tanh", (1,)), Node("tanh", (2,)), Node("mul", (0, 3)), Node("div", (5, 4)))
    ref = Graph((midpoint, 0.5, 0.5), nodes).reference()
    assert encloses(ref.value, ref.value_radius, midpoint)
    assert 0 < exact(ref.value_radius) <= REFERENCE_REL_WIDTH * midpoint


# ---------------------------------------------------------------------- mpmath values
def test_mp_value_and_gradient_at_a_point_is_more_precise_than_a_double():
    graph = Graph((1.0,), (Node("exp", (0,)),))
    value, grad = graph.mp_value_and_gradient((0.5,))  # at mpmath's default 53 bits
    e = true(mpmath.exp, 0.5)
    assert abs(exact(value) - e) < e / 2**100 and abs(exact(grad[0]) - e) < e / 2**100


def test_mp_value_and_gradient_of_an_exact_reference():
    value, grad = Graph((Fraction(1, 3),), (Node("neg", (0,)),)).mp_value_and_gradient()
    assert isinstance(value, mpmath.mpf) and isinstance(grad[0], mpmath.mpf) and grad[0] == -1
    assert abs(exact(value) + Fraction(1, 3)) < Fraction(1, 2**64)  # more than double precision
    with mpmath.workdps(50):  # at least the working precision
        value, _ = Graph((Fraction(1, 3),), (Node("neg", (0,)),)).mp_value_and_gradient()
    assert abs(exact(value) + Fraction(1, 3)) < Fraction(1, 10**49)


def test_mp_value_and_gradient_keeps_large_integers_exact():
    n = 2**100 + 1
    value, grad = Graph((n, n), (Node("mul", (0, 1)),)).mp_value_and_gradient()
    assert (int(value), [int(g) for g in grad]) == (n * n, [n, n])


# ---------------------------------------------------------------------- the description
def test_a_graph_whose_output_is_not_its_last_node():
    # output slot 2 = x0 * x1; slot 3 = x0 + x1 is computed but is not the output
    graph = Graph((1.0, 2.0), (Node("mul", (0, 1)), Node("add", (0, 1))), output=2)
    moved = graph.with_leaves((3.0, 4.0))
    assert moved.output == 2 and moved.leaves == (3.0, 4.0)
    assert moved(3.0, 4.0) == graph(3.0, 4.0) == 12.0 and graph(1.0, 1.0) == 1.0
    ref = moved.reference()
    assert (ref.value, ref.gradient) == (12, (4, 3))
    assert graph.reference((5.0, 7.0)).value == 35
    values = graph.build(leaves=(3.0, 4.0))
    assert [v.data for v in values] == [3.0, 4.0, 12.0, 7.0]


def test_a_graph_whose_output_is_a_leaf():
    graph = Graph((2.0, 3.0), (Node("mul", (0, 1)),), output=0)
    assert graph(5.0, 3.0) == 5.0 and graph.reference().gradient == (1, 0)


@pytest.mark.parametrize(
    ("nodes", "output", "message"),
    [
        ((Node("vsum", ()),), None, r"node 1 \(vsum\) has a wrong number of operands: \(\)"),
        ((Node("dot", (0,)),), None, r"node 1 \(dot\) has a wrong number of operands: \(0,\)"),
        ((Node("dot", (0, 0, 0, 0)),), None, r"node 1 \(dot\) has a wrong number of operands"),
        ((Node("mul", (0, 2)),), None, r"node 1 \(mul\) refers to a later slot: \(0, 2\)"),
        ((Node("mul", (0, -1)),), None, r"refers to a later slot: \(0, -1\)"),
        ((Node("frobnicate", (0,)),), None, "node 1 has unknown op 'frobnicate'"),
        ((Node("neg", (0,)),), 2, "output slot 2 does not exist"),
        ((Node("neg", (0,)),), -1, "output slot -1 does not exist"),
    ],
)
def test_invalid_graphs_are_refused_naming_the_offending_value(nodes, output, message):
    with pytest.raises(ValueError, match=message):
        Graph((1.0,), nodes, output)


@pytest.mark.parametrize("values", [(1.0,), (1.0, 2.0, 5.0), ()])
@pytest.mark.parametrize(
    ("use", "where"),
    [
        (lambda g, v: g(*v), "evaluate"),
        (lambda g, v: g.evaluate(v), "evaluate"),
        (lambda g, v: g.build(autograd, v), "build"),
        (lambda g, v: g.reference(v), "reference"),
        (lambda g, v: g.with_leaves(v), "with_leaves"),
    ],
)
def test_a_point_with_one_value_too_many_or_too_few_is_refused(use, where, values):
    # (1, 2, 5) once gave 5.0 for x0 * x1: the extra value shifted the product's slot
    graph = Graph((3.0, 4.0), (Node("mul", (0, 1)),))
    with pytest.raises(ValueError, match=rf"Graph\.{where}: {len(values)} values .* for 2 leaves"):
        use(graph, values)


def test_the_point_itself_names_itself_when_it_refuses():
    graph = Graph((3.0, 4.0), (Node("mul", (0, 1)),))
    assert graph.point(None) == [3.0, 4.0] and graph.point((5, 6)) == [5, 6]
    with pytest.raises(ValueError, match=r"^Graph\.point: 1 values \[5\] for 2 leaves$"):
        graph.point((5,))


def test_valid_variadic_nodes_and_every_slot_as_output_are_accepted():
    # at x = 2: vsum([x]) = 2, dot([x], [x], x) = x*x + x = 6, dot([x, x], [x, x], x) = 2*x*x + x = 10
    for nodes, value in [
        (Node("vsum", (0,)), 2.0),
        (Node("dot", (0, 0, 0)), 6.0),
        (Node("dot", (0,) * 5), 10.0),
    ]:
        assert Graph((1.0,), (nodes,))(2.0) == value
    for output in (0, 1):
        assert Graph((1.0,), (Node("neg", (0,)),), output).out == output


def test_a_graph_built_from_lists_is_the_graph_built_from_tuples():
    from_lists = Graph([Fraction(1, 2)], [Node("neg", (0,))])
    assert from_lists == Graph((Fraction(1, 2),), (Node("neg", (0,)),))
    assert isinstance(from_lists.leaves, tuple) and isinstance(from_lists.nodes, tuple)
    assert hash(from_lists) == hash(Graph((Fraction(1, 2),), (Node("neg", (0,)),)))
    assert from_lists.reference().value == Fraction(-1, 2)


def test_expression_is_the_program_as_one_python_expression():
    # (x0 * x1).tanh() + 1: leaves bare, every interior node parenthesized where it is used
    graph = Graph((0.5, -2.0), (Node("mul", (0, 1)), Node("tanh", (2,)), Node("addc", (3,), 1)))
    assert graph.expression() == "((x0 * x1).tanh()) + 1"
    got = eval(graph.expression(), {"x0": autograd.Value(0.5), "x1": autograd.Value(-2.0)})
    assert got.data == math.tanh(-1.0) + 1 == graph(0.5, -2.0)


def test_printed_descriptions_rebuild_what_they_describe():
    assert repr(Node("neg", (0,))) == "Node('neg', (0,))"
    assert repr(Node("mulc", (1,), Fraction(1, 2))) == "Node('mulc', (1,), Fraction(1, 2))"
    graph = Graph((0.5,), (Node("neg", (0,)),))
    assert graph.code() == "Graph(leaves=(0.5,), nodes=(Node('neg', (0,)),))"
    moved = Graph((0.5,), (Node("neg", (0,)),), output=0)
    assert moved.code() == "Graph(leaves=(0.5,), nodes=(Node('neg', (0,)),), output=0)"
    assert eval(moved.code(), {"Graph": Graph, "Node": Node}) == moved


def test_sym_value_is_the_exact_rational_a_leaf_stores():
    assert sym_value(0.1) == sympy.Rational(3602879701896397, 36028797018963968)  # 0.1 as a double
    assert sym_value(Fraction(-1, 3)) == sympy.Rational(-1, 3) and sym_value(7) == sympy.Integer(7)


# ---------------------------------------------------------------------- the reproducer
def test_the_snippet_runs_and_prints_expected_then_actual():
    # x0 * x1 + x0 at (0.5, -2.0): gradient (x1 + 1, x0) = (-1.0, 0.5)
    graph = Graph((0.5, -2.0), (Node("mul", (0, 1)), Node("add", (2, 0))))
    assert run(graph.snippet(expected="[-1.0, 0.5]")) == ["expected: [-1.0, 0.5]", "actual:   [-1.0, 0.5]"]
    assert run(graph.snippet()) == ["[-1.0, 0.5]"]


def test_the_snippet_uses_the_engine_it_is_given():
    import micrograd.engine as micrograd  # a test dependency (tox.ini)

    graph = Graph((0.5, -2.0), (Node("mul", (0, 1)), Node("add", (2, 0))))
    code = graph.snippet(micrograd, expected="[-1.0, 0.5]")
    assert code.splitlines()[0] == "from micrograd.engine import Value"
    assert run(code) == ["expected: [-1.0, 0.5]", "actual:   [-1.0, 0.5]"]


@pytest.mark.parametrize(
    "graph",
    [
        Graph((2.0,), (Node("sub", (0, 0)), Node("log", (1,)))),  # log(x - x) = log(0)
        Graph((Fraction(2),), (Node("sub", (0, 0)), Node("rdiv", (1,), 1))),  # 1 / (x - x), exact
        Graph((2.0,), (Node("sub", (0, 0)), Node("powc", (1,), -1))),  # (x - x) ** -1
        Graph((2.0,), (Node("sub", (0, 0)), Node("log", (1,)), Node("mulc", (2,), 0))),  # 0 * zoo: nan
    ],
)
def test_a_graph_sympy_finds_undefined_everywhere_has_no_reference_and_says_so(graph):
    # sympy simplifies x - x to 0 before the op sees it, so the expression is zoo; its printer
    # cannot write zoo, which raised a KeyError of ours before
    with pytest.raises(OracleInconclusive, match="undefined everywhere"):
        graph.reference()


def test_ends_too_far_apart_to_add_exactly_get_an_outward_rounded_middle():
    # Regression (tox -e thorough, properties/test_stress.py): 2x * exp(1 - 2x) at x = 7.07e139
    # has interval ends of exponent -2e140 beside far larger ones; the exact midpoint raised
    # mpmath's OverflowError ("the exact result does not fit in memory") out of reference()
    x = 7.071067811865476e139
    nodes = (
        Node("add", (0, 0)), Node("rsub", (1,), 1), Node("rsub", (2,), 1), Node("exp", (2,)),
        Node("mul", (3, 4)),
    )  # fmt: skip
    ref = Graph((x,), nodes).reference()
    # the value 2x e^(1-2x) > 0 and the slope (2 - 4x) e^(1-2x) < 0 are below every double
    assert float(ref.value) == 0.0 and float(ref.gradient[0]) == 0.0
    assert ref.value + ref.value_radius > 0 and ref.gradient[0] - ref.gradient_radius[0] < 0


PREC = REFERENCE_START_PREC


def _ends(mid, rad):
    """mid - rad and mid + rad, unrounded (mpmath's - and + round to 53 bits)."""
    return mpmath.fsub(mid, rad, exact=True), mpmath.fadd(mid, rad, exact=True)


def _exactly(x):
    """An mpmath number as a Fraction: the comparisons below must not round."""
    man, exp = x.man_exp
    return Fraction(man) * Fraction(2) ** exp


@pytest.mark.parametrize("gap", [10**4, 10**12])
@pytest.mark.parametrize("a, b", [(-1, 1), (1, 1), (-1, -1), (1, -1)])
@pytest.mark.parametrize("tail", [0, 2**-60])  # a long end: 61 bits, more than a double's 53
def test_a_middle_of_ends_far_apart_in_exponent_encloses_both_ends(gap, a, b, tail):
    # an exact sum of -1 (or 1) and 2**-gap needs gap bits (10**12: memory the machine has not got):
    # the middle is rounded, its radius rounded outward, and mid +- rad still holds both ends
    from autograd.testing.oracles.reference import _middle

    long_end = mpmath.fadd(a, a * tail, exact=True)  # mpmath's + would round it to 53 bits
    lo, hi = sorted([long_end, b * mpmath.ldexp(1, -gap)])
    mid, rad = _middle(lo, hi, REFERENCE_START_PREC)
    assert _ends(mid, rad)[0] <= lo and hi <= _ends(mid, rad)[1]  # mpmath compares exactly
    # and as tight as the precision allows: half the width (|long_end| / 2, up to 2**-gap), plus a
    # few units of the 128th bit (a middle or a radius rounded to 53 bits is 2**-61 wider)
    assert _exactly(rad) <= abs(_exactly(long_end)) / 2 * (1 + Fraction(1, 2 ** (REFERENCE_START_PREC - 4)))


@pytest.mark.parametrize("bits, exact", [(4 * PREC, True), (4 * PREC + 1, False)])
@pytest.mark.parametrize("sign", [1, -1])
def test_the_middle_is_exact_while_the_exact_sum_fits_in_four_times_the_precision(bits, exact, sign):
    # 1 +- 2**-(bits - 1) spans bits bits: up to 4 * prec the middle is exact, past it rounded to prec
    from autograd.testing.oracles.reference import _middle

    lo, hi = sign * mpmath.ldexp(1, 1 - bits), mpmath.mpf(1)
    mid, rad = _middle(lo, hi, REFERENCE_START_PREC)
    halved = (1 + sign * Fraction(1, 2 ** (bits - 1))) / 2
    assert (_exactly(mid) == halved) is exact
    assert (_exactly(mid) == Fraction(1, 2)) is not exact  # rounded to 128 bits, the tail is gone
    assert _ends(mid, rad)[0] <= lo and hi <= _ends(mid, rad)[1]
