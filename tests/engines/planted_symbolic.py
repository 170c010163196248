"""Planted for the ``symbolic`` check: sigmoid's gradient 1e-4 too large for 0.01 <= |x| <= 10.

sigmoid is not rational (no exact check), not in the MLP (tanh or relu) and the edge
points (tiny inputs, |x| >= 100) are outside the slip: only the float graph search sees it,
and finite differences (which resolve 1e-4) confirm it.
"""

from tests.engines import sound


class Value(sound.Value):
    def sigmoid(self):
        s = self.sigmoid_value(self.data)
        slip = 1.0001 if 0.01 <= abs(self.data) <= 10 else 1
        return self._with_partials(s, (self,), (s * (1 - s) * slip,))
