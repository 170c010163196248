"""An engine whose names are not micrograd's: class ``Scalar``, ``.value``, ``.gradient``,
``backwards()``.  Correct otherwise; the audit must find these names by behaviour.
"""

import math

from tests.engines.sound import topological_order


class Scalar:
    def __init__(self, value, inputs=(), partials=()):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"Scalar: needs an int or float, got {value!r}")
        if not math.isfinite(value):
            raise ValueError(f"Scalar: needs a finite number, got {value!r}")
        self.value = value
        self.gradient = 0
        self.inputs = inputs
        self.partials = partials

    @staticmethod
    def of(x):
        return x if isinstance(x, Scalar) else Scalar(x)

    def __add__(self, other):
        other = Scalar.of(other)
        return Scalar(self.value + other.value, (self, other), (1, 1))

    __radd__ = __add__

    def __mul__(self, other):
        other = Scalar.of(other)
        return Scalar(self.value * other.value, (self, other), (other.value, self.value))

    __rmul__ = __mul__

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        return self + -Scalar.of(other)

    def __rsub__(self, other):
        return Scalar.of(other) - self

    def tanh(self):
        t = math.tanh(self.value)
        return Scalar(t, (self,), (1 - t * t,))

    def backwards(self):
        order = topological_order(self, lambda node: node.inputs)
        for node in order:
            if node.inputs:
                node.gradient = 0
        self.gradient = 1
        for node in reversed(order):
            for i, p in zip(node.inputs, node.partials):
                i.gradient += p * node.gradient
