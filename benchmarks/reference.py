"""The physical-limit line: the benchmarks' work written by hand on plain floats.

No graph, no Values: the forward pass keeps each layer's activations in lists,
and the backward pass runs the same multiply-adds as the engine's rules into
gradient lists.  The arithmetic is the engine's, in the engine's order, so the
results are the engine's bit for bit (``tests/test_benchmarks_reference.py``
checks it):

* a neuron is ``b + w0*x0 + w1*x1 + ...`` added in that order (``dot``), then
  ``tanh``, ``relu`` (``x if x > 0 else x - x``) or nothing;
* backward: a ``dot`` whose gradient is 0 passes nothing on, ``relu`` passes
  the gradient only where its output is > 0, ``tanh`` multiplies it by
  ``1 - t*t``; each input's gradient sums the shares of neurons 0, 1, 2, ...
  in that order, which is the order in which the engine's search fires them.

What is left is the arithmetic itself plus the Python loops that drive it:
what a scalar engine in CPython cannot go below.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from benchmarks import timing

#: gradients (or weights) as (weights[layer][neuron][input], biases[layer][neuron])
Grads = tuple[list[list[list[Any]]], list[list[Any]]]


class FloatMLP:
    """An MLP as nested lists of floats: ``weights[layer][neuron][input]``, ``biases[layer][neuron]``."""

    def __init__(self, weights: list[list[list[Any]]], biases: list[list[Any]], nonlins: list[str]) -> None:
        self.weights, self.biases, self.nonlins = weights, biases, nonlins

    @classmethod
    def of(cls, model: Any) -> FloatMLP:
        """The numbers of one of our ``nn.MLP`` models (copied: changing one leaves the other alone)."""
        layers = model.layers
        return cls(
            [[[w.data for w in n.w] for n in layer.neurons] for layer in layers],
            [[n.b.data for n in layer.neurons] for layer in layers],
            [layer.neurons[0].nonlin for layer in layers],
        )

    def parameters(self) -> list[Any]:
        """The numbers in ``MLP.parameters()``'s order: layer by layer, each neuron's w then b."""
        return flatten((self.weights, self.biases))

    def zero_grads(self) -> Grads:
        # int 0, like the engine's: 0 + x is x for floats, and keeps Fractions exact
        weights = [[[0] * len(ws) for ws in layer] for layer in self.weights]
        return weights, [[0] * len(bs) for bs in self.biases]

    def forward(self, x: Sequence[Any]) -> list[list[Any]]:
        """Every layer's activations: ``[x, layer 1's outputs, ..., the last layer's outputs]``."""
        acts = [list(x)]
        for ws_of_layer, bs, nonlin in zip(self.weights, self.biases, self.nonlins):
            out = []
            for ws, s in zip(ws_of_layer, bs):
                for w, xi in zip(ws, x):
                    s += w * xi
                if nonlin == "relu":
                    s = s if s > 0 else s - s
                elif nonlin == "tanh":
                    s = math.tanh(s)
                out.append(s)
            acts.append(out)
            x = out
        return acts

    def backward(self, acts: list[list[Any]], g_out: Sequence[Any], grads: Grads) -> None:
        """Add to ``grads`` the gradient of ``sum(g_out[k] * output[k])`` (``acts`` from ``forward``)."""
        gws_all, gbs_all = grads
        g = g_out  # the gradient reaching this layer's outputs
        for i in range(len(self.weights) - 1, -1, -1):
            x, outs, nonlin = acts[i], acts[i + 1], self.nonlins[i]
            gws, gbs = gws_all[i], gbs_all[i]
            gx = [0] * len(x)  # the gradient reaching this layer's inputs
            for k, (ws, gk, o) in enumerate(zip(self.weights[i], g, outs)):
                if nonlin == "relu":
                    if not o > 0:
                        continue
                elif nonlin == "tanh":
                    gk = gk * (1 - o * o)
                if not gk:  # dot's rule: nothing arrives, nothing is passed on
                    continue
                gw = gws[k]
                for j, w in enumerate(ws):
                    gw[j] += gk * x[j]
                    gx[j] += gk * w
                gbs[k] += gk
            g = gx


def flatten(grads: Grads) -> list[Any]:
    """Weights (or their gradients) in ``MLP.parameters()``'s order."""
    ws_all, bs_all = grads
    return [v for ws_of_layer, bs in zip(ws_all, bs_all) for ws, b in zip(ws_of_layer, bs) for v in (*ws, b)]


# ---------------------------------------------------------------------- the benchmarks' work
def one_sample_step(net: FloatMLP, x: Sequence[float]) -> tuple[tuple[float, float, float], Grads]:
    """Zero the gradients, forward one input, backward from the (single) output: the engine's step."""
    t0 = timing.clock()
    grads = net.zero_grads()
    t1 = timing.clock()
    acts = net.forward(x)
    t2 = timing.clock()
    net.backward(acts, [1], grads)
    t3 = timing.clock()
    return (t1 - t0, t2 - t1, t3 - t2), grads


def batch_loss(
    net: FloatMLP, points: Sequence[Sequence[float]], labels: Sequence[int], alpha: float = 1e-4
) -> tuple[float, float, list[list[list[Any]]]]:
    """``autograd.cli.moons_loss``'s forward: (loss, accuracy, every point's activations)."""
    tape = [net.forward(p) for p in points]
    total: Any = 0
    for y, acts in zip(labels, tape):
        m = 1 - y * acts[-1][0]
        total += m if m > 0 else m - m
    squares: Any = 0
    for p in net.parameters():
        squares += p * p
    correct = sum((y > 0) == (acts[-1][0] > 0) for y, acts in zip(labels, tape))
    return total * (1.0 / len(labels)) + alpha * squares, correct / len(labels), tape


