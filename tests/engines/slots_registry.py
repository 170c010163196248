"""An engine without weak references (``__slots__`` and no ``__weakref__``, as compiled engines),
whose nodes all stay alive in a class-level registry: a leak only memory measurement can see.

Rules are plain functions of the node (no closures, so no reference cycles); ``+``, ``*`` and
``backward()`` only.
"""

from tests.engines.sound import check_number, topological_order


def _add(out):
    a, b = out._prev
    a.grad += out.grad
    b.grad += out.grad


def _mul(out):
    a, b = out._prev
    a.grad += b.data * out.grad
    b.grad += a.data * out.grad


REGISTRY = []


class Value:
    __slots__ = ("data", "grad", "_prev", "_rule")

    def __init__(self, data, parents=(), rule=None):
        self.data = check_number(data)
        self.grad = 0
        self._prev = tuple(parents)
        self._rule = rule
        REGISTRY.append(self)

    def _lift(self, other):
        return other if isinstance(other, Value) else Value(other)

    def __add__(self, other):
        other = self._lift(other)
        return Value(self.data + other.data, (self, other), _add)

    def __mul__(self, other):
        other = self._lift(other)
        return Value(self.data * other.data, (self, other), _mul)

    __radd__ = __add__
    __rmul__ = __mul__

    def backward(self):
        order = topological_order(self, lambda node: node._prev)
        for node in order:
            if node._prev:
                node.grad = 0
        self.grad = 1
        for node in reversed(order):
            if node._rule is not None:
                node._rule(node)
