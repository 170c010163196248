"""micrograd's tanh, (e**(2x) - 1) / (e**(2x) + 1): math.exp(2x) overflows for x above ~355.

tanh(1e300) is 1 and its derivative 0: ordinary numbers, so the OverflowError is a crash,
not a range limit (only an intermediate left the floats).
"""

import math

from tests.engines import sound


def tanh_value(x):
    e = math.exp(2 * x)
    return (e - 1) / (e + 1)


class Value(sound.Value):
    tanh_value = staticmethod(tanh_value)
