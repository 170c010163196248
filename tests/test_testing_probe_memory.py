"""The memory probe (autograd.testing.probes.memory): freed by reference counting, by the
cyclic collector, or never; by weak references or, without them, by tracemalloc."""

import gc
import tracemalloc

import micrograd.engine
import pytest

import autograd
from autograd.testing import resolve_engine
from autograd.testing.probes import memory as pm
from tests.engines import leaking_registry, slots_registry, sound


def kinds(result):
    return sorted(f.kind for f in result.findings)


def test_our_engine_is_freed_by_reference_counting_alone():
    result = pm.probe_memory(autograd)
    assert result.status == "passed" and result.judged == 1
    assert result.findings == []
    assert "no weak references" in result.reason  # __slots__ without __weakref__: tracemalloc
    assert "freed by reference counting alone" in result.reason


@pytest.mark.parametrize("engine", [micrograd.engine, sound.Value], ids=["micrograd", "sound"])
def test_closures_that_capture_their_output_are_reference_cycles_a_fact(engine):
    result = pm.probe_memory(engine)
    assert result.status == "passed" and result.judged == 1
    assert kinds(result) == ["reference_cycles"]
    assert "weak references" in result.reason


def test_a_class_level_registry_is_a_memory_leak():
    result = pm.probe_memory(leaking_registry.Value)
    assert result.status == "failed"
    (finding,) = result.findings
    assert finding.kind == "memory_leak" and "never freed" in finding.summary
    out = run_reproducer(finding.reproducer)
    assert "after gc.collect(): [3, 3, 3" in out  # a, b and y of every graph still alive


def test_a_registry_of_slots_without_weakref_is_a_memory_leak_by_tracemalloc():
    with pytest.raises(TypeError):
        import weakref

        weakref.ref(slots_registry.Value(1.0))
    result = pm.probe_memory(slots_registry.Value)
    assert result.status == "failed"
    (finding,) = result.findings
    assert finding.kind == "memory_leak" and "memory grows by" in finding.summary
    assert "tracemalloc" in finding.reproducer


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


def run_reproducer(source):
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, "<reproducer>", "exec"), {})
    gc.enable()  # the weak-reference reproducer turns the collector off
    return out.getvalue()


def test_our_own_error_propagates_instead_of_reading_as_not_built(monkeypatch):
    # issue 13: only what the engine raises makes the graph "not built"; a recipe of ours naming
    # no op of the table is our bug
    monkeypatch.setattr(pm, "_recipe", lambda eng: [("no_such_op", None)])
    with pytest.raises(KeyError, match="no_such_op"):
        pm.probe_memory(sound.Value)
