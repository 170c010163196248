"""1e-8 added inside ``v / c`` and ``v ** c`` (a "safe" division and power, as kaitorch 0.1.0 does).

``v / c`` is ``v * (c + 1e-8) ** -1``, differentiated as written: value and gradient are both
off by 1e-8 / c relative (d(x / 2)/dx = 0.4999999975), far above the derived float tolerance
(about 1e-15 relative) but below the 1e-7 that finite differences keep as a margin for
functions of unknown accuracy.  ``v ** c`` is ``(v + 1e-8) ** c`` with the derivative of the
unfudged ``v ** c``: right alone, wrong wherever the fudged value feeds another op
(d((x ** 2) ** 2)/dx at 0.125 is 0.00781250125, sympy 1/128).
"""

from tests.engines import sound

FUDGE = 1e-8


class Value(sound.Value):
    def __truediv__(self, other):
        if isinstance(other, sound.Core):
            return super().__truediv__(other)
        scale = (other + FUDGE) ** -1
        return self._with_partials(self.data * scale, (self,), (scale,))

    def __pow__(self, c):
        if not isinstance(c, (int, float)) or isinstance(c, bool):
            raise TypeError(f"pow: the exponent must be an int or float, got {c!r}")
        return self._with_partials((self.data + FUDGE) ** c, (self,), (self.pow_partial(self.data, c),))
