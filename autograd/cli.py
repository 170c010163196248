"""Command line: ``python -m autograd train``, ``sweep`` and ``newton``."""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, NoReturn, TextIO, cast

from autograd import compiler
from autograd.datasets import make_moons
from autograd.engine import Value, grad, hessian, vsum
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
    loss, scores = moons_objective(model, points, labels, alpha)
    return loss, accuracy([s.data for s in scores], labels)


def moons_objective(
    model: MLP, points: Sequence[Sequence[Any]], labels: Sequence[Any], alpha: float = 1e-4
) -> tuple[Value, list[Value]]:
    """``moons_loss``'s loss and every point's score, as Values (no number read: it can be compiled)."""
    margins, scores = _margins(model, points, labels)
    # * (1.0 / n), as micrograd's demo writes it: a float mean keeps the backward pass in floats
    # (/ n with an int n would send the exact Fraction 1/n back through every point)
    data_loss = vsum(margins) * (1.0 / len(margins))
    reg = alpha * vsum(p * p for p in model.parameters())
    return data_loss + reg, scores


def _margins(
    model: MLP, points: Sequence[Sequence[Any]], labels: Sequence[Any]
) -> tuple[list[Value], list[Value]]:
    """Every point's hinge ``relu(1 - y * score)`` and score (the per-point part of the loss)."""
    scores = [cast(Value, model(x)) for x in points]  # one output neuron: a single Value
    return [(1 - y * s).relu() for y, s in zip(labels, scores, strict=True)], scores


def accuracy(scores: Sequence[Any], labels: Sequence[Any]) -> float:
    """The share of points whose score has the sign of their label."""
    correct = sum((y > 0) == (s > 0) for y, s in zip(labels, scores, strict=True))
    return float(correct / len(labels))


#: points per compiled block of ``compiled_moons_loss`` (compile() time grows with it, call overhead shrinks)
BLOCK = 8


