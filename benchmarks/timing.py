"""Alternating timed runs, each from a collected heap with the GC on, and their summaries."""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

#: The clocks to choose from.  On a shared machine the process's CPU time is the
#: steadier measure: it does not count the time the OS gives to other processes.
CLOCKS: dict[str, Callable[[], float]] = {"cpu": time.process_time, "wall": time.perf_counter}
clock = CLOCKS["cpu"]  # set from the command line (--clock)

Run = Callable[[], tuple[tuple[float, ...], Any]]  # -> (phase times in seconds, what to drop afterwards)


@dataclass(frozen=True)
class Spread:
    """The median of some samples, with their smallest and largest."""

    median: float
    low: float
    high: float
    n: int

    @classmethod
    def of(cls, samples: Sequence[float]) -> Spread:
        return cls(statistics.median(samples), min(samples), max(samples), len(samples))

    def scaled(self, factor: float) -> Spread:
        return Spread(self.median * factor, self.low * factor, self.high * factor, self.n)


def alternate(runs: dict[str, Run], repeats: int, collect: bool = True) -> dict[str, list[tuple[float, ...]]]:
    """Run each of ``runs`` ``repeats`` times, taking turns; return each one's phase times.

    Before every run the heap is collected (unless ``collect`` is false), so that
    no run pays for another's garbage; during the run the GC is on, as it is
    for users.  Whatever the run returns (its graph) is dropped only after its
    clock has stopped.
    """
    if not gc.isenabled():
        raise RuntimeError("benchmarks: the garbage collector is off; they measure it on, as users run")
    times: dict[str, list[tuple[float, ...]]] = {name: [] for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            if collect:
                gc.collect()
            phases, graph = run()
            del graph
            times[name].append(phases)
    return times


def totals(samples: list[tuple[float, ...]]) -> list[float]:
    return [sum(phases) for phases in samples]


def phase(samples: list[tuple[float, ...]], i: int) -> list[float]:
    return [phases[i] for phases in samples]


def paired_ratios(slow: list[float], fast: list[float]) -> list[float]:
    """``slow[i] / fast[i]`` for runs made side by side (the same round of ``alternate``)."""
    return [s / f for s, f in zip(slow, fast, strict=True)]
