"""An engine that flushes subnormal numbers to zero (JAX on the CPU, tests/engines/flushes_subnormals)
makes one engine-wide choice. Every check that draws graphs meets it wherever a leaf is subnormal;
there, what differs follows from that one fact and is counted beside it, never a defect of the op
(JAX's audit once reported `x / 2`, `x * y` and asin at subnormal leaves as wrong). A wrong rule at
ordinary points beside the flush is still a defect; an engine that keeps subnormals is judged as
before."""

import re

import pytest

from autograd.testing import audit, resolve_engine, run_checks
from autograd.testing.findings import DEFECT_KINDS
from tests.engines import flushes_subnormals, flushes_subnormals_wrong_tanh, sound

GRAPH_CHECKS = ["forward", "symbolic"]
FACT = re.compile(
    r"^subnormal numbers are flushed to zero \(.+ gives 0\.0, not .+\): (\d+) finding\(s\) at points with a "
    r"subnormal operand follow from it \(([a-z_, ]+)\), e\.g\. "
)


def facts(outcome):
    return [f for f in outcome.findings if f.kind == "convention" and FACT.match(f.summary)]


def test_what_the_flush_changes_in_the_graph_checks_is_counted_in_one_fact_a_check():
    outcomes = run_checks(GRAPH_CHECKS, resolve_engine(flushes_subnormals), examples=40)
    for name in GRAPH_CHECKS:
        found = outcomes[name]
        assert found.status == "passed", [f.summary for f in found.findings]
        assert not [f for f in found.findings if f.kind in DEFECT_KINDS]
        (fact,) = facts(found)
        count, ops = FACT.match(fact.summary).groups()
        assert int(count) >= 1 and ops
        assert fact.check == name
    # the forward check's: scaling a subnormal leaf by a constant (x / 2, 2 * x, x * 2) gives 0.0
    forward_ops = FACT.match(facts(outcomes["forward"])[0].summary)[2].split(", ")
    assert {"divc", "mulc", "vmulc"} <= set(forward_ops)


def test_a_wrong_rule_at_ordinary_points_beside_the_flush_is_still_a_defect():
    outcomes = run_checks(["symbolic"], resolve_engine(flushes_subnormals_wrong_tanh), examples=40)
    wrong = [f for f in outcomes["symbolic"].findings if f.kind in DEFECT_KINDS]
    assert wrong and {f.op for f in wrong} == {"tanh"}, [f.summary for f in wrong]
    assert all(
        not any(isinstance(x, float) and 0 < abs(x) < 2.2250738585072014e-308 for x in f.point) for f in wrong
    )


def test_an_engine_that_keeps_subnormals_gets_no_such_fact():
    outcomes = run_checks(GRAPH_CHECKS, resolve_engine(sound), examples=40)
    assert all(not facts(o) for o in outcomes.values())
    assert all(o.status == "passed" for o in outcomes.values())


@pytest.mark.slow
def test_the_audit_of_an_engine_that_flushes_subnormals_reports_no_defect():
    report = audit(flushes_subnormals, examples=20)
    defects = [f for o in report.outcomes.values() for f in o.findings if f.kind in DEFECT_KINDS]
    assert not defects, [f.summary for f in defects]