def compiled_moons_loss(
    model: MLP,
    points: Sequence[Sequence[float]],
    labels: Sequence[int],
    alpha: float = 1e-4,
    block: int = BLOCK,
) -> Callable[[], tuple[float, float, list[Any]]]:
    """``moons_loss`` and its gradient, compiled once (``autograd.compile``) for ``model``'s shape.

    The returned step function reads the model's current weights and gives (loss, accuracy,
    d loss / d parameter): the numbers ``moons_loss`` and ``backward()`` give, bit for bit.

    What is compiled is a block of ``block`` points (not the whole batch: ``compile()`` of the
    whole batch's ~135,000 lines took seconds), called once per block of the batch.  Its
    inputs are the weights, the gradient carried so far, the block's points and labels, and
    the margin's gradient ``c``; it returns ``vsum([w_j * carried_j ..., margin_k * c ...])``,
    whose backward hands each weight ``1 * carried_j`` first (the first term fires first)
    and then each point's share in the point's order.  That is the order in which
    ``backward()`` of the whole loss adds them: its depth-first search lists the last
    operand of a node first, so ``vsum(margins)``'s points fire first to last, each point's
    nodes contiguously and in the order a trace of that point alone fires them, and
    ``data_loss + reg`` fires the L2 term's shares (``alpha * w`` twice) after all points.
    Each margin starts its backward at ``1 * c = c``, what ``vsum(margins) * (1.0 / n)``
    sends down (``c = 1 * (1.0 / n)``).  The forward sums (``vsum`` from the int 0, the
    mean, the L2 term) are the engine's, written out below.  tests/test_compile.py compares
    losses, accuracies and weights step for step with the interpreter.  Errors: those sums are
    plain Python (an overflow gives inf where the engine raises), and the carried products
    ``w_j * carried_j`` are formed only here; so a step whose numbers are not all finite, or
    whose block raises, is run again by the interpreter, which raises its own error at its op.
    """
    params = model.parameters()
    n = len(params)
    width = len(points[0])

    def objective(*xs: Value) -> tuple[Value, list[Value], list[Value]]:
        weights, carried, c = xs[:n], xs[n : 2 * n], xs[-1]
        data = xs[2 * n : -1]
        k = len(data) // (width + 1)
        at = iter(data[: k * width])
        pts = [[next(at) for _ in range(width)] for _ in range(k)]
        with _parameters(model, weights):
            margins, scores = _margins(model, pts, data[k * width :])
        carriers = [w * g for w, g in zip(weights, carried, strict=True)]
        return vsum([*carriers, *(m * c for m in margins)]), margins, scores

    weights = [p.data for p in params]
    blocks, compiled = [], {}
    for i in range(0, len(points), block):
        pts, ys = points[i : i + block], list(labels[i : i + block])
        if len(pts) not in compiled:  # one compiled function per block size (the last may be shorter)
            compiled[len(pts)] = compiler.compile(objective, [*weights, *[0] * n, *_flat(pts), *ys, 1.0])
        blocks.append((compiled[len(pts)], [*_flat(pts), *ys]))
    c = 1 * (1.0 / len(points))

    def step() -> tuple[float, float, list[Any]]:
        ws = [p.data for p in params]
        try:
            loss, scores, grads = compiled_step(ws)
        except ArithmeticError:  # a carried product w * g, which the interpreter never forms, overflowed
            return interpreted_step()
        if not all(map(math.isfinite, [loss, *grads])):
            # The sums above are plain Python and do not raise where the engine does (an overflow
            # gives inf): the interpreter runs this step instead, raising its own error at its op
            # (or, if nothing is wrong, giving the same numbers).
            return interpreted_step()
        return loss, accuracy(scores, labels), grads

    def compiled_step(ws: list[Any]) -> tuple[Any, list[Any], list[Any]]:
        grads: list[Any] = [0] * n  # the engine's leaf gradients after zero_grad(): the int 0
        margins: list[Any] = []
        scores: list[Any] = []
        for function, data in blocks:
            (_, ms, ss), g = function([*ws, *grads, *data, c])
            grads = g[:n]
            margins += ms
            scores += ss
        total: Any = 0
        for m in margins:  # vsum's forward
            total += m
        reg: Any = 0
        for w in ws:
            reg += w * w
        loss = total * (1.0 / len(margins)) + alpha * reg
        for j, w in enumerate(ws):  # the L2 term's shares, last: mul(w, w) gives alpha * w twice
            share = alpha * w
            grads[j] = grads[j] + share + share
        return loss, scores, grads

    def interpreted_step() -> tuple[float, float, list[Any]]:
        loss_v, acc = moons_loss(model, points, labels, alpha)
        saved = [p.grad for p in params]
        model.zero_grad()
        loss_v.backward()
        grads = [p.grad for p in params]
        for p, g in zip(params, saved, strict=True):
            p.grad = g
        return loss_v.data, acc, grads

    return step


def _flat(points: Sequence[Sequence[Any]]) -> list[Any]:
    return [c for p in points for c in p]


@contextmanager
def _parameters(model: MLP, values: Sequence[Value]) -> Iterator[None]:
    """``model`` computing with ``values`` as its parameters (in ``parameters()`` order) for a while."""
    saved = [(n, n.w, n.b) for layer in model.layers for n in layer.neurons]
    at = iter(values)
    for n, w, _ in saved:
        n.w = [next(at) for _ in w]
        n.b = next(at)
    try:
        yield
    finally:
        for n, w, b in saved:
            n.w, n.b = w, b


