"""A small, correct micrograd-style engine: the base the other fixture engines change.

Parents in a tuple and an iterative topological sort (deterministic, no recursion
limit), garbage refused at once, leaves accumulate across ``backward()`` calls while
interior nodes hold the latest pass.  The pieces the fixtures replace are split
out: ``Core`` (+ - * /), ``Powers`` (negation, ``x ** c``), ``Reflected`` (``2 * x``),
``Nonlinear`` (relu, exp, log, tanh, sigmoid), and the small static functions each op uses.
"""

import math
from numbers import Real


def check_number(x):
    if isinstance(x, bool) or not isinstance(x, Real):
        raise TypeError(f"Value: data must be a real number, got {x!r}")
    if not math.isfinite(x):
        raise ValueError(f"Value: data must be finite, got {x!r}")
    return x


def topological_order(root, inputs):
    """Every node reachable from ``root``, each after its ``inputs(node)``; no recursion."""
    order, seen, stack = [], set(), [(root, False)]
    while stack:
        node, inputs_listed = stack.pop()
        if inputs_listed:
            order.append(node)
        elif node not in seen:
            seen.add(node)
            stack.append((node, True))
            stack.extend((i, False) for i in inputs(node))
    return order


class Core:
    check = staticmethod(check_number)

    def __init__(self, data, parents=()):
        self.data = self.check(data)
        self.grad = 0
        self._prev = tuple(parents)
        self._backward = lambda: None

    def _lift(self, other):
        return other if isinstance(other, Core) else type(self)(other)

    def _with_partials(self, data, parents, partials):
        out = type(self)(data, parents)

        def backward():
            for parent, partial in zip(parents, partials):
                parent.grad += partial * out.grad

        out._backward = backward
        return out

    def __add__(self, other):
        other = self._lift(other)
        return self._with_partials(self.data + other.data, (self, other), (1, 1))

    def __sub__(self, other):
        other = self._lift(other)
        return self._with_partials(self.data - other.data, (self, other), (1, -1))

    def __mul__(self, other):
        other = self._lift(other)
        return self._with_partials(self.data * other.data, (self, other), (other.data, self.data))

    def __truediv__(self, other):
        other = self._lift(other)
        a, b = self.data, other.data
        # -(a / b) / b, not -a / (b * b): b * b underflows to 0 for |b| < 1.5e-162
        return self._with_partials(a / b, (self, other), (1 / b, -(a / b) / b))

    def _topological_order(self):
        return topological_order(self, lambda node: node._prev)

    def backward(self):
        order = self._topological_order()
        for node in order:
            if node._prev:
                node.grad = 0  # interior nodes: this pass only
        self.grad = 1
        for node in reversed(order):
            node._backward()


class Powers:
    def __neg__(self):
        return self._with_partials(-self.data, (self,), (-1,))

    def __pow__(self, c):
        if not isinstance(c, (int, float)) or isinstance(c, bool):
            raise TypeError(f"pow: the exponent must be an int or float, got {c!r}")
        return self._with_partials(self.data**c, (self,), (self.pow_partial(self.data, c),))

    @staticmethod
    def pow_partial(x, c):
        return 0 if c == 0 else c * x ** (c - 1)  # x ** -1 at x == 0 would divide by zero


class Reflected:
    def __radd__(self, other):
        return self + other

    def __rsub__(self, other):
        return self._lift(other) - self

    def __rmul__(self, other):
        return self * other

    def __rtruediv__(self, other):
        return self._lift(other) / self


def stable_sigmoid(x):
    if x >= 0:
        return 1 / (1 + math.exp(-x))
    e = math.exp(x)  # exp(-x) would overflow for x far below 0
    return e / (1 + e)


class Nonlinear:
    tanh_value = staticmethod(math.tanh)
    sigmoid_value = staticmethod(stable_sigmoid)

    @staticmethod
    def exp_partial(x, out):
        return out

    def relu(self):
        return self._with_partials(max(self.data, 0 * self.data), (self,), (1 if self.data > 0 else 0,))

    def exp(self):
        e = math.exp(self.data)
        return self._with_partials(e, (self,), (self.exp_partial(self.data, e),))

    def log(self):
        if self.data <= 0:
            raise ValueError(f"log: needs a positive argument, got {self.data!r}")
        return self._with_partials(math.log(self.data), (self,), (1 / self.data,))

    def tanh(self):
        t = self.tanh_value(self.data)
        return self._with_partials(t, (self,), (1 - t * t,))

    def sigmoid(self):
        s = self.sigmoid_value(self.data)
        return self._with_partials(s, (self,), (s * (1 - s),))


class Value(Core, Powers, Reflected, Nonlinear):
    """One real number and its gradient."""
