"""Regression: every weight is its own Value, and each is nudged exactly once per step.

The bug: a neuron built its weights as ``[Value(random.uniform(-1, 1))] * nin``.
Multiplying a list copies the reference, so all of a neuron's weights were one
object: it collected the gradient of every position it stood in and was then
nudged once per list entry.  The network counted its weights correctly but
held far fewer distinct objects, and after a few hundred training steps the
values ran away until an operation overflowed (in the article, inside pow).
The same mistake one level up, ``[Neuron(nin)] * nout``, makes a layer of one
neuron repeated.

How it showed up: not as a wrong number in any single gradient check (a tied
weight's gradient is mathematically fine), but as training that diverged.

Why these tests catch it: they count distinct objects, not list entries
(``MLP(2, [4, 4, 1])`` must have 37 parameters and 37 distinct Values, with
no Value or Neuron shared anywhere), check that one update step moves every
parameter by exactly ``-lr * grad``, and train with the squared-error loss
long enough for the runaway to happen.
"""

from __future__ import annotations

import math

import pytest

import autograd.engine
import autograd.nn
from autograd.datasets import make_moons

ENGINE = autograd.engine
NN = autograd.nn


def test_parameter_count_and_distinct_objects(nn=NN):
    for sizes, expected in (([4, 4, 1], 37), ([16, 16, 1], 337)):  # 37 = 4*3 + 4*5 + 1*5
        params = nn.MLP(2, sizes).parameters()
        distinct = len({id(p) for p in params})
        assert (len(params), distinct) == (expected, expected), (
            f"MLP(2, {sizes}): {len(params)} parameters, {distinct} distinct objects; "
            f"expected {expected} of each"
        )


def test_no_neuron_or_weight_is_shared(nn=NN):
    model = nn.MLP(2, [4, 4, 1])
    neurons = [
        (i, j, neuron) for i, layer in enumerate(model.layers) for j, neuron in enumerate(layer.neurons)
    ]
    seen_neurons: dict[int, tuple[int, int]] = {}
    seen_values: dict[int, str] = {}
    for i, j, neuron in neurons:
        assert id(neuron) not in seen_neurons, (
            f"layer {i} neuron {j} is the same object as {seen_neurons[id(neuron)]}"
        )
        seen_neurons[id(neuron)] = (i, j)
        for k, value in enumerate([*neuron.w, neuron.b]):
            where = f"layer {i} neuron {j} parameter {k}"
            assert id(value) not in seen_values, f"{where} is the same Value as {seen_values[id(value)]}"
            seen_values[id(value)] = where


def squared_error(engine, model, points, labels):
    return engine.vsum((model(x) - y) ** 2 for x, y in zip(points, labels, strict=True)) / len(points)


def test_each_parameter_moves_once_per_step(engine=ENGINE, nn=NN):
    points, labels = make_moons(10, noise=0.1, seed=1)
    model = nn.MLP(2, [4, 4, 1], seed=1)
    lr = 0.25
    loss = squared_error(engine, model, points, labels)
    model.zero_grad()
    loss.backward()
    before = [(p.data, p.grad) for p in model.parameters()]
    for p in model.parameters():
        p.data -= lr * p.grad
    moved_wrongly = [
        (k, old, grad, p.data)
        for k, (p, (old, grad)) in enumerate(zip(model.parameters(), before, strict=True))
        if p.data != old - lr * grad
    ]
    assert not moved_wrongly, (
        f"(index, before, grad, after) of parameters not moved by exactly -lr*grad: {moved_wrongly}"
    )


@pytest.mark.slow
def test_training_does_not_run_away(engine=ENGINE, nn=NN):
    # Squared error on 20 moons points, lr 0.5, 300 steps: the real network stays
    # below |2.7| everywhere; the aliased ones overflow within a few dozen steps.
    points, labels = make_moons(20, noise=0.1, seed=0)
    model = nn.MLP(2, [4, 4, 1], seed=0)
    largest = 0.0
    for step in range(300):
        try:
            loss = squared_error(engine, model, points, labels)
        except OverflowError as exc:
            pytest.fail(f"values ran away: step {step} overflowed ({exc})"[:300])
        model.zero_grad()
        loss.backward()
        for p in model.parameters():
            p.data -= 0.5 * p.grad
        largest = max(largest, *(abs(p.data) for p in model.parameters()))
        assert largest < 10, f"values ran away: a parameter reached {largest:.3g} at step {step}"
    assert math.isfinite(loss.data) and loss.data < 0.5, f"final loss {loss.data!r}"
