"""An engine that flushes subnormal numbers to zero (JAX on the CPU, tests/engines/flushes_subnormals)
makes one engine-wide choice. Every check that draws graphs meets it wherever a leaf is subnormal;
there, what differs follows from that one fact and is counted beside it, never a defect of the op
(JAX's audit once reported `x / 2`, `x * y` and asin at subnormal leaves as wrong). A wrong rule at
ordinary points beside the flush is still a defect; an engine that keeps subnormals is judged as
before."""

import re

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


def test_the_audit_of_an_engine_that_flushes_subnormals_reports_no_defect(alone):
    # audit() applies the rule run_checks does (20 examples draw subnormal leaves: seconds); in an
    # interpreter of its own, since which leaves a seed draws depends on the modules loaded
    # (conftest.alone)
    if not alone:
        return
    report = audit(flushes_subnormals, examples=20)
    defects = [f for o in report.outcomes.values() for f in o.findings if f.kind in DEFECT_KINDS]
    assert not defects, [f.summary for f in defects]
    assert any(facts(report.outcomes[name]) for name in GRAPH_CHECKS)


def test_the_fact_leaves_each_outcome_whole_and_its_counts_consistent():
    # the same graphs are drawn for both checks: moving findings into the fact changes which cases
    # are settled, never how many there were, and never the check's name, unit or reason
    flushing = run_checks(GRAPH_CHECKS, resolve_engine(flushes_subnormals), examples=40)
    keeping = run_checks(GRAPH_CHECKS, resolve_engine(sound), examples=40)
    totals = {name: o.judged + o.inconclusive for name, o in flushing.items()}
    assert totals["forward"] == totals["symbolic"], totals
    for name, found in flushing.items():
        assert facts(found), name  # the flush changed something in every graph check
        assert found.name == name
        assert (found.unit, found.reason) == (keeping[name].unit, keeping[name].reason)
        assert isinstance(found.inconclusive, int) and 0 <= found.inconclusive <= totals[name]
        assert isinstance(found.judged, int)


def test_the_edge_probe_keeps_its_own_fact_and_is_not_counted_twice():
    # the edge probe reports the flush itself, with its consequences there: no second fact
    outcomes = run_checks(["edge_points"], resolve_engine(flushes_subnormals), examples=5)
    edges = outcomes["edge_points"]
    assert any(f.summary.startswith("subnormal numbers are flushed to zero") for f in edges.findings)
    assert not facts(edges), [f.summary for f in facts(edges)]
