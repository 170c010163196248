"""The backward() conventions (autograd.testing.checks.conventions) and the state machine that models
them, judged by behaviour: backward_convention on fixture engines, the reproducers a convention
finding carries run as pasted, and the machine driven step by step (tests/picks.py).

Every expected number is worked out by hand from the steps: ``y = (x*x)*c`` at x = 2, c = 3 has
dy/dx = 2*x*c = 12, dy/dc = x*x = 4, dy/dh = c = 3 (h = x*x), and the output's own gradient 1.
"""

from __future__ import annotations

import os
import subprocess
import sys
from fractions import Fraction

import pytest

from autograd.testing import SearchMode, run_check, run_checks, verify_engine
from autograd.testing.boundary import child_path
from autograd.testing.checks import BackwardConvention, backward_convention, stateful_machine
from autograd.testing.checks import machine as M
from autograd.testing.checks.properties import leaf_tolerances
from autograd.testing.oracles import OracleInconclusive
from autograd.testing.verify import Conventions
from tests.engines import clears_operands_stale, float_only, frees_graph, planted_stateful, sound
from tests.picks import Picks

#: What our convention predicts at the reads of the steps on a graph kept after backward(): passes
#: from y twice (leaves accumulate: 24, 8; interior h and the seed as after one pass), from the
#: leaf z twice (1, then 2), then w = x * c built (0; x and c keep theirs).
OURS_ON_KEPT_STEPS = [
    ["12", "4", "3", "1", "0"],
    ["24", "8", "3", "1", "0"],
    ["24", "8", "3", "1", "1"],
    ["24", "8", "3", "1", "2"],
    ["24", "8", "3", "1", "2", "0"],
]
FREED = "RuntimeError: backward through a graph that a previous backward() freed"


def _convention_failure(engine):
    """verify_engine's stateful message on ``engine`` (our conventions declared): its expected and
    actual lines and its reproducer."""
    message = verify_engine(engine, checks=["stateful"], max_examples=2)["stateful"].message
    assert message.startswith("wrong_gradient: backward() does not follow the declared convention"), message
    lines = message.splitlines()
    expected = next(line for line in lines if line.startswith("expected: ")).removeprefix("expected: ")
    actual = next(line for line in lines if line.startswith("actual: ")).removeprefix("actual: ")
    script = message.split("reproducer:\n", 1)[1].split("\n\n", 1)[0]
    return expected, actual, script


def _run(script):
    env = dict(os.environ, PYTHONPATH=child_path())
    return subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)


# ---------------------------------------------------------------------- a declared convention not followed
def test_an_engine_refusing_a_pass_over_a_freed_graph_is_shown_with_the_pass_it_refused():
    # frees_graph raises at the second pass from y (our convention keeps graphs): the finding's actual
    # is what the engine gave before it and what it raised, and the reproducer prints just that
    expected, actual, script = _convention_failure("tests.engines.frees_graph")
    assert expected == repr(OURS_ON_KEPT_STEPS)
    assert actual == f"[['12', '4', '3', '1', '0']], then raises {FREED}"
    done = _run(script)
    assert done.returncode == 1 and done.stderr.splitlines()[-1] == FREED
    assert done.stdout.splitlines() == [f"expected: {expected}", "actual:   [['12', '4', '3', '1', '0']]"]


def test_an_engine_ignoring_a_pass_over_a_freed_graph_is_shown_with_what_it_gave():
    # frees_graph_quietly: the second pass from y sets y's gradient to 1 and h's (interior) to 0, and
    # sends nothing on; from the leaf z the gradient is set to 1 twice; x and c keep 12 and 4
    expected, actual, script = _convention_failure("tests.engines.frees_graph_quietly")
    assert expected == repr(OURS_ON_KEPT_STEPS)
    # each read: x, c, h, y, z (and w): x, c and y as after the first pass; h and z as said above
    gave = [
        ["12", "4", h, "1", *z] for h, *z in [("3", "0"), ("0", "0"), ("0", "1"), ("0", "1"), ("0", "1", "0")]
    ]
    assert actual == repr(gave)
    done = _run(script)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [f"expected: {expected}", f"actual:   {actual}"]


class _FloatsFreeingGraphs(frees_graph.Value):
    """frees_graph holding floats only (a Fraction is refused, as float_only refuses it)."""

    check = staticmethod(float_only.float_data)


