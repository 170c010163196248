"""Command line: ``python -m autograd train`` and ``python -m autograd sweep``."""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections.abc import Sequence
from typing import Any, NoReturn, TextIO, cast

from autograd.datasets import make_moons
from autograd.engine import Value, vsum
from autograd.nn import MLP, NONLINEARITIES


class _Parser(argparse.ArgumentParser):
    """argparse, but a bad argument is one line on stderr, not usage + traceback."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


# ---------------------------------------------------------------------- train
def moons_loss(
    model: MLP, points: Sequence[Sequence[float]], labels: Sequence[int], alpha: float = 1e-4
) -> tuple[Value, float]:
    """Max-margin (hinge) loss with L2 regularisation, and the accuracy.

    This is micrograd's demo loss: mean(relu(1 - y * score)) + alpha * sum(p**2).
    """
    scores = [cast(Value, model(x)) for x in points]  # one output neuron: a single Value
    margins = [(1 - y * s).relu() for y, s in zip(labels, scores, strict=True)]
    data_loss = vsum(margins) / len(margins)
    reg = alpha * vsum(p * p for p in model.parameters())
    correct = sum((y > 0) == (s.data > 0) for y, s in zip(labels, scores, strict=True))
    return data_loss + reg, correct / len(labels)


def train(
    steps: int,
    lr: float,
    hidden: Sequence[int],
    seed: int,
    nonlin: str,
    every: int,
    out: TextIO | None = None,
) -> tuple[MLP, float, float]:
    """Plain gradient descent on 200 moons points; returns (model, loss, accuracy)."""
    points, labels = make_moons(200, noise=0.1, seed=seed)
    model = MLP(2, [*hidden, 1], nonlin=nonlin, seed=seed)
    print(
        f"MLP(2, {[*hidden, 1]}) nonlin={nonlin}: {len(model.parameters())} parameters, "
        f"200 moons points, lr {lr}, {steps} steps",
        file=out,
    )
    start = time.perf_counter()
    loss = accuracy = math.nan
    for step in range(steps):
        loss_v, accuracy = moons_loss(model, points, labels)
        loss = loss_v.data
        model.zero_grad()
        loss_v.backward()
        for p in model.parameters():
            p.data -= lr * p.grad
        if step % every == 0 or step == steps - 1:
            print(f"step {step:<4d} loss {loss:.4f}  accuracy {accuracy:.3f}", file=out, flush=True)
    print(f"done in {time.perf_counter() - start:.1f} s: loss {loss:.4f}, accuracy {accuracy:.3f}", file=out)
    return model, loss, accuracy


MISSING_MATPLOTLIB = (
    "train: --plot needs matplotlib, which is not installed; install it with: "
    "pip install 'verified-autograd[plot]'"
)


def _pyplot() -> Any:
    """matplotlib.pyplot on a file-only backend, or a one-line exit if matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise SystemExit(MISSING_MATPLOTLIB) from None
    return plt


def plot_decision_boundary(model: MLP, seed: int, path: str) -> None:
    plt = _pyplot()
    points, labels = make_moons(200, noise=0.1, seed=seed)
    n = 60
    xs = [-1.5 + 4.0 * i / (n - 1) for i in range(n)]
    ys = [-1.2 + 2.7 * j / (n - 1) for j in range(n)]
    grid = [[cast(Value, model([x, y])).data for x in xs] for y in ys]
    fig, ax = plt.subplots(figsize=(6, 4.5))
    ax.contourf(xs, ys, grid, levels=[-1e9, 0, 1e9], colors=["#f4b6b6", "#b6cbf4"], alpha=0.7)
    ax.contour(xs, ys, grid, levels=[0], colors="k", linewidths=1)
    ax.scatter([p[0] for p in points], [p[1] for p in points], c=labels, cmap="bwr_r", s=14, edgecolors="k")
    ax.set_title("MLP decision boundary on two moons")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


# ---------------------------------------------------------------------- sweep
DEFAULT_SIZES = (100, 1000, 5000, 20000)


def sweep_row(n: int, w: float | None = None) -> dict[str, float]:
    """Build ``y = x; repeat n: y = y * w + b``, time it, compare dy/dx with w**n."""
    if w is None:
        # 1.001 as in the article, unless 1.001**n would overflow a float; then
        # 1 + 1/n keeps dy/dx = (1 + 1/n)**n finite (it tends to e).
        w = 1.001 if n * math.log(1.001) < 690 else 1.0 + 1.0 / n
    x, wv, b = Value(1.0), Value(w), Value(0.001)
    t0 = time.perf_counter()
    y = x
    for _ in range(n):
        y = y * wv + b
    t1 = time.perf_counter()
    y.backward()
    t2 = time.perf_counter()
    analytic = w**n
    return {
        "n": n,
        "w": w,
        "forward": t1 - t0,
        "backward": t2 - t1,
        "dydx": x.grad,
        "analytic": analytic,
        "relerr": abs(x.grad - analytic) / abs(analytic),
    }


