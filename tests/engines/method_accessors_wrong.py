"""``method_accessors`` with a planted bug: d tanh(x)/dx is 2 (1 - tanh(x)^2), twice the truth."""

from tests.engines import method_accessors, sound


class Wrong(sound.Value):
    def tanh(self):
        t = self.tanh_value(self.data)
        return self._with_partials(t, (self,), (2 * (1 - t * t),))


class Node(method_accessors.Node):
    __slots__ = ()
    inner = Wrong
