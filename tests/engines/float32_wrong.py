"""``float32`` with a planted bug: d(a*b)/da is b * (1 + 2**-10), off far beyond float32's rounding
(2**-24) but by less than a float32 test with a loose, fixed tolerance would notice."""

from tests.engines import float32


class Value(float32.Value):
    def __mul__(self, other):
        other = self._lift(other)
        a, b = self.data, other.data
        return self._with_partials(a * b, (self, other), (b * (1 + 2**-10), a))
