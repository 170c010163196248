"""gelu as ``x / 2 * (1 + erf(x / sqrt 2))``, the textbook form: far left ``1 + erf`` cancels
to 0 (at -16.63497187569737 the value is -0.0 for -3.2349899964885561e-61), as PyTorch's
exact gelu and one engine of the package index do."""

import math

from tests.engines import sound


class Value(sound.Value):
    def gelu(self):
        x = self.data
        cdf = (1 + math.erf(x / math.sqrt(2))) / 2
        pdf = math.exp(-x * x / 2) / math.sqrt(2 * math.pi)
        return self._with_partials(x * cdf, (self,), (cdf + x * pdf,))
