"""``python -m benchmarks.ab OLD NEW [MORE ...]``: versions of the engine, side by side in one process.

Each argument is a directory holding ``engine.py`` and ``nn.py`` (an
``autograd/`` folder), e.g. one written by ``git worktree add /tmp/old REV``.
Each version is loaded under its own module name; then the one-sample step,
the whole-batch step and the chain (20,000 steps) run alternately on all of
them, every run from a collected heap with the GC on, timed by the process's
CPU time; each version's time is also given over the first one's, pair by pair.
This is how DESIGN.md measured what each change to the engine bought.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import types
from pathlib import Path
from typing import Any

from autograd.datasets import make_moons
from benchmarks import timing
from benchmarks.workloads import chain as timed_chain
from benchmarks.workloads import one_sample_step

CHAIN_STEPS = 20_000
#: workload -> (default repeats, unit scale, unit, phase names)
WORKLOADS: dict[str, tuple[int, float, str, tuple[str, ...]]] = {
    "one-sample step": (200, 1e6, "µs", ("zero_grad", "forward", "backward")),
    "batch step": (9, 1e3, "ms", ("forward", "backward")),
    "chain, per node": (15, 1e9 / (2 * CHAIN_STEPS), "ns", ("forward", "backward")),
}


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


def workloads(engine: Any, nn: Any) -> dict[str, timing.Run]:
    model = nn.MLP(2, [16, 16, 1], nonlin="relu", seed=0)
    points, labels = make_moons(200, noise=0.1, seed=0)

    def one_sample() -> tuple[tuple[float, ...], Any]:
        return one_sample_step(model, points[0])

    def batch() -> tuple[tuple[float, ...], Any]:
        t0 = timing.clock()
        scores = [model(x) for x in points]
        margins = [(1 - y * s).relu() for y, s in zip(labels, scores, strict=True)]
        loss = engine.vsum(margins) / len(margins) + 1e-4 * engine.vsum(p * p for p in model.parameters())
        t1 = timing.clock()
        model.zero_grad()
        loss.backward()
        return (t1 - t0, timing.clock() - t1), loss

    def chain() -> tuple[tuple[float, ...], Any]:
        return timed_chain(engine.Value, CHAIN_STEPS)

    return {"one-sample step": one_sample, "batch step": batch, "chain, per node": chain}


def compare(
    versions: dict[str, dict[str, timing.Run]], repeats: int = 0
) -> dict[str, dict[str, list[tuple[float, ...]]]]:
    """Each workload run alternately on every version: workload -> version -> phase times."""
    names = list(next(iter(versions.values())))
    return {
        name: timing.alternate(
            {version: runs[name] for version, runs in versions.items()}, repeats or WORKLOADS[name][0]
        )
        for name in names
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.ab", description=__doc__.splitlines()[0])
    parser.add_argument("versions", type=Path, nargs="+", metavar="DIR", help="OLD NEW [MORE ...]")
    parser.add_argument("--repeats", type=int, default=0, help="runs of each (default: 200, 9 and 15)")
    args = parser.parse_args(argv)
    if len(args.versions) < 2:
        parser.error("give at least two versions (OLD NEW)")
    versions = {str(folder): workloads(*load(f"v{i}", folder)) for i, folder in enumerate(args.versions)}
    width = max(map(len, versions))
    for name, samples in compare(versions, args.repeats).items():
        _, scale, unit, phases = WORKLOADS[name]
        first = next(iter(samples.values()))
        for version, runs in samples.items():
            medians = [statistics.median(r[i] for r in runs) * scale for i in range(len(phases))]
            parts = "  ".join(f"{p} {m:8.1f} {unit}" for p, m in zip(phases, medians, strict=True))
            total = statistics.median(sum(r) for r in runs) * scale
            over_first = statistics.median(sum(r) / sum(f) for r, f in zip(runs, first, strict=True))
            print(f"{name:16} {version:{width}}: {parts}  total {total:8.1f} {unit}  /first {over_first:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
