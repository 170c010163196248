"""The naive sigmoid 1 / (1 + exp(-x)): exp(1000) overflows, so sigmoid(-1000) raises.

sigmoid(-1000) is a finite float (0.0 after rounding): a crash inside the domain.
"""

import math

from tests.engines import sound


class Value(sound.Value):
    sigmoid_value = staticmethod(lambda x: 1 / (1 + math.exp(-x)))