def train(
    steps: int,
    lr: float,
    hidden: Sequence[int],
    seed: int,
    nonlin: str,
    every: int,
    out: TextIO | None = None,
    compiled: bool = False,
    history: list[tuple[float, float]] | None = None,
) -> tuple[MLP, float, float]:
    """Plain gradient descent on 200 moons points; returns (model, loss, accuracy).

    ``compiled=True`` runs each step through ``autograd.compile`` (the same numbers);
    ``history`` receives every step's (loss, accuracy).
    """
    points, labels = make_moons(200, noise=0.1, seed=seed)
    model = MLP(2, [*hidden, 1], nonlin=nonlin, seed=seed)
    params = model.parameters()
    print(
        f"MLP(2, {[*hidden, 1]}) nonlin={nonlin}: {len(params)} parameters, "
        f"200 moons points, lr {lr}, {steps} steps{', compiled' if compiled else ''}",
        file=out,
    )
    start = time.perf_counter()
    if compiled:
        step_of = compiled_moons_loss(model, points, labels)
        print(f"compiled in {time.perf_counter() - start:.1f} s", file=out)
    loss = acc = math.nan
    for step in range(steps):
        if compiled:
            loss, acc, grads = step_of()
            for p, g in zip(params, grads, strict=True):
                p.data -= lr * g
        else:
            loss_v, acc = moons_loss(model, points, labels)
            loss = loss_v.data
            model.zero_grad()
            loss_v.backward()
            for p in params:
                p.data -= lr * p.grad
        if history is not None:
            history.append((loss, acc))
        if step % every == 0 or step == steps - 1:
            print(f"step {step:<4d} loss {loss:.4f}  accuracy {acc:.3f}", file=out, flush=True)
    print(f"done in {time.perf_counter() - start:.1f} s: loss {loss:.4f}, accuracy {acc:.3f}", file=out)
    return model, loss, acc


MISSING_MATPLOTLIB = (
    "{command}: --plot needs matplotlib, which is not installed; install it with: "
    "pip install 'verified-autograd[plot]'"
)


def _pyplot(command: str = "train") -> Any:
    """matplotlib.pyplot on a file-only backend, or a one-line exit if matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise SystemExit(MISSING_MATPLOTLIB.format(command=command)) from None
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


# ---------------------------------------------------------------------- newton
ROSENBROCK_START = (-1.2, 1.0)


def rosenbrock(x: Any, y: Any) -> Any:
    """Rosenbrock's banana valley: minimum 0 at (1, 1), at the end of a long, curved, flat valley."""
    return (1 - x) ** 2 + 100 * (y - x * x) ** 2


#: (step, loss, |gradient|, point) after that many steps
Row = tuple[int, float, float, list[float]]


def _loss_and_gradient(point: Sequence[float]) -> tuple[float, list[float], float]:
    xs = [Value(c) for c in point]
    loss = rosenbrock(*xs)
    gradient = grad(loss, xs)
    return loss.data, gradient, math.sqrt(sum(g * g for g in gradient))


def solve(matrix: Sequence[Sequence[float]], rhs: Sequence[float]) -> list[float]:
    """``matrix**-1 @ rhs`` by Gaussian elimination with partial pivoting; ZeroDivisionError if singular."""
    n = len(rhs)
    rows = [[*row, b] for row, b in zip(matrix, rhs, strict=True)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(rows[r][col]))
        if rows[pivot][col] == 0:
            raise ZeroDivisionError("solve: the matrix is singular")
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(col + 1, n):
            factor = rows[r][col] / rows[col][col]
            rows[r] = [a - factor * b for a, b in zip(rows[r], rows[col], strict=True)]
    solution = [0.0] * n
    for r in reversed(range(n)):
        known = sum(rows[r][c] * solution[c] for c in range(r + 1, n))
        solution[r] = (rows[r][n] - known) / rows[r][r]
    return solution


def _iterate(
    start: Sequence[float],
    tol: float,
    max_steps: int,
    update: Callable[[list[float], list[float]], list[float]],
) -> list[Row]:
    """``point = update(point, gradient)`` until ``|gradient| < tol`` or ``max_steps`` steps."""
    point = list(start)
    rows: list[Row] = []
    step = 0
    while True:
        loss, gradient, norm = _loss_and_gradient(point)
        rows.append((step, loss, norm, point))
        if norm < tol or step == max_steps:
            return rows
        point = update(point, gradient)
        step += 1


