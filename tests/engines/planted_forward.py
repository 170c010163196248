"""Planted for the ``forward`` check: exp's value 1e-10 too large (relatively) for 0.01 <= |x| <= 10.

Its own derivative is right (``exp(x)``, computed afresh); gradients downstream (``x * exp(x)``)
carry the 1e-10 slip, which sympy sees but finite differences cannot resolve: inconclusive,
never a defect.  The value itself is off both from the reference and from a float evaluation
of the program: a ``wrong_value``.  (exp is not rational and not in the MLP; the edge points,
tiny or at +-700, are outside the slip.)
"""

import math

from tests.engines import sound


class Value(sound.Value):
    def exp(self):
        x = self.data
        e = math.exp(x)
        shown = e * (1 + 1e-10) if 0.01 <= abs(x) <= 10 else e
        return self._with_partials(shown, (self,), (e,))
