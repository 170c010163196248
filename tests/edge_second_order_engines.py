"""Copies of our engine with few ops and planted second derivatives, for the tests of the
``edge_second_order`` probe (a plain module: a test module must not import another).

:func:`engine_with` keeps only the Value methods it is given (each op of the table is a method:
``v * w`` and ``v * c`` are ``__mul__``, ``c * v`` is ``__rmul__``), so that the probe meets a few
ops, whose edge points can be counted by hand, and runs in a fraction of a second.  A method kept
for ``"values"`` refuses a plain number (``v * 2`` raises TypeError: the engine has no ``v * c``),
one kept for ``"numbers"`` refuses a Value (``v ** w``: no ``vpow``).
Graph-mode rules (the rules ``backward(create_graph=True)`` runs) are replaced by planted ones;
:func:`plus` plants an error of a known size in one second derivative at chosen points (with
:func:`offset`).  An op with a constant leaves the constant a leaf of the graph, whose gradient
the engine adds to as a number: such an engine needs ``__add__`` for ``"any"``.
"""

import math
import struct

from tests.wrong_engines import engine_copy

#: Every Value method behind an op of the table.
METHODS = (
    "__add__", "__sub__", "__mul__", "__truediv__", "__pow__", "__neg__", "__radd__", "__rsub__",
    "__rmul__", "__rtruediv__", "__rpow__", "exp", "log", "tanh", "relu", "sigmoid",
)  # fmt: skip
SMALLEST_NORMAL = 2.0**-1022


def engine_with(name, methods, rules=(), *, flush=False, float32=False):
    """A copy of our engine called ``name`` with only ``methods`` ({method: "any", "values" or
    "numbers"}), each graph-mode rule ``twin`` of ``rules`` ({twin: rule(engine, out)}) replaced by
    ``rule``;
    ``flush``: every number a Value holds below the smallest normal becomes 0 (as XLA on the CPU);
    ``float32``: every number a Value holds is rounded to float32."""
    module = engine_copy(name)
    value = module.Value
    round_to = _flushed if flush else _float32 if float32 else None
    for method in METHODS:
        how = methods.get(method)
        if how is None:
            delattr(value, method)
        elif how != "any" or round_to is not None:
            setattr(value, method, _kept(module, getattr(value, method), how, round_to))
    for twin, rule in dict(rules).items():
        old = getattr(module, twin)
        for key, used in list(module._GRAPH_RULES.items()):
            if used is old:
                module._GRAPH_RULES[key] = lambda out, rule=rule: rule(module, out)
    if round_to is not None:
        node, init = module._node, value.__init__
        module._node = lambda data, a, b, back: node(round_to(data), a, b, back)
        value.__init__ = lambda self, data: init(self, round_to(data))
    value.__module__ = name
    return module


def _kept(module, method, how, round_to):
    def kept(self, *other):
        if how != "any" and not all(isinstance(o, module.Value) == (how == "values") for o in other):
            raise TypeError(f"{method.__name__}: {how} only, got {other!r}")
        out = method(self, *other)
        if round_to is not None:
            out.data = round_to(out.data)
        return out

    kept.__name__ = method.__name__
    return kept


def _flushed(x):
    return 0.0 * x if isinstance(x, float) and math.isfinite(x) and abs(x) < SMALLEST_NORMAL else x


def _float32(x):
    if not isinstance(x, float) or not math.isfinite(x):
        return x
    try:
        return struct.unpack("f", struct.pack("f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def offset(engine, x, where, size):
    """``x`` (a Value) plus a zero whose derivative in ``x`` is ``size`` where ``where(x.data)``:
    a gradient given this has its value unchanged and its derivative off by ``size``."""
    if not where(x.data):
        return engine._constant(0)
    # x * size - x.data * size: the two products round alike, so their sum is exactly 0
    return x * engine._constant(size) + engine._constant(-(x.data * size))


# ---------------------------------------------------------------------- graph-mode rules
def plus(rule, at, size, operand=0):
    """``rule`` with the gradient it gives operand ``operand`` off by ``size`` in that operand's
    second derivative where ``at(point)`` (``point``: the operands' numbers)."""

    def planted(engine, out):
        rule(engine, out)
        x = out._prev[operand]
        if at(tuple(v.data for v in out._prev)):
            engine._give(x, offset(engine, x, lambda _: True, size))

    return planted


def exp_rule(engine, out):
    engine._give(out._a, out.grad * out)


def sigmoid_rule(engine, out):  # s * (1 - s) as s * (1 + s * -1): with * and + only
    one, minus_one = engine._constant(1), engine._constant(-1)
    engine._give(out._a, out.grad * out * (one + out * minus_one))


def add_rule(engine, out):
    engine._give(out._a, out.grad)
    engine._give(out._b, out.grad)


def half_detached_mul_rule(engine, out):
    """d(x*y)/dx = y as a Value, d(x*y)/dy = x as a number: d2/dydx is 0, d2/dxdy is right."""
    a, b = out._a, out._b
    engine._give(a, out.grad * b)
    engine._give(b, out.grad * engine._constant(a.data))


def squared_div_rule(engine, out):
    """d(a/b)/db as -a / (b * b): b * b overflows where |b| > 1.3e154."""
    a, b = out._a, out._b
    engine._give(a, out.grad / b)
    engine._give(b, -(out.grad * a / (b * b)))


def raises(error):
    """A rule raising ``error(point)`` (the operands' numbers) instead of giving gradients."""

    def rule(engine, out):
        raise error(tuple(v.data for v in out._prev))

    return rule
