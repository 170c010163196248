"""The one table of operations the harness knows: ``OPS[name] -> OpSpec``.

Each row (:class:`~autograd.testing.ops.row.OpSpec`) names every fact of its op.  Operands
are graph nodes; a few ops also take one constant, drawn from ``consts``.  Every operator
form is its own code path in an engine (``__add__`` and ``__radd__`` are different
methods), so each has its own row: ``v + c``, ``c + v``, ``v - c``, ``c - v``, ``v * c``,
``c * v``, ``v / c``, ``c / v``, ``v ** c``, ``c ** v`` (the four forms added last come
last in the table, so that the shrinking of the older rows is unchanged).  ``form`` is how
a report names an op (``c * v``); the row's ``name`` (``mulc``) is the stable key the rest
of the harness uses.  ``vsum`` takes 1 or more operands; ``dot`` takes ``k`` weights, ``k``
inputs and a start (``2k + 1`` operands).

The edge and out-of-domain probes derive all their points from each row's ``region``
(:mod:`autograd.testing.probes.regions`); the functions the audit may meet beyond the
table are rows of the same type in :mod:`autograd.testing.ops.catalogue`.
"""

from __future__ import annotations

import contextlib
import math
import operator
from collections.abc import Iterator
from fractions import Fraction
from typing import Any, TypeVar

import sympy  # type: ignore[import-untyped]

from autograd.testing.ops.row import (
    AWAY_FROM_ZERO,
    KINK_MARGIN,
    POSITIVE,
    REALS,
    Args,
    Call,
    Num,
    OpSpec,
    Relu,
    Variadic,
    const_source,
    nonzero,
    sym_const,
)

__all__ = ["OPS", "by_op_name", "display", "rational_binary", "rational_unary", "registered"]


def _div(a: Num, b: Num) -> Num:
    return Fraction(a, b) if type(a) is int and type(b) is int else a / b


def _relu(x: Num) -> Num:
    return x if x > 0 else 0 * x


def _sigmoid(x: Num) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


def _is_int(c: Num) -> bool:
    return bool(c % 1 == 0)


def _closed(c: Num) -> bool:
    return True


def _rational_const(c: Num) -> bool:
    return not isinstance(c, float)


def _dot_sym(xs: Any, c: Num) -> sympy.Expr:
    k = len(xs) // 2
    return xs[-1] + sum((xs[i] * xs[k + i] for i in range(k)), sympy.Integer(0))


def _dot_num(xs: Args, c: Num) -> Num:
    k = len(xs) // 2
    total = xs[-1]
    for i in range(k):
        total += xs[i] * xs[k + i]
    return total


def _dot_source(names: Any, c: Num) -> str:
    k = len(names) // 2
    return f"dot([{', '.join(names[:k])}], [{', '.join(names[k : 2 * k])}], {names[-1]})"


def _dot_fwd_err(xs: Args, c: Num, out: Num) -> Num:
    k = len(xs) // 2
    return (2 * k + 1) * (abs(xs[-1]) + sum(abs(xs[i] * xs[k + i]) for i in range(k)))


def _pow_domain(args: Args, c: Num) -> bool:
    (x,) = args
    if _is_int(c):
        return bool(c >= 0 or abs(x) >= AWAY_FROM_ZERO)
    return bool(x >= AWAY_FROM_ZERO)


def _vpow_domain(args: Args, c: Num) -> bool:
    a, b = args
    # |log a| >= 0.2 keeps d/db = a**b * log(a) away from a zero crossing; |b| <= 4 tames a**b
    return a >= AWAY_FROM_ZERO and abs(math.log(a)) >= 0.2 and abs(b) <= 4


def _tanh_partial_err(args: Args, c: Num, out: Num) -> Num:
    t2 = out * out  # 1 - t*t computed from a rounded t loses 2 t^2 / (1 - t^2) relative
    return 3 + 2 * t2 / (1 - t2) if t2 < 1 else 3  # t = +-1: a partial of 0 (its error: see S)


def _sigmoid_partial_err(args: Args, c: Num, out: Num) -> Num:
    return 4 + out / (1 - out) if out < 1 else 4  # s * (1 - s) computed from a rounded s


def _pow_region(c: Num) -> tuple[Any, ...]:
    """``x ** c``: every real x for a whole c >= 0, x != 0 for a whole c < 0, else x >= 0 (x > 0)."""
    if _is_int(c):
        return (REALS if c >= 0 else nonzero(),)
    return (sympy.Interval(0, sympy.oo) if c > 0 else POSITIVE,)


