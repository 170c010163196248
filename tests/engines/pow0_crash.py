"""The textbook power rule ``c * x ** (c - 1)``: at x = 0 with c = 0 it divides by zero.

x ** 0 is 1 everywhere, so its derivative at 0 is 0: a crash inside the domain.
"""

from tests.engines import sound


class Value(sound.Value):
    @staticmethod
    def pow_partial(x, c):
        return c * x ** (c - 1)
