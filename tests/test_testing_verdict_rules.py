"""Verdict rules that the rest of the suite did not pin down (found by planting bugs in them,
see regressions/harness_zoo.py): the one outcome rule, and a determinism probe that must not
tolerate an engine with just two different gradients."""

from __future__ import annotations

from fractions import Fraction
from types import SimpleNamespace

import numpy
import pytest

from autograd.testing import reproducers, resolve_engine, verdicts
from autograd.testing.findings import DEFECT_KINDS, INFORMATION_KINDS, Finding, outcome
from autograd.testing.probes import determinism
from tests.engines import sound, two_orders


def finding(kind: str) -> Finding:
    return Finding(kind, "some_check", f"a {kind} finding", op="mul")


def test_a_check_that_judged_nothing_is_not_applicable_never_passed():
    result = outcome(
        "forward", [], judged=0, unit="graphs", inconclusive=40, reason="every graph inconclusive"
    )
    assert result.status == "not_applicable"
    assert (result.judged, result.inconclusive, result.unit) == (0, 40, "graphs")
    assert result.reason == "every graph inconclusive"
    assert outcome("forward", [], judged=1, unit="graphs").status == "passed"


@pytest.mark.parametrize("kind", DEFECT_KINDS)
def test_a_defect_fails_the_check_whatever_was_judged(kind):
    for judged in (0, 3):
        assert (
            outcome("c", [finding("convention"), finding(kind)], judged=judged, unit="runs").status
            == "failed"
        )


@pytest.mark.parametrize("kind", INFORMATION_KINDS)
def test_information_is_no_failure(kind):
    # a convention, a missing op, a depth limit... are facts: the check passed if it judged something
    assert kind not in DEFECT_KINDS
    assert outcome("c", [finding(kind)], judged=2, unit="runs").status == "passed"
    assert outcome("c", [finding(kind)], judged=0, unit="runs").status == "not_applicable"


def test_the_two_orders_fixture_gives_exactly_two_gradients_alternately():
    eng = resolve_engine(two_orders.Value)
    runs = determinism._run_in_process(eng, determinism.determinism_body(eng, 4))
    first, second = runs[0][0], runs[1][0]
    assert first != second and [run[0] for run in runs] == [first, second, first, second]


def test_determinism_reports_an_engine_whose_builds_give_just_two_gradients():
    result = determinism.probe_determinism(two_orders.Value)
    assert result.status == "failed"
    (found,) = result.findings
    assert found.kind == "nondeterministic"
    assert "gives 2 different gradients" in found.summary
    assert determinism.probe_determinism(sound.Value).findings == []  # the same graph, one order


def test_the_outcome_carries_the_check_its_findings_and_what_it_judged():
    found = [finding("convention"), finding("wrong_value")]
    result = outcome("edge_points", found, judged=7, unit="points")
    assert (result.name, result.findings, result.judged, result.unit) == ("edge_points", found, 7, "points")
    # nothing inconclusive and no reason unless said
    assert (result.inconclusive, result.reason) == (0, "")


# ---------------------------------------------------------------------- verdicts.py, the pure rules
def test_an_inconclusive_finding_alone_judges_nothing():
    assert outcome("x", [], judged=0, unit="graphs").status == "not_applicable"
    assert outcome("x", [], judged=1, unit="graphs").status == "passed"
    wrong = Finding("wrong_gradient", "x", "d/dx0 off", "mul")
    assert outcome("x", [wrong], judged=0, unit="graphs").status == "failed"
    assert (
        outcome("x", [Finding("inconclusive", "x", "?")], judged=0, unit="graphs").status == "not_applicable"
    )


def test_a_disagreement_is_a_defect_only_when_a_second_method_agrees():
    assert verdicts.confirm(False, True) is None  # the primary method agrees: nothing
    assert verdicts.confirm(False, None) is None
    assert verdicts.confirm(True, True) == "defect"
    assert verdicts.confirm(True, False) == "inconclusive"
    assert verdicts.confirm(True, None) == "inconclusive"  # the second cannot judge


def test_findings_are_deduplicated_by_kind_and_op_keeping_the_smallest():
    big = Finding("wrong_gradient", "exact", "big", "mul")
    small = Finding("wrong_gradient", "symbolic", "small", "mul")
    other_op = Finding("wrong_gradient", "exact", "div", "div")
    assert verdicts.deduplicate([(9, big), (3, small), (5, other_op)]) == [small, other_op]
    assert verdicts.deduplicate([(3, big), (3, small)]) == [big]  # the first of equal sizes
    facts = [Finding("convention", "c", "one"), Finding("convention", "c", "two")]
    assert verdicts.deduplicate([(0, f) for f in facts]) == facts  # facts differ by their text
    unsure = [
        Finding("inconclusive", "symbolic", "a", "mul"),
        Finding("inconclusive", "symbolic", "b", "mul"),
    ]
    assert verdicts.deduplicate([(0, f) for f in unsure]) == unsure[:1]  # once per check and op
    elsewhere = Finding("inconclusive", "exact", "c", "mul")
    assert verdicts.deduplicate([(0, unsure[0]), (0, elsewhere)]) == [unsure[0], elsewhere]


def test_merging_names_the_other_points_in_the_first_summary():
    points = [Finding("wrong_value", "edge_points", f"at {x}", "tanh") for x in range(5)]
    (merged,) = verdicts.merge(points)
    assert merged.summary == "at 0 (also: at 1; at 2; 2 more points)"
    assert verdicts.merge(points[:1]) == points[:1]
    assert len(verdicts.merge([*points, Finding("crash", "edge_points", "x", "tanh")])) == 2


