"""No validation of data: ``Value("abc")`` is accepted and fails (or not) much later."""

from tests.engines import sound


class Value(sound.Value):
    check = staticmethod(lambda x: x)
