"""The work, written once and run on both engines.

Both networks are ``MLP(2, [16, 16, 1])`` with ReLU hidden layers and a linear
output (micrograd's only kind), holding the same 337 weights: ours are copied
into micrograd's model, so the two compute the same function and
``same_function`` can check that they do.
"""

from __future__ import annotations

import gc
import random
import sys
import threading
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from autograd import engine as our_engine
from autograd.cli import moons_loss
from autograd.nn import MLP
from benchmarks import timing

SIZES = [2, 16, 16, 1]  # MLP(2, [16, 16, 1]): 337 parameters
ALPHA = 1e-4  # weight of the L2 term in micrograd's demo loss


@dataclass(frozen=True)
class Engine:
    name: str
    Value: Any
    make_model: Callable[[], Any]
    batch_loss: Callable[[Any, Sequence[Sequence[float]], Sequence[int]], tuple[Any, float]]


def ours() -> Engine:
    def make_model() -> MLP:
        return MLP(SIZES[0], SIZES[1:], nonlin="relu", seed=0)

    return Engine("ours", our_engine.Value, make_model, moons_loss)


def micrograd() -> Engine:
    try:
        from micrograd import engine, nn
    except ImportError:
        raise SystemExit(
            "benchmarks: micrograd is not installed; run `tox -e bench`, or `pip install micrograd==0.1.0`"
        ) from None

    def make_model() -> Any:
        random.seed(0)  # micrograd draws its weights from the global generator
        return nn.MLP(SIZES[0], SIZES[1:])

    def batch_loss(model: Any, points: Sequence[Sequence[float]], labels: Sequence[int]) -> tuple[Any, float]:
        # micrograd's demo notebook: max-margin loss + alpha * L2, written as it writes it
        inputs = [list(map(engine.Value, p)) for p in points]
        scores = list(map(model, inputs))
        losses = [(1 + -y * s).relu() for y, s in zip(labels, scores, strict=True)]
        data_loss = sum(losses) * (1.0 / len(losses))
        reg_loss = ALPHA * sum(p * p for p in model.parameters())
        accuracy = [(y > 0) == (s.data > 0) for y, s in zip(labels, scores, strict=True)]
        return data_loss + reg_loss, sum(accuracy) / len(accuracy)

    return Engine("micrograd", engine.Value, make_model, batch_loss)


def copy_weights(source: Any, target: Any) -> None:
    """Give ``target`` the weights of ``source`` (both list them layer by layer, w then b)."""
    src, dst = source.parameters(), target.parameters()
    if len(src) != len(dst):
        raise ValueError(f"copy_weights: {len(src)} parameters into {len(dst)}")
    for s, d in zip(src, dst, strict=True):
        d.data = s.data


def same_function(
    a: Engine, model_a: Any, b: Engine, model_b: Any, points: Sequence[Sequence[float]], labels: Sequence[int]
) -> float:
    """The largest difference between the two engines' losses and gradients on one batch."""
    worst = 0.0
    (loss_a, _), (loss_b, _) = a.batch_loss(model_a, points, labels), b.batch_loss(model_b, points, labels)
    for model, loss in ((model_a, loss_a), (model_b, loss_b)):
        model.zero_grad()
        loss.backward()
    worst = abs(loss_a.data - loss_b.data)
    for p, q in zip(model_a.parameters(), model_b.parameters(), strict=True):
        worst = max(worst, abs(p.grad - q.grad))
    model_a.zero_grad()
    model_b.zero_grad()
    return worst


# ---------------------------------------------------------------------- timed work
# Each returns (times of its phases in seconds, the graph): the caller drops the
# graph after the clock stops, so freeing it is not timed, for either engine.
def one_sample_step(model: Any, x: Sequence[float]) -> tuple[tuple[float, float, float], Any]:
    """A training step's work on one input: zero the gradients, forward, backward."""
    t0 = timing.clock()
    model.zero_grad()
    t1 = timing.clock()
    out = model(x)
    t2 = timing.clock()
    out.backward()
    t3 = timing.clock()
    return (t1 - t0, t2 - t1, t3 - t2), out


def batch_step(
    engine: Engine, model: Any, points: Sequence[Sequence[float]], labels: Sequence[int]
) -> tuple[tuple[float, float], Any]:
    t0 = timing.clock()
    loss, _ = engine.batch_loss(model, points, labels)
    t1 = timing.clock()
    model.zero_grad()
    loss.backward()
    t2 = timing.clock()
    return (t1 - t0, t2 - t1), loss


