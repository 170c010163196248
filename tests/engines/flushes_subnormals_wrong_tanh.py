"""flushes_subnormals with tanh's value off by a millionth everywhere: the flush is a fact, and
a wrong value at ordinary points beside it is still a defect."""

import math

from tests.engines import flushes_subnormals


class Value(flushes_subnormals.Value):
    tanh_value = staticmethod(lambda x: math.tanh(x) * (1 + 1e-6))
