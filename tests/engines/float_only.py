"""Float-only: data is stored as a float and a Fraction is refused with TypeError.

The audit must check such an engine on floats (exact checks not applicable), and
report Fraction as unsupported, not as a failure.
"""

from fractions import Fraction

from tests.engines import sound


def float_data(x):
    if isinstance(x, Fraction):
        raise TypeError(f"Value: only floats, got {x!r}")
    return float(sound.check_number(x))


class Value(sound.Value):
    check = staticmethod(float_data)
