"""The number and the gradient behind zero-argument methods, ``v.data()`` and ``v.grad()`` (as in
simplegrad, a pybind11 engine); ``backward()`` fills the gradient, and nothing can write one (no
attribute to set).  Each ``Node`` wraps a ``sound.Value`` (``inner``: the class its ops build);
correct gradients.
"""

from tests.engines import sound


class Node:
    __slots__ = ("_v",)
    inner = sound.Value

    def __init__(self, x):
        self._v = x if isinstance(x, sound.Core) else self.inner(x)

    def data(self):
        return self._v.data

    def grad(self):
        return self._v.grad

    def backward(self):
        self._v.backward()


def _unwrap(x):
    return x._v if isinstance(x, Node) else x


def _binary(name):
    def op(self, other):
        out = getattr(self._v, name)(_unwrap(other))
        return out if out is NotImplemented else type(self)(out)

    return op


def _unary(name):
    def op(self):
        return type(self)(getattr(self._v, name)())

    return op


for _name in ("add", "sub", "mul", "truediv", "radd", "rsub", "rmul", "rtruediv", "pow"):
    setattr(Node, f"__{_name}__", _binary(f"__{_name}__"))
for _name in ("__neg__", "relu", "exp", "log", "tanh", "sigmoid"):
    setattr(Node, _name, _unary(_name))
