"""Soundness of the oracles: every false alarm we met, as the concrete graph that raised it.

Each graph here made an oracle report a MISMATCH on a correct engine (ours).  The
fixed oracle must pass our engine on it, or say ``OracleInconclusive`` when the point
cannot be judged (a relu input on its kink in floats but not exactly), and never
``GradientMismatch``.  Expected values are computed here by hand in Fractions.
"""

from fractions import Fraction

import pytest

from autograd.testing import (
    GradientMismatch,
    Graph,
    Node,
    OracleInconclusive,
    assert_grads_fd,
    assert_grads_symbolic,
    checks,
)
from autograd.testing.oracles import symbolic_tolerances

# issue 8: in floats 3/2 - (3/2 - x0) is 0, so d(n8 * n8)/d n8 = 0 and the old tolerance
# dropped every node below n8, although their rounding moves the gradient of x1.
ZERO_PARTIAL = Graph(
    leaves=(6.885946641950294e-198, 0.0, 0.0, 0.0),
    nodes=(Node("add", (3, 0)), Node("rsub", (0,), Fraction(3, 2)), Node("neg", (0,)),
           Node("rsub", (5,), Fraction(3, 2)), Node("add", (7, 1)), Node("mul", (8, 8)),
           Node("add", (9, 4)), Node("add", (10, 6))),
)  # fmt: skip
# x0 * x1 * s1 * s2: the backward product s2 * s1 underflows to 0 (exactly 1e-330), then
# meets x1 = 1e300: the engine's d/dx0 is 0, the exact one 1e-30.
BACKWARD_UNDERFLOW = Graph((1e-10, 1e300, 1e-200, 1e-130), (Node("mul", (0, 1)), Node("mul", (4, 2)),
                                                          Node("mul", (5, 3))))  # fmt: skip
# x0 * x0 underflows to 0 (exactly 1e-340), then is multiplied by 1e300.
FORWARD_UNDERFLOW = Graph(
    (1e-170, 1e300, 1.0), (Node("mul", (0, 0)), Node("mul", (3, 1)), Node("mul", (4, 2)))
)
# tox -e thorough, test_forward_values_match_sympy: x0*x0 + (x0 - x1), x0 = x1; at 50 digits
# x0*x0 vanished next to x0 before x1 cancelled it, so the reference said 0.0.
SUBNORMAL_SUM = Graph((2.2729600481582976e-161,) * 2, (Node("mul", (0, 0)), Node("sub", (0, 1)),
                                                        Node("add", (2, 3))))  # fmt: skip

# found by stress_graphs: (-(1 - (1 - x1)))**2 is 0 in floats, exactly x1**2 = 7e-201; the
# output's first-order sensitivity to the rounding of 1 - x1 is 0 there (forward check).
SQUARE_OF_CANCELLED = Graph(
    (1e150, 8.405839150687039e-101, 8.405839150687039e-101),
    (Node("rsub", (1,), 1), Node("rsub", (3,), 1), Node("neg", (4,)), Node("mul", (5, 5))),
)
# n**3 * x1 with n = 3/2 - (3/2 - x0): d/dx1 = n**3 is 0 in floats, 1e-300 exactly, and its
# first and second derivatives in n vanish at n = 0 too.
CUBE_OF_CANCELLED = Graph(
    (1e-100, 1.0),
    (Node("rsub", (0,), Fraction(3, 2)), Node("rsub", (2,), Fraction(3, 2)), Node("mul", (3, 3)),
     Node("mul", (4, 3)), Node("mul", (5, 1))),
)  # fmt: skip

# found by stress_graphs after S moved one node at a time: d/dx0 = 4 tanh(n10) tanh'(n10) n9 n6
# with n6 = 0.5 - (0.5 - x2) and n9 = n6 * x0 + (1 - (1 - x3)) both 0 in floats; moving n5 or
# n7 alone leaves the other factor 0, only both together move the gradient.
PRODUCT_OF_CANCELLED = Graph(
    (-9.875337737861116e-101, 5.462060522390427e-101, 9.693955790284229e-102, 4.514809228470744e-58),
    (Node("mul", (3, 3)), Node("rsub", (2,), 0.5), Node("rsub", (5,), 0.5), Node("rsub", (3,), 1),
     Node("rsub", (7,), 1), Node("dot", (6, 0, 8)), Node("mul", (9, 9)), Node("tanh", (10,)),
     Node("mul", (11, 11)), Node("add", (12, 4))),
)  # fmt: skip

FALSE_ALARMS = {
    "product_of_cancelled": PRODUCT_OF_CANCELLED,
    "zero_partial": ZERO_PARTIAL,
    "backward_underflow": BACKWARD_UNDERFLOW,
    "forward_underflow": FORWARD_UNDERFLOW,
    "subnormal_sum": SUBNORMAL_SUM,
    "square_of_cancelled": SQUARE_OF_CANCELLED,
    "cube_of_cancelled": CUBE_OF_CANCELLED,
}


@pytest.mark.parametrize("name", sorted(FALSE_ALARMS))
def test_the_symbolic_oracle_passes_our_engine_where_it_raised_a_false_alarm(name):
    report = assert_grads_symbolic(FALSE_ALARMS[name])
    assert report.ok


@pytest.mark.parametrize("name", sorted(FALSE_ALARMS))
def test_the_forward_check_passes_our_engine_where_it_raised_a_false_alarm(name):
    checks.check_forward(None, FALSE_ALARMS[name])


