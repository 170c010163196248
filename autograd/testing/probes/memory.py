"""Probe ``memory``: is a differentiated graph freed once its last reference is dropped?

A graph of every op of the table the engine has (at 1.5, inside every op's domain),
summed and differentiated with ``backward()``, is built and dropped ``CYCLES``
times with the cyclic garbage collector off; then ``gc.collect()``.  Three outcomes:

* freed by reference counting alone, as soon as it is dropped: the best case
  (said in the outcome's reason, no finding);
* freed only by ``gc.collect()``: a ``reference_cycles`` fact (closures that
  capture their own output node, as micrograd's, put every node in a cycle;
  such graphs stay in memory until a collection runs);
* still alive after ``gc.collect()``: ``memory_leak`` when every early graph
  keeps objects of its own (so the retained memory grows with the number of
  graphs; an engine that keeps its last graph or two, as a tape does, is told
  apart: a ``convention`` fact).

How a graph is seen: by weak references to its Values where the class supports
them; else (``__slots__`` without ``__weakref__``, C extensions) by the memory
``tracemalloc`` sees allocated: a graph is freed when the memory it took comes
back (within ``FRACTION`` of it); a leak is memory that grows by ``FRACTION`` of
a graph or more per graph in each of two successive windows of ``CYCLES``
graphs, which a correct engine (whose retained memory is bounded) never does.
An engine that allocates outside Python's allocator shows no memory there:
``inconclusive``.
"""

from __future__ import annotations

import gc
import operator
import tracemalloc
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from autograd.testing.boundary import EngineRaised, engine_call
from autograd.testing.engines import Engine, resolve_engine
from autograd.testing.engines.support import usable_consts
from autograd.testing.findings import CheckOutcome, Finding, outcome
from autograd.testing.ops import OPS
from autograd.testing.reproducers import program

__all__ = ["probe_memory"]

CYCLES = 8  # graphs built and dropped per window
SINGLES = 3  # graphs measured one by one (alive, dropped) without weak references: the least counts
KEPT = 2  # the last graphs an engine may keep alive (a tape) without it being a leak
FRACTION = 0.25  # of a graph's memory: what counts as "came back" / "grows per graph"
MIN_BYTES = 512  # a graph that shows less than this in tracemalloc is allocated elsewhere
POINT = 1.5  # inside every op's domain (log, x ** 0.5, c / x, ...)
BLOCKS = 4  # copies of the ops in one graph (more memory per graph: free lists matter less)


def _recipe(eng: Engine) -> list[tuple[str, Any]]:
    """(op, constant) of every fixed-arity op of the table the engine has, first constant usable."""
    recipe = []
    for name, spec in OPS.items():
        if spec.variadic or not eng.supports(name):
            continue
        if spec.consts:
            usable = usable_consts(eng, spec)
            if not usable:
                continue
            recipe.append((name, usable[0]))
        else:
            recipe.append((name, None))
    return recipe


def _build(eng: Engine, recipe: list[tuple[str, Any]]) -> list[Any]:
    """Every Value of the graph (the output last), its backward() run: ``BLOCKS`` blocks of
    every op at fresh leaves ``a``, ``b``, each summed and closed by a shared diamond, then summed."""
    values: list[Any] = []
    blocks = []
    for _ in range(BLOCKS):
        a, b = eng.make(POINT, stage="make"), eng.make(POINT, stage="make")
        specs = [(OPS[name], const) for name, const in recipe]
        outs = [eng.apply(spec, [a, b][: spec.arity], const, stage=spec.name) for spec, const in specs]
        values += [a, b, *outs]
        y = outs[0] if outs else a
        for v in outs[1:]:
            y = engine_call("y + v", operator.add, y, v)
            values.append(y)
        ya = engine_call("y * a + y * b", operator.mul, y, a)
        yb = engine_call("y * a + y * b", operator.mul, y, b)
        blocks.append(engine_call("y * a + y * b", operator.add, ya, yb))
    values += blocks
    y = blocks[0]
    for block in blocks[1:]:
        y = engine_call("y + block", operator.add, y, block)
        values.append(y)
    eng.backward(y)
    return values


def _source(recipe: list[tuple[str, Any]]) -> list[str]:
    """The reproducer's lines building the same graph (``a``, ``b`` leaves, ``y`` the output)."""
    lines = [f"    a, b = {{V}}({POINT!r}), {{V}}({POINT!r})"]
    names = []
    for i, (name, const) in enumerate(recipe):
        names.append(f"n{i}")
        lines.append(f"    n{i} = {OPS[name].source(['a', 'b'][: OPS[name].arity], const)}")
    lines.append(f"    y = {' + '.join(names) or 'a'}")
    lines.append("    y = y * a + y * b")
    lines.append("    y.{backward}()")
    return lines


@contextmanager
def _collector_off() -> Iterator[None]:
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _weakrefs_supported(eng: Engine) -> bool:
    try:
        weakref.ref(eng.make(POINT))
    except TypeError:
        return False
    return True


