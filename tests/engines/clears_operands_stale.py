"""Planted: the gradient a value loses when it enters a new operation comes back in the next pass
that reaches it (kept aside, not dropped).  A defect that only a model of the clearing convention
can see: the cleared gradient reads 0, as the convention says, until a pass adds the old one back.
"""

from tests.engines import clears_operands


class Value(clears_operands.Value):
    def _with_partials(self, data, parents, partials):
        for parent in parents:
            parent.kept = getattr(parent, "kept", 0) + parent.grad
        return super()._with_partials(data, parents, partials)

    def backward(self):
        for node in self._topological_order():
            if not node._prev:
                node.grad += getattr(node, "kept", 0)
                node.kept = 0
        super().backward()
