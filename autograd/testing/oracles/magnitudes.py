"""The magnitude guard of the certified reference (:mod:`autograd.testing.oracles.reference`).

Before a numeric evaluation, :func:`guard` computes every part of the expressions at the point in
``PREC``-bit mpmath, each checked before it is computed: a part whose exponent (past ``POW_BITS``
bits) or whose argument of exp, sin or any function but log and the piecewise-linear ones (past
``RANGE_BITS`` bits) is too large for mpmath to reduce in time is :class:`ReferenceUnresolved`,
its size named: a tower such as ``x ** (x ** y)`` at (2, 1e10), about 2 ** (2 ** 1e10).
:func:`check_exact` refuses the same way, before sympy computes them exactly, the rational powers of
more than ``EXACT_BITS`` bits (:mod:`autograd.testing.oracles.arithmetics`).
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Any

import mpmath  # type: ignore[import-untyped]
import sympy  # type: ignore[import-untyped]
from mpmath.libmp import NoConvergence  # type: ignore[import-untyped]

from autograd.testing.oracles.arithmetics import (
    EXACT_NAMESPACE,
    ReferenceUnresolved,
    count_bits,
    exact_bits,
    exact_limit,
    lambdified,
)

__all__ = ["POW_BITS", "PREC", "RANGE_BITS", "check_exact", "guard"]

_Symbols = tuple[Any, ...]
_Exprs = tuple[sympy.Expr, ...]
_Point = tuple[Fraction, ...]

#: The precision the guard computes each part at (the reference's first).
PREC = 128
#: The limits, in bits, where mpmath's pure-Python arithmetic stops being quick.  exp,
#: sin and the like reduce their argument (a power b ** e: e * ln b) with as many bits beyond
#: the precision as the argument's exponent has: 0.05 s at 2 ** 16 bits, 4 s at 2 ** 19.
RANGE_BITS = 2**16
#: ... a power whose exponent is an integer (every exponent past 2 ** prec is one) takes as many
#: squarings as the exponent has bits, each at four times as many bits: 0.1 s at 2 ** 11, 3.5 s
#: at 2 ** 13.
POW_BITS = 2**11


def guard(symbols: _Symbols, exprs: _Exprs, point: _Point) -> None:
    """Every part of ``exprs`` at the point in ``START_PREC``-bit mpmath, each checked before it is
    computed (:func:`_check`): ReferenceUnresolved before a tower."""
    with mpmath.workprec(PREC):
        values = {s: mpmath.mpf(x.numerator) / x.denominator for s, x in zip(symbols, point, strict=True)}
        for node in _parts(exprs):
            if node not in values:
                values[node] = _roughly(node, [values.get(a) for a in node.args])


@functools.lru_cache(maxsize=4096)
def _parts(exprs: _Exprs) -> tuple[sympy.Expr, ...]:
    """The distinct sub-expressions of ``exprs``, each after its arguments (no recursion: graphs
    can be deep)."""
    order: list[sympy.Expr] = []
    seen: set[sympy.Expr] = set()
    stack = [(e, False) for e in reversed(exprs)]
    while stack:
        node, ready = stack.pop()
        if node in seen:
            continue
        if ready:
            seen.add(node)
            order.append(node)
        else:
            stack.append((node, True))
            stack.extend((a, False) for a in reversed(node.args))
    return tuple(order)


def _roughly(node: sympy.Expr, args: list[Any]) -> Any:
    """The value of ``node`` at the current precision from its arguments', once :func:`_check` finds
    it affordable; None where there is no finite number (a pole) or the guard cannot compute it
    (the evaluation then finds out why)."""
    if node.is_Rational:
        return mpmath.mpf(node.p) / node.q
    if any(a is None for a in args):
        return None
    _check(node, args)
    try:
        if node.is_Atom:  # a constant (pi, a float) or a symbol without a value: no number
            y = node.evalf()
        elif node.is_Add:
            y = mpmath.fsum(args)
        elif node.is_Mul:
            y = mpmath.fprod(args)
        elif node.is_Pow:
            y = mpmath.power(*args)
        else:  # a function (or Max; what the guard cannot compute, DiracDelta, stays None)
            y = _point_function(node.func, len(args))(*args)
        y = mpmath.mpmathify(y)
    except (ArithmeticError, ValueError, TypeError, NoConvergence, NameError):  # the evaluation finds out why
        return None  # (NameError: a function mpmath's points do not have, DiracDelta)
    return y if mpmath.isfinite(y) else None


#: Functions whose cost does not grow with their argument: the exact ones (piecewise linear) and
#: log (its cost grows with the bits of its argument's exponent, which the checks of exp and of
#: powers keep near RANGE_BITS).
_FLAT = {"log", *EXACT_NAMESPACE}


def _check(node: sympy.Expr, args: list[Any]) -> None:
    """ReferenceUnresolved if computing ``node`` from its arguments' values means a range reduction
    past ``RANGE_BITS`` or an integer power past ``POW_BITS``."""
    if node.is_Pow:
        base, power = args
        _limit(node, "an exponent", mpmath.mag(power), POW_BITS)
        if base:  # |ln|base|| < (|m| + 1) ln 2 < 2 ** (the bits of m), m = mag(base)
            ln_bits = mpmath.mag(base).bit_length()
            _limit(node, "an exponent times ln(base)", mpmath.mag(power) + ln_bits, RANGE_BITS)
    elif isinstance(node, sympy.Function) and type(node).__name__ not in _FLAT:
        for x in args:
            _limit(node, f"an argument of {type(node).__name__}", mpmath.mag(x), RANGE_BITS)


def _limit(node: sympy.Expr, what: str, bits: Any, limit: int) -> None:
    if bits > limit:
        raise ReferenceUnresolved(
            f"{what} of about 2**{count_bits(bits)} in {_short(node)} is beyond what the reference can"
            f" evaluate (over 2**{limit})"
        )


def _short(node: sympy.Expr) -> str:
    text = str(node)
    return text if len(text) <= 60 else text[:57] + "..."


@functools.lru_cache(maxsize=1024)
def _point_function(func: Any, n: int) -> Any:
    """``func`` of ``n`` arguments as an mpmath function (compiled once per function)."""
    slots = tuple(sympy.symbols(f"a0:{n}", cls=sympy.Dummy))
    f = lambdified(slots, (func(*slots),), "point")
    return lambda *xs: f(*xs)[0]


def check_exact(symbols: _Symbols, exprs: _Exprs, point: _Point) -> None:
    """ReferenceUnresolved if a rational power in ``exprs`` at the point would have more than
    ``EXACT_BITS`` bits (sympy, asked what is undefined, computes one exactly)."""
    values: dict[Any, Any] = dict(zip(symbols, point, strict=True))
    for node in _parts(exprs):
        if node not in values:
            args: list[Any] = [values.get(a) for a in node.args]
            if node.is_Pow and all(isinstance(a, Fraction) for a in args):
                exact_limit(_short(node), abs(args[1]) * exact_bits(args[0]))
            values[node] = _exactly(node, args)


def _exactly(node: sympy.Expr, args: list[Any]) -> Fraction | None:
    """The exact value of a rational operation on exact values (None for any other)."""
    if node.is_Rational:
        return Fraction(int(node.p), int(node.q))
    if not args or not all(isinstance(a, Fraction) for a in args):
        return None
    name = type(node).__name__
    try:
        if node.is_Pow:
            return args[0] ** args[1] if args[1].denominator == 1 else None
        if node.is_Add:
            return Fraction(sum(args))
        if node.is_Mul:
            return Fraction(math.prod(args))
        return Fraction(EXACT_NAMESPACE[name](*args)) if name in EXACT_NAMESPACE else None
    except ZeroDivisionError:  # a pole (0 ** -1): no number
        return None
