"""Builds that alternate between two summation orders: exactly two different gradients.

The odd-numbered ``backward()`` calls list each node's inputs in order, the even-numbered ones in
reverse (both valid topological orders), so a node that fans out gets its gradient shares added
up in one of two orders, and float sums differ.  Every interpreter gives the same two, whatever
its hash seed: like an engine ordered by a set that happens to have two iteration orders, it is
nondeterministic with just two variants.
"""

from tests.engines import sound


class Value(sound.Value):
    passes = 0  # backward() calls so far, in this interpreter

    def _topological_order(self):
        Value.passes += 1
        reverse = Value.passes % 2 == 0
        return sound.topological_order(self, lambda node: node._prev[::-1] if reverse else node._prev)
