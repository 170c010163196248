"""Planted for ``chain_sweep``: backward() runs only the last 40 nodes of its topological order.

Graphs of up to 40 nodes (every per-op graph, the linearity and build-order graphs, the
stateful machine's, the MLP's) are right; the chain sweep goes 60 deep.
"""

from tests.engines import sound

LIMIT = 40


class Value(sound.Value):
    def backward(self):
        order = self._topological_order()
        for node in order:
            if node._prev:
                node.grad = 0
        self.grad = 1
        for node in list(reversed(order))[:LIMIT]:
            node._backward()
