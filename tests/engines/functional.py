"""A functional engine seen through an adapter: Values are immutable nodes with no operators
and no gradient slot; ops are module functions and ``grad(output, wrt)`` returns the list of
d(output)/d(w).  ``adapter`` follows ``autograd.testing.engines.Adapter`` (the Python
operators come from its ``ops``), so the audit runs it without editing any code:
``audit(adapter="tests.engines.functional:adapter")``.  Correct gradients.
"""

import math
from collections import namedtuple
from typing import ClassVar

from tests.engines.reverse_sweep import adjoints

Node = namedtuple("Node", "value parents partials")


def const(x):
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise TypeError(f"const: a number, got {x!r}")
    return Node(x, (), ())


def lift(x):
    return x if isinstance(x, Node) else const(x)


def add(a, b):
    a, b = lift(a), lift(b)
    return Node(a.value + b.value, (a, b), (1, 1))


def mul(a, b):
    a, b = lift(a), lift(b)
    return Node(a.value * b.value, (a, b), (b.value, a.value))


def sub(a, b):
    a, b = lift(a), lift(b)
    return Node(a.value - b.value, (a, b), (1, -1))


def div(a, b):
    a, b = lift(a), lift(b)
    return Node(a.value / b.value, (a, b), (1 / b.value, -(a.value / b.value) / b.value))


def neg(a):
    return Node(-a.value, (a,), (-1,))


def power(a, c):
    if isinstance(c, (Node, bool)):
        raise TypeError(f"power: a number exponent, got {c!r}")
    return Node(a.value**c, (a,), (0 if c == 0 else c * a.value ** (c - 1),))


def tanh(a):
    t = math.tanh(a.value)
    return Node(t, (a,), (1 - t * t,))


def grad(output, wrt):
    """[d(output)/d(w) for w in wrt], by reverse accumulation (iterative)."""
    adjoint = adjoints(output)
    return [adjoint.get(id(w), 0) for w in wrt]


class Adapter:
    """The adapter: gradients accumulate per leaf across backward calls, as in PyTorch."""

    name = "tests.engines.functional"
    ops: ClassVar[dict] = {
        "__add__": add,
        "__radd__": lambda a, b: add(b, a),
        "__sub__": sub,
        "__rsub__": lambda a, b: sub(b, a),
        "__mul__": mul,
        "__rmul__": lambda a, b: mul(b, a),
        "__truediv__": div,
        "__rtruediv__": lambda a, b: div(b, a),
        "__neg__": neg,
        "__pow__": power,
        "tanh": tanh,
    }

    def __init__(self):
        self.grads = {}  # id(leaf) -> (leaf, gradient)

    def make(self, x):
        return const(x)

    def data(self, v):
        return v.value

    def backward(self, output, leaves, create_graph=False):
        if create_graph:
            raise TypeError("functional: no higher order")
        for leaf, g in zip(leaves, grad(output, leaves)):
            old = self.grads.get(id(leaf), (leaf, 0))
            self.grads[id(leaf)] = (leaf, (old[1] if old[0] is leaf else 0) + g)

    def grad(self, leaf):
        kept = self.grads.get(id(leaf))
        return kept[1] if kept is not None and kept[0] is leaf else 0

    def set_grad(self, leaf, g):
        self.grads[id(leaf)] = (leaf, g)

    def is_value(self, obj):
        return isinstance(obj, Node)


adapter = Adapter()
