"""Two extra ops whose derivative is off by a factor of 2: ``sin`` (the catalogue knows it)
and ``bump`` (x * exp(-x * x), which it does not)."""

import math

from tests.engines import extra_ops


class Value(extra_ops.Value):
    @staticmethod
    def sin_partial(x):
        return 2 * math.cos(x)

    @staticmethod
    def bump_partial(x, e):
        return 2 * e * (1 - 2 * x * x)