def test_a_float_engine_refusing_a_pass_over_a_freed_graph_is_run_on_floats():
    # a float engine, ours declared but for exactness and higher order: the steps run on floats (a
    # Fraction would be refused), the partials are floats, the seed 1 and z's 0 the engine's ints
    floats = Conventions(exact=False, higher_order=False)
    result = verify_engine(_FloatsFreeingGraphs, checks=["stateful"], max_examples=2, conventions=floats)
    message = result["stateful"].message
    assert f"\nactual: [['12.0', '4.0', '3.0', '1', '0']], then raises {FREED}\n" in message
    assert "    x = _FloatsFreeingGraphs(float(2))\n" in message


# ---------------------------------------------------------------------- conventions observed
@pytest.mark.parametrize(
    ("engine", "convention"),
    [
        # the base engine: leaves accumulate, interior gradients hold the latest pass, the seed is
        # set, a leaf as the output is set to 1; operands keep their gradients, graphs are kept
        ("tests.engines.sound", BackwardConvention(leaf_output="assign")),
        ("tests.engines.clears_operands", BackwardConvention(leaf_output="assign", operands="clear")),
        # a freed graph: interior gradients and the seed are never seen again, held at reset, assign
        ("tests.engines.frees_graph", BackwardConvention(leaf_output="assign", graph="freed")),
        ("tests.engines.frees_graph_quietly", BackwardConvention(leaf_output="assign", graph="freed")),
        # both: every pass reaches leaves holding nothing, so leaves are described as accumulating
        (
            "tests.engines.clears_and_frees",
            BackwardConvention(leaf_output="assign", operands="clear", graph="freed"),
        ),
    ],
)
def test_each_convention_is_observed_whole(engine, convention):
    assert backward_convention(engine) == convention


def test_an_engine_clearing_operands_and_freeing_graphs_is_judged_and_described():
    found = run_check("stateful", "tests.engines.clears_and_frees", examples=10)
    assert found.status == "passed" and found.judged > 0, [f.summary for f in found.findings]
    assert found.reason == (
        "exact; backward() convention: backward() on a leaf sets to 1 its gradient; backward() frees the "
        "graph it went through (no later pass over any of it is made); a value that enters a new "
        "operation has its gradient cleared"
    )


# ---------------------------------------------------------------------- the machine's findings, run
def test_a_cleared_gradient_that_comes_back_is_found_and_its_reproducer_prints_what_was_read():
    engine, quick = "tests.engines.clears_operands_stale", SearchMode(shrink=False)
    found = run_checks(["stateful"], engine, examples=20, mode=quick)["stateful"]
    (finding,) = found.findings
    assert finding.kind == "wrong_gradient" and finding.summary.endswith(" (the convention as observed)")
    done = _run(finding.reproducer)
    assert done.returncode == 0, done.stderr
    # the program prints what the model expects and what the engine has: what the harness read
    assert done.stdout.splitlines() == [f"expected: {finding.expected}", f"actual:   {finding.actual}"]
    assert finding.expected != finding.actual


# ---------------------------------------------------------------------- the machine, step by step
class _FloatStale(clears_operands_stale.Value):
    """clears_operands_stale on floats: a gradient cleared when its value enters a new operation
    comes back at the next pass that reaches it."""

    check = staticmethod(lambda x: float(sound.check_number(x)))


def test_a_cleared_float_gradient_is_judged_from_zero_with_no_tolerance_left_over():
    # v0 = 1/2, v1 = 1/4, v2 = v0 * v1, a pass: v0 holds 1/4, v1 1/2; v3 = v0 + v1 clears both
    # (the engine keeps them aside), a pass from v3: the model says 1 each, the engine 1.25 and 1.5;
    # a gradient cleared to exactly 0 is within nothing of it, so only the pass's own tolerance counts
    cleared = BackwardConvention(leaf_output="assign", operands="clear")
    machine = stateful_machine(_FloatStale, cleared)()
    machine.first_leaf(Fraction(1, 2))
    machine.leaf(Fraction(1, 4))
    machine.binary(Picks("mul", 0, 1))
    machine.backward(Picks(2, False))  # no zeroing after it
    machine.gradients_match_model()
    machine.binary(Picks("add", 0, 1))
    assert machine.model[:2] == [0, 0] and machine.tol[:2] == [0.0, 0.0]
    machine.gradients_match_model()
    machine.backward(Picks(3, False))
    assert machine.model[:2] == [1, 1] and max(machine.tol[:2]) < 1e-12
    with pytest.raises(
        AssertionError, match=r"^stateful: leaf v0 has grad 1\.25, model says 1\.0 \(tolerance "
    ):
        machine.gradients_match_model()


def _held(x):
    """``x`` as a float where a float holds it exactly (its denominator a power of two), else as it is."""
    exact = Fraction(x)
    return float(exact) if exact.denominator & (exact.denominator - 1) == 0 else x


