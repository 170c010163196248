"""The depth probe in a child interpreter: an engine that kills the process is a finding, not the
end of the audit (boundary.EngineChild)."""

import json
import os
import signal
import subprocess
import sys

import pytest

from autograd.testing import run_check
from autograd.testing.boundary import Died, EngineChild, child_path
from autograd.testing.engines import resolve_engine
from autograd.testing.probes import depth
from tests.engines import deep_exits, deep_raises, deep_segfault, dies_freeing, recursive, sound

SEGV = signal.Signals.SIGSEGV.name


def chain_in_child(fixture, steps):
    with EngineChild(depth._depth_program(resolve_engine(fixture.Value))) as child:
        return child.ask(str(steps))


def test_a_chain_that_kills_the_interpreter_is_a_crash_and_the_depth_that_survives_a_fact():
    outcome = depth.probe_depth(deep_segfault.Value)
    crash, limit = outcome.findings
    assert outcome.status == "failed"
    assert crash.kind == "crash" and SEGV in crash.summary and "backward()" in crash.summary
    assert limit.kind == "depth_limit" and SEGV in limit.summary
    good = int(limit.actual.split(" steps")[0].replace(",", ""))
    bad = int(crash.summary.split(" steps")[0].split()[-1].replace(",", ""))
    # the fixture dies past DEPTH nodes: 2 per step, plus w, b and the first y
    first_death = (deep_segfault.DEPTH - 3) // 2 + 1
    assert good < first_death <= bad and bad - good <= depth.DEATH_PRECISION * bad
    assert chain_in_child(deep_segfault, good) is None
    died = chain_in_child(deep_segfault, bad)
    assert isinstance(died, Died) and died.signal == SEGV and died.stage == "backward()"
    assert crash.actual == f"killed by {SEGV} during backward()"  # (nothing on stderr)
    # the reproducer runs the chain in a child of its own and shows the signal's exit status
    env = dict(os.environ, PYTHONPATH=child_path())
    run = subprocess.run([sys.executable, "-c", crash.reproducer], env=env, capture_output=True, text=True)
    assert run.returncode == 0 and f"exit status {-signal.SIGSEGV}" in run.stdout


