"""exp's derivative off by 1e-12 relative (about 4,500 units in the last place).

Beyond the derived tolerance (16 * eps * 2 relative, about 7e-15: sympy rejects it), below what
central differences resolve (their rounding error alone is about 4 * eps / 6e-6 = 1.5e-10
relative): one oracle is not a verdict, so every edge point of exp is ``inconclusive``.
"""

from tests.engines import sound


class Value(sound.Value):
    @staticmethod
    def exp_partial(x, out):
        return out * (1 + 1e-12)
