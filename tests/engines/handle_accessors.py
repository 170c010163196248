"""The number behind a method of no usual name, ``h.get()``, beside other public methods
(``clip(lo, hi)``, which needs its arguments) and ``float(h)``; the gradient a read-only property
``h.grad`` that ``backward()`` fills (as compiled engines' handles have).  Each ``Handle`` wraps a
``sound.Value``; correct gradients.  ``Zeroable`` is the same with a gradient that can be written,
but only zeroed (``h.grad = 0``; any other number is refused).
"""

from tests.engines import sound


class Handle:
    __slots__ = ("_v",)

    def __init__(self, x):
        self._v = x if isinstance(x, sound.Core) else sound.Value(x)

    def get(self):
        return self._v.data

    def __float__(self):
        return float(self._v.data)

    def clip(self, lo, hi):
        return type(self)(min(max(self._v.data, lo), hi))

    @property
    def grad(self):
        return self._v.grad

    def backward(self):
        self._v.backward()

    def __add__(self, other):
        return type(self)(self._v + (other._v if isinstance(other, Handle) else other))

    def __mul__(self, other):
        return type(self)(self._v * (other._v if isinstance(other, Handle) else other))

    __radd__, __rmul__ = __add__, __mul__


class Zeroable(Handle):
    __slots__ = ()

    @property
    def grad(self):
        return self._v.grad

    @grad.setter
    def grad(self, g):
        if g != 0:
            raise ValueError(f"a gradient can only be zeroed, not set to {g!r}")
        self._v.grad = g
