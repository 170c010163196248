"""A minimal micrograd-style engine whose names and features are parameters (audit fixtures).

``scalar_class(...)`` builds the class; the fixture modules next to this one each
call it once, so that an audit finds a class under another name, with other
attribute and method names, fewer ops, float-only or Fraction-refusing data, or
one deliberately wrong rule.  Written for the tests of the audit branch (the probes
branch vendors engines of its own).
"""

import math

ALL_OPS = ("add", "mul", "neg", "sub", "div", "pow", "exp", "log", "tanh", "relu")


def scalar_class(
    name="Value", data="data", grad="grad", backward="backward", ops=ALL_OPS, numbers="exact",
    wrong=("", 1), pow_zero_crash=False,
):  # fmt: skip
    """``numbers``: "exact" (any number kept as is), "float" (made float) or "float_only" (a
    TypeError for anything but int/float).  ``wrong = (op, factor)`` scales the gradient that
    op sends back; ``pow_zero_crash`` makes d(x**0)/dx divide by zero at x = 0 (as micrograd)."""

    def error(op):
        return wrong[1] if wrong[0] == op else 1

    def init(self, x, children=(), back=None):
        if numbers == "float_only" and type(x) not in (int, float):
            raise TypeError(f"{name} takes int or float, got {type(x).__name__}")
        setattr(self, data, float(x) if numbers != "exact" else x)
        setattr(self, grad, 0)
        self._children, self._back = children, back

    def val(v):
        return getattr(v, data)

    def lift(other):
        return other if isinstance(other, cls) else cls(other)

    def node(x, children, back):
        return cls(x, children, back)

    def add(self, other):
        other = lift(other)
        return node(val(self) + val(other), (self, other), lambda g: (g, g))

    def mul(self, other):
        other = lift(other)
        return node(
            val(self) * val(other),
            (self, other),
            lambda g: (g * val(other) * error("mul"), g * val(self) * error("mul")),
        )

    def neg(self):
        return node(-val(self), (self,), lambda g: (-g,))

    def sub(self, other):
        return add(self, neg(lift(other)))

    def div(self, other):
        other = lift(other)
        a, b = val(self), val(other)
        return node(a / b, (self, other), lambda g: (g / b, -g * (a / b) / b))

    def power(self, c):
        if not isinstance(c, (int, float)):
            raise TypeError("only int/float powers")
        x = val(self)
        if pow_zero_crash:
            return node(x**c, (self,), lambda g: (g * c * x ** (c - 1),))
        return node(x**c, (self,), lambda g: (g * c * x ** (c - 1) if c != 0 else 0 * g,))

    def exp(self):
        e = math.exp(val(self))
        return node(e, (self,), lambda g: (g * e,))

    def log(self):
        x = val(self)
        return node(math.log(x), (self,), lambda g: (g / x,))

    def tanh(self):
        t = math.tanh(val(self))
        return node(t, (self,), lambda g: (g * (1 - t * t) * error("tanh"),))

    def relu(self):
        x = val(self)
        return node(x if x > 0 else 0 * x, (self,), lambda g: (g if x > 0 else 0 * g,))

    def run_backward(self):
        order, seen, stack = [], set(), [(self, False)]
        while stack:  # iterative topological sort
            v, done = stack.pop()
            if done:
                order.append(v)
            elif id(v) not in seen:
                seen.add(id(v))
                stack.append((v, True))
                stack.extend((c, False) for c in v._children)
        setattr(self, grad, 1)
        for v in reversed(order):
            if v._back is not None:
                for c, share in zip(v._children, v._back(getattr(v, grad))):
                    setattr(c, grad, getattr(c, grad) + share)

    methods = {"__init__": init, backward: run_backward, "__repr__": lambda s: f"{name}({val(s)!r})"}
    table = {
        "add": {"__add__": add, "__radd__": add},
        "mul": {"__mul__": mul, "__rmul__": mul},
        "neg": {"__neg__": neg},
        "sub": {"__sub__": sub, "__rsub__": lambda s, o: add(neg(s), o)},
        "div": {"__truediv__": div, "__rtruediv__": lambda s, o: div(lift(o), s)},
        "pow": {"__pow__": power},
        "exp": {"exp": exp},
        "log": {"log": log},
        "tanh": {"tanh": tanh},
        "relu": {"relu": relu},
    }
    for op in ops:
        methods.update(table[op])
    cls = type(name, (), methods)
    return cls


__all__ = ["ALL_OPS", "scalar_class"]
