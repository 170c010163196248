"""Planted for ``build_order`` (and what else builds leaves late): a tape that assumes leaves come first.

Every Value is numbered as it is made; ``backward()`` from ``y`` runs only the nodes made
after the last leaf made before ``y``: right whenever a graph's leaves are all made before
its first op (as the per-op searches build them), wrong when a leaf is made later (another
build order, the coefficients of ``linearity``, the leaves the stateful machine adds).
"""

import itertools

from tests.engines import sound

_COUNTER = itertools.count()
_LEAVES: list[int] = []  # the numbers of the leaves, in order


class Value(sound.Value):
    def __init__(self, data, parents=()):
        super().__init__(data, parents)
        self._number = next(_COUNTER)
        if not parents:
            _LEAVES.append(self._number)

    def backward(self):
        order = self._topological_order()
        last_leaf = max((n for n in _LEAVES if n < self._number), default=-1)
        for node in order:
            if node._prev:
                node.grad = 0
        self.grad = 1
        for node in reversed(order):
            if node._number > last_leaf or node is self:
                node._backward()
