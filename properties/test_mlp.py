"""Gradients of a small MLP's loss (autograd.nn) against sympy.

The network is built with :class:`autograd.nn.MLP`; its loss is mirrored as a
:class:`~autograd.testing.graph.Graph` (same parameters, same order of
operations), whose sympy derivative is the reference.
"""

import functools
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from autograd import vsum
from autograd.datasets import make_moons
from autograd.nn import MLP
from autograd.testing import checks
from autograd.testing import strategies as gs
from autograd.testing.checks import mlp_loss_graph
from autograd.testing.oracles import assert_grads_exact, assert_grads_symbolic


def _layers(model):
    return [[([w.data for w in n.w], n.b.data) for n in layer.neurons] for layer in model.layers]


def _hinge_loss(model, xs, ys):
    # the loss mlp_loss_graph describes: mean(relu(1 - y * score))
    losses = [(1 - y * model(x)).relu() for x, y in zip(xs, ys, strict=True)]
    return Fraction(1, len(losses)) * vsum(losses)


def _check_parameters_against(graph, model, oracle):
    """The oracle's verdict on the graph, applied to the model's own gradients."""
    report = oracle(graph)  # our engine on the mirrored graph: checks the engine
    params = model.parameters()
    for p, row in zip(params, report.rows[: len(params)], strict=True):
        assert p.grad == row.engine, f"nn.MLP parameter grad {p.grad!r} != graph grad {row.engine!r}"


@given(st.integers(0, 10_000), st.sampled_from(["tanh", "relu"]), st.integers(2, 3))
def test_mlp_loss_gradients_match_sympy(seed, nonlin, n):
    model = MLP(2, [3, 3, 1], nonlin=nonlin, seed=seed)
    xs, labels = make_moons(n, noise=0.1, seed=seed)
    ys = [float(y) for y in labels]
    _hinge_loss(model, xs, ys).backward()
    graph = mlp_loss_graph(_layers(model), xs, ys, nonlin)
    # nn.MLP starts with zero biases, so relu inputs are often exactly 0, in floats and exactly:
    # our engine's relu'(0) = 0 is the reference's convention, so those points are judged too
    oracle = functools.partial(assert_grads_symbolic, relu_grad_at_zero=0)
    gs.reject_inconclusive(_check_parameters_against, graph, model, oracle)


fractions = st.builds(Fraction, st.integers(-6, 6), st.sampled_from([1, 2, 4]))


@given(st.data(), st.integers(1, 3))
def test_tiny_relu_net_gradients_equal_sympy_exactly(data, n):
    model = MLP(2, [3, 1], nonlin="relu")
    for p in model.parameters():
        p.data = data.draw(fractions)
    xs = [[data.draw(fractions), data.draw(fractions)] for _ in range(n)]
    ys = [data.draw(st.sampled_from([-1, 1])) for _ in range(n)]
    _hinge_loss(model, xs, ys).backward()
    graph = mlp_loss_graph(_layers(model), xs, ys, "relu")
    _check_parameters_against(graph, model, assert_grads_exact)


@given(gs.mlp_graphs())
def test_random_mlp_graphs_match_sympy(graph):
    gs.reject_inconclusive(checks.check_mlp, None, graph)