@pytest.mark.slow
def test_a_death_while_freeing_the_graph_is_reported_where_it_happens():
    outcome = depth.probe_depth(dies_freeing.Value)
    crash, limit = outcome.findings
    assert (outcome.name, outcome.status, outcome.unit) == ("depth", "failed", "chains")
    # by hand: 1, 10, 100, 1,000 steps survive, 10,000 die (5 chains), then halving while the gap is
    # over 5% of the dying length: 5,500 3,250 2,125 1,562 die, 1,281 1,421 1,491 survive (7 chains)
    assert outcome.judged == 12 and "1,491 steps survive" in outcome.findings[0].summary
    assert (
        outcome.reason
        == "chains y = y*w + b of up to 100,000 steps at recursion limit 1000, in 6 child interpreters"
    )
    bad = int(crash.summary.split(" steps")[0].split()[-1].replace(",", ""))
    good = int(limit.actual.split(" steps")[0].replace(",", ""))
    # a chain of n steps is 2n + 1 nodes deep: the fixture dies freeing one deeper than DEPTH
    assert good < (dies_freeing.DEPTH + 1) // 2 <= bad and bad - good <= depth.DEATH_PRECISION * bad
    assert (crash.kind, crash.check, limit.kind, limit.check) == ("crash", "depth", "depth_limit", "depth")
    assert crash.summary.startswith(
        f"freeing the graph of a chain y = y*w + b of {bad:,} steps kills the interpreter"
    )
    assert crash.expected == "backward() completes, or raises an exception a program can catch"
    assert (
        crash.actual
        == f"killed by {SEGV} during freeing the graph (destructor recursion {2 * bad + 1} nodes deep)"
    )
    assert limit.expected == "100,000 steps"
    assert limit.actual == f"{good:,} steps (killed by {SEGV} at {bad:,} steps, during freeing the graph)"
    # the reproducer frees the graph where the probe did, before it could print 'survived';
    # the chain that survives prints it
    env = dict(os.environ, PYTHONPATH=child_path())
    for steps, status, printed in ((bad, -signal.SIGSEGV, ""), (good, 0, " survived")):
        program = crash.reproducer.replace(f"range({bad})", f"range({steps})")
        run = subprocess.run([sys.executable, "-c", program], env=env, capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        assert run.stdout.strip() == (
            f"expected: a chain of {bad} steps survives (or raises); actual: exit status {status}"
            f" (negative: killed by that signal){printed}"
        )


def test_an_engine_that_fails_at_the_first_step_costs_one_chain(monkeypatch):
    monkeypatch.setenv("DEEP_RAISES_DEPTH", "3")  # the child's engine: a chain of 1 step (5 nodes) raises
    outcome = depth.probe_depth(deep_raises.Value)
    (finding,) = outcome.findings
    assert outcome.judged == 1 and finding.actual.startswith(
        "0 steps (ValueError: graph too deep at <object object>"
    )


def test_an_exit_without_a_signal_during_a_chain_is_a_crash_too():
    crash, limit = depth.probe_depth(deep_exits.Value).findings
    assert (crash.kind, limit.kind) == ("crash", "depth_limit")
    assert crash.actual == "exit status 3 during backward()"
    assert "steps kills the interpreter (exit status 3)" in crash.summary


@pytest.mark.slow
@pytest.mark.parametrize(
    ("dies_from", "judged", "good", "children"),
    [
        # by hand, each death costing a fresh interpreter: 1 survives, 10 dies; 5 7 8 9 survive (gap 1)
        (10, 6, 9, "2 child interpreters"),
        # 1 10 survive, 100 dies; 55 77 88 94 97 survive: a gap of 3 is within 5% of 100
        (100, 8, 97, "2 child interpreters"),
        # 1 10 survive, 100 55 die, 32 survives, 43 dies, 37 survives, 40 dies, 38 survives: a gap of
        # 2 is exactly 5% of 40, close enough (5 interpreters: the first and one after each death)
        (40, 9, 38, "5 child interpreters"),
        # 1 .. 1,000 survive, 10,000 dies; 5,500 7,750 8,875 9,437 9,718 survive (282 <= 500)
        (10_000, 10, 9718, "2 child interpreters"),
    ],
)
def test_a_death_from_a_chosen_length_is_bisected_to_within_five_percent(
    monkeypatch, dies_from, judged, good, children
):
    # a chain of n steps is 2 n + 3 nodes: the fixture exits past 2 * dies_from + 2 of them
    monkeypatch.setenv("DEEP_EXITS_DEPTH", str(2 * dies_from + 2))
    outcome = depth.probe_depth(deep_exits.Value)
    crash, limit = outcome.findings
    assert (outcome.judged, outcome.status) == (judged, "failed")
    assert outcome.reason.endswith(f"recursion limit 1000, in {children}")
    assert limit.actual == f"{good:,} steps (exit status 3 at {dies_from:,} steps, during backward())"
    assert crash.summary == (
        f"backward() of a chain y = y*w + b of {dies_from:,} steps kills the interpreter (exit status 3); "
        f"{good:,} steps survive"
    )


def test_an_address_in_upper_case_hex_is_left_out_of_the_error_too():
    class Child:  # answers as the depth probe's child does: the exception's line
        def ask(self, request):
            return f"RuntimeError: node at 0x7FFE5A2C10 of {request} steps overflowed"

    assert depth._depth_failure(Child(), 5) == "RuntimeError: node of 5 steps overflowed"


@pytest.mark.slow
def test_a_recursion_error_stays_a_depth_limit_bisected_to_the_step():
    (finding,) = depth.probe_depth(recursive.Value).findings
    assert finding.kind == "depth_limit" and "raise RecursionError" in finding.summary
    steps = int(finding.actual.split(" steps")[0].replace(",", ""))
    assert 300 < steps < 1000 // 2  # two nested calls of the recursive sort per step, limit 1000
    assert chain_in_child(recursive, steps) is None
    assert chain_in_child(recursive, steps + 1).startswith("RecursionError")
    # the reproducer, pasted where the recursion limit was raised (as some tools do), still runs at
    # Python's default and shows the RecursionError
    paste = "import sys; sys.setrecursionlimit(50_000); exec(sys.argv[1])"
    env = dict(os.environ, PYTHONPATH=child_path())
    run = subprocess.run(
        [sys.executable, "-c", paste, finding.reproducer], env=env, capture_output=True, text=True
    )
    assert run.stdout.startswith(
        f"expected: backward() completes {steps + 11} steps; actual: RecursionError"
    ), run.stderr
    fine = depth.probe_depth(sound.Value)
    assert (fine.name, fine.status, fine.unit, fine.judged) == (
        "depth",
        "passed",
        "chains",
        6,
    )  # 1 .. 100,000
    assert (
        fine.reason
        == "chains y = y*w + b of up to 100,000 steps at recursion limit 1000, in 1 child interpreter"
    )
    (fact,) = fine.findings
    assert (fact.kind, fact.check, fact.expected) == ("depth_limit", "depth", ">= 100,000")
    assert fact.summary == "backward() survives the deepest chain probed, 100,000 steps of y = y*w + b"


def test_an_exception_at_depth_is_bisected_to_the_step_and_shown_without_addresses():
    outcome = depth.probe_depth(deep_raises.Value)
    (finding,) = outcome.findings
    # 2 n + 3 nodes for n steps: the first chain over DEPTH nodes has 1,499 steps
    assert (outcome.name, outcome.status, outcome.unit) == ("depth", "passed", "chains")
    assert outcome.judged == 18  # 1 .. 10,000 steps (5 chains), then 13 halvings of 9,000 steps to 1
    assert outcome.reason.endswith(", in 1 child interpreter")
    assert (finding.kind, finding.check, finding.expected) == ("depth_limit", "depth", "100,000 steps")
    assert finding.summary == (
        "backward() survives chains y = y*w + b of 1,498 steps at the default recursion limit; "
        "1,499 steps raise ValueError"
    )
    error = ("ValueError: graph too deep at <object object>: 3001 nodes " + "x" * 400)[:300]
    assert finding.actual == f"1,498 steps ({error})"
    # the reproducer runs a chain a few steps longer, as pasted, and shows the exception
    env = dict(os.environ, PYTHONPATH=child_path())
    run = subprocess.run([sys.executable, "-c", finding.reproducer], env=env, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith(
        "expected: backward() completes 1509 steps; actual: ValueError graph too deep at <object object at 0x"
    )
    assert run.stdout.rstrip().endswith(": 3021 nodes " + "x" * 400)
    # and says so once the engine is fixed (here: a deeper limit for the fixture)
    env["DEEP_RAISES_DEPTH"] = "100000"
    run = subprocess.run([sys.executable, "-c", finding.reproducer], env=env, capture_output=True, text=True)
    assert (run.returncode, run.stdout) == (0, "backward() completed 1509 steps\n"), run.stderr


@pytest.mark.slow
def test_the_child_answers_tells_its_stage_at_death_and_is_started_again():
    program = "\n".join(
        [
            "import os, signal, time",
            "for line in sys.stdin:",
            "    stage('request ' + line.strip())",
            "    if line.strip() == 'die': os.kill(os.getpid(), signal.SIGSEGV)",
            "    if line.strip() == 'exit': sys.exit(3)",
            "    if line.strip() == 'hang': time.sleep(60)",
            "    answer(line.strip() * 2)",
        ]
    )
    with EngineChild(program, timeout=2) as child:
        assert child.ask("ab") == "abab" and child.ask("c") == "cc" and child.started == 1
        assert child.ask("die") == Died(f"killed by {SEGV}", "request die")
        assert child.ask("x") == "xx" and child.started == 2
        exited = child.ask("exit")
        assert exited.how == "exit status 3" and exited.signal == ""
        assert child.ask("hang") == Died("timed out after 2 s", "request hang")
        assert child.ask("y") == "yy" and child.started == 4


@pytest.mark.slow
def test_the_audit_survives_an_engine_that_kills_the_interpreter_and_reports_it():
    env = dict(os.environ, PYTHONPATH=child_path())
    cli = [sys.executable, "-m", "autograd.testing", "audit", "tests.engines.deep_segfault", "--json"]
    run = subprocess.run([*cli, "--examples", "5"], env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 1, run.stderr  # 1: defects found (a signal would be negative)
    report = json.loads(run.stdout)
    crashes = [f for f in report["findings"] if f["kind"] == "crash"]
    assert [f["check"] for f in crashes] == ["depth"] and SEGV in crashes[0]["summary"]
    assert report["defects"] == 1


@pytest.mark.slow
def test_an_engine_a_fresh_interpreter_cannot_import_is_not_judged():
    class Local(sound.Value):  # not importable by name: no child can run it
        pass

    outcome = depth.probe_depth(Local)
    (finding,) = outcome.findings
    assert (
        finding.kind == "inconclusive"
        and "cannot run" in finding.summary
        and "ImportError" in finding.summary
    )
    assert outcome.status == "not_applicable" and outcome.inconclusive == 1
    assert (outcome.name, outcome.unit, outcome.judged) == ("depth", "chains", 0)
    assert outcome.reason == "chains y = y*w + b of up to 100,000 steps at recursion limit 1000"
    assert (finding.check, finding.expected) == ("depth", "an engine importable by name")


def test_crashes_of_no_op_found_by_different_checks_are_both_reported():
    from autograd.testing.findings import Finding
    from autograd.testing.verdicts import deduplicate

    stateful = Finding("crash", "stateful", "backward() twice raises AttributeError")
    depth = Finding("crash", "depth", "backward() of a chain of 43,750 steps kills the interpreter")
    again = Finding("crash", "depth", "a longer chain")
    assert deduplicate([(1, stateful), (1, depth), (2, again)]) == [stateful, depth]


#: The depth probe's time limit in the tests of its timeouts: long enough that a chain that does
#: finish (and the child's start) never outlives it on a loaded machine (3 s did, under load 10).
LIMIT = 20.0


@pytest.mark.slow
def test_a_chain_that_outlives_the_time_limit_is_not_a_crash(monkeypatch):
    # deep_is_slow sleeps past 3,000 nodes: 1, 10, 100 and 1,000 steps (2,001 nodes) finish, 10,000
    # do not; a timed-out chain tells nothing about the lengths between, so nothing is bisected
    monkeypatch.setattr(depth, "CHAIN_SECONDS", LIMIT)
    outcome = run_check("depth", "tests.engines.deep_is_slow")
    assert (outcome.status, outcome.judged, outcome.inconclusive, outcome.unit) == ("passed", 4, 1, "chains")
    assert outcome.reason == (
        "chains y = y*w + b of up to 100,000 steps at recursion limit 1000, in 1 child interpreter"
    )
    limit, unjudged = outcome.findings
    assert (limit.kind, limit.op, limit.check, limit.reproducer) == ("depth_limit", None, "depth", "")
    assert limit.summary == (
        "backward() survives chains y = y*w + b of 1,000 steps at the default recursion limit; "
        "longer ones not judged (10,000 steps timed out after 20 s, during backward())"
    )
    assert (limit.expected, limit.actual) == ("100,000 steps", "1,000 steps (then timed out after 20 s)")
    assert (unjudged.kind, unjudged.check) == ("inconclusive", "depth")
    assert unjudged.summary == (
        "a chain of 10,000 steps timed out after 20 s during backward(): chains past 1,000 steps not judged"
    )
    assert unjudged.expected == "finished within 20 s"


@pytest.mark.slow
def test_a_timeout_met_while_bisecting_leaves_the_failure_found_as_the_finding(monkeypatch):
    # deep_slow_then_raises: 1,000 steps (2,001 nodes) survive, 10,000 raise; bisecting, 5,500 and
    # 3,250 steps raise (over 6,000 nodes), 2,125 (4,251 nodes) time out: the search stops there
    monkeypatch.setattr(depth, "CHAIN_SECONDS", LIMIT)
    outcome = run_check("depth", "tests.engines.deep_slow_then_raises")
    (limit,) = outcome.findings
    assert (limit.kind, outcome.status) == ("depth_limit", "passed")
    assert limit.summary == (
        "backward() survives chains y = y*w + b of 1,000 steps at the default recursion limit; "
        "3,250 steps raise RecursionError"
    )
    assert outcome.judged == 8  # 1, 10, 100, 1,000, 10,000, then 5,500, 3,250, 2,125