def test_an_example_is_inconclusive_only_without_a_defect():
    unsure = Finding("inconclusive", "symbolic", "?", "mul")
    wrong = Finding("wrong_gradient", "symbolic", "off", "mul")
    assert verdicts.tally([]) == "judged"
    assert verdicts.tally([unsure]) == "inconclusive"
    assert verdicts.tally([unsure, wrong]) == "judged"
    assert verdicts.tally([Finding("convention", "c", "x")]) == "judged"


# ---------------------------------------------------------------------- reproducers.py, the shared text
def test_a_reproducer_names_the_engines_own_class_number_gradient_and_backward():
    eng = resolve_engine("tests.engines.scalar_backwards")
    lines = ["x = {V}(2.0)", "y = x * x", "y.{backward}()", "print(x.{data}, x.{grad})"]
    text = reproducers.program(eng, *lines, preamble=["import math"])
    assert text.splitlines() == [
        "import math",
        "from tests.engines.scalar_backwards import Scalar",
        "x = Scalar(2.0)",
        "y = x * x",
        "y.backwards()",
        "print(x.value, x.gradient)",
    ]
    assert reproducers.program(eng).splitlines() == ["from tests.engines.scalar_backwards import Scalar"]


def test_a_number_in_a_reproducer_is_written_as_a_person_writes_it():
    class Float64(float):  # as numpy's float64, whose repr is np.float64(0.5)
        def __repr__(self) -> str:
            return f"np.float64({float(self)})"

    assert reproducers.show(Float64(0.5)) == "0.5"
    assert reproducers.show(0.1) == "0.1"
    assert reproducers.show(Fraction(1, 3)) == "Fraction(1, 3)"
    assert reproducers.show(3) == "3"


def test_a_gradient_is_written_in_a_reproducer_as_the_harness_writes_it():
    # a gradient kept as a 0-d array is written as a copy of that array holding the number, as
    # Engine.set_grad writes it (engines.numbers.in_kind); anything else as the number itself
    zero_d = resolve_engine("tests.engines.zero_d_arrays")
    assert reproducers.grad_assignment(zero_d, "v3", zero_d.make(2.0), 0.5) == (
        "kept = v3.grad.copy(); kept[()] = 0.5; v3.grad = kept  # a 0-d array"
    )
    named = resolve_engine("tests.engines.scalar_backwards")
    assert reproducers.grad_assignment(named, "v0", named.make(2.0), 0) == "v0.gradient = 0"
    # the engine's own Value as a gradient (create_graph) is replaced by the number, even when the
    # class looks like a 0-d array itself; a gradient that cannot be read yet is written as it is
    arrays = SimpleNamespace(grad_attr="grad", Value=numpy.ndarray)
    assert (
        reproducers.grad_assignment(arrays, "v1", SimpleNamespace(grad=numpy.array(2.0)), 0) == "v1.grad = 0"
    )

    class Unread:
        @property
        def grad(self):
            raise AttributeError("no backward() yet")

    assert reproducers.grad_assignment(zero_d, "v2", Unread(), 0) == "v2.grad = 0"


def test_a_crash_of_no_op_is_kept_once_per_check_and_a_crash_of_an_op_once():
    second = Finding("crash", "backward_twice", "second backward() raises")
    deep = Finding("crash", "depth", "a 10,000-step chain raises RecursionError")
    again = Finding("crash", "depth", "a 20,000-step chain raises RecursionError")
    assert verdicts.deduplicate([(0, second), (0, deep), (1, again)]) == [second, deep]
    in_exact = Finding("crash", "exact", "mul raises", "mul")
    in_symbolic = Finding("crash", "symbolic", "mul raises too", "mul")
    assert verdicts.deduplicate([(0, in_exact), (1, in_symbolic)]) == [in_exact]


def test_merging_counts_more_points_only_past_those_shown():
    points = [Finding("wrong_value", "edge_points", f"at {x}", "tanh") for x in range(3)]
    (merged,) = verdicts.merge(points)
    assert merged.summary == "at 0 (also: at 1; at 2)"


def test_an_unconfirmed_disagreement_says_it_is_unresolved_with_both_numbers():
    first = verdicts.Vote("sympy", True, "[1.0]")
    agrees = verdicts.second_vote(first, lambda: verdicts.Vote("finite differences", False, "[0.5]"))
    assert agrees == verdicts.SecondVote(
        "inconclusive", "sympy [1.0] differs, finite differences [0.5]: not confirmed, unresolved"
    )
    blind = verdicts.second_vote(first, lambda: verdicts.Vote("finite differences", None, "a kink"))
    assert blind == verdicts.SecondVote(
        "inconclusive", "sympy [1.0] differs, finite differences cannot judge (a kink): unresolved"
    )
    confirmed = verdicts.second_vote(first, lambda: verdicts.Vote("finite differences", True, "[1.0]"))
    assert confirmed == verdicts.SecondVote(
        "defect", "sympy [1.0] differs, confirmed by finite differences [1.0]"
    )


def test_a_vote_that_shows_no_numbers_leaves_no_trailing_space():
    confirmed = verdicts.second_vote(
        verdicts.Vote("sympy", True), lambda: verdicts.Vote("exact rationals", True)
    )
    assert confirmed == verdicts.SecondVote("defect", "sympy differs, confirmed by exact rationals")


def test_the_second_method_is_not_asked_when_the_first_agrees():
    def never():
        raise AssertionError("the second method was asked")

    assert verdicts.second_vote(verdicts.Vote("sympy", False), never) == verdicts.SecondVote(None, "")
