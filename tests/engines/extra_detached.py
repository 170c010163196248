"""Two extra ops whose output is detached from the graph (a new leaf): ``sin`` (known to the
catalogue) and ``bump`` (unknown).  Values are right; nothing flows back through them."""

import math

from tests.engines import extra_ops


class Value(extra_ops.Value):
    def sin(self):
        return type(self)(math.sin(self.data))

    def bump(self):
        x = self.data
        return type(self)(x * math.exp(-x * x))
