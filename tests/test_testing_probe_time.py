"""The time probe (autograd.testing.probes.timing): verdicts, never durations.

The probe compares a ladder of shared diamonds with a chain of the same ops, in
ratios measured in one run; these tests assert what it concludes, not how long
anything took.
"""

import contextlib
import gc
import io
import itertools
import math
import random
import re
import time

import micrograd.engine
import pytest

import autograd
from autograd.testing import resolve_engine
from autograd.testing.boundary import EngineRaised
from autograd.testing.findings import DEFECT_KINDS
from autograd.testing.probes import timing as pt
from tests.engines import exponential_backward, lazy_forward, sound

pytestmark = pytest.mark.timing  # what the probe measures: run alone (tox.ini)


@pytest.mark.parametrize(
    "engine", [autograd, micrograd.engine, sound.Value], ids=["autograd", "micrograd", "sound"]
)
def test_sound_engines_are_judged_flat_in_both_passes(engine):
    result = pt.probe_time(engine)
    assert result.status == "passed", result
    assert result.judged == 2 and result.inconclusive == 0, [(f.summary, f.actual) for f in result.findings]
    assert not any(f.kind in DEFECT_KINDS for f in result.findings)
    assert "forward: flat" in result.reason and "backward: flat" in result.reason


def test_a_backward_that_walks_every_path_is_exponential_time():
    result = pt.probe_time(exponential_backward.Value)
    assert result.status == "failed", (result.reason, [(f.summary, f.actual) for f in result.findings])
    (finding,) = result.findings  # the forward pass is per node: judged flat, no finding
    assert finding.kind == "exponential_time" and finding.summary.startswith("backward time")
    assert finding.actual.count("k = ") >= pt.CONFIRM + 1  # sizes and times as evidence
    assert "from tests.engines.exponential_backward import Value" in finding.reproducer
    compile(finding.reproducer, "<reproducer>", "exec")


def test_a_forward_that_rereads_shared_operands_is_exponential_time():
    result = pt.probe_time(lazy_forward.Value)
    assert result.status == "failed"
    defects = [f for f in result.findings if f.kind in DEFECT_KINDS]
    (finding,) = defects
    assert finding.kind == "exponential_time" and finding.summary.startswith("forward time")
    # its backward is per node: judged flat, or not judged when building ladders ate the budget
    assert all(
        f.kind == "inconclusive" and "backward" in f.summary for f in result.findings if f is not finding
    )


def _pass(name, sizes, chains, ladders):
    """A pass with the given seconds per size (chain, ladder): times given, not measured."""
    p = pt._Pass(name)
    for k, chain_s, ladder_s in zip(sizes, chains, ladders, strict=True):
        p.add(k, chain_s, ladder_s)
    return p


def _measure_again_given(monkeypatch, p, times, *, cost=0.0, clock=time.perf_counter, start=None):
    """``_measure_again`` on ``p``, its new round's (chain, ladder) seconds at size k given by
    ``times(k)`` for both phases, each size costing ``cost`` CPU s by ``clock``; returns the
    (k, backward) it asked for."""
    asked = []
    eng, given_step = resolve_engine(sound.Value), 1e-9

    def given(eng_, k, backward, step, timer):
        assert (eng_, step, timer) == (eng, given_step, clock)  # the probe's engine, clock step and clock
        asked.append((k, backward))
        chain_s, ladder_s = times(k)
        return {phase: {"chain": chain_s, "ladder": ladder_s} for phase in pt.PHASES}

    monkeypatch.setattr(pt, "_measure", given)
    costs = [cost] * len(pt.SIZES)
    pt._measure_again([p], eng, given_step, clock, costs=costs, start=clock() if start is None else start)
    return asked


def test_growth_that_noise_made_at_the_last_sizes_is_measured_away(monkeypatch):
    # the ladder's time doubled at each of the last two sizes, as if load had risen there; measured
    # again it is flat.  The times are given, not measured: a test asserts verdicts, never durations
    # (measured, this test once saw a sound engine's ratio at 1.54 after the second round)
    p = _pass("forward", (16, 18, 20), (1e-4,) * 3, (1e-4, 2e-4, 4e-4))
    assert pt._ran_out_growing(p)
    asked = _measure_again_given(monkeypatch, p, lambda k: (1e-4, 1.1e-4))
    assert asked == [(16, False), (18, False), (20, False)]  # the last three sizes, forward only
    assert p.times == [(1e-4, 1e-4), (1e-4, 1.1e-4), (1e-4, 1.1e-4)]  # the least of both rounds
    assert p.measured_again and not pt._ran_out_growing(p) and p.confirmed is None


