"""tanh as (1 - e**(-2|x|)) / (1 + e**(-2|x|)): no overflow, but 0.0 for |x| below ~1e-17.

tanh(x) = x to double precision there, so tanh(1e-300) = 0.0 is a wrong value.
"""

import math

from tests.engines import sound


def tanh_value(x):
    e = math.exp(-2 * abs(x))
    return math.copysign((1 - e) / (1 + e), x)


class Value(sound.Value):
    tanh_value = staticmethod(tanh_value)