def _rpow_region(c: Num) -> tuple[Any, ...]:
    """``c ** x``: every x for c > 0; x > 0 for c = 0 (0 ** 0 and 0 ** -1 are not numbers)."""
    return (REALS if c > 0 else POSITIVE if c == 0 else sympy.S.EmptySet,)


def _rpow_sym(s: Any, c: Num) -> sympy.Expr:
    # 0 ** x is 0 on its region x > 0 (sympy's derivative of 0 ** x would be 0 * log(0))
    return sympy.S.Zero if c == 0 else sym_const(c) ** s[0]


def _rpow_num(x: Args, c: Num) -> Num:
    return c ** float(x[0])


def _eps(n: int) -> Any:
    """A partial error of ``n`` eps, whatever the point."""
    return lambda args, c, out: n


def _twice_out(args: Args, c: Num, out: Num) -> Num:
    return 2 * abs(out)


_TABLE = [
    OpSpec(
        name="add", form="v + w", arity=2, call=Call(operator.add, ("v0", "v1")),
        sym=lambda s, c: s[0] + s[1], num=lambda x, c: x[0] + x[1], source=lambda n, c: f"{n[0]} + {n[1]}",
        rational=_closed, machine_steps=((0, None),),
    ),
    OpSpec(
        name="mul", form="v * w", arity=2, call=Call(operator.mul, ("v0", "v1")),
        sym=lambda s, c: s[0] * s[1], num=lambda x, c: x[0] * x[1], source=lambda n, c: f"{n[0]} * {n[1]}",
        rational=_closed, machine_steps=((2, None),),
    ),
    OpSpec(
        name="neg", form="-v", arity=1, call=Call(operator.neg, ("v0",)),
        sym=lambda s, c: -s[0], num=lambda x, c: -x[0], source=lambda n, c: f"-{n[0]}",
        rational=_closed, machine_steps=((0, None),),
    ),
    OpSpec(
        name="sub", form="v - w", arity=2, call=Call(operator.sub, ("v0", "v1")),
        sym=lambda s, c: s[0] - s[1], num=lambda x, c: x[0] - x[1], source=lambda n, c: f"{n[0]} - {n[1]}",
        rational=_closed, machine_steps=((1, None),),
    ),
    OpSpec(
        name="div", form="v / w", arity=2, call=Call(operator.truediv, ("v0", "v1")),
        sym=lambda s, c: s[0] / s[1], num=lambda x, c: _div(x[0], x[1]),
        source=lambda n, c: f"{n[0]} / {n[1]}",
        domain=lambda x, c: abs(x[1]) >= AWAY_FROM_ZERO, region=lambda c: (REALS, nonzero()),
        rational=_closed, machine_steps=((3, None),), partial_err=_eps(3),
    ),
    OpSpec(
        name="addc", form="v + c", arity=1, call=Call(operator.add, ("v0", "c")),
        sym=lambda s, c: s[0] + sym_const(c), num=lambda x, c: x[0] + c,
        source=lambda n, c: f"{n[0]} + {const_source(c)}",
        consts=(1, -2, Fraction(1, 2), 0.25, -1.5), rational=_rational_const, machine_steps=((5, 1),),
    ),
    OpSpec(
        name="rsub", form="c - v", arity=1, call=Call(operator.sub, ("c", "v0")),
        sym=lambda s, c: sym_const(c) - s[0], num=lambda x, c: c - x[0],
        source=lambda n, c: f"{const_source(c)} - {n[0]}",
        consts=(1, -2, Fraction(3, 2), 0.5), rational=_rational_const,
    ),
    OpSpec(
        name="mulc", form="c * v", arity=1, call=Call(operator.mul, ("c", "v0")),
        sym=lambda s, c: sym_const(c) * s[0], num=lambda x, c: c * x[0],
        source=lambda n, c: f"{const_source(c)} * {n[0]}",
        consts=(2, -3, Fraction(-1, 2), 0.5, 1.5), rational=_rational_const,
        machine_steps=((4, Fraction(-1, 2)),),
    ),
    OpSpec(
        name="rdiv", form="c / v", arity=1, call=Call(operator.truediv, ("c", "v0")),
        sym=lambda s, c: sym_const(c) / s[0], num=lambda x, c: _div(c, x[0]),
        source=lambda n, c: f"{const_source(c)} / {n[0]}",
        consts=(1, -2, Fraction(3, 2), 0.5), domain=lambda x, c: abs(x[0]) >= AWAY_FROM_ZERO,
        region=lambda c: (nonzero(),), rational=_rational_const, partial_err=_eps(3),
    ),
    OpSpec(
        name="powc", form="v ** c", arity=1, call=Call(operator.pow, ("v0", "c")),
        sym=lambda s, c: s[0] ** sym_const(c), num=lambda x, c: x[0] ** c,
        source=lambda n, c: f"{n[0]} ** {const_source(c)}",
        consts=(2, 3, -1, -2, 0, 1, Fraction(1, 2), Fraction(3, 2), 0.5, 1.5, 2.0, -0.5),
        domain=_pow_domain, region=_pow_region, rational=lambda c: type(c) is int,
        machine_steps=((2, 2), (3, -1)), fwd_err=_twice_out, partial_err=_eps(3),
    ),
    OpSpec(
        name="vpow", form="v ** w", arity=2, call=Call(operator.pow, ("v0", "v1")),
        sym=lambda s, c: s[0] ** s[1], num=lambda x, c: float(x[0]) ** float(x[1]),
        source=lambda n, c: f"{n[0]} ** {n[1]}",
        domain=_vpow_domain, region=lambda c: (POSITIVE, REALS), fwd_err=_twice_out, partial_err=_eps(4),
    ),
    OpSpec(
        name="rpow", form="c ** v", arity=1, call=Call(operator.pow, ("c", "v0")),
        sym=_rpow_sym, num=_rpow_num, source=lambda n, c: f"{const_source(c)} ** {n[0]}",
        consts=(2, 0.5, Fraction(3, 2), 3.0), region=_rpow_region, fwd_err=_twice_out, partial_err=_eps(4),
    ),
    OpSpec(
        name="exp", form="v.exp()", arity=1, call=Call("exp", ("v0",)),
        sym=lambda s, c: sympy.exp(s[0]), num=lambda x, c: math.exp(x[0]),
        source=lambda n, c: f"{n[0]}.exp()",
    ),
    OpSpec(
        name="log", form="v.log()", arity=1, call=Call("log", ("v0",)),
        sym=lambda s, c: sympy.log(s[0]), num=lambda x, c: math.log(x[0]),
        source=lambda n, c: f"{n[0]}.log()",
        domain=lambda x, c: x[0] >= AWAY_FROM_ZERO, region=lambda c: (POSITIVE,),
    ),
    OpSpec(
        name="tanh", form="v.tanh()", arity=1, call=Call("tanh", ("v0",)),
        sym=lambda s, c: sympy.tanh(s[0]), num=lambda x, c: math.tanh(x[0]),
        source=lambda n, c: f"{n[0]}.tanh()",
        domain=lambda x, c: abs(x[0]) <= 3, partial_err=_tanh_partial_err, bounded_partials=True,
    ),
    OpSpec(
        name="relu", form="v.relu()", arity=1, call=Call("relu", ("v0",)),
        sym=lambda s, c: Relu(s[0]), num=lambda x, c: _relu(x[0]), source=lambda n, c: f"{n[0]}.relu()",
        domain=lambda x, c: abs(x[0]) >= KINK_MARGIN, kinks=(0.0,),
        rational=_closed, machine_steps=((1, None),), partial_err=_eps(0),
    ),
    OpSpec(
        name="sigmoid", form="v.sigmoid()", arity=1, call=Call("sigmoid", ("v0",)),
        sym=lambda s, c: 1 / (1 + sympy.exp(-s[0])), num=lambda x, c: _sigmoid(x[0]),
        source=lambda n, c: f"{n[0]}.sigmoid()",
        domain=lambda x, c: abs(x[0]) <= 4, fwd_err=lambda x, c, out: 4 * abs(out),
        partial_err=_sigmoid_partial_err, bounded_partials=True,
    ),
    OpSpec(
        name="vsum", form="vsum([v, ...])", arity=0, variadic_arity=Variadic(least=1, names=("x", "y")),
        call=Call("vsum", (), fused=True),
        sym=lambda s, c: sympy.Add(*s), num=lambda x, c: sum(x[1:], x[0]),
        source=lambda n, c: f"vsum([{', '.join(n)}])",
        rational=_closed, fwd_err=lambda x, c, out: len(x) * sum(abs(t) for t in x),
    ),
    OpSpec(
        name="dot", form="dot(ws, xs, b)", arity=0,
        variadic_arity=Variadic(least=3, step=2, names=("w", "x", "b")),
        call=Call("dot", (), fused=True),
        sym=_dot_sym, num=_dot_num, source=_dot_source, rational=_closed, fwd_err=_dot_fwd_err,
    ),
    OpSpec(
        name="radd", form="c + v", arity=1, call=Call(operator.add, ("c", "v0")),
        sym=lambda s, c: sym_const(c) + s[0], num=lambda x, c: c + x[0],
        source=lambda n, c: f"{const_source(c)} + {n[0]}",
        consts=(1, -2, Fraction(1, 2), 0.25, -1.5), rational=_rational_const,
    ),
    OpSpec(
        name="subc", form="v - c", arity=1, call=Call(operator.sub, ("v0", "c")),
        sym=lambda s, c: s[0] - sym_const(c), num=lambda x, c: x[0] - c,
        source=lambda n, c: f"{n[0]} - {const_source(c)}",
        consts=(1, -2, Fraction(3, 2), 0.5), rational=_rational_const,
    ),
    OpSpec(
        name="vmulc", form="v * c", arity=1, call=Call(operator.mul, ("v0", "c")),
        sym=lambda s, c: s[0] * sym_const(c), num=lambda x, c: x[0] * c,
        source=lambda n, c: f"{n[0]} * {const_source(c)}",
        consts=(2, -3, Fraction(-1, 2), 0.5, 1.5), rational=_rational_const,
    ),
    OpSpec(
        name="divc", form="v / c", arity=1, call=Call(operator.truediv, ("v0", "c")),
        sym=lambda s, c: s[0] / sym_const(c), num=lambda x, c: _div(x[0], c),
        source=lambda n, c: f"{n[0]} / {const_source(c)}",
        consts=(2, -4, Fraction(3, 2), 0.5), region=lambda c: (REALS if c != 0 else sympy.S.EmptySet,),
        # exact only with a Fraction: engines that divide as v * c ** -1 (micrograd) turn an int c
        # into a float (2 ** -1 == 0.5), a float program rather than a wrong rule
        rational=lambda c: isinstance(c, Fraction),
    ),
]  # fmt: skip

