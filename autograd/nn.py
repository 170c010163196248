"""A small neural-network layer on top of the engine: Neuron, Layer, MLP.

Every weight is its own ``Value`` (never ``[Value(...)] * n``, which would make
n references to one object), and initialisation draws from a ``random.Random``
built from the given seed, so it is reproducible and leaves the global random
state alone.  A neuron is ``act(dot(w, x, b))``: one fused ``dot`` node plus
one activation node, computing exactly ``act(b + w0*x0 + w1*x1 + ...)``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from autograd.engine import Operand, Value, _as_value, dot

__all__ = ["MLP", "Layer", "Module", "Neuron"]

NONLINEARITIES = ("tanh", "relu", "linear")


def _rng(rng: random.Random | int) -> random.Random:
    """A private generator: an int seeds a new one; the global one is never used."""
    return rng if isinstance(rng, random.Random) else random.Random(rng)


class Module:
    """Anything with parameters."""

    def parameters(self) -> list[Value]:
        return []

    def zero_grad(self) -> None:
        """Reset every parameter's gradient to 0 (leaves accumulate otherwise)."""
        for p in self.parameters():
            p.grad = 0


class Neuron(Module):
    """``nonlin(b + sum(w_i * x_i))`` with ``nonlin`` one of tanh (default), relu, linear."""

    def __init__(self, nin: int, nonlin: str = "tanh", rng: random.Random | int = 0) -> None:
        if type(nin) is not int or nin < 1:
            raise ValueError(f"Neuron: nin must be a positive int, got {nin!r}")
        if nonlin not in NONLINEARITIES:
            raise ValueError(f"Neuron: nonlin must be one of {NONLINEARITIES}, got {nonlin!r}")
        rng = _rng(rng)
        self.w = [Value(rng.uniform(-1.0, 1.0)) for _ in range(nin)]
        self.b = Value(0.0)
        self.nonlin = nonlin

    def __call__(self, x: Sequence[Operand]) -> Value:
        if len(x) != len(self.w):
            raise ValueError(f"Neuron: expected {len(self.w)} inputs, got {len(x)}")
        act = dot(self.w, x, self.b)
        if self.nonlin == "tanh":
            return act.tanh()
        if self.nonlin == "relu":
            return act.relu()
        return act

    def parameters(self) -> list[Value]:
        return [*self.w, self.b]

    def __repr__(self) -> str:
        return f"Neuron({len(self.w)}, nonlin={self.nonlin!r})"


class Layer(Module):
    """``nout`` neurons that all see the same inputs."""

    def __init__(self, nin: int, nout: int, nonlin: str = "tanh", rng: random.Random | int = 0) -> None:
        if type(nout) is not int or nout < 1:
            raise ValueError(f"Layer: nout must be a positive int, got {nout!r}")
        rng = _rng(rng)
        self.neurons = [Neuron(nin, nonlin, rng) for _ in range(nout)]

    def __call__(self, x: Sequence[Operand]) -> list[Value]:
        if len(x) == len(self.neurons[0].w):  # (a wrong length is for the neurons to report)
            # Numbers among the inputs become constants once here, not once in every neuron's dot.
            x = [v if type(v) is Value else _as_value(v, "dot") for v in x]
        return [n(x) for n in self.neurons]

    def parameters(self) -> list[Value]:
        return [p for n in self.neurons for p in n.parameters()]

    def zero_grad(self) -> None:
        # zero_grad runs at every training step: each neuron resets its own short list
        # rather than this and MLP flattening all the weights into one (2x faster)
        for n in self.neurons:
            n.zero_grad()

    def __repr__(self) -> str:
        return f"Layer({len(self.neurons[0].w)}, {len(self.neurons)}, nonlin={self.neurons[0].nonlin!r})"


class MLP(Module):
    """A multi-layer perceptron: ``MLP(2, [16, 16, 1])``.

    Hidden layers use ``nonlin`` (tanh by default); the last layer is linear.
    Calling it returns a list of outputs, or the single Value when the last
    layer has one neuron.
    """

    def __init__(self, nin: int, nouts: Sequence[int], nonlin: str = "tanh", seed: int = 0) -> None:
        if not isinstance(nouts, Sequence):
            raise TypeError(f"MLP: nouts must be a sequence of layer sizes, got {nouts!r}")
        if not nouts:
            raise ValueError("MLP: nouts must name at least one layer size")
        if nonlin not in NONLINEARITIES:  # checked here too: MLP(2, [1]) has no hidden layer to check it
            raise ValueError(f"MLP: nonlin must be one of {NONLINEARITIES}, got {nonlin!r}")
        rng = random.Random(seed)
        sizes = [nin, *nouts]
        self.layers = [
            Layer(sizes[i], sizes[i + 1], nonlin if i < len(nouts) - 1 else "linear", rng)
            for i in range(len(nouts))
        ]

    def __call__(self, x: Sequence[Operand]) -> Value | list[Value]:
        out = self.layers[0](x)
        for layer in self.layers[1:]:
            out = layer(out)
        return out[0] if len(out) == 1 else out

    def parameters(self) -> list[Value]:
        return [p for layer in self.layers for p in layer.parameters()]

    def zero_grad(self) -> None:
        for layer in self.layers:  # (see Layer.zero_grad)
            layer.zero_grad()

    def __repr__(self) -> str:
        sizes = [len(layer.neurons) for layer in self.layers]
        return f"MLP({len(self.layers[0].neurons[0].w)}, {sizes})"
