"""An engine without weak references (``__slots__`` and no ``__weakref__``) whose every Value
keeps the one made before it alive (a creation-order chain "for debugging"): nothing is ever
freed, and the memory kept is exactly the graphs' (no registry list growing by chunks), so a
leak of one graph's memory per graph, clean enough to be measured.  ``+``, ``*`` and
``backward()`` by the rules of :mod:`tests.engines.slots_registry`, without its registry.
"""

from tests.engines import slots_registry
from tests.engines.sound import check_number

_newest = None  # the last Value made; it holds the one before, and so on


class Value:
    __slots__ = ("data", "grad", "_prev", "_rule", "_older")

    def __init__(self, data, parents=(), rule=None):
        global _newest
        self.data = check_number(data)
        self.grad = 0
        self._prev = tuple(parents)
        self._rule = rule
        self._older, _newest = _newest, self

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return Value(self.data + other.data, (self, other), slots_registry._add)

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return Value(self.data * other.data, (self, other), slots_registry._mul)

    __radd__ = __add__
    __rmul__ = __mul__
    backward = slots_registry.Value.backward