#: Every op by name, simplest first (hypothesis shrinks a sampled op towards the first).
OPS: dict[str, OpSpec] = {spec.name: spec for spec in _TABLE}


def _machine(arity: int) -> list[tuple[int, str, Any]]:
    steps = [(rank, spec.name, c) for spec in _TABLE if spec.arity == arity for rank, c in spec.machine_steps]
    return sorted(steps, key=lambda step: step[0])


def rational_binary() -> tuple[str, ...]:
    """The binary ops of the exact state machine, in its order (each row's ``machine_steps``)."""
    return tuple(name for _, name, _ in _machine(2))


def rational_unary() -> tuple[tuple[str, Any], ...]:
    """The unary ops of the exact state machine with their constants, in its order."""
    return tuple((name, c) for _, name, c in _machine(1))


#: The forms of ops registered for a while (an engine's extra ops), kept for the report.
_FORMS: dict[str, str] = {}


def display(op: str | None) -> str | None:
    """How a report names an op: its form (``c * v`` for ``mulc``); unknown names as they are."""
    spec = OPS.get(op) if op is not None else None
    return spec.label if spec is not None else _FORMS.get(op, op) if op is not None else None


#: The caches whose keys hold op names (``by_op_name``), and the row each registered name last had.
_BY_NAME: list[Any] = []
_LAST_ROW: dict[str, OpSpec] = {}