def test_the_zero_partial_tolerance_counts_the_nodes_below_the_zero_partial():
    tols, _ = symbolic_tolerances(ZERO_PARTIAL)
    # d out/d x1 = 2 * (x1 + 3/2 - (3/2 - x0)); rounding 3/2 - x0 moves it by up to 2 * 1.5 * eps
    assert tols[1] >= 2 * 1.5 * 2.0**-53
    assert tols[1] < 1e-12  # and the bound is still tight


def test_the_reference_of_a_rational_graph_on_floats_is_exact():
    x = Fraction(2.2729600481582976e-161)
    ref = SUBNORMAL_SUM.reference()
    assert ref.exact
    assert ref.value == x * x  # x0*x0 + (x0 - x1) with x0 == x1
    assert ref.gradient == (2 * x + 1, -1)


def test_the_interval_reference_settles_to_a_unique_double():
    graph = Graph(
        (0.7, 2.2729600481582976e-161), (Node("exp", (0,)), Node("mul", (1, 1)), Node("add", (2, 3)))
    )
    ref = graph.reference()
    assert not ref.exact
    # exp(0.7) rounds to this double; the radius is far below half an ulp of it
    assert float(ref.value) == 2.0137527074704766
    assert ref.value_radius < 1e-30
    assert float(ref.gradient[1]) == float(2 * Fraction(2.2729600481582976e-161))


def test_a_reference_that_cannot_settle_is_inconclusive():
    # log(x*x) - 2*log(x) is exactly 0 but sympy keeps it: its relu's Step never settles
    graph = Graph((0.7,), (Node("mul", (0, 0)), Node("log", (1,)), Node("log", (0,)), Node("mulc", (3,), 2),
                           Node("sub", (2, 4)), Node("relu", (5,))))  # fmt: skip
    with pytest.raises(OracleInconclusive, match="did not settle"):
        graph.reference()


# issue 8: relu inputs put exactly on the kink in floats, while exactly they are positive.
KINKS = {
    "product_underflows": Graph(
        (0.5, 5e-324, 0.0, 2.0), (Node("dot", (0, 1, 2)), Node("relu", (4,)), Node("mul", (5, 3)))
    ),
    "sum_rounds_away": Graph(
        (1.0, 1.69e-38, -1.0, 2.0),
        (Node("add", (0, 1)), Node("add", (4, 2)), Node("relu", (5,)), Node("mul", (6, 3))),
    ),
}


@pytest.mark.parametrize("name", sorted(KINKS))
@pytest.mark.parametrize("oracle", [assert_grads_symbolic, assert_grads_fd], ids=["symbolic", "fd"])
def test_a_relu_input_on_its_kink_in_floats_only_is_inconclusive_not_a_mismatch(name, oracle):
    with pytest.raises(OracleInconclusive) as info:
        oracle(KINKS[name])
    assert not isinstance(info.value, GradientMismatch)
    assert info.value.reason


# Finite differences, false alarms found by stress_graphs.
FD_FALSE_ALARMS = {
    # relu(x0) * x1 at x0 = 1e-150: the step 6e-6 crossed the kink and 20 shrinks by 4 did not help
    "relu_of_a_tiny_leaf": Graph((1e-150, 2.0), (Node("relu", (0,)), Node("mul", (2, 1)))),
    # x1 ** x0 = 3e-40 is absorbed by -2 - (-2 - .): the float function is flat in x0 while the
    # engine's chain rule is 1.8e112; f's own error (huge here) now widens the tolerance
    "absorbed_path": Graph(
        (-0.2666214794345514, 2.3638656531357334e148),
        (
            Node("vpow", (1, 0)),
            Node("rsub", (2,), -2),
            Node("rsub", (3,), -2),
            Node("mul", (4, 4)),
            Node("mul", (5, 5)),
            Node("log", (1,)),
            Node("dot", (1, 4, 3, 4, 7, 3, 4)),
            Node("mul", (8, 8)),
            Node("add", (9, 6)),
        ),
    ),
}


@pytest.mark.parametrize("name", sorted(FD_FALSE_ALARMS))
def test_finite_differences_pass_our_engine_where_they_raised_a_false_alarm(name):
    assert assert_grads_fd(FD_FALSE_ALARMS[name]).ok


def test_finite_differences_on_a_feature_smaller_than_any_step_are_inconclusive():
    # -x0 - tanh(x3 - x0) at x0 = x3 = 9.6e149: any step that moves x0 at all saturates tanh
    graph = Graph(
        (9.59266051613223e149, 1e-100, 9.59266051613223e149, 9.59266051613223e149),
        (Node("sub", (3, 0)), Node("tanh", (4,)), Node("neg", (0,)), Node("add", (6, 5))),
    )
    with pytest.raises(OracleInconclusive, match="no step along x0"):
        assert_grads_fd(graph)
    assert assert_grads_symbolic(graph).ok  # the symbolic oracle judges it (d/dx0 = -2)


def test_the_interval_reference_handles_the_sign_sympy_writes_for_a_power_of_a_square():
    # (s*s)**x2 on real s is Abs(s)**(2*x2) to sympy, whose derivative holds sign(s): once bound to
    # mpmath's point sign, every interval was rejected and the point was inconclusive
    graph = Graph(
        (-4.100774356683103e-206, -1.1963757810130078, -2.2812502238882075),
        (Node("vsum", (2, 1, 2, 1)), Node("mul", (3, 3)), Node("vpow", (4, 2)), Node("mul", (5, 0)),
         Node("add", (6, 1))),
    )  # fmt: skip
    ref = graph.reference()
    assert not ref.exact
    assert assert_grads_symbolic(graph).ok
