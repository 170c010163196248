"""Engines that refuse plain ``int`` constants (``v + 1``, ``2 * v``) and take ``Fraction`` and
``float`` ones: the first usable constant of ``v + c`` is then ``Fraction(1, 2)``, so a reproducer
of theirs needs ``from fractions import Fraction`` to run as pasted.

``Value``: :mod:`tests.engines.sound` (weak references; closures capturing their output node, so
reference cycles); ``SlotsValue``: :mod:`tests.engines.slots_cycles` (``__slots__`` without
``__weakref__``, reference cycles too).
"""

from tests.engines import slots_cycles, sound


def _refuse_int(other):
    if isinstance(other, int):
        raise TypeError(f"int constant {other!r} refused: give a Fraction or a float")


class Value(sound.Value):
    def _lift(self, other):
        _refuse_int(other)
        return super()._lift(other)


class SlotsValue(slots_cycles.Value):
    __slots__ = ()

    def _lift(self, other):
        _refuse_int(other)
        return super()._lift(other)
