"""Verdict rules that the rest of the suite did not pin down (found by planting bugs in them,
see regressions/harness_zoo.py): the one outcome rule, and a determinism probe that must not
tolerate an engine with just two different gradients."""

from __future__ import annotations

import pytest

from autograd.testing import probes, resolve_engine
from autograd.testing.findings import DEFECT_KINDS, INFORMATION_KINDS, Finding, outcome
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
    runs = probes._run_in_process(eng, probes.determinism_body(eng, 4))
    first, second = runs[0][0], runs[1][0]
    assert first != second and [run[0] for run in runs] == [first, second, first, second]


def test_determinism_reports_an_engine_whose_builds_give_just_two_gradients():
    result = probes.probe_determinism(two_orders.Value)
    assert result.status == "failed"
    (found,) = result.findings
    assert found.kind == "nondeterministic"
    assert "gives 2 different gradients" in found.summary
    assert probes.probe_determinism(sound.Value).findings == []  # the same graph, one order


def test_the_outcome_carries_the_check_its_findings_and_what_it_judged():
    found = [finding("convention"), finding("wrong_value")]
    result = outcome("edge_points", found, judged=7, unit="points")
    assert (result.name, result.findings, result.judged, result.unit) == ("edge_points", found, 7, "points")
    # nothing inconclusive and no reason unless said
    assert (result.inconclusive, result.reason) == (0, "")
