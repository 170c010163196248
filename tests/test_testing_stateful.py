"""The stateful check's machine (autograd.testing.checks.stateful_machine), driven step by step:
its reproducer runs what the harness ran, and an exact machine judges only exact gradients."""

import os
import re
import subprocess
import sys
from fractions import Fraction

import pytest

from autograd.testing import resolve_engine
from autograd.testing.boundary import child_path
from autograd.testing.checks import BackwardConvention, backward_convention, stateful_machine
from autograd.testing.checks.stateful import RATIONAL_BINARY, RATIONAL_UNARY
from autograd.testing.ops import OPS
from tests.picks import Picks, scripts_of


def test_a_stateful_reproducer_runs_what_the_harness_ran_on_zero_d_array_gradients():
    # zero_d_arrays_wrong: d(a*b)/da is b + 1, and backward() adds into each gradient in place: a
    # reproducer that zeroed a leaf with `v0.grad = 0` (an int, no __iadd__) crashed in backward()
    # where the harness, which writes a 0-d array, saw the wrong gradient
    eng = resolve_engine("tests.engines.zero_d_arrays_wrong")
    machine = stateful_machine(eng, backward_convention("tests.engines.zero_d_arrays"))()
    machine.first_leaf(Fraction(3))
    machine.leaf(Fraction(2))
    machine.zero_grad(Picks(False, 0, False))  # any leaf: v0; no pass at once
    machine.binary(Picks("mul", 0, 1))  # v2 = v0 * v1
    machine.backward(Picks(2, False))  # no zeroing after it
    with pytest.raises(AssertionError, match=r"stateful: leaf v0 has grad 3\.0") as failed:
        machine.gradients_match_model()
    reproducer = str(failed.value).split("\n", 1)[1]
    assert "kept = v0.grad.copy(); kept[()] = 0; v0.grad = kept" in reproducer
    env = dict(os.environ, PYTHONPATH=child_path())
    done = subprocess.run(
        [sys.executable, "-c", reproducer], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["expected: ['2.0', '3.0', '?']", "actual:   ['3.0', '3.0', '1.0']"]


def test_an_exact_machine_leaves_out_the_ops_whose_gradients_come_back_as_floats():
    # exact_but_float_pow is exact through + - * / but x ** c sends back a float: equality would
    # call 2/3 rounded a wrong gradient (v0 = 1/3, v1 = v0 ** 2), so powc is left out, and said
    machine = stateful_machine("tests.engines.exact_but_float_pow", exact=True)
    assert machine.not_judged == (
        "x ** 2, x ** -1 (gradients not exact numbers: equality cannot judge them)",
    )
    assert stateful_machine("tests.engines.sound", exact=True).not_judged == ()


def test_zeroing_a_leaf_that_holds_a_gradient_is_judged_by_a_pass_at_once():
    # planted_stateful keeps each leaf's total aside: a zeroed gradient comes back at the next
    # pass only, so zero_grad may run that pass itself (from any node reaching the leaf)
    machine = stateful_machine("tests.engines.planted_stateful")()
    machine.first_leaf(Fraction(3))
    machine.leaf(Fraction(2))
    machine.binary(Picks("mul", 0, 1))  # v2 = v0 * v1
    machine.backward(Picks(2, False))  # no zeroing after it
    machine.gradients_match_model()
    # a leaf holding a gradient (v0: 2, v1: 3), v0, then at once a pass from v2
    machine.zero_grad(Picks(True, 0, True, 2))
    assert machine.script[-2:] == ["v0.grad = 0", "v2.backward()"]
    with pytest.raises(AssertionError, match=r"stateful: leaf v0 has grad 4\.0, model says 2\.0") as failed:
        machine.gradients_match_model()
    # the reproducer ends with what the harness read (v1 holds both passes, 3 + 3; v2 the seed 1, an int)
    assert str(failed.value).splitlines()[-1] == "# the harness read: ['4.0', '6.0', '1']"


def test_the_pass_after_zeroing_starts_only_where_the_convention_can_be_judged():
    # with accumulated interior gradients a second pass over v2 is not judged: the pass that
    # follows a zeroing may start at the leaf itself (nothing interior) but not at v2
    convention = BackwardConvention(interior="accumulate")
    machine = stateful_machine("tests.engines.sound", convention)()
    machine.first_leaf(Fraction(3))
    machine.leaf(Fraction(2))
    machine.binary(Picks("mul", 0, 1))
    machine.backward(Picks(2, False))  # no zeroing after it
    with pytest.raises(AssertionError, match=r"2 is not one of \(1,\)"):
        machine.zero_grad(Picks(True, 1, True, 2))
    assert machine.model[:2] == [Fraction(2), Fraction(0)]  # v1 zeroed, no pass after it
    machine.zero_grad(Picks(True, 0, True, 0))
    assert machine.script[-2:] == ["v0.grad = 0", "v0.backward()"]
    assert machine.model[:2] == [Fraction(1), Fraction(0)]
    machine.gradients_match_model()


def test_zeroing_prefers_a_leaf_holding_a_gradient_only_half_the_time():
    machine = stateful_machine("tests.engines.sound")()
    machine.first_leaf(Fraction(3))
    machine.leaf(Fraction(2))
    machine.leaf(Fraction(5))
    machine.binary(Picks("mul", 0, 1))  # v3 = v0 * v1: v2 holds nothing after the pass
    machine.backward(Picks(3, False))  # no zeroing after it
    with pytest.raises(AssertionError, match=r"2 is not one of \(0, 1\)"):
        machine.zero_grad(Picks(True, 2, False))
    machine.zero_grad(Picks(False, 2, False))  # any leaf, the other half
    assert machine.script[-1] == "v2.grad = 0"


@pytest.mark.slow
def test_the_machine_zeroes_only_a_gradient_a_pass_gave_and_often_passes_again_at_once():
    # (not run alone, unlike conftest.alone's statistics: mutmut picks a mutant's tests by what each
    # test calls in its own process, and the bounds below are far from what one sample gives)
    # a generation statistic: zeroing waits for a pass; pass, zero, pass again is common (62 of 120
    # runs when written, 1 in 4 asserted: the runs of one stream are alike, so 100 of them), and
    # so is zeroing as a rule of its own, after building (31 of 120, 1 in 10 asserted)
    scripts = scripts_of(stateful_machine("autograd"), 100)
    # every op the machine has is drawn (an exact engine with every op: all of them)
    made = [re.match(r"v\d+ = (.*)", step) for script in scripts for step in script]
    built = {re.sub(r"v\d+", "x", m[1]) for m in made if m}
    ops = [OPS[op].source(["x", "x"], None) for op in RATIONAL_BINARY]
    ops += [OPS[op].source(["x"], c) for op, c in RATIONAL_UNARY]
    assert set(ops) <= built, set(ops) - built
    again = later = 0
    for script in scripts:
        steps = [_kind(step) for step in script]
        if "zero" in steps:
            assert "pass" in steps[: steps.index("zero")], script
        again += any(steps[i : i + 3] == ["pass", "zero", "pass"] for i in range(len(steps)))
        # zero_grad as a rule of its own: a zeroing right after building
        later += any(steps[i : i + 2] == ["", "zero"] for i in range(len(steps)))
    assert len(scripts) >= 100 and again >= len(scripts) // 4 and later >= len(scripts) // 10


def _kind(step):
    """A step of a stateful script: a pass, a zeroing, reading a gradient (create_graph) or building."""
    if ".backward(" in step:
        return "pass"
    return "zero" if step.endswith(".grad = 0") else "read" if step.startswith("g =") else ""


def test_a_pass_may_zero_a_leaf_and_pass_again_itself():
    # swarm testing turns zero_grad off for whole runs: backward() draws the zeroing too
    machine = stateful_machine("tests.engines.planted_stateful")()
    machine.first_leaf(Fraction(3))
    machine.leaf(Fraction(2))
    machine.binary(Picks("mul", 0, 1))  # v2 = v0 * v1
    machine.backward(Picks(2, True, True, 1, True, 2))  # pass; zero v1 (holding 3); pass again
    assert machine.script[-3:] == ["v2.backward()", "v1.grad = 0", "v2.backward()"]
    with pytest.raises(AssertionError, match=r"stateful: leaf v1 has grad 6\.0, model says 3\.0"):
        machine.gradients_match_model()


def test_an_engine_whose_gradient_cannot_be_written_is_never_zeroed():
    eng = resolve_engine(adapter="tests.engines.no_set_grad:adapter")
    scripts = scripts_of(stateful_machine(eng, backward_convention(eng)), 20)
    passes = sum(".backward()" in step for script in scripts for step in script)
    assert passes >= 20 and not any(step.endswith("= 0") for script in scripts for step in script)


def test_a_reproducer_shows_a_value_gradient_by_its_number():
    # after backward(create_graph=True) a gradient is a Value: what the harness read is its number
    eng = resolve_engine("autograd")
    machine = stateful_machine(eng)()
    machine.first_leaf(Fraction(3))
    machine.backward_create_graph(Picks(True, False))  # from v0, the newest; no derivative at once
    got = [eng.grad(v) for v in machine.values]
    assert isinstance(got[0], eng.Value)
    assert machine._reproducer(got).splitlines()[-1] == "# the harness read: ['1']"


@pytest.mark.parametrize(
    "a, op, b, built",
    [
        (40, "mul", 25, "v2 = v0 * v1"),  # 1000 is built
        (7, "mul", 143, "v2 = -v0"),  # 1001 falls back to -v0 (big numbers: slow exact arithmetic)
        (3, "div", 1, "v2 = v0 / v1"),  # any divisor but 0
        (3, "div", 0, "v2 = -v0"),
    ],
)
def test_the_machine_builds_an_op_only_within_its_domain_and_a_thousand(a, op, b, built):
    machine = stateful_machine("autograd")()
    machine.first_leaf(Fraction(a))
    machine.leaf(Fraction(b))
    machine.binary(Picks(op, 0, 1))
    assert machine.script[-1] == built


def test_with_accumulated_interior_gradients_no_pass_goes_over_an_interior_node_twice():
    machine = stateful_machine("tests.engines.sound", BackwardConvention(interior="accumulate"))()
    machine.first_leaf(Fraction(3))
    machine.leaf(Fraction(2))
    machine.binary(Picks("mul", 0, 1))  # v2
    machine.binary(Picks("add", 0, 1))  # v3
    for y in (2, 3, 2, 3):
        machine.backward(Picks(y, False))
    assert [step for step in machine.script if "backward" in step] == ["v2.backward()", "v3.backward()"]


# ---------------------------------------------------------------------- operands cleared, graphs freed
@pytest.mark.parametrize(
    ("engine", "operands", "graph"),
    [
        ("tests.engines.sound", "keep", "kept"),
        ("tests.engines.clears_operands", "clear", "kept"),
        ("tests.engines.frees_graph", "keep", "freed"),
    ],
)
def test_whether_operands_are_cleared_and_graphs_freed_is_observed(engine, operands, graph):
    observed = backward_convention(engine)
    assert (observed.operands, observed.graph) == (operands, graph)
    # the rest as the base engine has it: leaves accumulate, a leaf as the output is set to 1
    assert (observed.leaves, observed.leaf_output) == ("accumulate", "assign")


def test_a_value_entering_a_new_operation_is_modelled_with_its_gradient_cleared():
    def after_reuse(convention):
        machine = stateful_machine("tests.engines.clears_operands", convention)()
        machine.first_leaf(Fraction(3))
        machine.leaf(Fraction(2))
        machine.binary(Picks("mul", 0, 1))  # v2 = v0 * v1
        machine.backward(Picks(2, False))  # v0: 2, v1: 3; no zeroing after it
        machine.gradients_match_model()
        machine.binary(Picks("add", 0, 0))  # v3 = v0 + v0: the engine clears v0's gradient
        return machine

    cleared = after_reuse(BackwardConvention(leaf_output="assign", operands="clear"))
    assert cleared.model[:2] == [Fraction(0), Fraction(3)]
    cleared.gradients_match_model()
    kept = after_reuse(BackwardConvention(leaf_output="assign"))
    with pytest.raises(AssertionError, match=r"stateful: node v0 \(leaf\) has grad 0, model says 2"):
        kept.gradients_match_model()


def test_no_pass_goes_over_a_graph_an_earlier_pass_freed():
    # frees_graph raises on a pass over a freed node: the machine must never make one, but still
    # pass from graphs built after it (on the same leaves, whose gradients accumulate)
    machine = stateful_machine(
        "tests.engines.frees_graph", BackwardConvention(leaf_output="assign", graph="freed")
    )()
    machine.first_leaf(Fraction(3))
    machine.leaf(Fraction(2))
    machine.binary(Picks("mul", 0, 1))  # v2 = v0 * v1
    machine.binary(Picks("add", 0, 1))  # v3 = v0 + v1: built on v2's leaves before v2's pass
    machine.backward(Picks(2, False))
    machine.unary(Picks(("neg", None), 2))  # v4 = -v2, on the freed v2
    for y in (2, 3, 4):
        machine.backward(Picks(y, False))  # each would go over a freed node: not made
    machine.binary(Picks("mul", 0, 1))  # v5 = v0 * v1, built after the pass
    machine.backward(Picks(5, False))
    assert [step for step in machine.script if "backward" in step] == ["v2.backward()", "v5.backward()"]
    assert machine.model[:2] == [Fraction(4), Fraction(6)]
    machine.gradients_match_model()


@pytest.mark.parametrize(
    ("engine", "status"),
    [
        ("tests.engines.clears_operands", "passed"),
        ("tests.engines.frees_graph", "passed"),
        ("tests.engines.clears_operands_stale", "failed"),
    ],
)
def test_the_stateful_check_judges_engines_that_clear_operands_or_free_graphs(engine, status):
    from autograd.testing import run_check

    result = run_check("stateful", engine, examples=20)
    assert result.status == status and result.judged > 0, [f.summary for f in result.findings]
    if status == "failed":  # a cleared gradient that comes back at the next pass
        assert [f.kind for f in result.findings] == ["wrong_gradient"]
