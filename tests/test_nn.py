"""Unit tests of autograd.nn: parameter counts and identity, seeding, activations, zero_grad, bad input."""

import math
import random
from fractions import Fraction as F

import pytest

from autograd import Value
from autograd.nn import MLP, Layer, Module, Neuron


def n_params(nin, nouts):
    """(inputs + 1 bias) weights per neuron, layer by layer: counted by hand, not by the library."""
    sizes = [nin, *nouts]
    return sum((sizes[i] + 1) * sizes[i + 1] for i in range(len(nouts)))


# ---------------------------------------------------------------------- parameters
@pytest.mark.parametrize("nin, nouts, expected", [(2, [4, 4, 1], 37), (2, [16, 16, 1], 337), (3, [1], 4)])
def test_parameter_count_and_identity(nin, nouts, expected):
    assert n_params(nin, nouts) == expected
    params = MLP(nin, nouts).parameters()
    assert len(params) == expected
    assert len({id(p) for p in params}) == expected  # every weight is its own object
    assert all(type(p) is Value for p in params)


def test_weights_are_independent_objects():
    model = MLP(2, [4, 4, 1])
    params = model.parameters()
    before = [p.data for p in params]
    params[0].data += 100.0
    assert [p.data for p in params[1:]] == before[1:]


def test_layer_and_neuron_parameters():
    neuron = Neuron(3, rng=1)
    assert neuron.parameters() == [*neuron.w, neuron.b]
    layer = Layer(3, 2, rng=1)
    assert len(layer.parameters()) == 2 * 4
    assert Module().parameters() == []
    Module().zero_grad()  # nothing to reset, and no error


# ---------------------------------------------------------------------- seeding
def weights(model):
    return [p.data for p in model.parameters()]


def test_same_seed_same_weights_other_seed_other_weights():
    assert weights(MLP(2, [4, 4, 1], seed=5)) == weights(MLP(2, [4, 4, 1], seed=5))
    assert weights(MLP(2, [4, 4, 1], seed=5)) != weights(MLP(2, [4, 4, 1], seed=6))
    assert weights(MLP(2, [4, 4, 1])) == weights(MLP(2, [4, 4, 1], seed=0))  # the default seed is 0


def test_weights_are_spread_out():
    ws = [p.data for p in MLP(2, [16, 16, 1], seed=3).parameters()]
    assert len(set(ws)) > 300  # not all one value (biases may share a starting value)
    assert all(-1.0 <= w <= 1.0 for w in ws)


def test_seeding_leaves_the_global_random_state_alone():
    random.seed(1234)
    state = random.getstate()
    MLP(2, [16, 16, 1], seed=7)
    Neuron(5, rng=3)
    Layer(4, 3, rng=random.Random(2))
    assert random.getstate() == state


def test_global_random_state_does_not_change_the_weights():
    random.seed(1)
    first = weights(MLP(2, [4, 1], seed=9))
    random.seed(2)
    random.random()
    assert weights(MLP(2, [4, 1], seed=9)) == first


def test_neuron_accepts_a_generator_or_a_seed():
    assert weights(Neuron(3, rng=random.Random(4))) == weights(Neuron(3, rng=4))


# ---------------------------------------------------------------------- forward: the activated output
def set_neuron(neuron, ws, b):
    for p, w in zip(neuron.w, ws, strict=True):
        p.data = w
    neuron.b.data = b


@pytest.mark.parametrize(
    "ws, b, x",
    [([0.5, -1.25, 2.0], 0.1, [1.0, 0.4, -0.3]), ([1.5, 0.25, -0.75], -0.2, [2.0, -1.0, 0.5])],
)
def test_neuron_returns_its_activated_output(ws, b, x):
    pre = b + ws[0] * x[0] + ws[1] * x[1] + ws[2] * x[2]  # by hand
    for nonlin, act in [("tanh", math.tanh), ("relu", lambda z: max(z, 0.0)), ("linear", lambda z: z)]:
        neuron = Neuron(3, nonlin)
        set_neuron(neuron, ws, b)
        out = neuron(x)
        assert isinstance(out, Value)
        assert out.data == pytest.approx(act(pre), rel=1e-15, abs=1e-15), nonlin


