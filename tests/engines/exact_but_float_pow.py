"""Exact through + - * / (so the audit treats it as exact), but ``x ** c`` sends back a float
gradient: the exact properties must compare such numbers with a tolerance, never by equality
(issue 13: a 1-ulp difference was reported as a wrong gradient by linearity)."""

from tests.engines import sound


class Value(sound.Value):
    @staticmethod
    def pow_partial(x, c):
        return 0.0 if c == 0 else float(c * x ** (c - 1))
