"""The memory probe (autograd.testing.probes.memory): freed by reference counting, by the
cyclic collector, or never; by weak references or, without them, by tracemalloc."""

import gc
import itertools
import os
import pathlib
import re
import subprocess
import sys
import tracemalloc
import weakref
from typing import ClassVar

import micrograd.engine
import pytest

import autograd
from autograd.testing import resolve_engine
from autograd.testing.ops import OPS
from autograd.testing.probes import memory as pm
from autograd.testing.probes import probe_memory
from tests.engines import (
    leaking_registry,
    refuses_int_constants,
    slots_chain,
    slots_cycles,
    slots_cyclic_garbage,
    slots_lazy_table,
    slots_registry,
    sound,
)


def kinds(result):
    return sorted(f.kind for f in result.findings)


@pytest.mark.slow
def test_our_engine_is_freed_by_reference_counting_alone():
    result = pm.probe_memory(autograd)
    assert result.status == "passed" and result.judged == 1
    assert (result.name, result.unit) == ("memory", "runs")
    assert result.findings == []
    assert "no weak references" in result.reason  # __slots__ without __weakref__: tracemalloc
    assert "freed by reference counting alone" in result.reason


@pytest.mark.slow
@pytest.mark.parametrize("engine", [micrograd.engine, sound.Value], ids=["micrograd", "sound"])
def test_closures_that_capture_their_output_are_reference_cycles_a_fact(engine):
    result = pm.probe_memory(engine)
    assert result.status == "passed" and result.judged == 1
    assert kinds(result) == ["reference_cycles"]
    assert "weak references" in result.reason


@pytest.mark.slow
def test_a_class_level_registry_is_a_memory_leak():
    result = pm.probe_memory(leaking_registry.Value)
    assert result.status == "failed"
    (finding,) = result.findings
    assert finding.kind == "memory_leak" and "never freed" in finding.summary
    out = run_reproducer(finding.reproducer)
    assert "after gc.collect(): [3, 3, 3" in out  # a, b and y of every graph still alive


@pytest.mark.slow
def test_a_registry_of_slots_without_weakref_is_a_memory_leak_by_tracemalloc():
    with pytest.raises(TypeError):
        import weakref

        weakref.ref(slots_registry.Value(1.0))
    result = pm.probe_memory(slots_registry.Value)
    assert result.status == "failed"
    (finding,) = result.findings
    assert finding.kind == "memory_leak" and "memory grows by" in finding.summary
    assert "tracemalloc" in finding.reproducer


@pytest.mark.slow
def test_a_one_off_allocation_during_a_measured_graph_does_not_hide_a_leak(monkeypatch):
    # e.g. the leaking registry's own list growing by a chunk while the graph's size is measured:
    # the size is the least of several graphs, so the leak is still a quarter of a graph or more
    kept, calls = [], []
    measure = pm._cycle_bytes

    def with_a_chunk(eng, recipe):
        calls.append(1)
        if len(calls) == 3:  # the first graph measured after the two warm-up graphs
            start = pm._traced()
            kept.append(bytearray(10**6))
            return measure(eng, recipe) + pm._traced() - start
        return measure(eng, recipe)

    monkeypatch.setattr(pm, "_cycle_bytes", with_a_chunk)
    result = pm.probe_memory(slots_registry.Value)
    assert len(calls) > 3 and kept
    assert [f.kind for f in result.findings] == ["memory_leak"]


@pytest.mark.slow
def test_a_tape_that_keeps_the_last_graph_is_not_a_leak():
    last = []

    class Tape(sound.Value):
        def backward(self):
            super().backward()
            last[:] = [self]  # the latest graph only, replaced by the next backward()

    result = pm.probe_memory(resolve_engine(Tape))
    assert result.status == "passed"
    assert "memory_leak" not in kinds(result)
    assert "convention" in kinds(result)