def newton(start: Sequence[float], tol: float, max_steps: int) -> list[Row]:
    """Newton's method: x -= H(x)**-1 g(x), the gradient from grad, the Hessian from hessian."""

    def newton_step(point: list[float], gradient: list[float]) -> list[float]:
        direction = solve(hessian(rosenbrock, point), gradient)
        return [c - d for c, d in zip(point, direction, strict=True)]

    return _iterate(start, tol, max_steps, newton_step)


def gradient_descent(start: Sequence[float], lr: float, tol: float, max_steps: int) -> list[Row]:
    """Plain gradient descent: x -= lr g(x)."""

    def descent_step(point: list[float], gradient: list[float]) -> list[float]:
        return [c - lr * g for c, g in zip(point, gradient, strict=True)]

    return _iterate(start, tol, max_steps, descent_step)


def _print_rows(
    title: str, rows: Sequence[Row], shown: Sequence[Row], seconds: float, tol: float, out: TextIO | None
) -> None:
    print(title, file=out)
    print(f"{'step':>6} {'loss':>14} {'|grad|':>11} {'x':>12} {'y':>12}", file=out)
    for step, loss, norm, (x, y) in shown:
        print(f"{step:>6d} {loss:>14.6e} {norm:>11.3e} {x:>12.8f} {y:>12.8f}", file=out)
    step, _, norm, _ = rows[-1]
    verdict = f"reached |grad| < {tol:g} in {step} steps" if norm < tol else f"stopped after {step} steps"
    print(f"{verdict} ({seconds:.2f} s)", file=out)


def newton_demo(
    start: Sequence[float], lr: float, tol: float, gd_steps: int, out: TextIO | None = None
) -> tuple[list[Row], list[Row]]:
    """Newton's method against gradient descent on the Rosenbrock function; prints both tables."""
    print(
        f"Rosenbrock f(x, y) = (1 - x)**2 + 100 (y - x**2)**2 from ({start[0]:g}, {start[1]:g}); "
        "its minimum is f(1, 1) = 0",
        file=out,
    )
    t0 = time.perf_counter()
    by_newton = newton(start, tol, max_steps=100)
    t1 = time.perf_counter()
    _print_rows(
        "\nNewton's method: x -= H**-1 g, g = autograd.grad(f, [x, y]), H = autograd.hessian(f, [x, y])",
        by_newton,
        by_newton,
        t1 - t0,
        tol,
        out,
    )
    by_descent = gradient_descent(start, lr, tol, gd_steps)
    t2 = time.perf_counter()
    shown = [row for row in by_descent if row[0] in (0, 1, 2, 3) or math.log10(max(row[0], 1)) % 1 == 0]
    if shown[-1] is not by_descent[-1]:
        shown.append(by_descent[-1])
    _print_rows(f"\ngradient descent: x -= lr g, lr = {lr:g}", by_descent, shown, t2 - t1, tol, out)
    return by_newton, by_descent


