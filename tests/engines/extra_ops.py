"""Correct ops beyond the table, some under other names: what the audit must identify by behaviour.

``ln``, ``sigmod`` (sic) and ``reLU`` are table ops renamed; ``sin``, ``softsign``,
``lrelu`` (leaky relu, slope 0.01), ``hypot`` (binary, sqrt(x*x + y*y)), ``abs(v)`` and ``+v``
are in the catalogue; ``bump`` (x * exp(-x * x)) is not.  Nothing here is wrong:
the audit must find no defect (``detach`` stops the gradient on purpose).
The fixtures ``extra_*`` change one thing each.
"""

import math

from tests.engines import sound


class Value(sound.Value):
    def ln(self):
        return self.log()

    def sigmod(self):
        return self.sigmoid()

    def reLU(self):
        return self.relu()

    def sin(self):
        return self._with_partials(math.sin(self.data), (self,), (self.sin_partial(self.data),))

    @staticmethod
    def sin_partial(x):
        return math.cos(x)

    def softsign(self):
        d = 1 + abs(self.data)
        return self._with_partials(self.data / d, (self,), (1 / (d * d),))

    def lrelu(self):
        slope = 1 if self.data > 0 else 0.01
        return self._with_partials(self.data * slope, (self,), (slope,))

    def __abs__(self):
        return self._with_partials(abs(self.data), (self,), (1 if self.data > 0 else -1,))

    def __pos__(self):
        return self._with_partials(self.data, (self,), (1,))

    def bump(self):
        x = self.data
        e = math.exp(-x * x)
        return self._with_partials(x * e, (self,), (self.bump_partial(x, e),))

    @staticmethod
    def bump_partial(x, e):
        return e * (1 - 2 * x * x)

    def hypot(self, other):
        other = self._lift(other)
        r = math.hypot(self.data, other.data)
        return self._with_partials(r, (self, other), (self.data / r, other.data / r))

    def detach(self):
        """A new leaf with the same number: stops the gradient on purpose (never an op to check)."""
        return type(self)(self.data)
