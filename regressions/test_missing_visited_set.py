"""Regression: the topological walk must fire each node once, after all of its gradient arrived.

The bug: the walk that orders nodes for ``backward()`` kept no record of the
nodes it had already listed.  A Value that fans out into two operations was
listed twice and fired its rule twice, the first time before the gradient from
its second consumer had arrived.  With a = 2, h = a + 1, y = h * 2 + h * 3 the
gradient of a should be 5; the article's engine gave 7 or 8 depending on set
ordering (this repository's zoo copy gives 7).

How it showed up: not in any test, because every test reused a Value inside
one operation, never across two.  Training followed the wrong gradient without
complaint: the article's moons run fell from loss 2.3830 and then sat on a
plateau at loss 0.4376, accuracy 0.880, however many steps it was given.

Why these tests catch it: the article's fan-out example is checked exactly,
built in every operand order and rebuilt many times (the original bug depended
on set order, so one construction is not enough); fan-outs whose consumers sit
at different depths make an early firing visible; a lattice doubles the number
of paths at each level; and training on the 200-point moons must leave the
plateau and reach accuracy 1.000.
"""

from __future__ import annotations

import itertools
import math

import pytest

import autograd.cli
import autograd.engine
import autograd.nn
from autograd.datasets import make_moons
from regressions.training import hinge_loss, train_moons

ENGINE = autograd.engine
NN = autograd.nn

ARTICLE_PLATEAU_LOSS = 0.4376  # the article's stuck run: loss 0.4376, accuracy 0.880


def test_article_fan_out_example_in_every_construction_order(engine=ENGINE):
    V = engine.Value
    builds = {  # every way of writing h = a + 1, h * 2, h * 3 and their sum
        "h": [lambda a: a + 1, lambda a: 1 + a, lambda a: a + V(1)],
        "h2": [lambda h: h * 2, lambda h: 2 * h],
        "h3": [lambda h: h * 3, lambda h: 3 * h],
        "y": [lambda p, q: p + q, lambda p, q: q + p, lambda p, q: engine.vsum([p, q])],
    }
    wrong = []
    for repeat in range(5):  # fresh objects (new ids, new hash order) each time
        for make_h, make_2, make_3, make_y in itertools.product(*builds.values()):
            a = V(2)
            h = make_h(a)
            if repeat % 2:  # build h * 3 first
                q = make_3(h)
                p = make_2(h)
            else:
                p = make_2(h)
                q = make_3(h)
            y = make_y(p, q)
            y.backward()
            if a.grad != 5 or h.grad != 5:
                wrong.append((a.grad, h.grad))
    assert not wrong, (
        f"a = 2, h = a + 1, y = h*2 + h*3: dy/da must be 5 every time; got (dy/da, dy/dh) = {wrong}"
    )


def test_fan_out_to_consumers_at_different_depths(engine=ENGINE):
    # y = h + g(h) where g doubles h through a chain of k multiplications:
    # dy/dh = 1 + 2**k.  h fires too early if it runs before the long path is done.
    for k in (1, 2, 5, 9):
        a = engine.Value(1)
        h = a + 1
        g = h
        for _ in range(k):
            g = g * 2
        y = h + g if k % 2 else g + h
        y.backward()
        assert a.grad == 1 + 2**k, f"y = h + (2**{k}) h with h = a + 1: dy/da = {1 + 2**k}, got {a.grad!r}"


def test_many_consumers_of_one_node(engine=ENGINE):
    # h = a * a feeds n products h * c_i, summed: dy/da = 2a * sum(c_i)
    a = engine.Value(3)
    h = a * a
    coefficients = [1, -2, 5, 7, -4, 11]
    y = engine.vsum([h * c for c in coefficients]) + h  # and one more, outside the vsum
    y.backward()
    expected = 2 * 3 * (sum(coefficients) + 1)
    assert a.grad == expected, f"dy/da = 2a * (sum(c) + 1) = {expected}, got {a.grad!r}"


def test_lattice_of_shared_nodes(engine=ENGINE):
    # p_{i+1} = p_i + q_i, q_{i+1} = p_i * 1 + q_i, starting from p_0 = q_0 = a:
    # every level doubles the number of paths; y = p_n + q_n = 2**(n+1) a.
    n = 10
    a = engine.Value(1)
    p = q = a
    for _ in range(n):
        p, q = p + q, p * 1 + q
    y = p + q
    y.backward()
    assert (y.data, a.grad) == (2 ** (n + 1), 2 ** (n + 1)), f"lattice: value {y.data!r}, dy/da {a.grad!r}"


def test_hidden_unit_feeding_several_outputs(engine=ENGINE):
    # t = tanh(w * x) feeds three outputs, summed with weights v: dy/dw = sum(v) * (1 - t**2) * x
    w0, x0, vs = 0.7, -1.3, [0.5, -2.0, 1.25]
    w = engine.Value(w0)
    t = (w * x0).tanh()
    y = engine.vsum([t * v for v in vs])
    y.backward()
    expected = sum(vs) * (1 - math.tanh(w0 * x0) ** 2) * x0
    assert math.isclose(w.grad, expected, rel_tol=1e-12), f"dy/dw = {expected!r}, got {w.grad!r}"


@pytest.mark.slow
def test_training_escapes_the_plateau(engine=ENGINE, nn=NN):
    history = train_moons(engine, nn, n_points=200, hidden=(16, 16), steps=60, lr=1.0, seed=0)
    losses, accuracies = history.losses, history.accuracies
    summary = f"loss {losses[0]:.4f} -> {losses[-1]:.4f}, best accuracy {max(accuracies):.3f}"
    assert history.losses[-1] < 0.1 < ARTICLE_PLATEAU_LOSS, f"training did not leave the plateau: {summary}"
    assert max(history.accuracies) == 1.0, f"training never reached accuracy 1.000: {summary}"


def test_the_zoo_trains_with_the_librarys_loss():
    # regressions.training mirrors autograd.cli.train: same data, model and loss value.
    points, labels = make_moons(200, noise=0.1, seed=0)
    model = NN.MLP(2, [16, 16, 1], seed=0)
    ours, our_accuracy = hinge_loss(ENGINE, model, points, labels)
    theirs, their_accuracy = autograd.cli.moons_loss(model, points, labels)
    assert (ours.data, our_accuracy) == (theirs.data, their_accuracy)
