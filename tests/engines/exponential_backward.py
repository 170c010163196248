"""A backward that walks every path instead of every node: right gradients, exponential time.

Each node hands its share of the gradient to its parents at once, recursively, once per
path that reaches it (no topological order): fine on a chain, 2**k visits on a ladder of
k shared diamonds.  Gradients are exact, so only the time probe can tell.
"""

from tests.engines import sound


class Value(sound.Value):
    def _with_partials(self, data, parents, partials):
        out = super()._with_partials(data, parents, partials)
        out._partials = tuple(partials)
        return out

    def backward(self):
        for node in self._topological_order():
            if node._prev:
                node.grad = 0  # interior nodes: this pass only, as in sound.Value
        stack = [(self, 1)]  # (node, the share of d out / d node arriving along one path)
        while stack:
            node, share = stack.pop()
            node.grad += share
            stack.extend((p, share * d) for p, d in zip(node._prev, getattr(node, "_partials", ())))
