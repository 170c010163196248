"""exp's derivative off by 1e-12 relative (about 4,500 units in the last place).

Beyond the derived tolerance (16 * eps * 4 relative, about 1.4e-14: sympy rejects it), below what
central differences of floats resolve (their rounding error alone is about 4 * eps / 6e-6 =
1.5e-10 relative), within what certified differences of exp's definition resolve: a defect
where |x| is moderate; inconclusive where |x| is near 700 (a rounded operand moves exp's slope by
|x| ulps, and 16 * 700 ulps is beyond the slip).
"""

from tests.engines import sound


class Value(sound.Value):
    @staticmethod
    def exp_partial(x, out):
        return out * (1 + 1e-12)
