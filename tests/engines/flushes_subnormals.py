"""Subnormal numbers flushed to zero, as XLA does on the CPU (JAX: ``x * 1.0`` at 5e-324 is 0.0):
every number a Value holds, given or computed, below the smallest normal float becomes 0.  One
engine-wide choice, not a defect of each op: the edge probe must report it once."""

import math

from tests.engines import sound

SMALLEST_NORMAL = 2.2250738585072014e-308


def flush(x):
    return 0.0 * x if abs(x) < SMALLEST_NORMAL else x


class Value(sound.Value):
    def __init__(self, data, parents=()):
        super().__init__(flush(data) if isinstance(data, float) and math.isfinite(data) else data, parents)