def test_growth_that_a_slow_chain_sample_hid_is_confirmed_when_measured_again(monkeypatch):
    # the ladder doubles at every step (x8 the chain at k = 20), but the chain's sample at k = 16 was
    # slow: the step into 16 reads as x1.25, two steps of growth are left, too few to confirm
    p = _pass("backward", (14, 16, 18, 20), (1e-4, 1.6e-4, 1e-4, 1e-4), (1e-4, 2e-4, 4e-4, 8e-4))
    assert pt._ran_out_growing(p) and p.confirmed is None
    asked = _measure_again_given(monkeypatch, p, lambda k: (1e-4, 2e-4 * 2 ** ((k - 16) // 2)))
    assert asked == [(16, True), (18, True), (20, True)]  # the last three sizes (not four), with backward
    assert p.confirmed == 3 and p.measured_again  # measured again, the growth is confirmed at k = 20


def test_growth_whose_streak_a_slow_sample_broke_is_measured_again_and_confirmed(monkeypatch):
    # the backward ladder x4 a size (ratio 2, 8, 32, ...), but its sample at k = 8 read 100 instead of
    # 32: the step after it is x1.28, so no three successive steps grew; k = 12 cost 1 CPU s, and the
    # budget ends the probe at k = 14.  Measured again (8, 10, 12), k = 8 reads 32: confirmed at k = 10
    now, slow, args = [0.0], {8}, set()

    def measure(eng, k, backward, step, timer):
        args.add((eng, step))
        now[0] += 1.0 if k == 12 else 0.01
        ratio = 2 * 4 ** ((k - 4) // 2)
        ratio = 100 if k in slow else ratio
        slow.discard(k)
        forward = {"chain": 1e-4, "ladder": 1e-4}
        return {"forward": forward, "backward": {"chain": 1e-4, "ladder": 1e-4 * ratio}}

    monkeypatch.setattr(pt, "choose_clock", lambda: (lambda: now[0], 1e-9, ""))
    monkeypatch.setattr(pt, "_measure", measure)
    result = pt.probe_time(sound.Value)
    (finding,) = [f for f in result.findings if f.kind in DEFECT_KINDS]
    assert finding.summary.startswith("backward time") and "at k = 10" in finding.summary
    assert "k = 8: ladder 0.0032 s" in finding.actual  # the least of both rounds
    assert "k = 10: " in finding.actual and "k = 12" not in finding.actual  # up to the confirmation
    assert "for k in (4, 6, 8, 10):" in finding.reproducer  # the sizes that confirmed it, no more
    ((eng, step),) = args  # measured again by the same engine and clock step as the first round
    assert eng is not None and step == 1e-9
    (forward,) = [f for f in result.findings if f.kind == "inconclusive"]  # flat, but only up to k = 12
    assert "budget" in forward.summary and result.status == "failed"


def test_growth_that_holds_when_measured_again_stays_unjudged(monkeypatch):
    # the ladder x4 at each of the last two sizes: two steps of growth, too few to confirm; measured
    # again (given times, not measured ones: a test asserts verdicts) it grows as much
    p = _pass("backward", (12, 14, 16), (1e-4,) * 3, (1e-4, 4e-4, 16e-4))
    assert pt._ran_out_growing(p)
    _measure_again_given(monkeypatch, p, lambda k: (1e-4, 1e-4 * 4 ** ((k - 12) // 2)))
    assert p.measured_again and pt._ran_out_growing(p) and p.confirmed is None, p.evidence()


def test_one_slow_size_does_not_end_the_probe_before_the_growth_is_confirmed(monkeypatch):
    # CPU seconds each size costs, on a clock of our own: k = 8 cost x100 the size before (one slow
    # sample); predicted from that jump, k = 10 would overrun the budget.  The backward ladder grows
    # x4 a size: confirmed at k = 10, if the probe gets there
    now = [0.0]
    monkeypatch.setattr(pt, "choose_clock", lambda: (lambda: now[0], 1e-9, ""))

    def measure(eng, k, backward, step, timer):
        now[0] += {4: 0.001, 6: 0.001, 8: 0.1}.get(k, 0.1)
        forward = {"chain": 1e-4, "ladder": 1e-4}
        return {"forward": forward, "backward": {"chain": 1e-4, "ladder": 1e-4 * 4 ** ((k - 4) // 2)}}

    monkeypatch.setattr(pt, "_measure", measure)
    assert pt.BUDGET < 0.1 * (0.1 / 0.001)  # the jump taken at its word: 10 CPU s predicted for k = 10
    result = pt.probe_time(sound.Value)
    (finding,) = [f for f in result.findings if f.kind in DEFECT_KINDS]
    assert finding.summary.startswith("backward time") and "at k = 10" in finding.summary
    assert result.status == "failed" and "forward: flat up to k = 28" in result.reason


def test_the_ladder_and_the_chain_compute_the_same_function():
    # same value (1.0) and the ladder's gradient is 1 at every k: the graphs differ in paths only
    eng = resolve_engine(autograd)
    for k in (1, 5, 12):
        for build in (pt.ladder, pt.chain):
            y = build(eng, k)
            assert eng.data(y) == 1.0
    x = eng.make(1.0)
    h = eng.make(0.5)
    y = x
    for _ in range(10):
        y = y * h + y * h
    eng.backward(y)
    assert eng.grad(x) == 1.0


def test_flat_ratios_with_noise_are_never_confirmed():
    rng = random.Random(0)
    sizes = list(pt.SIZES)
    for _ in range(2000):
        level = rng.uniform(0.3, 3.0)  # any constant ratio, noise up to x2 either way
        ratios = [level * math.exp(rng.uniform(-math.log(2), math.log(2))) for _ in sizes]
        assert pt.confirmed_growth(ratios) is None


def test_geometric_growth_is_confirmed_after_enough_successive_steps():
    sizes = list(pt.SIZES)
    ratios = [2.0 ** (k / 2) for k in sizes]  # x2 per step of two levels
    at = pt.confirmed_growth(ratios)
    assert at is not None and at >= pt.CONFIRM and ratios[at] >= pt.RATIO_MIN
    # growth broken by a flat step restarts the count
    broken = [1, 2, 4, 4, 8, 16, 16, 32, 64, 64]
    assert pt.confirmed_growth(broken) is None


def test_an_engine_out_of_budget_is_inconclusive_not_a_defect(monkeypatch):
    monkeypatch.setattr(pt, "BUDGET", -1.0)
    result = pt.probe_time(exponential_backward.Value)
    assert result.status == "not_applicable"
    assert result.judged == 0 and result.inconclusive == 2
    assert {f.kind for f in result.findings} == {"inconclusive"}


def test_an_engine_that_cannot_build_the_ladder_is_not_applicable():
    class NoAdd(sound.Value):
        def __add__(self, other):
            raise TypeError("add: not today")

    result = pt.probe_time(resolve_engine(NoAdd))
    assert result.status == "not_applicable" and result.judged == 0
    assert result.reason.endswith("could not be timed: forward at k = 4: TypeError: add: not today")


def test_our_own_error_propagates_instead_of_reading_as_not_timed(monkeypatch):
    # issue 13: only what the engine raises makes the ladder "not timed"; a KeyError of ours is our bug
    def broken(ratios):
        raise KeyError("planted in the harness")

    monkeypatch.setattr(pt, "confirmed_growth", broken)
    with pytest.raises(KeyError, match="planted in the harness"):
        pt.probe_time(sound.Value)


TICK = 0.004  # a scheduler tick: what process_time reads under a CPU-time limit (ulimit -t)


def _ticking_clock():
    """process_time as a process under ``ulimit -t`` reads it: whole ticks."""
    return math.floor(time.process_time() / TICK) * TICK


def test_the_clock_step_is_measured_not_taken_from_the_clock_info():
    assert pt.clock_step(_ticking_clock) == pytest.approx(TICK, rel=1e-9)
    assert pt.clock_step(time.thread_time) < 1e-4  # (its clock info, too, says nanoseconds)


def test_a_clock_of_ticks_that_now_and_then_steps_by_microseconds_is_a_clock_of_ticks():
    # under a CPU-time limit about one step in 15 is of microseconds; the least step of three
    # sized samples for a fine clock, read them as 0 or a tick, and the sound engine "grew"
    readings = itertools.accumulate([0.0, 1e-5, TICK, 1e-5, TICK, TICK, TICK, TICK, TICK, TICK])
    ticks = iter(value for value in readings for _ in range(3))  # each reading read three times
    assert pt.clock_step(lambda: next(ticks)) == pytest.approx(TICK)


def test_a_clock_that_never_moves_steps_by_infinity_within_the_sample_wall(monkeypatch):
    monkeypatch.setattr(pt, "SAMPLE_WALL", 0.05)
    t0 = time.perf_counter()
    assert pt.clock_step(lambda: 1.0) == math.inf
    assert time.perf_counter() - t0 < 30  # not a hang (a bound for a hang, not a speed target)


def test_the_process_clock_is_kept_when_fine_and_the_thread_clock_taken_when_it_ticks(monkeypatch):
    monkeypatch.setattr(pt, "clock", time.perf_counter)  # fine here, and under mutmut's CPU limit
    assert pt.choose_clock()[0] is time.perf_counter and pt.choose_clock()[2] == ""
    monkeypatch.setattr(pt, "clock", _ticking_clock)
    timer, step, said = pt.choose_clock()
    assert timer is time.thread_time and step < 1e-4
    assert said == (
        "timed by this thread's CPU time (time.thread_time): this process's CPU clock steps by 4 ms "
        "(work of other threads is not counted)"
    )
    monkeypatch.setattr(pt, "fallback_clock", lambda: _ticking_clock() + 0.5)  # no finer: kept
    assert pt.choose_clock() == (_ticking_clock, pytest.approx(TICK, rel=1e-9), "")


@pytest.mark.parametrize("engine", [sound.Value, exponential_backward.Value], ids=["sound", "exponential"])
def test_a_process_clock_of_ticks_is_judged_by_the_thread_clock(monkeypatch, engine):
    # as under mutmut's CPU-time limit: the verdicts of a fine clock, and the reason says which clock
    monkeypatch.setattr(pt, "clock", _ticking_clock)
    result = pt.probe_time(engine)
    assert "time.thread_time" in result.reason and "steps by 4 ms" in result.reason
    kinds = sorted(f.kind for f in result.findings)
    if engine is sound.Value:
        assert (result.status, result.judged, kinds) == ("passed", 2, [])
    else:
        assert result.status == "failed" and "exponential_time" in kinds


@pytest.mark.parametrize("engine", [sound.Value, exponential_backward.Value], ids=["sound", "exponential"])
def test_a_clock_of_ticks_gets_samples_of_many_ticks_and_no_false_alarm(monkeypatch, engine):
    # Regression (mutmut's workers run under a CPU-time limit): one pass read as 0 s asked for
    # 0.001 / 1e-9 = a million passes a sample, and the probe ran for minutes past its budget
    monkeypatch.setattr(pt, "clock", _ticking_clock)
    monkeypatch.setattr(pt, "fallback_clock", _ticking_clock)  # no finer clock to fall back on
    monkeypatch.setattr(pt, "BUDGET", 1.0)  # a clock of ticks cannot judge anyway: save CI 6 s
    asked = []
    forward = pt._forward

    def counted(eng, build, k, inner):
        asked.append(inner)
        if inner >= 2**14:  # fail now rather than run a million passes
            raise RuntimeError(f"a sample of {inner} passes")
        return forward(eng, build, k, inner)

    monkeypatch.setattr(pt, "_forward", counted)
    result = pt.probe_time(engine)
    # a sample's passes doubled up to SAMPLE_TICKS ticks, never a million
    assert asked and max(asked) < 2**14 and max(asked) & (max(asked) - 1) == 0
    assert not [f for f in result.findings if f.kind in DEFECT_KINDS]  # ticks are not growth
    stopped = [f.summary for f in result.findings if f.kind == "inconclusive"]
    assert all("CPU clock steps by 4 ms" in s for s in stopped if "budget" in s)


# --- the whole verdict on given times: a clock of our own and a stand-in _measure -----------------


def _given_probe(monkeypatch, ratio, *, cost=lambda k: 0.01, step=1e-9, timed_by=""):
    """``probe_time(sound.Value)`` on given times: at size k the ladder of ``phase`` is ``ratio(phase,
    k)`` times the chain (1e-4 s a pass), and measuring size k costs ``cost(k)`` CPU s of a clock of
    our own.  Returns the outcome and the ``(k, backward)`` of each measurement asked for."""
    now, asked, args = [100.0], [], set()
    monkeypatch.setattr(pt, "choose_clock", lambda: (lambda: now[0], step, timed_by))

    def measure(eng, k, backward, step, timer):
        args.add((eng, step))
        asked.append((k, backward))
        now[0] += cost(k)
        return {p: {"chain": 1e-4, "ladder": 1e-4 * ratio(p, k)} for p in pt.PHASES}

    monkeypatch.setattr(pt, "_measure", measure)
    result = pt.probe_time(sound.Value)
    ((eng, measured_step),) = args  # one engine and the chosen clock's step for every measurement
    assert eng is not None and measured_step == step
    return result, asked


def _x4_a_size(phase):
    """Ratios 1, 4, 16, 64 at k = 4, 6, 8, 10 for ``phase``, flat (1) for the other."""
    return lambda p, k: 4 ** ((k - 4) // 2) if p == phase else 1.0


def _run_reproducer(source):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, "<reproducer>", "exec"), {})
    return out.getvalue().splitlines()


def test_a_backward_found_exponential_is_reported_in_full(monkeypatch):
    result, asked = _given_probe(monkeypatch, _x4_a_size("backward"), timed_by="timed by a clock of ours")
    assert (result.name, result.status, result.unit) == ("time", "failed", "passes")
    assert (result.judged, result.inconclusive) == (2, 0)  # backward: exponential; forward: flat
    assert result.reason == (
        "ladders of k shared diamonds vs chains, k in 4..28 step 2, 0.13 CPU s; timed by a clock of ours; "
        "forward: flat up to k = 28 (ratio x1 at most)"
    )
    # backward is measured until its growth is confirmed at k = 10, the forward pass up to the end
    assert asked == [(k, k <= 10) for k in pt.SIZES]
    (finding,) = result.findings
    assert (finding.kind, finding.check) == ("exponential_time", "time")
    assert finding.summary == (
        "backward time grows with the number of paths, not of nodes: on a ladder of k shared diamonds it "
        "is x64 a chain of the same ops at k = 10, the ratio multiplied by 1.5 or more at each of 3 "
        "successive sizes"
    )
    assert finding.expected == "a ratio ladder / chain that stays flat as k grows"
    assert finding.actual == (
        "k = 4: ladder 0.0001 s, chain 0.0001 s (x1); k = 6: ladder 0.0004 s, chain 0.0001 s (x4); "
        "k = 8: ladder 0.0016 s, chain 0.0001 s (x16); k = 10: ladder 0.0064 s, chain 0.0001 s (x64)"
    )


@pytest.mark.parametrize("phase", ["forward", "backward"])
def test_the_reproducer_times_the_pass_found_exponential_at_the_sizes_that_confirmed_it(monkeypatch, phase):
    result, _ = _given_probe(monkeypatch, _x4_a_size(phase))
    (finding,) = [f for f in result.findings if f.kind in DEFECT_KINDS]
    source = finding.reproducer
    assert "from tests.engines.sound import Value" in source and "for k in (4, 6, 8, 10):" in source
    timed = {  # what is inside the clock readings: the build for forward, backward() alone for backward
        "forward": "t = time.process_time(); y = build(k); y.data; seconds = time.process_time() - t",
        "backward": "y = build(k); t = time.process_time(); y.backward(); seconds = time.process_time() - t",
    }
    assert timed[phase] in source
    number = r"[0-9.e+-]+"
    lines = _run_reproducer(source)  # it runs, on the (sound) engine, and prints a row per size
    assert len(lines) == 5, lines
    for k, line in zip((4, 6, 8, 10), lines, strict=False):
        assert re.fullmatch(rf"k = {k}: {phase} ladder {number} s, chain {number} s, ratio {number}", line)
    assert lines[-1] == "expected: a ratio that stays flat as k grows (same ops per level); actual: above"


def test_a_forward_found_exponential_stops_the_backward_pass_and_says_why(monkeypatch):
    result, asked = _given_probe(monkeypatch, _x4_a_size("forward"))
    assert asked == [(k, True) for k in (4, 6, 8, 10)]  # nothing after: both passes are closed
    assert (result.status, result.judged, result.inconclusive) == ("failed", 1, 1)
    (backward,) = [f for f in result.findings if f.kind == "inconclusive"]
    assert backward.check == "time"
    assert backward.summary == (
        "backward time not judged: building ladders is itself exponential (forward) from k = 10 "
        "(sound only when measured up to k = 16)"
    )
    flat = [f"k = {k}: ladder 0.0001 s, chain 0.0001 s (x1)" for k in (4, 6, 8, 10)]
    assert backward.actual == "; ".join(flat)


def test_growth_still_there_at_the_largest_size_when_measured_again_is_said_so(monkeypatch):
    # the backward ratio x1.6 at each of the last two sizes: growth the sizes ran out on, below RATIO_MIN
    def ratio(phase, k):
        return {26: 1.6, 28: 2.56}.get(k, 1.0) if phase == "backward" else 1.0

    result, asked = _given_probe(monkeypatch, ratio)
    assert asked[-3:] == [(24, True), (26, True), (28, True)]  # measured again, with backward
    assert (result.status, result.judged, result.inconclusive) == ("passed", 1, 1)
    (backward,) = result.findings
    assert (backward.kind, backward.check) == ("inconclusive", "time")
    assert backward.summary == (
        "backward time not judged: the ratio was still growing at the largest size, measured twice "
        "(sound only when measured up to k = 16)"
    )
    assert backward.actual.startswith("k = 4: ladder 0.0001 s, chain 0.0001 s (x1); k = 6: ")
    assert backward.actual.endswith("; k = 28: ladder 0.000256 s, chain 0.0001 s (x2.56)")
    assert backward.actual.count("; ") == len(pt.SIZES) - 1


def _out_of_budget(k, clock_said):
    """The summaries of both passes stopped by the budget before size k."""
    return [
        f"{phase} time not judged: the budget (4 CPU s, 32 s wall) would run out at k = {k}{clock_said} "
        "(sound only when measured up to k = 16)"
        for phase in pt.PHASES
    ]


def test_the_budget_lets_a_size_run_that_is_predicted_to_end_exactly_at_it(monkeypatch):
    # each size costs 1 CPU s: before k = 10, 3 s spent and 1 predicted, exactly the budget (4)
    result, asked = _given_probe(monkeypatch, lambda p, k: 1.0, cost=lambda k: 1.0, step=0.0012345)
    assert [k for k, _ in asked] == [4, 6, 8, 10]
    assert (result.status, result.judged, result.inconclusive) == ("not_applicable", 0, 2)
    assert [f.summary for f in result.findings] == _out_of_budget(12, " (the CPU clock steps by 1.23 ms)")


def test_one_costly_first_size_predicts_the_next_at_its_own_cost(monkeypatch):
    # k = 4 cost 1.5 s: k = 6 is predicted at 1.5 more (3 in all, within the budget), then sizes are cheap
    result, asked = _given_probe(monkeypatch, lambda p, k: 1.0, cost=lambda k: 1.5 if k == 4 else 0.01)
    assert [k for k, _ in asked] == list(pt.SIZES)
    assert (result.status, result.judged) == ("passed", 2)


def test_the_first_size_is_measured_however_small_the_budget(monkeypatch):
    monkeypatch.setattr(pt, "BUDGET", 0.5)  # nothing measured yet: nothing predicted
    result, asked = _given_probe(monkeypatch, lambda p, k: 1.0)
    assert [k for k, _ in asked] == list(pt.SIZES) and (result.status, result.judged) == ("passed", 2)


def test_the_next_size_is_predicted_from_the_growth_of_the_last_two(monkeypatch):
    # 0.5 s then 1.5 s (x3): k = 8 is predicted at 4.5 s, past the budget with 2 s spent; a clock step
    # of exactly COARSE_STEP is not worth a word
    costs = {4: 0.5, 6: 1.5}
    result, asked = _given_probe(
        monkeypatch, lambda p, k: 1.0, cost=lambda k: costs.get(k, 0.01), step=pt.COARSE_STEP
    )
    assert [k for k, _ in asked] == [4, 6]
    assert [f.summary for f in result.findings] == _out_of_budget(8, "")


def test_passes_flat_up_to_exactly_k_judge_are_judged(monkeypatch):
    # k = 16 costs 3 s: k = 18 is predicted past the budget, and both passes were measured up to K_JUDGE
    result, asked = _given_probe(monkeypatch, lambda p, k: 1.0, cost=lambda k: 3.0 if k == 16 else 0.01)
    assert asked[-1][0] == 16 == pt.K_JUDGE
    assert (result.status, result.judged, result.inconclusive, result.findings) == ("passed", 2, 0, [])
    assert result.reason.endswith(
        "; forward: flat up to k = 16 (ratio x1 at most); backward: flat up to k = 16 (ratio x1 at most)"
    )


# --- the parts, on given numbers ----------------------------------------------------------------


def _ratios_pass(ratios):
    """An unconfirmed backward pass whose ratios are ``ratios`` (chain 1 s, so each ratio exact)."""
    return pt._Pass("backward", sizes=list(pt.SIZES[: len(ratios)]), times=[(1.0, r) for r in ratios])


@pytest.mark.parametrize(
    ("ratios", "broken"),
    [
        ([4, 8], True),  # two sizes are enough; a ratio of exactly RATIO_MIN, grown x2
        ([8, 12], True),  # grown by exactly GROWTH
        ([7, 12], True),  # the last ratio is the one that must reach RATIO_MIN
        ([100, 8, 12], True),  # the last step is what grew, not the one before
        ([8], False),  # one size: no step
        ([8, 9], False),  # x1.125: no growth
        ([2, 7.9], False),  # grown, but below RATIO_MIN
    ],
)
def test_a_broken_streak_is_read_from_the_last_step_and_the_last_ratio(ratios, broken):
    assert pt._broken_streak(_ratios_pass(ratios)) is broken


@pytest.mark.parametrize(
    ("ratios", "growing"),
    [
        ([1, 1.5, 2.25], True),  # both steps by exactly GROWTH
        ([0, 0, 0.1, 1, 1.5, 2.25], True),  # only the last two steps count
        ([3, 1.2, 2.0], False),  # the last step grew, the one before fell
        ([1, 4, 1.6], False),  # the step before grew, the last fell
        ([1, 2], False),  # one step is noise
    ],
)
def test_growing_at_the_end_means_both_of_the_last_two_steps_grew(ratios, growing):
    assert pt._growing_at_end(ratios) is growing


def test_growth_is_confirmed_only_by_steps_between_successive_sizes():
    assert pt.confirmed_growth([4, 6, 9, 13.5]) == 3  # three steps of exactly GROWTH, ending above RATIO_MIN
    # two steps of growth and a fall: the first size is not a step after the last
    assert pt.confirmed_growth([12, 18, 27, 8]) is None


@pytest.mark.parametrize(
    ("k", "ladder_s", "stopped"),
    [
        (10, 0.5, "a ladder backward pass took 0.5 s at k = 10"),
        (10, pt.RUN_CAP, ""),  # at the cap itself, grown further
        (pt.SIZES[-2], 0.5, f"a ladder backward pass took 0.5 s at k = {pt.SIZES[-2]}"),
        (pt.SIZES[-1], 0.5, ""),  # the largest size: there is nothing further to stop
    ],
)
def test_a_ladder_pass_slower_than_the_run_cap_is_not_grown_further(k, ladder_s, stopped):
    p = pt._Pass("backward")
    p.add(k, 1e-4, ladder_s)
    assert p.stopped == stopped and p.open is (not stopped)


def test_measuring_again_stays_within_the_budget(monkeypatch):
    # 1 CPU s spent; the three sizes cost 1 s each: 4 s, exactly the budget, measured again
    p = _pass("forward", (16, 18, 20), (1e-4,) * 3, (1e-4, 2e-4, 4e-4))

    def flat(k):
        return 1e-4, 1e-4

    asked = _measure_again_given(monkeypatch, p, flat, cost=1.0, clock=lambda: 1.0, start=0.0)
    assert len(asked) == 3 and p.measured_again
    # at 1.5 s each (5.5 s in all) they are not, and the pass is left as it was
    p = _pass("forward", (16, 18, 20), (1e-4,) * 3, (1e-4, 2e-4, 4e-4))
    asked = _measure_again_given(monkeypatch, p, flat, cost=1.5, clock=lambda: 1.0, start=0.0)
    assert asked == [] and not p.measured_again and pt._ran_out_growing(p)


def _passes_on_a_clock_of_ours(monkeypatch):
    """Stand-in passes: forward 2**-12 s and backward 2**-11 s a pass on the clock returned."""
    now = [0.0]

    def forward(eng, build, k, inner):
        now[0] += inner * 2**-12
        return [None] * inner

    def backward(eng, outs):
        now[0] += len(outs) * 2**-11

    monkeypatch.setattr(pt, "_forward", forward)
    monkeypatch.setattr(pt, "_backward", backward)
    return lambda: now[0]


def test_a_measurement_gives_seconds_per_pass_and_leaves_the_collector_as_it_was(monkeypatch):
    # a pass costs 2**-12 s forward and 2**-11 s backward on a clock of our own: a sample needs
    # 0.001 s, so it holds two passes, and the seconds are divided by them
    clock = _passes_on_a_clock_of_ours(monkeypatch)
    eng = resolve_engine(sound.Value)
    assert gc.isenabled()
    try:
        best = pt._measure(eng, 6, backward=True, step=1e-9, timer=clock)
        assert gc.isenabled()  # _measure disables it while it samples, and only then
    finally:
        gc.enable()
    assert best == {p: {g: 2**-12 if p == "forward" else 2**-11 for g in pt.GRAPHS} for p in pt.PHASES}
    # forward only: the backward seconds stay unmeasured
    best = pt._measure(eng, 6, backward=False, step=1e-9, timer=clock)
    assert best == {"forward": {g: 2**-12 for g in pt.GRAPHS}, "backward": {g: math.inf for g in pt.GRAPHS}}


def test_a_sample_holds_the_fewest_passes_that_take_the_least_seconds(monkeypatch):
    # a pass (forward and backward) takes 3 * 2**-12 s on a clock of our own: exactly one pass is
    # enough for a least of 3 * 2**-12 s, exactly two for twice that
    clock = _passes_on_a_clock_of_ours(monkeypatch)
    eng = resolve_engine(sound.Value)
    assert pt._passes_per_sample(eng, 6, 3 * 2**-12, clock) == 1
    assert pt._passes_per_sample(eng, 6, 3 * 2**-11, clock) == 2
    assert pt._passes_per_sample(eng, 6, 3 * 2**-10, clock) == 4


def test_a_sample_that_took_the_whole_wall_allowance_is_not_doubled(monkeypatch):
    # the CPU clock reads no time at all, and each sample takes exactly SAMPLE_WALL wall seconds
    walls = itertools.count()
    fake_time = type("FakeTime", (), {"perf_counter": staticmethod(lambda: next(walls) * pt.SAMPLE_WALL)})
    monkeypatch.setattr(pt, "time", fake_time)

    def forward(eng, build, k, inner):
        if inner > 2:
            pytest.fail(f"doubled to {inner} passes after a sample of the whole wall allowance")
        return [None] * inner

    monkeypatch.setattr(pt, "_forward", forward)
    monkeypatch.setattr(pt, "_backward", lambda eng, outs: None)
    assert pt._passes_per_sample(resolve_engine(sound.Value), 6, 1.0, lambda: 0.0) == 1


def test_a_backward_that_raises_is_not_timed_and_the_reason_says_where():
    class LaterNoBackward(sound.Value):
        broken = False  # found by discovery first, then broken

        def backward(self):
            if LaterNoBackward.broken:
                raise RuntimeError("backward: not today")
            super().backward()

    eng = resolve_engine(LaterNoBackward)
    LaterNoBackward.broken = True
    result = pt.probe_time(eng)
    assert result.status == "not_applicable" and result.judged == 0
    said = "could not be timed: backward() at k = 4: RuntimeError: backward: not today"
    assert result.reason.endswith(said)


def test_a_forward_only_measurement_says_where_the_engine_raised(monkeypatch):
    class NoAdd(sound.Value):
        def __add__(self, other):
            raise TypeError("add: not today")

    monkeypatch.setattr(pt, "_passes_per_sample", lambda *args: 1)
    with pytest.raises(EngineRaised) as raised:
        pt._measure(resolve_engine(NoAdd), 6, backward=False, step=1e-9, timer=time.perf_counter)
    assert raised.value.stage == "forward at k = 6"


def test_the_chain_needs_only_multiplication_and_addition():
    class NoSub(sound.Value):
        def __sub__(self, other):
            raise TypeError("sub: not today")

        __rsub__ = __sub__

    assert resolve_engine(NoSub).data(pt.chain(resolve_engine(NoSub), 3)) == 1.0


def test_the_clock_step_is_said_to_three_digits():
    tick = 0.0012345

    def ticking():
        return math.floor(time.process_time() / tick) * tick

    original = pt.clock
    try:
        pt.clock = ticking
        timer, _, said = pt.choose_clock()
    finally:
        pt.clock = original
    assert timer is time.thread_time and "steps by 1.23 ms (work" in said


def test_a_clock_stepping_by_exactly_coarse_step_is_kept(monkeypatch):
    readings = itertools.count()
    monkeypatch.setattr(pt, "COARSE_STEP", 2**-13)
    monkeypatch.setattr(pt, "clock", lambda: next(readings) * 2**-13)  # steps of exactly 2**-13
    timer, step, said = pt.choose_clock()
    assert (timer, step, said) == (pt.clock, 2**-13, "")
