"""An engine in vizgrad's manner: number and gradient are 0-d numpy arrays, and backward() adds
into each gradient in place (``grad.__iadd__``), so a gradient written as a number or a numpy
scalar breaks it.  Discovered with no adapter (a 0-d array is read as the number it holds, and a
gradient the harness writes is written as a 0-d array), so that no numpy scalar written by the
harness, which has no ``__iadd__``, is reported as vizgrad's crash (docs/audits/vizgrad.md)."""

import numpy

from tests.engines.reverse_sweep import depth_first_order


class Value:
    def __init__(self, data, _parents=(), _partials=()):
        self.data = numpy.array(float(data))
        self.grad = numpy.zeros_like(self.data)
        self._parents, self._partials = _parents, _partials

    def _wrap(self, x):
        return x if isinstance(x, Value) else type(self)(x)

    def __add__(self, other):
        other = self._wrap(other)
        return type(self)(self.data + other.data, (self, other), (1.0, 1.0))

    def __mul__(self, other):
        other = self._wrap(other)
        return type(self)(self.data * other.data, (self, other), self.mul_partials(self.data, other.data))

    @staticmethod
    def mul_partials(a, b):
        """d(a*b)/da, d(a*b)/db (a variant plants a wrong rule here)."""
        return (b, a)

    def __neg__(self):
        return self * -1.0

    def __sub__(self, other):
        return self + (-self._wrap(other))

    __radd__ = __add__
    __rmul__ = __mul__

    def backward(self):
        self.grad.__iadd__(1.0)
        for node in reversed(depth_first_order(self, lambda node: node._parents)):
            for parent, partial in zip(node._parents, node._partials):
                parent.grad.__iadd__(partial * node.grad)