Cached = TypeVar("Cached")  # a functools cache: the function, with cache_clear()


def by_op_name(cached: Cached) -> Cached:
    """Mark a cache whose key holds op names: emptied when a name is registered again with another
    row (two engines' extra ops may share a name and differ: ``f`` identified as tanh in one, as
    sigmoid in the other), so that no answer for one row is ever served for another."""
    _BY_NAME.append(cached)
    return cached


def _forget_renamed(specs: tuple[OpSpec, ...]) -> None:
    if any(_LAST_ROW.get(s.name, s) != s for s in specs):
        for cached in _BY_NAME:
            cached.cache_clear()
    _LAST_ROW.update({s.name: s for s in specs})


@contextlib.contextmanager
def registered(*specs: OpSpec) -> Iterator[None]:
    """``OPS`` with ``specs`` added for the duration (ops an engine has beyond the table, see
    :mod:`autograd.testing.identify`), so that graphs, oracles and strategies handle them like
    table ops.  A name already in the table is refused: the table's rows never change."""
    clash = [s.name for s in specs if s.name in OPS]
    if clash:
        raise ValueError(f"registered: {clash} are already ops of the table")
    _forget_renamed(specs)
    OPS.update({s.name: s for s in specs})
    _FORMS.update({s.name: s.label for s in specs})
    try:
        yield
    finally:
        for s in specs:
            OPS.pop(s.name, None)
