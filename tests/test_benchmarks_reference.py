"""The benchmarks' plain-float reference does the engine's work: the same losses and gradients.

Two independent computations are compared: the engine (a graph of Values and its
backward pass) and ``benchmarks/reference.py`` (loops over lists of numbers, no
graph).  With floats they must agree bit for bit, because the reference adds in
the engine's order; with Fractions, exactly, whatever the order (an exact
gradient has one right value).
"""

import random
from fractions import Fraction

import pytest

from autograd.cli import moons_loss
from autograd.datasets import make_moons
from autograd.engine import Value
from autograd.nn import MLP
from benchmarks import reference
from benchmarks.reference import FloatMLP


def bits(x):
    """A number as its exact float bits (int 1 and 1.0 are the same; 0.0 and -0.0 are not)."""
    return float(x).hex()


def engine_one_sample(model, x):
    model.zero_grad()
    out = model(x)
    out.backward()
    return out.data, [p.grad for p in model.parameters()]


def reference_one_sample(net, x):
    grads = net.zero_grads()
    acts = net.forward(x)
    net.backward(acts, [1], grads)
    return acts[-1][0], reference.flatten(grads)


@pytest.mark.parametrize("nonlin", ["relu", "tanh"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_one_sample_step_bit_for_bit(nonlin, seed):
    model = MLP(2, [16, 16, 1], nonlin=nonlin, seed=seed)
    net = FloatMLP.of(model)
    rng = random.Random(seed)
    for _ in range(5):
        x = [rng.uniform(-2, 2), rng.uniform(-2, 2)]
        out, grads = engine_one_sample(model, x)
        ref_out, ref_grads = reference_one_sample(net, x)
        assert bits(ref_out) == bits(out)
        assert len(ref_grads) == len(grads) == 337
        assert [bits(g) for g in ref_grads] == [bits(g) for g in grads]
        assert any(g != 0 for g in grads)  # the comparison is not between two sets of zeros


def test_one_sample_step_exact_with_fractions():
    """Exact arithmetic has one right answer whatever the order: a check of the reference's rules alone."""
    model = MLP(2, [3, 4, 1], nonlin="relu", seed=5)
    rng = random.Random(5)
    for p in model.parameters():
        p.data = Fraction(rng.randint(-9, 9), rng.randint(1, 9))
    net = FloatMLP.of(model)
    x = [Fraction(1, 3), Fraction(-2, 7)]
    out, grads = engine_one_sample(model, x)
    ref_out, ref_grads = reference_one_sample(net, x)
    assert ref_out == out
    assert ref_grads == grads
    assert all(type(g) in (int, Fraction) for g in ref_grads)  # nothing was rounded on the way
    assert any(g != 0 for g in grads)


@pytest.mark.parametrize("nonlin", ["relu", "tanh"])
def test_batch_step_bit_for_bit(nonlin):
    points, labels = make_moons(200, noise=0.1, seed=0)
    model = MLP(2, [16, 16, 1], nonlin=nonlin, seed=0)
    net = FloatMLP.of(model)
    loss, accuracy = moons_loss(model, points, labels)
    model.zero_grad()
    loss.backward()
    grads = [p.grad for p in model.parameters()]

    ref_loss, ref_accuracy, tape = reference.batch_loss(net, points, labels)
    ref_grads = reference.flatten(reference.batch_backward(net, labels, tape))
    assert bits(ref_loss) == bits(loss.data)
    assert ref_accuracy == accuracy
    assert [bits(g) for g in ref_grads] == [bits(g) for g in grads]
    assert 0 < sum(1 - y * acts[-1][0] > 0 for y, acts in zip(labels, tape)) < 200  # some margins pass


def test_timed_steps_return_the_same_gradients():
    points, labels = make_moons(200, noise=0.1, seed=0)
    model = MLP(2, [16, 16, 1], nonlin="relu", seed=0)
    net = FloatMLP.of(model)
    phases, grads = reference.one_sample_step(net, points[0])
    assert len(phases) == 3
    assert reference.flatten(grads) == engine_one_sample(model, points[0])[1]
    phases, grads = reference.batch_step(net, points, labels)
    assert len(phases) == 2
    loss, _ = moons_loss(model, points, labels)
    model.zero_grad()
    loss.backward()
    assert [bits(g) for g in reference.flatten(grads)] == [bits(p.grad) for p in model.parameters()]


@pytest.mark.parametrize("n", [1, 7, 1000])
def test_chain_bit_for_bit(n):
    w_, b_ = 1.0 + 1.0 / n, 0.001
    x, w, b = Value(1.0), Value(w_), Value(b_)
    y = x
    for _ in range(n):
        y = y * w + b
    y.backward()
    ref = reference.chain_values(n, 1.0, w_, b_)
    assert [bits(v) for v in ref] == [bits(v) for v in (y.data, x.grad, w.grad, b.grad)]
    _, ys = reference.chain(n)  # the timed version checks its own dy/dx and keeps the same values
    assert bits(ys[-1]) == bits(y.data)


def test_chain_exact_with_fractions():
    x, w, b = Fraction(1, 2), Fraction(3, 2), Fraction(-1, 3)
    vx, vw, vb = Value(x), Value(w), Value(b)
    y = vx
    for _ in range(20):
        y = y * vw + vb
    y.backward()
    assert reference.chain_values(20, x, w, b) == (y.data, vx.grad, vw.grad, vb.grad)
    # and one independent of both: y = w**n x + b (w**n - 1) / (w - 1), so dy/dx = w**n
    assert vx.grad == w**20
