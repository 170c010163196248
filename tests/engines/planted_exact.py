"""Planted for the ``exact`` check: mul sends back 1 + 10**-30 times the right gradient.

On Fractions that is exactly wrong; on floats ``partial * (1 + 1e-30)`` rounds back to
the partial itself, so only exact arithmetic can see it (the exact properties too).
"""

from fractions import Fraction

from tests.engines import sound

SLIP = Fraction(1) + Fraction(1, 10**30)


class Value(sound.Value):
    def __mul__(self, other):
        other = self._lift(other)
        a, b = self.data, other.data
        exact = all(type(x) in (int, Fraction) for x in (a, b))
        slip = SLIP if exact else 1.0 + 1e-30  # == 1.0 in floats
        return self._with_partials(a * b, (self, other), (b * slip, a * slip))