def _cycle_refs(eng: Engine, recipe: list[tuple[str, Any]]) -> list[weakref.ref[Any]]:
    return [weakref.ref(v) for v in _build(eng, recipe)]  # the graph dies with this frame


def _by_weakrefs(eng: Engine, recipe: list[tuple[str, Any]]) -> tuple[list[int], list[int], list[int], int]:
    """Values alive per graph: dropped, after gc.collect(), the graph's own after it; Values per graph."""
    with _collector_off():
        refs = [_cycle_refs(eng, recipe) for _ in range(CYCLES)]
        before = [sum(r() is not None for r in rs) for rs in refs]
        gc.collect()
        alive = [{id(o): o for r in rs if (o := r()) is not None} for rs in refs]
    # an object alive in several graphs is shared (a cached constant), not a graph's own
    owners: dict[int, int] = {}
    for objects in alive:
        for i in objects:
            owners[i] = owners.get(i, 0) + 1
    own = [sum(owners[i] == 1 for i in objects) for objects in alive]
    return before, [len(objects) for objects in alive], own, len(refs[0])


def _traced() -> int:
    return tracemalloc.get_traced_memory()[0]


def _cycle_bytes(eng: Engine, recipe: list[tuple[str, Any]]) -> int:
    start = _traced()
    values = _build(eng, recipe)
    size = _traced() - start
    del values
    return size


def _by_tracemalloc(eng: Engine, recipe: list[tuple[str, Any]]) -> dict[str, float]:
    """Bytes: a graph alive, left after dropping it, after gc.collect(), and growth per graph."""
    tracing = tracemalloc.is_tracing()
    if not tracing:
        tracemalloc.start()
    try:
        with _collector_off():
            for _ in range(2):  # warm up first-use caches, and fill the free lists as a graph leaves them
                _cycle_bytes(eng, recipe)
            base = _traced()  # (no gc.collect() here: a full collection empties the free lists)
            sizes, drops = [], []
            for _ in range(SINGLES):
                before = _traced()
                sizes.append(_cycle_bytes(eng, recipe))
                drops.append(_traced() - before)
            gc.collect()
            collected = (_traced() - base) / SINGLES
            start = _traced()
            windows = []
            for _ in range(2):
                for _ in range(CYCLES):
                    _cycle_bytes(eng, recipe)
                gc.collect()
                windows.append(_traced() - start)
    finally:
        if not tracing:
            tracemalloc.stop()
    # minima: a one-off allocation in one graph's time (a list of the engine's own growing by a
    # chunk) must not pass for the graph's size or for what it leaves
    return {
        "graph": min(sizes),
        "dropped": min(drops),
        "collected": collected,
        "growth": min(windows[0], windows[1] - windows[0]) / CYCLES,
        "retained": windows[1],
    }


def _reproducer(eng: Engine, recipe: list[tuple[str, Any]], weak: bool) -> str:
    if weak:
        return program(
            eng,
            "import gc, weakref",
            "from fractions import Fraction",
            "gc.disable()  # so that only reference counting frees",
            "def graph():",
            *_source(recipe),
            "    return [weakref.ref(v) for v in (a, b, y)]",
            f"refs = [graph() for _ in range({CYCLES})]",
            "def alive(): return [sum(r() is not None for r in rs) for rs in refs]",
            "print('alive per graph, dropped:          ', alive())",
            "gc.collect()",
            "print('alive per graph, after gc.collect():', alive())",
            "print('expected: 0 alive after gc.collect(); actual: above')",
        )
    # bytes left both once dropped and after gc.collect(): the one shows reference cycles, the other a leak
    return program(
        eng,
        "import gc, tracemalloc",
        "from fractions import Fraction",
        "gc.disable()  # so that only reference counting frees, until gc.collect()",
        "def graph():",
        *_source(recipe),
        "def allocated(): return tracemalloc.get_traced_memory()[0]",
        "tracemalloc.start()",
        "graph(); gc.collect()",
        "base = allocated()",
        f"for i in range({2 * CYCLES}):",
        "    graph()",
        "    dropped = allocated() - base",
        "    gc.collect()",
        "    print('graphs built and dropped:', i + 1, ' bytes still allocated:', dropped,",
        # flushed: text waiting in sys.stdout's buffer (a pipe's) is allocated too, and grows row by row
        "          ' after gc.collect():', allocated() - base, flush=True)",
        "print('expected: about 0 bytes still allocated, at once and after gc.collect(); actual: above')",
    )


