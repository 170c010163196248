"""acosh with asinh's slope, 1 / sqrt(x^2 + 1) for 1 / sqrt(x^2 - 1): a rule wrong at every point
(by a factor sqrt((x^2 + 1) / (x^2 - 1)), 1.61 at 1.5), its value right.  The extra-op check must
identify the method as the catalogue's acosh by its values and find the wrong gradient."""

import math

from tests.engines import sound


class Value(sound.Value):
    def acosh(self):
        x = self.data
        return self._with_partials(math.acosh(x), (self,), (1 / math.sqrt(x * x + 1),))