def test_relu_neuron_cuts_negative_pre_activations():
    neuron = Neuron(2, "relu")
    set_neuron(neuron, [1.0, 1.0], -5.0)
    assert neuron([1.0, 2.0]).data == 0  # pre-activation -2
    set_neuron(neuron, [1.0, 1.0], 0.5)
    assert neuron([1.0, 2.0]).data == 3.5


def test_tanh_is_the_default_nonlinearity():
    neuron = Neuron(2)
    set_neuron(neuron, [2.0, 3.0], 0.0)
    assert neuron([1.0, 1.0]).data == pytest.approx(math.tanh(5.0), rel=1e-15)


def test_linear_neuron_is_exact_with_fractions():
    neuron = Neuron(2, "linear")
    set_neuron(neuron, [F(1, 3), F(-2, 5)], F(1, 7))
    out = neuron([F(3, 4), 2])
    assert out.data == F(1, 7) + F(1, 3) * F(3, 4) + F(-2, 5) * 2
    out.backward()
    assert [p.grad for p in neuron.parameters()] == [F(3, 4), 2, 1]


def test_neuron_gradient_through_tanh():
    neuron = Neuron(2, "tanh")
    set_neuron(neuron, [0.3, -0.8], 0.25)
    x = [Value(1.5), Value(-0.5)]
    out = neuron(x)
    out.backward()
    pre = 0.25 + 0.3 * 1.5 + (-0.8) * (-0.5)
    slope = 1 / math.cosh(pre) ** 2
    assert neuron.w[0].grad == pytest.approx(slope * 1.5, rel=1e-12)
    assert neuron.w[1].grad == pytest.approx(slope * -0.5, rel=1e-12)
    assert neuron.b.grad == pytest.approx(slope, rel=1e-12)
    assert x[0].grad == pytest.approx(slope * 0.3, rel=1e-12)  # inputs get gradient too
    assert x[1].grad == pytest.approx(slope * -0.8, rel=1e-12)


def test_layer_outputs_one_value_per_neuron():
    layer = Layer(2, 3, nonlin="relu", rng=5)
    x = [0.5, -1.5]
    outs = layer(x)
    assert len(outs) == 3
    for out, neuron in zip(outs, layer.neurons, strict=True):
        pre = neuron.b.data + neuron.w[0].data * x[0] + neuron.w[1].data * x[1]
        assert out.data == pytest.approx(max(pre, 0.0), rel=1e-15, abs=1e-15)


def test_mlp_forward_by_hand():
    model = MLP(2, [3, 1], seed=11)
    hidden, last = model.layers
    x = [0.7, -0.2]
    h = [math.tanh(n.b.data + n.w[0].data * x[0] + n.w[1].data * x[1]) for n in hidden.neurons]
    (out_neuron,) = last.neurons
    expected = out_neuron.b.data + sum(w.data * hi for w, hi in zip(out_neuron.w, h, strict=True))
    out = model(x)
    assert isinstance(out, Value)  # one output neuron: the Value itself, linear (no tanh)
    assert out.data == pytest.approx(expected, rel=1e-14)


def test_mlp_relu_hidden_layers_and_several_outputs():
    model = MLP(2, [4, 2], nonlin="relu", seed=2)
    x = [1.0, -0.5]
    outs = model(x)
    assert isinstance(outs, list) and len(outs) == 2
    h = [max(n.b.data + n.w[0].data * x[0] + n.w[1].data * x[1], 0.0) for n in model.layers[0].neurons]
    for out, n in zip(outs, model.layers[1].neurons, strict=True):
        expected = n.b.data + sum(w.data * hi for w, hi in zip(n.w, h, strict=True))
        assert out.data == pytest.approx(expected, rel=1e-14, abs=1e-15)
    assert [n.nonlin for layer in model.layers for n in layer.neurons] == ["relu"] * 4 + ["linear"] * 2


# ---------------------------------------------------------------------- gradients and zero_grad
SAMPLES = [([0.5, 1.0], 1.0), ([-1.0, 0.25], -1.0), ([0.0, -0.5], 1.0)]


def loss_of(model, samples=SAMPLES):
    total = Value(0)
    for x, y in samples:
        total = total + (model(x) - y) ** 2
    return total


def test_zero_grad_resets_every_parameter():
    model = MLP(2, [4, 4, 1], seed=1)
    loss_of(model).backward()
    assert sum(p.grad != 0 for p in model.parameters()) > 30
    model.zero_grad()
    assert all(p.grad == 0 for p in model.parameters())


