"""``property_read`` with a planted bug: d(a*b)/da is b + 1 (should be b)."""

from tests.engines import property_read


class Scalar(property_read.Scalar):
    @staticmethod
    def mul_partials(a, b):
        return (b + 1, a)
