"""Two wrong gradients of different severity: fix the first one first.

``tanh``'s derivative has the wrong sign everywhere (``-(1 - t*t)``): wrong at ordinary points.
``log``'s derivative is off by one part in a million where x > 1e200 only (``1/x`` is then
tiny): inaccurate at the extremes, well beyond the derived tolerance and what central
differences resolve (about 1e-10), so a confirmed defect all the same.
"""

from tests.engines import sound


class Value(sound.Value):
    def tanh(self):
        t = self.tanh_value(self.data)
        return self._with_partials(t, (self,), (-(1 - t * t),))

    def log(self):
        out = super().log()
        if self.data > 1e200:
            slope = (1 / self.data) * (1 + 1e-6)
            return self._with_partials(out.data, (self,), (slope,))
        return out
