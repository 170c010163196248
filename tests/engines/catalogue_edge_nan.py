"""atanh, right everywhere but at the float just below 1, an edge point of its region (-1, 1),
where its value is NaN (math.atanh gives 18.714973875118524 there): the edge probe must report
that point, and only it."""

import math

from tests.engines import sound

JUST_BELOW_ONE = math.nextafter(1.0, 0.0)


class Value(sound.Value):
    def atanh(self):
        x = self.data
        out = self._with_partials(math.atanh(x), (self,), (1 / ((1 - x) * (1 + x)),))
        if x == JUST_BELOW_ONE:
            out.data = math.nan  # past the constructor's check, as a NaN from a formula would be
        return out
