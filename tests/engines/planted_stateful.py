"""Planted for ``stateful``: a float engine whose zeroed gradients come back (issue 15's zero_grad bug).

backward() keeps each leaf's running total in a shadow accumulator and writes it to
``.grad``; setting ``v.grad = 0`` does not reset the shadow, so the next backward() brings
the old gradient back.  Only the stateful machine zeroes gradients between passes.
Numbers are floats (Fractions are made floats): the machine runs on floats.
"""

from tests.engines import sound


class Value(sound.Value):
    check = staticmethod(lambda x: float(sound.check_number(x)))

    def backward(self):
        order = self._topological_order()
        # every leaf, the output too when it is one: each write of backward() goes through the
        # shadow, so that the zeroing it misses is the one defect
        leaves = [node for node in order if not node._prev]
        before = [leaf.grad for leaf in leaves]
        super().backward()
        for leaf, was in zip(leaves, before):
            leaf._shadow = getattr(leaf, "_shadow", 0.0) + (leaf.grad - was)
            leaf.grad = leaf._shadow
