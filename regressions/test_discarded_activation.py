"""Regression: a neuron returns its activation, tanh(w·x + b), not the pre-activation.

The bug: a neuron computed ``act.tanh()`` and threw the result away, returning
the weighted sum itself.  Nothing crashed and gradients were "correct" for the
function actually computed, which was a linear model: the step meant to bend
the decision boundary silently did nothing.

How it showed up: it sat next to the aliased-weights bug and was found while
reading that file, not by any test.

Why these tests catch it: the outputs of tanh, relu and linear neurons, and of
a whole MLP, are compared with a forward pass written out by hand in plain
Python from the weights' values (with inputs chosen so that tanh(s) is far
from s), and the neuron's gradients with respect to every weight, the bias and
every input are compared with the hand-derived (1 - t**2) * x_i, (1 - t**2) and
(1 - t**2) * w_i.
"""

from __future__ import annotations

import math

import autograd.nn

NN = autograd.nn

INPUTS = [0.5, -1.5, 2.0]


def weighted_sum(neuron, x):
    return neuron.b.data + sum(w.data * xi for w, xi in zip(neuron.w, x, strict=True))


# (weights, bias): weighted sums 3.45, -0.35 and 0.3, where tanh(s) is visibly not s
WEIGHTS = [([0.6, -0.4, 0.9], 0.75), ([-0.2, 0.5, 0.3], -0.1), ([0.1, 0.1, 0.1], 0.2)]


def make_neuron(nn, weights, bias, nonlin="tanh"):
    neuron = nn.Neuron(len(weights), nonlin=nonlin)
    for w, value in zip(neuron.w, weights, strict=True):
        w.data = value
    neuron.b.data = bias  # a bias of 0 would hide a dropped bias term
    return neuron


def test_tanh_neuron_returns_tanh_of_weighted_sum(nn=NN):
    for weights, bias in WEIGHTS:
        s = bias + sum(w * x for w, x in zip(weights, INPUTS, strict=True))
        out = make_neuron(nn, weights, bias)(INPUTS)
        assert math.isclose(out.data, math.tanh(s), rel_tol=1e-12), (
            f"neuron {weights}, bias {bias}: output {out.data!r}, expected tanh({s!r}) = {math.tanh(s)!r}"
        )


def test_relu_and_linear_neurons(nn=NN):
    for weights, bias in WEIGHTS:
        s = bias + sum(w * x for w, x in zip(weights, INPUTS, strict=True))
        for nonlin, expected in (("relu", max(s, 0.0)), ("linear", s)):
            out = make_neuron(nn, weights, bias, nonlin)(INPUTS)
            assert math.isclose(out.data, expected, rel_tol=1e-12), (
                f"{nonlin} neuron {weights}, bias {bias}: output {out.data!r}, expected {expected!r}"
            )


def test_mlp_forward_matches_a_hand_written_forward_pass(nn=NN):
    model = nn.MLP(2, [4, 4, 1], seed=3)
    for layer in model.layers:
        for k, neuron in enumerate(layer.neurons):
            neuron.b.data = 0.1 * (k + 1)
    for x in ([0.3, -0.8], [1.5, 0.25], [-1.0, 2.0]):
        activations = list(x)
        for i, layer in enumerate(model.layers):
            last = i == len(model.layers) - 1
            sums = [weighted_sum(neuron, activations) for neuron in layer.neurons]
            activations = sums if last else [math.tanh(s) for s in sums]
        out = model(x)
        assert math.isclose(out.data, activations[0], rel_tol=1e-12), (
            f"MLP(2, [4, 4, 1]) at {x}: {out.data!r}, hand-written forward pass gives {activations[0]!r}"
        )


def test_tanh_neuron_gradients(nn=NN):
    neuron = make_neuron(nn, [0.6, -0.4, 0.9], 0.4)
    x = [nn.Value(v) for v in INPUTS]
    out = neuron(x)
    out.backward()
    t = math.tanh(weighted_sum(neuron, INPUTS))
    slope = 1 - t * t
    got = [w.grad for w in neuron.w] + [neuron.b.grad] + [xi.grad for xi in x]
    expected = [slope * xi for xi in INPUTS] + [slope] + [slope * w.data for w in neuron.w]
    assert all(math.isclose(g, e, rel_tol=1e-12) for g, e in zip(got, expected, strict=True)), (
        f"gradients (w..., b, x...) {got}, expected {expected}"
    )