@pytest.mark.parametrize("weak", [True, False], ids=["weak references", "tracemalloc"])
def test_an_engine_that_raises_on_a_later_graph_is_not_judged_and_the_audit_goes_on(monkeypatch, weak):
    # what an engine raises is a fact about it: the third backward() raising once escaped the probe,
    # and the audit crashed
    calls = []

    class TapeFull(sound.Value):
        def backward(self):
            calls.append(1)
            if len(calls) > 2:
                raise RuntimeError("tape full")
            super().backward()

    monkeypatch.setattr(pm, "_weakrefs_supported", lambda eng: weak)
    result = pm.probe_memory(resolve_engine(TapeFull))
    assert (result.status, result.judged, result.inconclusive) == ("not_applicable", 0, 1)
    (finding,) = result.findings
    assert (finding.kind, finding.check) == ("inconclusive", "memory")
    assert finding.summary.endswith("then a later one raised RuntimeError: tape full")
    assert (finding.actual, finding.expected) == ("RuntimeError: tape full", "every graph of the run built")
    cut_short = "the run of graphs was cut short by the engine"
    assert (result.name, result.unit, result.reason) == ("memory", "runs", cut_short)
    assert gc.isenabled() and not tracemalloc.is_tracing()


@pytest.mark.slow
def test_the_probe_leaves_the_collector_and_tracemalloc_as_it_found_them():
    assert gc.isenabled() and not tracemalloc.is_tracing()
    pm.probe_memory(autograd)
    pm.probe_memory(sound.Value)
    assert gc.isenabled() and not tracemalloc.is_tracing()
    gc.disable()
    try:
        pm.probe_memory(sound.Value)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_an_engine_that_cannot_differentiate_the_graph_is_not_applicable():
    class Broken(sound.Value):
        def exp(self):
            out = super().exp()

            def fail():
                raise RuntimeError("exp: backward broken")

            out._backward = fail
            return out

    result = pm.probe_memory(resolve_engine(Broken))
    assert result.status == "not_applicable" and "could not be built" in result.reason
    assert (result.name, result.unit, result.judged, result.findings) == ("memory", "runs", 0, [])
    assert result.reason.endswith("RuntimeError: exp: backward broken")  # the engine's own error


def run_reproducer(source, namespace=None):
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, "<reproducer>", "exec"), {} if namespace is None else namespace)
    gc.enable()  # the weak-reference reproducer turns the collector off
    return out.getvalue()


