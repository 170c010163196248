"""``zero_d_arrays`` with a planted bug: d(a*b)/da is b + 1 (should be b).  Discovery must still
find its 0-d array number and gradient (the backward probe ``y = x * 1`` then gives x a gradient
of 2, still a change), and the audit must report the rule."""

from tests.engines import zero_d_arrays


class Value(zero_d_arrays.Value):
    @staticmethod
    def mul_partials(a, b):
        return (b + 1, a)
