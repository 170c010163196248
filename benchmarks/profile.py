"""``python -m benchmarks.profile``: where the one-sample step's time goes, part by part.

The step of ``benchmarks`` (``MLP(2, [16, 16, 1])``, ReLU, one moons point):
``zero_grad()``, the forward pass, and the backward pass split into its
search (``_topological_order``), its rules (each listed node's ``_back``) and
the rest (the leaves' bookkeeping and overflow check: the whole backward minus
the other two, measured on alternate runs).  The plain-float reference's three
parts are timed alongside.  Medians of CPU time over many runs, each from a
collected heap with the GC on.  ``--cprofile`` prints cProfile's table instead
(its call counts are exact; its times are inflated by the profiler).
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
import statistics
import sys
from collections.abc import Sequence

from autograd import engine
from autograd.datasets import make_moons
from autograd.nn import MLP
from benchmarks import reference, timing


def parts(runs: int) -> dict[str, float]:
    model = MLP(2, [16, 16, 1], nonlin="relu", seed=0)
    net = reference.FloatMLP.of(model)
    x = make_moons(200, noise=0.1, seed=0)[0][0]
    clock = timing.clock
    samples: dict[str, list[float]] = {}

    def add(name: str, seconds: float) -> None:
        samples.setdefault(name, []).append(seconds)

    for i in range(runs):
        gc.collect()
        t0 = clock()
        model.zero_grad()
        t1 = clock()
        out = model(x)
        t2 = clock()
        if i % 2:
            order, _, _ = engine._topological_order(out)
            t3 = clock()
            out.grad = 1
            for node in reversed(order):
                node._back(node)
            add("backward: search", t3 - t2)
            add("backward: rules", clock() - t3)
        else:
            out.backward()
            add("backward", clock() - t2)
        add("zero_grad", t1 - t0)
        add("forward", t2 - t1)
        del out
        gc.collect()
        (z, f, b), _ = reference.one_sample_step(net, x)
        add("plain float: zero grads", z)
        add("plain float: forward", f)
        add("plain float: backward", b)
    medians = {name: statistics.median(s) for name, s in samples.items()}
    medians["backward: leaves (the rest)"] = (
        medians["backward"] - medians["backward: search"] - medians["backward: rules"]
    )
    return medians


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.profile", description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--cprofile", action="store_true", help="cProfile's table of 2,000 steps instead")
    args = parser.parse_args(argv)
    if args.cprofile:
        model = MLP(2, [16, 16, 1], nonlin="relu", seed=0)
        x = make_moons(200, noise=0.1, seed=0)[0][0]
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(2000):
            model.zero_grad()
            model(x).backward()
        profiler.disable()
        pstats.Stats(profiler).sort_stats("tottime").print_stats(15)
        return 0
    order = [
        "zero_grad",
        "forward",
        "backward",
        "backward: search",
        "backward: rules",
        "backward: leaves (the rest)",
        "plain float: zero grads",
        "plain float: forward",
        "plain float: backward",
    ]
    medians = parts(args.runs)
    for name in order:
        print(f"{name:28} {medians[name] * 1e6:7.1f} µs")
    ours = medians["zero_grad"] + medians["forward"] + medians["backward"]
    plain = sum(medians[f"plain float: {p}"] for p in ("zero grads", "forward", "backward"))
    print(f"{'step, ours / plain float':28} {ours / plain:7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
