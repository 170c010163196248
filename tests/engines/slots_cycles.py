"""An engine without weak references (``__slots__`` and no ``__weakref__``) whose rules are
closures capturing their own output node, as micrograd's: every node is in a reference cycle,
so a dropped graph is freed only by the cyclic garbage collector (a fact memory shows, not a
leak).  ``+``, ``*`` and ``backward()`` as :mod:`tests.engines.slots_registry`, without its
registry.
"""

from tests.engines import slots_registry
from tests.engines.sound import check_number


class Value(slots_registry.Value):
    __slots__ = ()

    def __init__(self, data, parents=(), rule=None):  # (no registry)
        self.data = check_number(data)
        self.grad = 0
        self._prev = tuple(parents)
        self._rule = rule

    def _lift(self, other):
        return other if isinstance(other, Value) else Value(other)

    def __add__(self, other):
        other = self._lift(other)
        out = Value(self.data + other.data, (self, other))

        def rule(_):  # captures out: out -> rule -> out
            self.grad += out.grad
            other.grad += out.grad

        out._rule = rule
        return out

    def __mul__(self, other):
        other = self._lift(other)
        out = Value(self.data * other.data, (self, other))

        def rule(_):
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._rule = rule
        return out

    __radd__ = __add__
    __rmul__ = __mul__
