"""log clamps its argument to at least 1e-10 (a "safe log" seen in real engines).

log(1e-20) is -23.03 instead of -46.05 with gradient 1e10 instead of 1e20, and log(0)
and log(-1) silently return -23.03: generated graphs keep log's argument above 0.1, so
only the edge points (a wrong value and gradient) and the out-of-domain points (a finite
number where there is none) see it.
"""

import math

from tests.engines import sound

FLOOR = 1e-10


class Value(sound.Value):
    def log(self):
        x = max(self.data, FLOOR)
        return self._with_partials(math.log(x), (self,), (1 / x,))
