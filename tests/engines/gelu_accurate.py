"""gelu and its derivative evaluated by mpmath at 50 digits, then rounded: correct to the last
digit also far left, where ``1 + erf(x / sqrt 2)`` cancels (at -16.63497187569737 gelu is
-3.2349899964885561e-61).  Nothing here is wrong: the edge probe must find no defect in gelu."""

import mpmath

from tests.engines import sound


class Value(sound.Value):
    def gelu(self):
        x = self.data
        if abs(x) > 40:
            # mpmath's ncdf raises on huge arguments (at -1e300); beyond 40 both round exactly:
            # gelu(-40) is about -1.5e-348 (a float -0.0) and its slope -5.8e-347, while above
            # 40 gelu is x to the last digit and its slope 1
            value, slope = (x, 1.0) if x > 0 else (-0.0, -0.0)
            return self._with_partials(value, (self,), (slope,))
        with mpmath.workdps(50):
            x = mpmath.mpf(x)
            cdf, pdf = mpmath.ncdf(x), mpmath.npdf(x)
            return self._with_partials(float(x * cdf), (self,), (float(cdf + x * pdf),))
