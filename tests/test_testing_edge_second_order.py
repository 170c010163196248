"""The ``edge_second_order`` probe and the certified second differences it votes with.

The probe is run through the registry (``run_check``) on our engine, on fixtures with one
planted or engine-wide behaviour, and :func:`second_difference` is held to second derivatives
worked by hand.
"""

import math
from fractions import Fraction

from autograd import Value
from autograd.testing import run_check
from autograd.testing.findings import DEFECT_KINDS
from autograd.testing.oracles.definition_differences import second_difference
from tests.engines import (
    exp_second_order_breaks,
    exp_without_second_order,
    flushes_subnormals_higher,
    planted_edge_second_order,
    planted_second_order,
)


def test_our_engine_has_no_defect_in_its_second_derivatives_at_the_edges():
    outcome = run_check("edge_second_order", Value)
    assert outcome.unit == "points" and outcome.judged > 500
    assert not [f for f in outcome.findings if f.kind in DEFECT_KINDS]


def test_a_rule_that_overflows_only_at_the_edges_is_found_there_and_not_by_random_graphs():
    edges = run_check("edge_second_order", planted_edge_second_order.Value)
    crashes = [f for f in edges.findings if f.kind == "crash"]
    assert [f.op for f in crashes] == ["div"]
    assert "y = 1e+300" in crashes[0].summary and "second derivatives" in crashes[0].summary
    graphs = run_check(
        "second_order", planted_edge_second_order.Value, examples=10, ops=["div", "add", "mul"]
    )
    assert not [f for f in graphs.findings if f.kind in DEFECT_KINDS]


def test_a_wrong_mixed_partial_is_confirmed_by_the_differences():
    # d2(x*y)/dx dy is 1 and the planted engine gives 0 at every point: at the edges too
    outcome = run_check("edge_second_order", planted_second_order.Value)
    wrong = [f for f in outcome.findings if f.kind == "wrong_gradient" and f.op == "mul"]
    assert wrong and "confirmed by certified second differences of the definition" in wrong[0].summary
    assert wrong[0].expected == "1.0" and wrong[0].actual in ("0", "0.0")


def test_an_engine_that_flushes_subnormals_gets_one_fact_not_defects():
    outcome = run_check("edge_second_order", flushes_subnormals_higher.Value)
    assert not [f for f in outcome.findings if f.kind in DEFECT_KINDS]
    (fact,) = [f for f in outcome.findings if f.summary.startswith("subnormal numbers are flushed")]
    assert fact.kind == "convention" and fact.check == "edge_second_order"


def test_an_engine_without_second_order_is_not_judged():
    from tests.engines import flushes_subnormals  # a Value class whose backward takes no create_graph

    outcome = run_check("edge_second_order", flushes_subnormals.Value)
    assert outcome.judged == 0 and "create_graph" in outcome.reason


def test_second_differences_of_definitions_agree_with_derivatives_worked_by_hand():
    # exp'' = exp; tanh'' = -2 tanh sech^2; d2(x*y)/dx dy = 1 exactly (the quotient of a bilinear function)
    found = second_difference("exp", (1e-300,), None, 0, 0, wanted=1e-12)
    assert found is not None and math.isclose(float(found.value), 1.0, rel_tol=1e-12)
    found = second_difference("tanh", (1e-20,), None, 0, 0, wanted=1e-34)  # -2 tanh sech^2 = -2x
    assert found is not None and math.isclose(float(found.value), -2e-20, rel_tol=1e-12)
    found = second_difference("mul", (1.5, 2.0), None, 0, 1, wanted=0.0)
    assert found is not None and found.value == 1 and found.spread == 0
    # 1/x at 5e-324 (rdiv with constant 1): 2 / x**3, far beyond the floats, is still certified
    found = second_difference("rdiv", (5e-324,), 1, 0, 0, wanted=1e960)
    assert found is not None and abs(found.value * Fraction(5e-324) ** 3 / 2 - 1) < 1e-9


def test_second_differences_shrink_their_step_inside_the_domain():
    # log at 5e-324: the steps are relative to the operand, so x - 2h stays positive; -1/x**2
    found = second_difference("log", (5e-324,), None, 0, 0, wanted=1e640)
    assert found is not None and abs(found.value * Fraction(5e-324) ** 2 + 1) < 1e-9


def test_an_op_whose_second_derivative_is_not_implemented_is_unsupported_once():
    outcome = run_check("edge_second_order", exp_without_second_order.Value)
    exp = [f for f in outcome.findings if f.op == "exp"]
    assert [f.kind for f in exp] == ["unsupported"]
    assert "no second derivatives" in exp[0].summary and "not implemented" in exp[0].summary


def test_an_op_whose_second_derivative_breaks_everywhere_is_a_crash():
    outcome = run_check("edge_second_order", exp_second_order_breaks.Value)
    exp = [f for f in outcome.findings if f.op == "exp"]
    crashes = [f for f in exp if f.kind == "crash"]
    assert crashes and "AttributeError" in crashes[0].actual
    assert not [f for f in exp if f.kind == "unsupported"]