def run_in_a_fresh_python(source):
    # (not in this process: what the test runner allocates meanwhile, as the captured output
    # growing line by line, would show in the reproducer's bytes)
    root = pathlib.Path(__file__).resolve().parents[1]
    # output to a pipe, buffered as a user's `python repro.py | tee` is (PYTHONUNBUFFERED, set on
    # some machines, hid that the reproducer once counted its own pending output as a leak)
    env = {**os.environ, "PYTHONPATH": str(root)}
    env.pop("PYTHONUNBUFFERED", None)
    done = subprocess.run([sys.executable, "-c", source], capture_output=True, text=True, cwd=root, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_our_own_error_propagates_instead_of_reading_as_not_built(monkeypatch):
    # issue 13: only what the engine raises makes the graph "not built"; a recipe of ours naming
    # no op of the table is our bug
    monkeypatch.setattr(pm, "_recipe", lambda eng: [("no_such_op", None)])
    with pytest.raises(KeyError, match="no_such_op"):
        pm.probe_memory(sound.Value)


# ---- without weak references: what tracemalloc measures, and what is judged from it


def numbers(text):
    return [int(n) for n in re.findall(r"-?\d+", text)]


@pytest.mark.slow
def test_tracemalloc_measures_a_kept_graph_as_one_graph_more_per_graph():
    # every Value of slots_chain keeps the one before alive: each graph dropped leaves all of it
    m = pm._by_tracemalloc(resolve_engine(slots_chain.Value), pm._recipe(resolve_engine(slots_chain.Value)))
    g = m["graph"]
    assert g >= pm.MIN_BYTES
    assert 0.75 * g <= m["dropped"] <= 1.25 * g
    assert 0.75 * g <= m["collected"] <= 1.25 * g
    assert 0.75 * g <= m["growth"] <= 1.25 * g
    assert 0.75 * 2 * pm.CYCLES * g <= m["retained"] <= 1.25 * 2 * pm.CYCLES * g


@pytest.mark.slow
def test_tracemalloc_measures_differences_when_it_was_already_tracing_with_memory_held():
    # a user's own tracing (PYTHONTRACEMALLOC, a profiler) with a megabyte held: our engine's graphs
    # still leave nothing, and the tracing is left on
    tracemalloc.start()
    try:
        held = bytearray(10**6)
        eng = resolve_engine(autograd)
        m = pm._by_tracemalloc(eng, pm._recipe(eng))
        assert tracemalloc.is_tracing()
        assert len(held) == 10**6
    finally:
        tracemalloc.stop()
    g = m["graph"]
    assert pm.MIN_BYTES <= g < 10**6
    for key in ("dropped", "collected", "growth", "retained"):
        assert abs(m[key]) <= pm.FRACTION * g, (key, m)


@pytest.mark.slow
@pytest.mark.parametrize(
    "engine",
    [
        slots_cycles.Value,
        # its first usable constants are Fractions: the reproducer imports Fraction
        refuses_int_constants.SlotsValue,
        # a table kept from the first Value made: a graph built before the baseline leaves it out
        slots_lazy_table.Value,
        # cyclic garbage, more objects than the collector's threshold: the reproducer turns it off
        slots_cyclic_garbage.Value,
    ],
    ids=["slots_cycles", "fraction_constants", "lazy_table", "cyclic_garbage"],
)
def test_a_slots_engine_in_reference_cycles_is_a_fact_by_tracemalloc(engine):
    result = pm.probe_memory(engine)
    assert (result.status, result.judged, result.inconclusive) == ("passed", 1, 0)
    assert "no weak references" in result.reason
    (finding,) = result.findings
    assert (finding.kind, finding.check) == ("reference_cycles", "memory")
    assert "garbage collector" in finding.summary
    survive, size = numbers(finding.summary)[-2:]  # "(N of its M bytes survive reference counting)"
    assert size >= pm.MIN_BYTES and 0.75 * size <= survive <= size
    assert f"a graph: {size} bytes alive; {survive} left once dropped" in finding.actual
    # as pasted (no weak reference to these Values), it shows the cycles: every graph's bytes still
    # allocated once dropped, about none after gc.collect() (it once collected before measuring: flat)
    out = run_in_a_fresh_python(finding.reproducer)
    rows = [numbers(line) for line in out.splitlines() if line.startswith("graphs built")]
    assert len(rows) == 2 * pm.CYCLES
    for _, dropped, collected in rows:
        assert dropped >= 0.75 * size / pm.BLOCKS and abs(collected) <= pm.FRACTION * dropped
    assert out.splitlines()[-1].startswith("expected: about 0 bytes still allocated")  # what a user compares


@pytest.mark.slow
def test_a_slots_engine_that_keeps_every_graph_is_a_leak_with_its_numbers():
    result = pm.probe_memory(slots_chain.Value)
    assert (result.status, result.judged, result.inconclusive) == ("failed", 1, 0)
    (finding,) = result.findings
    assert (finding.kind, finding.check) == ("memory_leak", "memory")
    growth, size = numbers(finding.summary)[:2]  # "grows by G bytes per graph ... (a graph is S bytes)"
    assert size >= pm.MIN_BYTES and 0.75 * size <= growth <= 1.25 * size
    assert f"a graph {size} bytes" in result.reason
    assert "flat" in finding.expected
    assert f"then {growth} more per graph" in finding.actual
    assert f"after {2 * pm.CYCLES} more graphs" in finding.actual
    retained = numbers(finding.actual.split(f"then {growth} more per graph")[1])[0]
    assert 0.75 * 2 * pm.CYCLES * size <= retained <= 1.25 * 2 * pm.CYCLES * size
    out = run_in_a_fresh_python(finding.reproducer)
    left = [numbers(line)[-1] for line in out.splitlines() if line.startswith("graphs built")]
    assert len(left) == 2 * pm.CYCLES
    # as pasted: more with every graph, by the reproducer's graph (one of the probe's BLOCKS) or so
    assert all(later - earlier >= 0.5 * size / pm.BLOCKS for earlier, later in itertools.pairwise(left))


@pytest.mark.slow
def test_an_engine_that_tracemalloc_does_not_see_is_inconclusive(monkeypatch):
    # an engine allocating outside Python's allocator: every reading of tracemalloc stays the same
    monkeypatch.setattr(pm, "_traced", lambda: 1000)
    result = pm.probe_memory(autograd)
    assert (result.status, result.judged, result.inconclusive) == ("not_applicable", 0, 1)
    (finding,) = result.findings
    assert (finding.kind, finding.check) == ("inconclusive", "memory")
    assert "not measured" in finding.summary and "0 bytes" in finding.summary
    assert "outside Python's allocator" in finding.summary


@pytest.mark.slow
@pytest.mark.parametrize("window", [0, 1])
def test_a_one_off_allocation_in_either_window_is_not_a_leak(monkeypatch, window):
    # a leak grows in BOTH windows of CYCLES graphs; an engine's list growing by a chunk once (in
    # the first window or the second) is bounded memory: no finding on an engine that frees
    kept, calls = [], []
    measure = pm._cycle_bytes
    chunk_at = 2 + pm.SINGLES + window * pm.CYCLES + 1  # after 2 warm-up graphs and the single ones

    def with_a_chunk(eng, recipe):
        calls.append(1)
        if len(calls) == chunk_at:
            kept.append(bytearray(10**6))
        return measure(eng, recipe)

    monkeypatch.setattr(pm, "_cycle_bytes", with_a_chunk)
    result = pm.probe_memory(autograd)
    assert kept and len(calls) == 2 + pm.SINGLES + 2 * pm.CYCLES
    assert (result.status, result.findings) == ("passed", [])


def measured(graph=1000, dropped=0, collected=0, growth=0, retained=0):
    return {
        "graph": graph,
        "dropped": dropped,
        "collected": collected,
        "growth": growth,
        "retained": retained,
    }


@pytest.mark.parametrize(
    "m, kinds_found, freed_at_once",
    [
        # a graph shows less than MIN_BYTES: not measured; MIN_BYTES itself is measured
        (measured(graph=pm.MIN_BYTES - 1), ["inconclusive"], False),
        (measured(graph=pm.MIN_BYTES), [], True),
        # growth of a quarter of a graph per graph ("or more") is a leak; less is not
        (measured(dropped=1000, collected=1000, growth=250), ["memory_leak"], False),
        (measured(dropped=1000, collected=1000, growth=249), [], False),
        # a quarter of a graph left once dropped still "came back"; more, back only by gc.collect(): cycles
        (measured(dropped=250), [], True),
        (measured(dropped=251, collected=250), ["reference_cycles"], False),
        (measured(dropped=1000, collected=-900), ["reference_cycles"], False),
        # left both before and after gc.collect() without growing (a tape keeping its last graph): no finding
        (measured(dropped=1000, collected=251), [], False),
    ],
)
def test_the_tracemalloc_judgment_at_its_thresholds(monkeypatch, m, kinds_found, freed_at_once):
    # FRACTION = 1/4 of a graph: "came back" is within it, "grows" is by it or more (module docstring)
    monkeypatch.setattr(pm, "_by_tracemalloc", lambda eng, recipe: m)
    result = pm.probe_memory(autograd)
    assert kinds(result) == kinds_found
    assert result.judged == int(kinds_found != ["inconclusive"])
    assert ("freed by reference counting alone" in result.reason) == freed_at_once
    for finding in result.findings:
        assert f"{m['graph']} bytes" in finding.summary


# ---- with weak references: the counts the findings report


@pytest.mark.slow
def test_a_leak_by_weak_references_counts_every_value_of_every_graph():
    eng = resolve_engine(leaking_registry.Value)
    nodes = len(pm._build(eng, pm._recipe(eng)))  # the Values of one graph (a, b, each op's, each sum)
    result = pm.probe_memory(leaking_registry.Value)
    assert (result.status, result.judged, result.inconclusive) == ("failed", 1, 0)
    assert f"{pm.CYCLES} graphs of {nodes} Values" in result.reason
    (finding,) = result.findings
    assert (finding.kind, finding.check) == ("memory_leak", "memory")
    every = pm.CYCLES * nodes
    assert f"leaves {every} of their {every} Values alive ({nodes} of the first graph's {nodes})" in (
        finding.summary
    )
    assert f"0 of {nodes} Values" in finding.expected
    assert finding.actual.endswith(str([nodes] * pm.CYCLES))


@pytest.mark.parametrize(
    "before, own, kinds_found, said",
    [
        # every graph but the last KEPT keeps Values of its own: a leak (the first graph's count said)
        ([5] * 8, [3, 5, 5, 5, 5, 5, 0, 0], ["memory_leak"], "leaves 28 of their 80 Values alive (3 of"),
        # the first graph freed: bounded, a convention; a tape of the last two graphs too
        ([0, 5, 5, 5, 5, 5, 5, 5], [0, 5, 5, 5, 5, 5, 5, 5], ["convention"], "the last 7 differentiated"),
        ([0, 0, 0, 0, 0, 0, 5, 5], [0, 0, 0, 0, 0, 0, 5, 5], ["convention"], "the last 2 differentiated"),
        # alive once dropped, freed by gc.collect(): cycles, the first graph's count said
        ([7, 6, 6, 6, 6, 6, 6, 6], [0] * 8, ["reference_cycles"], "7 of its 10 Values survive"),
        (
            [9, 6, 6, 6, 6, 6, 6, 6],
            [2, 0, 0, 0, 0, 0, 0, 3],
            ["convention", "reference_cycles"],
            "7 of its 10 Values",
        ),
        ([0] * 8, [0] * 8, [], "freed by reference counting alone"),
    ],
)
def test_the_weak_reference_judgment_of_what_stays_alive(monkeypatch, before, own, kinds_found, said):
    monkeypatch.setattr(pm, "_by_weakrefs", lambda eng, recipe: (before, own, own, 10))
    result = pm.probe_memory(sound.Value)
    assert kinds(result) == kinds_found and result.judged == 1
    assert said in " ".join([result.reason] + [f.summary for f in result.findings])
    for finding in result.findings:
        assert str(own if finding.kind != "reference_cycles" else before) in finding.summary + finding.actual
        assert finding.check == "memory" and "weakref.ref(v)" in finding.reproducer  # (weak references)
        if finding.kind == "reference_cycles":
            assert "0 of 10" in finding.expected


@pytest.mark.slow
def test_the_weak_reference_reproducer_of_reference_cycles_shows_them_as_pasted():
    (finding,) = pm.probe_memory(sound.Value).findings
    out = run_reproducer(finding.reproducer)
    dropped, collected = (line for line in out.splitlines() if line.startswith("alive per graph"))
    assert dropped.endswith(str([3] * pm.CYCLES))  # a, b and y of every graph, until gc.collect()
    assert collected.endswith(str([0] * pm.CYCLES))
    assert out.splitlines()[-1].startswith("expected: 0 alive after gc.collect()")  # what a user compares


@pytest.mark.slow
def test_the_weak_reference_reproducer_with_fraction_constants_runs_as_pasted():
    # an engine refusing int constants: its first usable ones are Fractions (v + Fraction(1, 2))
    (finding,) = pm.probe_memory(refuses_int_constants.Value).findings
    assert finding.kind == "reference_cycles" and "a + Fraction(1, 2)" in finding.reproducer
    out = run_reproducer(finding.reproducer)
    assert [line for line in out.splitlines() if line.startswith("alive per graph")][-1].endswith(
        str([0] * pm.CYCLES)
    )


# ---- the graph the probe builds, and the reproducer's


def op_lines(reproducer):
    """The reproducer's ops, in order: ``a + b``, ``a.exp()``, ... (its lines ``nI = ...``)."""
    return [m[1] for m in re.finditer(r"^    n\d+ = (.*)$", reproducer, re.MULTILINE)]


@pytest.mark.slow
def test_the_graph_has_every_op_the_engine_has_at_its_first_usable_constant():
    # sound has every fixed-arity op of the table but v ** w and c ** v (after them: exp, log, ...),
    # and every first constant of the table; the reproducer shows the graph's ops
    eng = resolve_engine(sound.Value)
    (finding,) = pm.probe_memory(sound.Value).findings
    fixed = [spec for spec in OPS.values() if not spec.variadic]
    has = [spec for spec in fixed if eng.supports(spec.name)]
    assert [spec.name for spec in fixed if spec not in has] == ["vpow", "rpow"]
    expected = [spec.source(["a", "b"][: spec.arity], (spec.consts or [None])[0]) for spec in has]
    assert "a.exp()" in expected and "a + 1" in expected and "2 * a" in expected
    assert op_lines(finding.reproducer) == expected


def test_the_graph_differentiates_every_value_of_every_block():
    # each block's ops summed into s, closed by s * a + s * b, the blocks summed: backward() reaches
    # every Value; d(output)/d(op) = d/ds = a + b, d(output)/d(block) = 1
    eng = resolve_engine(sound.Value)
    values = pm._build(eng, pm._recipe(eng))
    assert all(v.grad != 0 for v in values)
    interior = [v.grad for v in values if v._prev]
    assert set(interior) == {1, 2 * pm.POINT}
    assert interior.count(1) == 2 * pm.BLOCKS - 1  # the blocks and their sums (the output last)


@pytest.mark.slow
def test_the_reproducer_builds_one_block_of_the_probes_graph():
    # its y is one of the probe's BLOCKS blocks: the ops summed, closed by y * a + y * b
    eng = resolve_engine(sound.Value)
    output = pm._build(eng, pm._recipe(eng))[-1]
    (finding,) = pm.probe_memory(sound.Value).findings
    namespace = {}
    run_reproducer(finding.reproducer, namespace)
    gc.disable()  # sound's nodes are in cycles: y stays alive (weakly referenced) until collected
    try:
        _, _, y = (ref() for ref in namespace["graph"]())  # a, b, y
        assert pm.BLOCKS * y.data == pytest.approx(output.data, rel=1e-12)
    finally:
        gc.enable()


@pytest.mark.slow
def test_a_graph_whose_ops_are_none_of_the_tables_still_gets_a_reproducer_that_runs(monkeypatch):
    # no fixed-arity op passed the support probe (e.g. ops that fail at their first use), yet
    # + and * work when the graph is built: the graph is the leaves closed by y * a + y * b
    monkeypatch.setattr(pm, "_recipe", lambda eng: [])
    result = pm.probe_memory(leaking_registry.Value)
    assert result.status == "failed"
    (finding,) = result.findings
    assert finding.kind == "memory_leak" and op_lines(finding.reproducer) == []
    out = run_reproducer(finding.reproducer)
    assert "after gc.collect(): [3, 3, 3" in out  # a, b and y of every graph still alive


# ---- what the weak references count as a graph's own


@pytest.mark.slow
def test_a_cached_leaf_shared_by_every_graph_is_no_graphs_own():
    # an engine interning its leaves by number (one Value of 1.5 for every graph): alive after
    # gc.collect(), but shared, kept once however many graphs are built: no leak
    class Interned(sound.Value):
        made: ClassVar[dict] = {}

        def __new__(cls, data, parents=()):
            if parents:
                return super().__new__(cls)
            return cls.made.setdefault((type(data), data), super().__new__(cls))

    result = pm.probe_memory(resolve_engine(Interned))
    assert (result.status, kinds(result)) == ("passed", ["reference_cycles"])  # sound's closures


@pytest.mark.slow
def test_a_leak_of_the_leaves_counts_the_leaves_of_every_block():
    # an engine keeping every leaf it makes: a and b of each of a graph's BLOCKS blocks stay alive
    class KeepsLeaves(sound.Value):
        leaves: ClassVar[list] = []

        def __init__(self, data, parents=()):
            super().__init__(data, parents)
            if not parents:
                KeepsLeaves.leaves.append(self)

    result = pm.probe_memory(resolve_engine(KeepsLeaves))
    assert result.status == "failed"
    (finding,) = (f for f in result.findings if f.kind == "memory_leak")
    assert finding.actual == f"alive per graph after gc.collect(): {[2 * pm.BLOCKS] * pm.CYCLES}"


@pytest.mark.slow
def test_an_op_whose_constants_stop_working_is_left_out_not_the_ops_after_it():
    # an engine that takes five constants in all (a fixed pool): the support probe of v + c uses
    # them up, so no constant is left for it when the graph's ops are chosen: v + c is left out
    # (and the other ops with a constant), v ** 2 (no constant made) and exp, log, ... after it are in
    class FiveConstants(sound.Value):
        left: ClassVar[list] = [5]

        def _lift(self, other):
            if not isinstance(other, sound.Value):
                if not self.left[0]:
                    raise RuntimeError("no constants left")
                self.left[0] -= 1
            return super()._lift(other)

    (finding,) = pm.probe_memory(resolve_engine(FiveConstants)).findings
    assert op_lines(finding.reproducer) == [
        "a + b",
        "a * b",
        "-a",
        "a - b",
        "a / b",
        "a ** 2",
        "a.exp()",
        "a.log()",
        "a.tanh()",
        "a.relu()",
        "a.sigmoid()",
    ]


# ---- the words of each outcome, the same whichever way a graph is seen


class Acyclic(sound.Value):
    """sound's rules, each a closure that reaches its own output node by a weak reference (sound's
    capture the node itself): no reference cycle, so a dropped graph is freed at once."""

    def _with_partials(self, data, parents, partials):
        out = type(self)(data, parents)
        node = weakref.ref(out)

        def backward():
            for parent, partial in zip(parents, partials):
                parent.grad += partial * node().grad

        out._backward = backward
        return out


BEST_CASE = "; freed by reference counting alone, as soon as dropped (the best case)"


def test_an_engine_without_cycles_seen_by_weak_references_is_the_best_case_and_says_so():
    # weak references to its Values (a plain class): every graph gone once dropped, no finding
    result = probe_memory(resolve_engine(Acyclic))
    assert (result.status, result.judged, result.findings) == ("passed", 1, [])
    described = r"\d+ graphs of \d+ Values \(every op the engine has, backward\(\) run\), weak references"
    assert re.fullmatch(described + re.escape(BEST_CASE), result.reason), result.reason
    assert result.reason.startswith(f"{pm.CYCLES} graphs of ")


def test_an_engine_without_cycles_seen_by_tracemalloc_is_the_best_case_then_its_numbers():
    # our engine (__slots__ without __weakref__): the best case said, then what was measured
    result = probe_memory(autograd)
    assert (result.status, result.judged, result.findings) == ("passed", 1, [])
    measured_then = r"\(a graph (\d+) bytes\)" + re.escape(BEST_CASE) + r"; a graph: (\d+) bytes alive; "
    found = re.search(measured_then, result.reason)
    assert found, result.reason
    assert found[1] == found[2]  # the same graph's size, in the description and the evidence


@pytest.mark.parametrize(
    "engine, summary",
    [
        (
            sound.Value,
            r"a dropped graph is freed only by the cyclic garbage collector: \d+ of its \d+ Values "
            r"survive reference counting \(reference cycles among the nodes\)",
        ),
        (
            slots_cycles.Value,
            r"a dropped graph is freed only by the cyclic garbage collector "
            r"\(\d+ of its \d+ bytes survive reference counting\)",
        ),
    ],
    ids=["weak references", "tracemalloc"],
)
def test_reference_cycles_are_told_in_one_sentence_whichever_way_they_are_seen(engine, summary):
    (finding,) = probe_memory(engine).findings
    assert finding.kind == "reference_cycles"
    assert re.fullmatch(summary, finding.summary), finding.summary


def test_a_leak_seen_by_tracemalloc_says_what_memory_was_expected_to_do():
    (finding,) = probe_memory(slots_chain.Value).findings
    assert finding.kind == "memory_leak"
    assert finding.expected == "memory that stays flat as graphs are built and dropped"
    never_freed = (
        r"differentiated graphs are never freed: memory grows by \d+ bytes per graph built, "
        r"differentiated and dropped \(a graph is \d+ bytes\), gc\.collect\(\) or not"
    )
    assert re.fullmatch(never_freed, finding.summary), finding.summary