def batch_backward(
    net: FloatMLP, labels: Sequence[int], tape: list[list[list[Any]]], alpha: float = 1e-4
) -> Grads:
    """The gradient of ``batch_loss`` from fresh zeros, in the engine's order: the points 0, 1, 2, ...,
    then the L2 term (its two shares ``alpha * p`` per weight, from ``p * p``)."""
    grads = net.zero_grads()
    share = 1.0 / len(labels)  # the mean is vsum(...) * (1.0 / n): each point's share is this float
    for y, acts in zip(labels, tape):
        if 1 - y * acts[-1][0] > 0:  # relu(1 - y * score) passes gradient back
            net.backward(acts, [-(share * y)], grads)
    gws_all, gbs_all = grads
    for gws_of_layer, gbs, ws_of_layer, bs in zip(gws_all, gbs_all, net.weights, net.biases):
        for k, (gw, ws) in enumerate(zip(gws_of_layer, ws_of_layer)):
            for j, w in enumerate(ws):
                gw[j] += alpha * w
                gw[j] += alpha * w
            gbs[k] += alpha * bs[k]
            gbs[k] += alpha * bs[k]
    return grads


def batch_step(
    net: FloatMLP, points: Sequence[Sequence[float]], labels: Sequence[int]
) -> tuple[tuple[float, float], Grads]:
    """The whole-batch step, timed as ``workloads.batch_step``: forward and loss, then backward."""
    t0 = timing.clock()
    _, _, tape = batch_loss(net, points, labels)
    t1 = timing.clock()
    grads = batch_backward(net, labels, tape)
    t2 = timing.clock()
    return (t1 - t0, t2 - t1), grads


def chain_values(n: int, x: float, w: float, b: float) -> tuple[float, float, float, float]:
    """``y = x; repeat n: y = y * w + b`` and its gradient: (y, dy/dx, dy/dw, dy/db)."""
    ys = [x]
    y = x
    for _ in range(n):
        y = y * w + b
        ys.append(y)
    return (y, *chain_backward(ys, w))


def chain_backward(ys: list[float], w: float) -> tuple[float, float, float]:
    """(dy/dx, dy/dw, dy/db) from the forward values ``ys``, in the engine's order: last step first."""
    g: Any
    gw: Any
    gb: Any
    g, gw, gb = 1, 0, 0  # ints, as the engine starts: 1 * w is w, and Fractions stay exact
    for i in range(len(ys) - 1, 0, -1):  # step i: y_i = y_(i-1) * w + b
        gb += g
        gw += g * ys[i - 1]
        g = g * w
    return g, gw, gb


def chain(n: int) -> tuple[tuple[float, float], list[float]]:
    """``workloads.chain``'s work on floats, timed the same way (the same x, w, b)."""
    w, b = 1.0 + 1.0 / n, 0.001
    t0 = timing.clock()
    ys = [1.0]
    y = 1.0
    for _ in range(n):
        y = y * w + b
        ys.append(y)
    t1 = timing.clock()
    gx, _, _ = chain_backward(ys, w)
    t2 = timing.clock()
    if abs(gx - w**n) / w**n > 1e-9:
        raise AssertionError(f"reference chain({n}): dy/dx = {gx!r}, expected {w**n!r}")
    return (t1 - t0, t2 - t1), ys


def train_to_full_accuracy(
    net: FloatMLP, points: Sequence[Sequence[float]], labels: Sequence[int], max_steps: int
) -> tuple[int, float, float]:
    """``workloads.train_to_full_accuracy`` on floats: the same recipe, the same updates."""
    accuracy = 0.0
    t0 = timing.clock()
    step = 0
    for step in range(max_steps + 1):
        _, accuracy, tape = batch_loss(net, points, labels)
        if accuracy == 1.0 or step == max_steps:
            break
        gws_all, gbs_all = batch_backward(net, labels, tape)
        lr = 1.0 - 0.9 * step / 100
        for ws_of_layer, bs, gws_of_layer, gbs in zip(net.weights, net.biases, gws_all, gbs_all):
            for k, (ws, gw) in enumerate(zip(ws_of_layer, gws_of_layer)):
                for j, g in enumerate(gw):
                    ws[j] -= lr * g
                bs[k] -= lr * gbs[k]
    return step, timing.clock() - t0, accuracy


def differences(net: FloatMLP, model: Any, points: Sequence[Sequence[float]], labels: Sequence[int]) -> str:
    """'' if ``net`` computes ``model``'s batch loss and gradients bit for bit, else what differs.

    The benchmarks check this before timing anything (the test suite checks it more widely).
    """
    from autograd.cli import moons_loss

    loss, _ = moons_loss(model, points, labels)
    model.zero_grad()
    loss.backward()
    theirs = [loss.data] + [p.grad for p in model.parameters()]
    model.zero_grad()
    ref_loss, _, tape = batch_loss(net, points, labels)
    mine = [ref_loss, *flatten(batch_backward(net, labels, tape))]
    wrong = [i for i, (a, b) in enumerate(zip(mine, theirs)) if float(a).hex() != float(b).hex()]
    if len(mine) != len(theirs):
        return f"{len(mine) - 1} gradients against {len(theirs) - 1}"
    return f"loss or gradients at positions {wrong[:5]} (0 is the loss)" if wrong else ""