def _judge_weakrefs(eng: Engine, recipe: list[tuple[str, Any]]) -> tuple[list[Finding], str]:
    before, after, own, nodes = _by_weakrefs(eng, recipe)
    how = f"{CYCLES} graphs of {nodes} Values (every op the engine has, backward() run), weak references"
    if all(own[: CYCLES - KEPT]):
        summary = (
            f"differentiated graphs are never freed: after {CYCLES} graphs were built, differentiated and "
            f"dropped, gc.collect() leaves {sum(own)} of their {nodes * CYCLES} Values alive "
            f"({own[0]} of the first graph's {nodes})"
        )
        finding = Finding(
            "memory_leak",
            "memory",
            summary,
            reproducer=_reproducer(eng, recipe, weak=True),
            expected=f"0 of {nodes} Values alive per graph after gc.collect()",
            actual=f"alive per graph after gc.collect(): {own}",
        )
        return [finding], how
    findings = []
    if any(own):
        kept = sum(1 for n in own if n)
        findings.append(
            Finding(
                "convention",
                "memory",
                f"the last {kept} differentiated graph(s) stay alive until later ones are built "
                f"(alive per graph after gc.collect(): {own}); earlier ones are freed",
                reproducer=_reproducer(eng, recipe, weak=True),
            )
        )
    if any(b > a for b, a in zip(before, after)):
        findings.append(
            Finding(
                "reference_cycles",
                "memory",
                f"a dropped graph is freed only by the cyclic garbage collector: {before[0] - after[0]} of "
                f"its {nodes} Values survive reference counting (reference cycles among the nodes)",
                reproducer=_reproducer(eng, recipe, weak=True),
                expected=f"0 of {nodes} alive once dropped",
                actual=f"alive per graph before gc.collect(): {before}",
            )
        )
        return findings, how
    return findings, how + "; freed by reference counting alone, as soon as dropped (the best case)"


def _judge_tracemalloc(eng: Engine, recipe: list[tuple[str, Any]]) -> tuple[list[Finding], str, bool]:
    m = _by_tracemalloc(eng, recipe)
    size = m["graph"]
    how = (
        f"no weak references to {eng.class_name}: tracemalloc over 2 x {CYCLES} graphs of every op "
        f"the engine has (a graph {size:.0f} bytes)"
    )
    if size < MIN_BYTES:
        why = (
            f"a graph shows {size:.0f} bytes in tracemalloc: the engine allocates outside Python's allocator"
        )
        return [Finding("inconclusive", "memory", f"memory not measured: {why}")], how, False
    evidence = (
        f"a graph: {size:.0f} bytes alive; {m['dropped']:.0f} left once dropped, {m['collected']:.0f} per "
        f"graph after gc.collect() (which also empties Python's free lists), then {m['growth']:.0f} more "
        f"per graph ({m['retained']:.0f} after {2 * CYCLES} more graphs)"
    )
    if m["growth"] >= FRACTION * size:
        finding = Finding(
            "memory_leak",
            "memory",
            f"differentiated graphs are never freed: memory grows by {m['growth']:.0f} bytes per graph "
            f"built, differentiated and dropped (a graph is {size:.0f} bytes), gc.collect() or not",
            reproducer=_reproducer(eng, recipe, weak=False),
            expected="memory that stays flat as graphs are built and dropped",
            actual=evidence,
        )
        return [finding], how, True
    if m["dropped"] > FRACTION * size and m["collected"] <= FRACTION * size:
        finding = Finding(
            "reference_cycles",
            "memory",
            "a dropped graph is freed only by the cyclic garbage collector "
            f"({m['dropped']:.0f} of its {size:.0f} bytes survive reference counting)",
            reproducer=_reproducer(eng, recipe, weak=False),
            actual=evidence,
        )
        return [finding], how, True
    if m["dropped"] <= FRACTION * size:
        how += "; freed by reference counting alone, as soon as dropped (the best case)"
    return [], how + f"; {evidence}", True


def probe_memory(engine: Any, *, examples: int = 30, seed: int = 0) -> CheckOutcome:
    """Build, differentiate and drop graphs: freed by reference counting, by gc.collect(), or never?"""
    eng = resolve_engine(engine)
    recipe = _recipe(eng)
    try:
        _build(eng, recipe)
    except EngineRaised as raised:  # the engine cannot build or differentiate the graph: nothing to measure
        reason = f"the graph could not be built and differentiated: {raised.line()}"
        return outcome("memory", [], judged=0, unit="runs", reason=reason)
    try:
        if _weakrefs_supported(eng):
            findings, how = _judge_weakrefs(eng, recipe)
            judged = True
        else:
            findings, how, judged = _judge_tracemalloc(eng, recipe)
    except EngineRaised as raised:  # built once, then not again: what a cut-short run measured says nothing
        summary = f"memory not judged: the graph was built once, then a later one raised {raised.line()}"
        found = [
            Finding(
                "inconclusive",
                "memory",
                summary,
                expected="every graph of the run built",
                actual=raised.line(),
            )
        ]
        reason = "the run of graphs was cut short by the engine"
        return outcome("memory", found, judged=0, unit="runs", inconclusive=1, reason=reason)
    return outcome(
        "memory", findings, judged=int(judged), inconclusive=int(not judged), unit="runs", reason=how
    )
