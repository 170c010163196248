"""No backward: the gradient is the PROPERTY ``x.derivative`` of the leaf, under a name other
than grad (as in GrADim's ReverseMode).  Each Value keeps the Values built from it (``children``,
with the local partial); ``derivative`` walks forwards (iteratively) to every output built from
x and gives d(output)/dx, one entry per output, a plain number when there is one.  The number is
``value``.  Correct gradients.
"""

import math

from tests.engines.reverse_sweep import depth_first_order


class Scalar:
    def __init__(self, value):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise TypeError(f"Scalar: value must be a number, got {value!r}")
        self.value = value
        self.children = []  # (local partial, Value built from this one)

    def _lift(self, other):
        return other if isinstance(other, Scalar) else type(self)(other)

    def _op(self, value, *pairs):
        out = type(self)(value)
        for operand, partial in pairs:
            operand.children.append((partial, out))
        return out

    def __add__(self, other):
        other = self._lift(other)
        return self._op(self.value + other.value, (self, 1), (other, 1))

    def __sub__(self, other):
        other = self._lift(other)
        return self._op(self.value - other.value, (self, 1), (other, -1))

    def __mul__(self, other):
        other = self._lift(other)
        da, db = self.mul_partials(self.value, other.value)
        return self._op(self.value * other.value, (self, da), (other, db))

    @staticmethod
    def mul_partials(a, b):
        return (b, a)

    def __truediv__(self, other):
        other = self._lift(other)
        a, b = self.value, other.value
        return self._op(a / b, (self, 1 / b), (other, -(a / b) / b))

    def __neg__(self):
        return self._op(-self.value, (self, -1))

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
        return self._op(t, (self, 1 - t * t))

    @property
    def derivative(self):
        """d(output)/d(self) for every output built from self (a Value nothing was built from):
        the Values built from self in topological order (iteratively), then one forward sweep."""
        order = depth_first_order(self, lambda node: [child for _, child in node.children])
        tangent = {id(self): 1}
        entries = []
        for node in reversed(order):  # every Value before the Values built from it
            t = tangent.get(id(node), 0)
            if not node.children:
                entries.append(t)
            for p, child in node.children:
                tangent[id(child)] = tangent.get(id(child), 0) + p * t
        return entries[0] if len(entries) == 1 else entries
