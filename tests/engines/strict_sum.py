"""Strict about what it combines: a Value is made only from a float (``Value(1)`` is refused), and
+ - * / take only Values (``v * 2`` is refused), but for ``v + 0`` and ``0 + v``, which give ``v``
itself so that ``sum(values)`` works.  Correct gradients.  Discovery must find its gradient through
the one trial it lets through, ``x + 0``.
"""

from tests.engines import sound


def float_data(x):
    if not isinstance(x, float):
        raise TypeError(f"Value: data must be a float, got {x!r}")
    return sound.check_number(x)


class Value(sound.Value):
    check = staticmethod(float_data)

    def _lift(self, other):
        if not isinstance(other, sound.Core):
            raise TypeError(f"Value: only Values combine with Values, got {other!r}")
        return other

    def __add__(self, other):
        if not isinstance(other, sound.Core) and other == 0:  # sum() starts from 0
            return self
        return super().__add__(other)

    __radd__ = __add__
