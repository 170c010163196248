"""sigmoid as 1 - e / (1 + e) with e = exp(-x) overflowing to inf (as numpy's exp does).

For x below ~-709, e is inf and inf / inf is NaN: sigmoid(-1e300) is NaN, where the exact
value is 0 (a float) and the derivative 0: a wrong value, not a range limit.
"""

import math

from tests.engines import sound


def exp_to_inf(x):
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def sigmoid_value(x):
    e = exp_to_inf(-x)
    return 1 - e / (1 + e)


class Value(sound.Value):
    check = staticmethod(lambda x: x)  # keeps what it computes, NaN too (as numpy's arrays do)
    sigmoid_value = staticmethod(sigmoid_value)
