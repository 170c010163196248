"""An exact engine (Fractions stay Fractions) whose ``abs(v)`` has a derivative off by 2**-60:
1 + 2**-60 instead of 1.  As a float that is 1.0, so only the exact check of a rational row
(abs is closed over the rationals) can see it; its value is right."""

from fractions import Fraction

from tests.engines import sound

OFF = Fraction(1, 2**60)


class Value(sound.Value):
    def __abs__(self):
        sign = 1 if self.data > 0 else -1
        return self._with_partials(abs(self.data), (self,), (sign * (1 + OFF),))