class _FloatWhereExact(sound.Value):
    """x * y and x ** c send back a partial as a float wherever a float holds it exactly (the
    engine rounds nothing): an exact number by value, a float by type."""

    def __mul__(self, other):
        other = self._lift(other)
        return self._with_partials(
            self.data * other.data, (self, other), (_held(other.data), _held(self.data))
        )

    def __pow__(self, c):
        x = self.data
        return self._with_partials(x**c, (self,), (_held(c * x ** (c - 1)),))


def test_the_exact_machine_probes_each_op_where_no_float_holds_its_partials():
    # probed at x = 4/3 (and y = 5/3): x * y sends back 5/3 and 4/3, x ** 2 8/3, all Fractions; x ** -1
    # sends back -9/16 and Fraction(-1, 2) * x its constant, both held by floats: those two are left out
    assert stateful_machine(_FloatWhereExact, exact=True).not_judged == (
        "x ** -1, Fraction(-1, 2) * x (gradients not exact numbers: equality cannot judge them)",
    )


def test_a_float_leaf_left_unjudged_is_judged_again_once_zeroed(monkeypatch):
    # no tolerance can be derived for the pass from v2 (v0 * v1): v0 and v1 are not judged after it;
    # zeroing v0 makes its gradient exactly 0 again, judged from there: planted_stateful then brings
    # its old 2 back at the pass from v0 itself, 2 + 1 where the model says 1
    def no_tolerance(graph, precision):
        raise OracleInconclusive("no tolerance")

    monkeypatch.setattr(M, "leaf_tolerances", no_tolerance)
    machine = stateful_machine(planted_stateful.Value, backward_convention(planted_stateful.Value))()
    machine.first_leaf(Fraction(3))
    machine.leaf(Fraction(2))
    machine.binary(Picks("mul", 0, 1))
    machine.backward(Picks(2, False))  # no zeroing after it
    machine.zero_grad(Picks(False, 0, False))  # any leaf: v0; no pass at once
    machine.backward(Picks(0, False))
    with pytest.raises(
        AssertionError, match=r"^stateful: leaf v0 has grad 3\.0, model says 1\.0 \(tolerance 0\)"
    ):
        machine.gradients_match_model()


def test_a_graph_freed_stays_freed_after_passes_over_other_graphs():
    # v3 = v0 * v1 freed by its pass; v4 = v2 + v2 shares no leaf with it, and its pass frees v4
    # alone: v3 stays freed, and the pass from v3 that frees_graph would refuse is never made
    machine = stateful_machine(
        "tests.engines.frees_graph", BackwardConvention(leaf_output="assign", graph="freed")
    )()
    machine.first_leaf(Fraction(3))
    machine.leaf(Fraction(2))
    machine.leaf(Fraction(5))
    machine.binary(Picks("mul", 0, 1))  # v3
    machine.backward(Picks(3, False))
    machine.binary(Picks("add", 2, 2))  # v4
    machine.backward(Picks(4, False))
    machine.backward(Picks(3, False))  # over the freed v3: not made
    assert [step for step in machine.script if "backward" in step] == ["v3.backward()", "v4.backward()"]
    assert machine.model == [2, 3, 2, 1, 1]
    machine.gradients_match_model()


def test_a_float_leaf_left_unjudged_is_judged_again_once_cleared(monkeypatch):
    # no tolerance for the pass from v2 = v0 * v1 (v0, v1 not judged after it); v3 = v0 + v1 clears
    # both (the engine keeps 2 and 3 aside), judged from 0 again: the pass from v3 (its tolerance
    # derived) brings the 2 back, 2 + 1 where the model says 1
    def no_tolerance_through_mul(graph, precision):
        if any(node.op == "mul" for node in graph.nodes):
            raise OracleInconclusive("no tolerance")
        return leaf_tolerances(graph, precision)

    monkeypatch.setattr(M, "leaf_tolerances", no_tolerance_through_mul)
    machine = stateful_machine(_FloatStale, BackwardConvention(leaf_output="assign", operands="clear"))()
    machine.first_leaf(Fraction(3))
    machine.leaf(Fraction(2))
    machine.binary(Picks("mul", 0, 1))
    machine.backward(Picks(2, False))  # no zeroing after it
    machine.binary(Picks("add", 0, 1))
    machine.gradients_match_model()
    machine.backward(Picks(3, False))
    with pytest.raises(
        AssertionError, match=r"^stateful: leaf v0 has grad 3\.0, model says 1\.0 \(tolerance "
    ):
        machine.gradients_match_model()
