"""``grad_on_read`` with one wrong rule: a sum of two leaves is folded into a new leaf (a
constant), so nothing flows back through ``x + w``; the gradient is still read as ``x.grad(y)``
and every other rule is right.  Discovery must still find the read (on the known graph built
with ``*``), so that the audit reports the wrong sum.
"""

from tests.engines import grad_on_read


class Value(grad_on_read.Value):
    def __add__(self, other):
        other = self._lift(other)
        if not self.parents and not other.parents:  # wrong: folds x + w into a constant
            return type(self)(self.data + other.data)
        return super().__add__(other)
