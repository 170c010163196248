"""One wrong derivative rule: exp's backward multiplies by the input instead of the output."""

from tests.engines import sound


class Value(sound.Value):
    @staticmethod
    def exp_partial(x, out):
        return x
