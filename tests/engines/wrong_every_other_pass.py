"""Planted for the second vote: every second ``backward()`` pass sends 1.5 times the gradient.

A hidden counter, like an engine whose gradients depend on the order in which its graph was
built: two runs of one graph give different numbers, so a judge that runs the engine again for
its second opinion judges another run than the first opinion did.
"""

from tests.engines import sound


class Value(sound.Value):
    passes = 0  # backward() calls so far, in this interpreter
    seed = 1.5  # the output's gradient on every second pass (a subclass may choose another)

    def backward(self):
        Value.passes += 1
        order = self._topological_order()
        for node in order:
            if node._prev:
                node.grad = 0
        self.grad = self.seed if Value.passes % 2 == 0 else 1
        for node in reversed(order):
            node._backward()