def sweep(sizes: Sequence[int], w: float | None = None, out: TextIO | None = None) -> list[dict[str, float]]:
    print("== graph-size sweep: y = x; repeat N: y = y * w + b ==", file=out)
    print(
        f"{'N':>9} {'w':>10} {'forward (s)':>12} {'backward (s)':>13} {'dy/dx':>18} {'w**N':>18} "
        f"{'rel. error':>10}",
        file=out,
    )
    rows = []
    for n in sizes:
        r = sweep_row(n, w)
        rows.append(r)
        print(
            f"{n:>9d} {r['w']:>10.7g} {r['forward']:>12.3f} {r['backward']:>13.3f} {r['dydx']:>18.12g} "
            f"{r['analytic']:>18.12g} {r['relerr']:>10.1e}",
            file=out,
            flush=True,
        )
    return rows


# ---------------------------------------------------------------------- main
def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not 0 < value < math.inf:
        raise argparse.ArgumentTypeError(f"expected a positive finite number, got {text!r}")
    return value


def _sizes(text: str) -> list[int]:
    return [_positive_int(t) for t in text.split(",") if t.strip()]


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m autograd", description="A scalar autograd engine: demo commands.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    t = sub.add_parser(
        "train",
        help="train an MLP on two moons with plain gradient descent",
        description="Train MLP(2, [*hidden, 1]) on 200 two-moons points (max-margin loss + "
        "1e-4 L2) with plain gradient descent, printing step, loss and accuracy.",
    )
    t.add_argument("--steps", type=_positive_int, default=150, help="gradient steps (default 150)")
    t.add_argument("--lr", type=_positive_float, default=1.0, help="learning rate (default 1.0)")
    t.add_argument(
        "--hidden",
        type=_sizes,
        default=[16, 16],
        metavar="N,N",
        help="hidden layer sizes, comma separated (default 16,16)",
    )
    t.add_argument(
        "--nonlin",
        choices=[n for n in NONLINEARITIES if n != "linear"],
        default="tanh",
        help="hidden activation (default tanh)",
    )
    t.add_argument("--seed", type=int, default=0, help="seed for the data and the weights (default 0)")
    t.add_argument(
        "--every", type=_positive_int, default=10, help="print progress every N steps (default 10)"
    )
    t.add_argument("--plot", metavar="PATH", help="write a PNG of the decision boundary (needs matplotlib)")

    s = sub.add_parser(
        "sweep",
        help="gradient of a deep chain vs the analytic value",
        description="Build y = x; repeat N: y = y * w + b for each N, time forward and backward, "
        "and compare dy/dx with the analytic w**N.",
    )
    s.add_argument(
        "sizes",
        nargs="*",
        type=_positive_int,
        metavar="N",
        help=f"chain lengths (default {' '.join(map(str, DEFAULT_SIZES))})",
    )
    s.add_argument(
        "--w",
        type=_positive_float,
        default=None,
        help="the multiplier (default 1.001, or 1 + 1/N where 1.001**N would overflow)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "train":
        if args.plot:  # fail on a bad folder (a usage error) or a missing matplotlib before training
            folder = os.path.dirname(os.path.abspath(args.plot))
            if not os.path.isdir(folder):
                parser.error(f"argument --plot: no such directory: {folder!r}")
            _pyplot()
        try:
            model, _, _ = train(args.steps, args.lr, args.hidden, args.seed, args.nonlin, args.every)
        except OverflowError as exc:
            print(f"train: diverged ({exc}); choose a smaller --lr", file=sys.stderr)
            return 1
        if args.plot:
            try:
                plot_decision_boundary(model, args.seed, args.plot)
            except OSError as exc:
                print(f"train: cannot write {args.plot!r}: {exc.strerror or exc}", file=sys.stderr)
                return 1
            print(f"wrote {args.plot}")
        return 0
    try:
        sweep(args.sizes or DEFAULT_SIZES, args.w)
    except OverflowError as exc:
        print(f"sweep: {exc}; choose a smaller --w", file=sys.stderr)
        return 1
    return 0
