"""micrograd's convention: every node, interior ones too, accumulates across backward() calls.

A second backward() then doubles the interior gradients and sends the doubled
shares on to the leaves: a convention to report, not a defect.
"""

from tests.engines import sound


class Value(sound.Value):
    def backward(self):
        order = self._topological_order()
        self.grad = 1
        for node in reversed(order):
            node._backward()
