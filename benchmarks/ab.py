"""``python -m benchmarks.ab OLD NEW``: two versions of the engine, side by side in one process.

OLD and NEW are each a directory holding ``engine.py`` and ``nn.py`` (an
``autograd/`` folder), e.g. one written by ``git worktree add /tmp/old REV``.
Each version is loaded under its own module name; then the one-sample step,
the whole-batch step and the chain (20,000 steps) run alternately on both,
every run from a collected heap with the GC on, timed by the process's CPU
time.  This is how DESIGN.md measured what each change to the engine bought.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import statistics
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

from autograd.datasets import make_moons
from benchmarks import timing
from benchmarks.workloads import chain as timed_chain
from benchmarks.workloads import one_sample_step


def load(tag: str, folder: Path) -> tuple[Any, Any]:
    """``folder/engine.py`` and ``folder/nn.py`` as fresh modules, the network importing that engine."""
    spec = importlib.util.spec_from_file_location(f"ab_{tag}_engine", folder / "engine.py")
    assert spec is not None and spec.loader is not None
    engine = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = engine
    spec.loader.exec_module(engine)
    source = (folder / "nn.py").read_text(encoding="utf-8")
    source = source.replace("from autograd.engine import ", f"from {spec.name} import ")
    nn = types.ModuleType(f"ab_{tag}_nn")
    exec(compile(source, str(folder / "nn.py"), "exec"), nn.__dict__)
    return engine, nn


def workloads(engine: Any, nn: Any) -> dict[str, Callable[[], tuple[tuple[float, float], Any]]]:
    model = nn.MLP(2, [16, 16, 1], nonlin="relu", seed=0)
    points, labels = make_moons(200, noise=0.1, seed=0)

    def one_sample() -> tuple[tuple[float, float], Any]:
        return one_sample_step(model, points[0])

    def batch() -> tuple[tuple[float, float], Any]:
        t0 = timing.clock()
        scores = [model(x) for x in points]
        margins = [(1 - y * s).relu() for y, s in zip(labels, scores, strict=True)]
        loss = engine.vsum(margins) / len(margins) + 1e-4 * engine.vsum(p * p for p in model.parameters())
        t1 = timing.clock()
        model.zero_grad()
        loss.backward()
        return (t1 - t0, timing.clock() - t1), loss

    def chain(n: int = 20_000) -> tuple[tuple[float, float], Any]:
        (forward, backward), y = timed_chain(engine.Value, n)
        return (forward / (2 * n), backward / (2 * n)), y

    return {"one-sample step": one_sample, "batch step": batch, "chain, per node": chain}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.ab", description=__doc__.splitlines()[0])
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--repeats", type=int, default=0, help="runs of each (default: 200, 9 and 15)")
    args = parser.parse_args(argv)
    versions = {"old": workloads(*load("old", args.old)), "new": workloads(*load("new", args.new))}
    repeats = {"one-sample step": 200, "batch step": 9, "chain, per node": 15}
    units = {"one-sample step": (1e6, "µs"), "batch step": (1e3, "ms"), "chain, per node": (1e9, "ns")}
    for name, default_repeats in repeats.items():
        samples: dict[str, list[tuple[float, float]]] = {"old": [], "new": []}
        for _ in range(args.repeats or default_repeats):
            for version, work in versions.items():
                gc.collect()
                phases, graph = work[name]()
                del graph
                samples[version].append(phases)
        scale, unit = units[name]
        for version, runs in samples.items():
            fwd = statistics.median(r[0] for r in runs) * scale
            bwd = statistics.median(r[1] for r in runs) * scale
            total = statistics.median(r[0] + r[1] for r in runs) * scale
            print(
                f"{name:16} {version}: forward {fwd:8.1f} {unit}  backward {bwd:8.1f} {unit}  "
                f"total {total:8.1f} {unit}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
