"""``c - v`` computed as ``v - c``, with the derivative of ``c - v`` (-1): the value is wrong, the
local derivative right.

Alone, ``1 - x`` has the right gradient; through any op whose derivative reads its value it
does not: d(x * (1 - x))/dx at 0 is -1 instead of 1.  The value is found on the first graph
drawn; the gradient only on a later one (gradflow-kit 0.1.3's ``__rsub__``, whose sign error
in ``__sub__``'s backward makes the local derivative right by accident).
"""

from tests.engines import sound


class Value(sound.Value):
    def __rsub__(self, other):
        return self._with_partials(self.data - other, (self,), (-1,))