def plot_newton(by_newton: Sequence[Row], by_descent: Sequence[Row], path: str) -> None:
    plt = _pyplot("newton")
    fig, (paths, losses) = plt.subplots(1, 2, figsize=(11, 4.5))
    n = 120
    xs = [-2.0 + 4.0 * i / (n - 1) for i in range(n)]
    ys = [-3.5 + 5.0 * j / (n - 1) for j in range(n)]
    grid = [[math.log10(rosenbrock(x, y) + 1e-3) for x in xs] for y in ys]
    paths.contourf(xs, ys, grid, levels=30, cmap="Greys")
    every = max(1, len(by_descent) // 400)
    descent = [row[3] for row in by_descent[::every]] + [by_descent[-1][3]]
    paths.plot(
        [p[0] for p in descent], [p[1] for p in descent], "-", color="tab:blue", label="gradient descent"
    )
    paths.plot(
        [r[3][0] for r in by_newton], [r[3][1] for r in by_newton], "o-", color="tab:red", label="Newton"
    )
    paths.plot([1.0], [1.0], "*", color="gold", markersize=14, markeredgecolor="k", label="minimum (1, 1)")
    paths.set_xlabel("x")
    paths.set_ylabel("y")
    paths.set_title("paths on log10 f (Rosenbrock)")
    paths.legend(loc="lower left")
    for rows, style, color, label in (
        (by_descent, "-", "tab:blue", "gradient descent"),
        (by_newton, "o-", "tab:red", "Newton"),
    ):
        shown = [r for r in rows if r[1] > 0]  # a loss of exactly 0 has no place on a log scale
        losses.plot([r[0] + 1 for r in shown], [r[1] for r in shown], style, color=color, label=label)
    losses.set_xscale("log")
    losses.set_yscale("log")
    losses.set_xlabel("step + 1")
    losses.set_ylabel("loss")
    losses.set_title("loss per step")
    losses.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


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


def _point(text: str) -> tuple[float, float]:
    parts = text.split(",")
    try:
        x, y = (float(part) for part in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected two numbers X,Y, got {text!r}") from None
    if not (math.isfinite(x) and math.isfinite(y)):
        raise argparse.ArgumentTypeError(f"expected two finite numbers X,Y, got {text!r}")
    return x, y


def _check_plot_path(parser: argparse.ArgumentParser, path: str, command: str) -> None:
    """A --plot folder that exists (a usage error if not) and matplotlib, checked before any work."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        parser.error(f"argument --plot: no such directory: {folder!r}")
    _pyplot(command)


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
    t.add_argument(
        "--compile",
        action="store_true",
        help="trace the loss once and train with the generated code (autograd.compile): the same numbers",
    )

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

    n = sub.add_parser(
        "newton",
        help="Newton's method (second derivatives) against gradient descent on the Rosenbrock function",
        description="Minimise the Rosenbrock function (1 - x)**2 + 100 (y - x**2)**2 twice: by Newton's "
        "method, whose Hessian comes from autograd.hessian, and by plain gradient descent, printing "
        "step, loss, |grad| and the point for both.",
    )
    n.add_argument(
        "--start",
        type=_point,
        default=ROSENBROCK_START,
        metavar="X,Y",
        help="starting point (default -1.2,1)",
    )
    n.add_argument(
        "--lr", type=_positive_float, default=0.001, help="gradient descent's step (default 0.001)"
    )
    n.add_argument(
        "--gd-steps", type=_positive_int, default=50_000, help="gradient descent's step limit (default 50000)"
    )
    n.add_argument("--tol", type=_positive_float, default=1e-8, help="stop when |grad| < TOL (default 1e-8)")
    n.add_argument("--plot", metavar="PATH", help="write a PNG of both paths and losses (needs matplotlib)")
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
            model, _, _ = train(
                args.steps, args.lr, args.hidden, args.seed, args.nonlin, args.every, compiled=args.compile
            )
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
    if args.command == "newton":
        if args.plot:
            _check_plot_path(parser, args.plot, "newton")
        try:
            by_newton, by_descent = newton_demo(args.start, args.lr, args.tol, args.gd_steps)
        except OverflowError as exc:
            print(f"newton: diverged ({exc}); choose a smaller --lr or another --start", file=sys.stderr)
            return 1
        except ZeroDivisionError:
            print("newton: the Hessian is singular on the way; choose another --start", file=sys.stderr)
            return 1
        if args.plot:
            try:
                plot_newton(by_newton, by_descent, args.plot)
            except OSError as exc:
                print(f"newton: cannot write {args.plot!r}: {exc.strerror or exc}", file=sys.stderr)
                return 1
            print(f"wrote {args.plot}")
        return 0
    try:
        sweep(args.sizes or DEFAULT_SIZES, args.w)
    except OverflowError as exc:
        print(f"sweep: {exc}; choose a smaller --w", file=sys.stderr)
        return 1
    return 0
