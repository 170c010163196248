"""An engine that computes in float32 (as simplegrad does): every number it holds, leaves,
results and gradients, is rounded to the nearest float32 (``Value(0.1).data`` is
0.10000000149011612).  Correct gradients for that precision.  Otherwise ``sound.Value``.
"""

import math
import struct

from tests.engines import sound

FLOAT32_MAX = 3.4028234663852886e38


def f32(x):
    """``x`` rounded to the nearest float32 (beyond its range: infinity, as float32 arithmetic gives)."""
    x = float(x)
    if not math.isfinite(x):
        return x
    try:
        return struct.unpack("f", struct.pack("f", x))[0]
    except OverflowError:  # beyond FLOAT32_MAX once rounded
        return math.copysign(math.inf, x)


class Value(sound.Value):
    def __init__(self, data, parents=()):
        super().__init__(data, parents)
        self.data = f32(self.data)

    def _with_partials(self, data, parents, partials):
        out = type(self)(data, parents)

        def backward():
            for parent, partial in zip(parents, partials, strict=True):
                parent.grad = f32(parent.grad + f32(f32(partial) * out.grad))

        out._backward = backward
        return out
