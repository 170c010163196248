"""``output_read`` with a planted bug: d(a*b)/da is b + 1 (should be b).  The gradient read is then
wrong on ``y = x * x + x * 3`` too: discovery must still find it (on a graph of additions)."""

from tests.engines import output_read


class Var(output_read.Var):
    @staticmethod
    def mul_partials(a, b):
        return (b + 1, a)
