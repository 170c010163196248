"""An engine without weak references whose nodes hold no reference cycles (rules are plain
functions of the node, as :mod:`tests.engines.slots_registry`, without its registry), but whose
every op leaves a trace record behind: 100 small lists and the record itself, in a reference
cycle.  Nodes are freed by reference counting; the records only by the cyclic collector, and
they are most of a graph's memory: a fact memory shows (``reference_cycles``).

A reproducer graph of this engine makes some 1,400 such objects, twice the collector's
first threshold (700): with the collector on, it runs during the graph and frees the records
made so far, so a reproducer must turn it off to show them.
"""

from tests.engines import slots_registry
from tests.engines.sound import check_number

RECORD = 100  # lists per op's trace record


def _trace(op):
    record = [[op] for _ in range(RECORD)]
    record.append(record)  # record -> record: garbage only the cyclic collector frees


class Value:
    __slots__ = ("data", "grad", "_prev", "_rule")

    def __init__(self, data, parents=(), rule=None):
        self.data = check_number(data)
        self.grad = 0
        self._prev = tuple(parents)
        self._rule = rule

    def _lift(self, other):
        return other if isinstance(other, Value) else Value(other)

    def __add__(self, other):
        other = self._lift(other)
        _trace("add")
        return Value(self.data + other.data, (self, other), slots_registry._add)

    def __mul__(self, other):
        other = self._lift(other)
        _trace("mul")
        return Value(self.data * other.data, (self, other), slots_registry._mul)

    __radd__ = __add__
    __rmul__ = __mul__
    backward = slots_registry.Value.backward