def chain(value: Any, n: int) -> tuple[tuple[float, float], Any]:
    """``y = x; repeat n: y = y * w + b``: 2n op nodes, each using the one before."""
    w = 1.0 + 1.0 / n  # dy/dx = w**n stays finite (it tends to e)
    x, wv, b = value(1.0), value(w), value(0.001)
    t0 = timing.clock()
    y = x
    for _ in range(n):
        y = y * wv + b
    t1 = timing.clock()
    y.backward()
    t2 = timing.clock()
    relerr = abs(x.grad - w**n) / w**n
    if relerr > 1e-9:
        raise AssertionError(f"chain({n}) on {value.__module__}: dy/dx = {x.grad!r}, expected {w**n!r}")
    return (t1 - t0, t2 - t1), y


def train_to_full_accuracy(
    engine: Engine, model: Any, points: Sequence[Sequence[float]], labels: Sequence[int], max_steps: int
) -> tuple[int, float, float]:
    """micrograd's demo recipe (whole batch, lr 1 - 0.9 k / 100) until accuracy 1.000.

    Returns (gradient steps taken, seconds, accuracy reached).
    """
    params = model.parameters()
    accuracy = 0.0
    t0 = timing.clock()
    step = 0
    for step in range(max_steps + 1):
        loss, accuracy = engine.batch_loss(model, points, labels)
        if accuracy == 1.0 or step == max_steps:
            break
        model.zero_grad()
        loss.backward()
        lr = 1.0 - 0.9 * step / 100
        for p in params:
            p.data -= lr * p.grad
    return step, timing.clock() - t0, accuracy


def without_gc(run: Callable[[], tuple[tuple[float, float], Any]]) -> tuple[float, float]:
    """One run with the cyclic GC off (a reference point only: users run with it on)."""
    gc.collect()
    gc.disable()
    try:
        phases, graph = run()
    finally:
        gc.enable()
    del graph
    return phases


# ---------------------------------------------------------------------- micrograd's depth limit
def deepest_chain(value: Any, limit: int = 5000) -> int:
    """The longest chain whose backward() runs at the current recursion limit (bisection)."""

    def works(n: int) -> bool:
        try:
            chain(value, n)
        except RecursionError:
            return False
        return True

    lo, hi = 1, limit  # works(lo) is assumed; hi is the first known failure
    if works(hi):
        return hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if works(mid):
            lo = mid
        else:
            hi = mid
    return lo


def with_deep_recursion(fn: Callable[[], Any], limit: int = 2_000_000) -> Any:
    """Run ``fn`` in a thread with a big C stack and a raised recursion limit, then restore it."""
    result: list[Any] = []
    errors: list[BaseException] = []

    def target() -> None:
        try:
            result.append(fn())
        except BaseException as exc:  # re-raised in the caller's thread
            errors.append(exc)

    old_limit, old_stack = sys.getrecursionlimit(), threading.stack_size()
    sys.setrecursionlimit(limit)
    threading.stack_size(1 << 30)
    try:
        thread = threading.Thread(target=target)
        thread.start()
        thread.join()
    finally:
        threading.stack_size(old_stack)
        sys.setrecursionlimit(old_limit)
    if errors:
        raise errors[0]
    return result[0]


# ---------------------------------------------------------------------- memory
def bytes_per_op_node(value: Any, n: int = 10_000) -> tuple[float, float]:
    """Memory held by a chain of 2n op nodes, per node (tracemalloc, leaves excluded): see held_per_node."""
    x, w, b = value(1.0), value(1.0001), value(0.001)
    return held_per_node(lambda: chain_forward(x, w, b, n), n)


def chain_forward(x: Any, w: Any, b: Any, n: int) -> Any:
    y = x
    for _ in range(n):
        y = y * w + b
    return y


def reference_bytes_per_op_node(n: int = 10_000) -> tuple[float, float]:
    """What the plain-float chain keeps for its backward pass (one float per step), per op node."""

    def forward() -> list[float]:
        ys = [1.0]
        y = 1.0
        for _ in range(n):
            y = y * 1.0001 + 0.001
            ys.append(y)
        return ys

    return held_per_node(forward, n)


#: CPython's small-object allocator hands out blocks in multiples of 16 bytes (on 64-bit builds)
BLOCK = 16


def held_per_node(build: Callable[[], Any], n: int) -> tuple[float, float]:
    """The memory that what ``build()`` returns holds, per op node of an n-step chain (2n nodes):
    (bytes requested, as tracemalloc counts them; bytes in the allocator's 16-byte blocks, which is
    what the process really uses: a 72-byte object takes an 80-byte block)."""
    gc.collect()
    tracemalloc.start()
    try:
        kept = build()
        held, _ = tracemalloc.get_traced_memory()
        blocks = sum(-(-t.size // BLOCK) * BLOCK for t in tracemalloc.take_snapshot().traces)
    finally:
        tracemalloc.stop()
    del kept
    return held / (2 * n), blocks / (2 * n)


def peak_memory(step: Callable[[], tuple[Any, Any]]) -> int:
    """Peak memory allocated during one ``step()`` (a batch step), from a collected heap (tracemalloc)."""
    gc.collect()
    tracemalloc.start()
    try:
        _, graph = step()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del graph
    return peak
