"""exp's derivative flushed to 0 where it is below 1e-300: off relatively, not absolutely.

sympy's derivative (mpmath) rejects 0.0 at x = -700 (exp(-700) = 9.9e-305); finite
differences cannot tell 0.0 from 9.9e-305.  One oracle is not a verdict: inconclusive.
"""

from tests.engines import sound


class Value(sound.Value):
    @staticmethod
    def exp_partial(x, out):
        return out if out >= 1e-300 else 0.0
