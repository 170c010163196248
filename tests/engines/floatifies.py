"""Silently converts every number to float: ``Value(Fraction(1, 3)).data == 0.333...``.

Fractions are accepted but nothing stays exact: a fact (``unsupported``), not a defect.
"""

from tests.engines import sound


class Value(sound.Value):
    check = staticmethod(lambda x: float(sound.check_number(x)))