def test_backward_twice_doubles_parameter_gradients():
    model = MLP(2, [4, 4, 1], seed=1)
    loss = loss_of(model)
    loss.backward()
    first = [p.grad for p in model.parameters()]
    loss.backward()
    # Floats: g + (s1 + s2 + ...) rounds differently from 2 (s1 + s2 + ...), so equal to rounding;
    # the exact doubling is checked with Fractions below.
    assert [p.grad for p in model.parameters()] == [
        pytest.approx(2 * g, rel=1e-12, abs=1e-300) for g in first
    ]
    model.zero_grad()
    loss.backward()
    assert [p.grad for p in model.parameters()] == first  # zeroed: the same pass again, bit for bit


def test_backward_twice_doubles_parameter_gradients_exactly_with_fractions():
    model = MLP(2, [3, 2, 1], nonlin="linear", seed=1)
    for i, p in enumerate(model.parameters()):
        p.data = F(i % 5 - 2, i % 3 + 2)
    loss = loss_of(model, [([F(1, 2), 1], 1), ([-1, F(1, 4)], -1), ([0, F(-1, 2)], 1)])
    loss.backward()
    first = [p.grad for p in model.parameters()]
    assert all(type(g) in (int, F) for g in first) and any(g != 0 for g in first)
    loss.backward()
    assert [p.grad for p in model.parameters()] == [2 * g for g in first]


def test_gradient_matches_central_differences():
    model = MLP(2, [3, 1], seed=4)
    loss_of(model).backward()
    h = 1e-6
    for p in model.parameters():
        p0 = p.data
        p.data = p0 + h
        up = loss_of(model).data
        p.data = p0 - h
        down = loss_of(model).data
        p.data = p0
        assert p.grad == pytest.approx((up - down) / (2 * h), rel=1e-5, abs=1e-8)


# ---------------------------------------------------------------------- bad arguments and reprs
@pytest.mark.parametrize(
    "make, words",
    [
        (lambda: Neuron(0), ["Neuron", "nin", "0"]),
        (lambda: Neuron(-2), ["Neuron", "nin", "-2"]),
        (lambda: Neuron(2.0), ["Neuron", "nin", "2.0"]),
        (lambda: Neuron(True), ["Neuron", "nin", "True"]),
        (lambda: Neuron("3"), ["Neuron", "nin", "'3'"]),
        (lambda: Neuron(2, "sigmoid"), ["Neuron", "nonlin", "'sigmoid'"]),
        (lambda: Layer(2, 0), ["Layer", "nout", "0"]),
        (lambda: Layer(2, 1.5), ["Layer", "nout", "1.5"]),
        (lambda: Layer(0, 3), ["Neuron", "nin", "0"]),
        (lambda: MLP(2, []), ["MLP", "nouts"]),
        (lambda: MLP(0, [1]), ["nin", "0"]),
        (lambda: MLP(2, [4, 0]), ["nout", "0"]),
        (lambda: MLP(2, [4, 1], nonlin="sigmoid"), ["nonlin", "'sigmoid'"]),
        (lambda: MLP(2, [1], nonlin="sigmoid"), ["nonlin", "'sigmoid'"]),  # even with no hidden layer
    ],
)
def test_bad_constructor_arguments(make, words):
    with pytest.raises(ValueError) as info:
        make()
    for word in words:
        assert word in str(info.value), f"{word!r} missing from {info.value}"


def test_mlp_nouts_must_be_a_list_of_sizes():
    with pytest.raises(TypeError, match=r"MLP: nouts must be a sequence of layer sizes, got 5"):
        MLP(2, 5)


def test_wrong_number_of_inputs():
    with pytest.raises(ValueError, match=r"Neuron: expected 2 inputs, got 3"):
        Neuron(2)([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match=r"expected 2 inputs, got 1"):
        MLP(2, [3, 1])([1.0])


def test_reprs():
    assert repr(Neuron(3, "relu")) == "Neuron(3, nonlin='relu')"
    assert repr(Layer(2, 4)) == "Layer(2, 4, nonlin='tanh')"
    assert repr(MLP(2, [4, 4, 1])) == "MLP(2, [4, 4, 1])"
