"""Regression: gradients accumulate on leaves until zeroed, and only on leaves.

The bug (a classic in PyTorch code too): a training loop that does not zero the
gradients between steps.  Leaves accumulate on purpose, because a weight used
in several places must collect every share, so without ``zero_grad()`` the
previous step's gradient leaks into this step's update.  Its engine-side
cousins are a ``zero_grad`` that does not zero, and interior nodes that are not
reset at the start of ``backward()``, so that calling it twice compounds.

How it showed up: the loop still trains, just along the wrong direction;
nothing fails.

Why these tests catch it: a one-neuron linear model with Fraction weights is
trained by hand-derived gradients (squared error: dL/dw_i = mean(2 r x_i),
dL/db = mean(2 r), r = w·x + b - y), so every gradient is known exactly:
without zeroing, the second step's gradient is exactly the sum of the two
steps' gradients (the documented semantics); with zeroing it is exactly the
second step's own.  Two ``backward()`` calls on one graph must give exactly
twice the leaf gradients and leave interior gradients at one pass's worth.
"""

from __future__ import annotations

from fractions import Fraction as F

import autograd.engine
import autograd.nn

ENGINE = autograd.engine
NN = autograd.nn

POINTS = [([F(1), F(2)], F(3)), ([F(-1), F(1, 2)], F(-2))]
LR = F(1, 10)


def make_neuron(nn):
    neuron = nn.Neuron(2, nonlin="linear")
    for p, value in zip(neuron.parameters(), (F(1, 2), F(-1, 3), F(1, 4)), strict=True):
        p.data = value
    return neuron


def hand_gradient(params):
    """d/d(w0, w1, b) of mean((w·x + b - y)**2), in plain Fractions."""
    w0, w1, b = params
    grad = [F(0)] * 3
    for (x0, x1), y in POINTS:
        r = w0 * x0 + w1 * x1 + b - y
        for k, dr in enumerate((x0, x1, 1)):
            grad[k] += 2 * r * dr / len(POINTS)
    return grad


def step(engine, neuron, zero):
    loss = engine.vsum((neuron(x) - y) ** 2 for x, y in POINTS) / len(POINTS)
    if zero:
        neuron.zero_grad()
    loss.backward()
    grads = [p.grad for p in neuron.parameters()]
    for p in neuron.parameters():
        p.data -= LR * p.grad
    return grads


def test_without_zero_grad_the_previous_gradient_leaks(engine=ENGINE, nn=NN):
    neuron = make_neuron(nn)
    params1 = [p.data for p in neuron.parameters()]
    grads1 = step(engine, neuron, zero=True)
    params2 = [p.data for p in neuron.parameters()]
    grads2 = step(engine, neuron, zero=False)
    expected2 = [g1 + g2 for g1, g2 in zip(hand_gradient(params1), hand_gradient(params2), strict=True)]
    assert grads1 == hand_gradient(params1), f"first step: {grads1}, expected {hand_gradient(params1)}"
    assert grads2 == expected2, f"second step without zero_grad: {grads2}, expected the sum {expected2}"


def test_with_zero_grad_each_step_uses_its_own_gradient(engine=ENGINE, nn=NN):
    neuron = make_neuron(nn)
    for n in range(3):
        params = [p.data for p in neuron.parameters()]
        grads = step(engine, neuron, zero=True)
        assert grads == hand_gradient(params), (
            f"step {n} with zero_grad: {grads}, expected {hand_gradient(params)}"
        )


def test_repeated_backward_doubles_leaves_and_not_interiors(engine=ENGINE):
    a, b, c = engine.Value(2), engine.Value(3), engine.Value(5)
    u = a * b + a  # interior
    y = u * c
    for calls in (1, 2, 3):
        y.backward()
        # dy/da = (b + 1) c = 20, dy/db = a c = 10, dy/dc = a b + a = 8, dy/du = c = 5
        assert (a.grad, b.grad, c.grad) == (20 * calls, 10 * calls, 8 * calls), (
            f"after {calls} backward() calls: leaves (a, b, c) have {(a.grad, b.grad, c.grad)}, "
            f"expected {(20 * calls, 10 * calls, 8 * calls)}"
        )
        assert (u.grad, y.grad) == (5, 1), (
            f"after {calls} calls: interior u has {u.grad!r}, y {y.grad!r}; expected 5, 1"
        )
