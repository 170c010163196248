"""What create_graph support cost the first-order path, and what second order costs.

* Before / after: the engine as it was before the create_graph work (commit
  ``BEFORE``), right after it (``CREATE_GRAPH``), both read with ``git show``,
  and the engine in this checkout, loaded side by side by ``benchmarks.ab`` and
  run alternately on the same work.
* Second order: the full Hessian of a small network's loss with respect to all
  its parameters (``autograd.hessian``) and a Hessian-vector product on the
  benchmarks' network (``autograd.hvp``), each against one gradient of the
  same loss (forward + ``backward()``), alternating.
"""

from __future__ import annotations

import random
import statistics
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import autograd
from autograd.datasets import make_moons
from autograd.engine import Value, vsum
from autograd.nn import MLP
from benchmarks import ab, timing
from benchmarks.report import Section, seconds, times

BEFORE = "4c2d948"  # the engine before the create_graph work
CREATE_GRAPH = "3d1dc9d"  # engine: create_graph complete
ROOT = Path(__file__).resolve().parent.parent


def sections(quick: bool, progress: Callable[[str], None]) -> list[Section]:
    return [before_after(quick, progress), second_order(quick, progress)]


# ---------------------------------------------------------------------- before / after
def git_engine(commit: str, folder: Path) -> None:
    """``autograd/engine.py`` and ``nn.py`` as of ``commit``, written into ``folder``."""
    folder.mkdir()
    for name in ("engine.py", "nn.py"):
        text = subprocess.run(
            ["git", "show", f"{commit}:autograd/{name}"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout
        (folder / name).write_text(text, encoding="utf-8")


def before_after(quick: bool, progress: Callable[[str], None]) -> Section:
    title = "First order before and after create_graph support"
    header = [
        "workload",
        f"before ({BEFORE})",
        f"create_graph ({CREATE_GRAPH})",
        "this checkout",
        "create_graph / before",
        "this checkout / before",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        try:
            for commit in (BEFORE, CREATE_GRAPH):
                git_engine(commit, Path(tmp) / commit)
        except (OSError, subprocess.CalledProcessError) as exc:
            return Section(title, f"Not measured: `git show` failed here ({exc}).", header, [])
        versions = {
            "before": ab.workloads(*ab.load("before", Path(tmp) / BEFORE)),
            "create_graph": ab.workloads(*ab.load("create_graph", Path(tmp) / CREATE_GRAPH)),
            "now": ab.workloads(*ab.load("now", ROOT / "autograd")),
        }
        progress(f"engine at {BEFORE}, at {CREATE_GRAPH} and now: one-sample step, batch step, chain")
        samples = ab.compare(versions, 3 if quick else 0)

    def over_before(runs: list[tuple[float, ...]], before: list[tuple[float, ...]]) -> str:
        ratios = sorted(sum(r) / sum(b) for r, b in zip(runs, before, strict=True))
        return f"{statistics.median(ratios):.3f} ({ratios[0]:.2f}–{ratios[-1]:.2f})"

    rows = []
    for name, runs in samples.items():
        _, scale, unit, _ = ab.WORKLOADS[name]
        rows.append(
            [
                name,
                *(f"{statistics.median(sum(r) for r in runs[v]) * scale:.1f} {unit}" for v in versions),
                over_before(runs["create_graph"], runs["before"]),
                over_before(runs["now"], runs["before"]),
            ]
        )
    text = (
        f"The engine (`autograd/engine.py` and `nn.py`) at {BEFORE} (before the create_graph work), at "
        f"{CREATE_GRAPH} (`engine: create_graph complete`) and in this checkout, "
        "loaded side by side in one process (`benchmarks/ab.py`), runs alternating, "
        f"each from a collected heap with the GC on; medians over {len(samples['batch step']['now'])} to "
        f"{len(samples['one-sample step']['now'])} rounds, the ratios taken round by round "
        "(median, min–max).  The chain has 20,000 steps; its times are per node."
    )
    return Section(title, text, header, rows)


# ---------------------------------------------------------------------- second order
def set_parameters(model: MLP, params: Sequence[Any]) -> None:
    """Put ``params`` (in ``model.parameters()``'s order) into ``model``'s neurons."""
    i = 0
    for layer in model.layers:
        for neuron in layer.neurons:
            n = len(neuron.w)
            neuron.w = list(params[i : i + n])
            neuron.b = params[i + n]
            i += n + 1


def squared_error(
    sizes: list[int], points: Sequence[Sequence[float]], labels: Sequence[int]
) -> tuple[Any, list[float]]:
    """``f(*params)``: the mean squared error of a tanh ``MLP(2, sizes)`` on the points, and its weights."""
    model = MLP(2, sizes, seed=0)
    weights = [p.data for p in model.parameters()]

    def f(*params: Value) -> Value:
        set_parameters(model, params)
        return vsum((model(x) - y) ** 2 for x, y in zip(points, labels)) / len(points)  # type: ignore[operator]

    return f, weights


def gradient(f: Any, weights: list[float]) -> tuple[tuple[float, ...], Any]:
    t0 = timing.clock()
    params = [Value(w) for w in weights]
    loss = f(*params)
    loss.backward()
    return (timing.clock() - t0,), loss


def second_order(quick: bool, progress: Callable[[str], None]) -> Section:
    title = "Second-order costs"
    header = ["work", "time (median)", "one gradient of the same loss", "ratio to the gradient (paired)"]
    hessian, hvp = getattr(autograd, "hessian", None), getattr(autograd, "hvp", None)
    if hessian is None or hvp is None:
        return Section(
            title,
            "Not measured: this engine has no `autograd.hessian` / `autograd.hvp`.",
            header,
            [],
        )
    points, labels = make_moons(200, noise=0.1, seed=0)
    points, labels = points[:20], labels[:20]
    small, small_weights = squared_error([4, 4, 1], points, labels)
    large, large_weights = squared_error([16, 16, 1], points, labels)
    rng = random.Random(0)
    v = [rng.uniform(-1, 1) for _ in large_weights]

    def timed(fn: Callable[[], Any]) -> Callable[[], tuple[tuple[float, ...], Any]]:
        def run() -> tuple[tuple[float, ...], Any]:
            t0 = timing.clock()
            out = fn()
            return (timing.clock() - t0,), out

        return run

    rows = []
    figures: dict[str, str] = {}
    for key, label, f, weights, work, repeats in (
        (
            "hessian",
            f"full Hessian, MLP(2, [4, 4, 1]) (tanh), {len(small_weights)} parameters",
            small,
            small_weights,
            timed(lambda: hessian(small, small_weights)),
            3 if quick else 15,
        ),
        (
            "hvp",
            f"Hessian-vector product, MLP(2, [16, 16, 1]) (tanh), {len(large_weights)} parameters",
            large,
            large_weights,
            timed(lambda: hvp(large, large_weights, v)),
            3 if quick else 15,
        ),
    ):
        progress(f"second order: {label}: {repeats} runs each")
        t = timing.alternate(
            {"second": work, "gradient": lambda f=f, weights=weights: gradient(f, weights)}, repeats
        )
        second = [s[0] for s in t["second"]]
        first = [s[0] for s in t["gradient"]]
        ratios = sorted(s / g for s, g in zip(second, first, strict=True))
        figures[f"{key}.time"] = seconds(statistics.median(second))
        figures[f"{key}.gradient"] = seconds(statistics.median(first))
        figures[f"{key}.over_gradient"] = times(statistics.median(ratios))
        rows.append(
            [
                label,
                seconds(statistics.median(second)),
                seconds(statistics.median(first)),
                f"{statistics.median(ratios):.1f}× ({ratios[0]:.1f}–{ratios[-1]:.1f})",
            ]
        )
    text = (
        "The loss: the mean squared error `(score - y)**2` of a tanh network on the first 20 moons points, "
        "as `f(*params)`; the Hessian is taken with respect to all the parameters (`autograd.hessian(f, "
        "weights)`), the Hessian-vector product with a fixed random vector (`autograd.hvp(f, weights, v)`). "
        "Each is timed against one gradient of the same loss (making the leaves, forward, `backward()`), "
        "alternating, each run from a collected heap, by the benchmarks' clock."
    )
    return Section(title, text, header, rows, figures)
