"""The power rule ``c * x ** (c - 1)``, guarded at x == 0 only.

At the smallest subnormal, 5e-324 ** -1 overflows, so x ** 0 raises there although its
derivative is 0 (and its value 1): a crash, not a range limit.
"""

from tests.engines import sound


class Value(sound.Value):
    @staticmethod
    def pow_partial(x, c):
        return 0 if x == 0 and c == 0 else c * x ** (c - 1)
