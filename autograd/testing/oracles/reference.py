"""The certified reference: the exact value of sympy expressions at exact points.

:func:`certify` is the one function every probe and check calls for "the exact value (and
derivatives) of this expression at these floats".  Floats are rationals, so a point is exact;
each expression's value comes back certified to the digits the harness compares:

- exact, as a ``Fraction``, where the expression is rational (only ``+ - * /``, integer
  powers, relu and its kinks' functions): radius 0;
- otherwise an mpmath interval that contains it, from ``START_PREC`` bits doubling up to
  ``MAX_PREC``, returned once it is *settled*: both ends round to the same float, or its width
  is below ``REL_WIDTH`` of its magnitude (a value on a rounding boundary).  A few functions
  have no rigorous interval version in mpmath (erf, gamma, atan: see
  :data:`autograd.testing.ops.catalogue.INTERVAL_FUNCTIONS`): they are evaluated at the ends with
  a margin, and settle only when their results do;
- for a function with no interval version at all, point evaluation with the precision doubled
  until two successive evaluations agree to ``REL_WIDTH`` and round to the same float.

A value that is not a finite real number (a pole: ``log(0)``, ``1 / 0``; a complex result:
``(-1) ** 0.5``; an infinity) is :data:`UNDEFINED`, decided by sympy on the exact point, so
that a caller can tell "no finite real value here" (a range limit, a domain) from "not known"
(:class:`ReferenceUnresolved`, which callers turn into *inconclusive*, never a verdict).
A finite value beyond the float range is returned as it is: rounding it is the caller's fact.

Before a numeric evaluation, a magnitude guard (:mod:`autograd.testing.oracles.magnitudes`)
refuses, as :class:`ReferenceUnresolved` with its size named, a part too large for mpmath to
reduce in time: a tower such as ``x ** (x ** y)`` at (2, 1e10), about 2 ** (2 ** 1e10).  The exact
evaluations (Fractions; sympy telling an undefined value) refuse a rational power of more than
``EXACT_BITS`` bits the same way (:mod:`autograd.testing.oracles.arithmetics`, where the three
arithmetics live).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath  # type: ignore[import-untyped]
import sympy  # type: ignore[import-untyped]
from mpmath import iv
from mpmath.libmp import to_float  # type: ignore[import-untyped]

from autograd.testing.oracles.arithmetics import (
    EXACT_NAMESPACE,
    INTERVAL_NAMESPACE,
    ReferenceUnresolved,
    Straddle,
    lambdified,
)
from autograd.testing.oracles.magnitudes import check_exact, guard

__all__ = ["UNDEFINED", "Certified", "ReferenceUnresolved", "certify", "to_mpf"]

#: Interval (and point) evaluation starts at this many bits and doubles up to MAX_PREC.
START_PREC = 128
MAX_PREC = 8192
#: A result is settled when both ends round to the same double, or its width is below this
#: fraction of its magnitude (for values that sit on a rounding boundary).
REL_WIDTH = 2.0**-70


@dataclass(frozen=True)
class Certified:
    """An exact value (``Fraction``, radius 0) or the midpoint and radius of an mpmath interval
    that contains it.  ``value is None`` (:data:`UNDEFINED`): not a finite real number there."""

    value: Any
    radius: Any = 0
    exact: bool = True

    @property
    def defined(self) -> bool:
        """True unless the value is :data:`UNDEFINED` (a pole, or not a finite real number)."""
        return self.value is not None

    def __float__(self) -> float:
        if self.value is None:
            raise ValueError("reference: an undefined value (a pole or a complex result) has no float")
        return float(self.value)


#: The value of an expression that is not a finite real number at the point.
UNDEFINED = Certified(None)

_Symbols = tuple[Any, ...]
_Exprs = tuple[sympy.Expr, ...]
_Point = tuple[Fraction, ...]
_Found = tuple[Certified, ...]


def to_mpf(x: Any) -> Any:
    """An exact float, int or Fraction as an mpmath number (a Fraction with enough bits to be exact
    up to its last one, or rounded at 64 bits beyond its denominator's size)."""
    if isinstance(x, Fraction):
        with mpmath.workprec(max(mpmath.mp.prec, x.numerator.bit_length(), x.denominator.bit_length() + 64)):
            return mpmath.mpf(x.numerator) / x.denominator
    return mpmath.mpf(x)


def certify(
    symbols: Sequence[sympy.Symbol],
    exprs: Sequence[sympy.Expr],
    point: Sequence[Any],
    *,
    signs: int = 0,
    exact: bool = True,
) -> tuple[Certified, ...]:
    """Each of ``exprs`` at ``symbols = point`` (floats, ints or Fractions, taken exactly), certified.

    The last ``signs`` expressions need only a certain sign (a relu input beside its kink), not a
    settled value.  Raises :class:`ReferenceUnresolved` when some value is not settled at
    ``MAX_PREC`` bits, or some part is too large to evaluate (the module's guard); an expression
    with no finite real value is :data:`UNDEFINED`.  With ``exact=False`` a rational expression is
    evaluated in intervals too (a caller whose engine computes it in floats, and whose tolerances
    say so).
    """
    symbols, exprs = tuple(symbols), tuple(exprs)
    bad = [x for x in point if not isinstance(x, int | Fraction) and not mpmath.isfinite(x)]
    if bad:
        raise ValueError(f"reference: {exprs[:1]} at {tuple(point)}: {bad[0]!r} is not a finite number")
    at = tuple(Fraction(x) for x in point)  # a float is the rational it stores
    if len(at) != len(symbols):
        raise ValueError(f"reference: {len(at)} values for the symbols {symbols}")
    if exact and _rational(exprs):
        return _exact(symbols, exprs, at)
    guard(symbols, exprs, at)
    numeric = _by_intervals if _has_intervals(exprs) else _by_points
    try:
        return numeric(symbols, exprs, at, signs, strict=True)
    except _Failed:  # a pole, a complex or an infinite result at some precision: is it real?
        pass
    undefined = _undefined(symbols, exprs, at)
    if not undefined:  # no: cancellation or an interval too wide; more precision will tell
        return numeric(symbols, exprs, at, signs, strict=False)
    # evaluate the others alone: a pole of one partial leaves the rest defined
    keep = sum(1 for i in range(len(exprs) - signs, len(exprs)) if i not in undefined)
    return _others(exprs, undefined, lambda rest: certify(symbols, rest, at, signs=keep, exact=exact))


def _others(exprs: _Exprs, undefined: set[int], evaluate: Any) -> _Found:
    """UNDEFINED for the expressions ``undefined``, ``evaluate(the others)`` for the others."""
    rest = tuple(e for i, e in enumerate(exprs) if i not in undefined)
    found = iter(evaluate(rest) if rest else ())
    return tuple(UNDEFINED if i in undefined else next(found) for i in range(len(exprs)))


class _Failed(Exception):
    """An evaluation met a pole, a complex or an infinite result (strict mode: ask sympy why)."""


# ---------------------------------------------------------------------- which arithmetic
def _functions(exprs: tuple[sympy.Expr, ...]) -> set[str]:
    return {type(f).__name__ for e in exprs for f in e.atoms(sympy.Function)}


@functools.lru_cache(maxsize=4096)
def _rational(exprs: tuple[sympy.Expr, ...]) -> bool:
    """Only field operations, integer powers and the exact namespace's functions: exact in Fractions."""
    return (
        _functions(exprs) <= set(EXACT_NAMESPACE)
        and all(p.exp.is_Integer for e in exprs for p in e.atoms(sympy.Pow))
        and not any(e.atoms(sympy.NumberSymbol) or e.has(sympy.E) for e in exprs)
    )


@functools.lru_cache(maxsize=4096)
def _has_intervals(exprs: tuple[sympy.Expr, ...]) -> bool:
    return _functions(exprs) <= set(INTERVAL_NAMESPACE)


def _undefined(
    symbols: tuple[Any, ...], exprs: tuple[sympy.Expr, ...], point: tuple[Fraction, ...]
) -> set[int]:
    """The expressions that sympy finds not finite real at the exact point: a pole, or a complex
    value of the expression OR OF ANY PART OF IT (``x ** y * log(x)`` at x = -1 is the real pi
    in complex arithmetic, but a real function of real numbers has no value there)."""
    check_exact(symbols, exprs, point)  # sympy computes a rational power exactly
    at = {s: sympy.Rational(x.numerator, x.denominator) for s, x in zip(symbols, point, strict=True)}
    seen: dict[sympy.Expr, bool] = {}

    def bad(e: sympy.Expr) -> bool:
        if e not in seen:
            y = e.xreplace(at)
            seen[e] = bool(y.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo) or y.is_extended_real is False)
        return seen[e]

    return {i for i, e in enumerate(exprs) if any(bad(sub) for sub in sympy.postorder_traversal(e))}


# ---------------------------------------------------------------------- exact
def _exact(
    symbols: tuple[Any, ...], exprs: tuple[sympy.Expr, ...], point: tuple[Fraction, ...]
) -> tuple[Certified, ...]:
    try:
        values = lambdified(symbols, exprs, "exact")(*point)
    except ZeroDivisionError:  # exact arithmetic: a true pole of some expression
        undefined = _undefined(symbols, exprs, point)
        if not undefined:
            raise  # a pole sympy does not see: ours to explain, loudly
        return _others(exprs, undefined, lambda rest: _exact(symbols, rest, point))
    return tuple(Certified(Fraction(v)) for v in values)


# ---------------------------------------------------------------------- intervals
def _by_intervals(symbols: _Symbols, exprs: _Exprs, point: _Point, signs: int, strict: bool) -> _Found:
    """Interval evaluation from ``START_PREC`` bits doubling; ``strict``: :class:`_Failed` at the
    first pole, complex or infinite result instead of trying more precision."""
    f = lambdified(symbols, exprs, "interval")
    prec, why = START_PREC, ""
    while prec <= MAX_PREC:
        saved = iv.prec
        iv.prec = prec  # mpmath.iv has no workprec context
        try:
            found = _interval_attempt(f, point, prec, len(exprs) - signs)
        except (Straddle, ZeroDivisionError, ValueError) as exc:  # ComplexResult is a ValueError
            if strict and not isinstance(exc, Straddle):
                raise _Failed from exc
            why = f"an interval met a kink or a pole at {prec} bits ({type(exc).__name__})"
        else:
            if isinstance(found, tuple):
                return found
            if strict and found == "failed":
                raise _Failed
            why = f"the intervals are still wide at {prec} bits"
        finally:
            iv.prec = saved
        prec *= 2
    raise ReferenceUnresolved(f"the reference did not settle: {why}")


def _interval_attempt(
    f: Any, point: tuple[Fraction, ...], prec: int, settle: int
) -> tuple[Certified, ...] | str:
    """One evaluation at ``iv.prec``: the results, or "wide" when some result is not settled (or
    signed) yet, "failed" when one is complex or has an infinite end."""
    args = [iv.mpf(x.numerator) / x.denominator for x in point]
    ys = [y if isinstance(y, iv.mpc) else iv.mpf(y) for y in f(*args)]  # a constant comes back as an int
    if any(isinstance(y, iv.mpc) or not (mpmath.isfinite(y.a) and mpmath.isfinite(y.b)) for y in ys):
        return "failed"
    if not (all(map(_settled, ys[:settle])) and all(map(_sign_known, ys[settle:]))):
        return "wide"
    with mpmath.workprec(prec):
        ends = [(mpmath.mpf(y.a), mpmath.mpf(y.b)) for y in ys]
    return tuple(Certified(*_middle(a, b, prec), exact=False) for a, b in ends)


def _settled(x: Any) -> bool:
    """Both ends round to the same double, or the interval is relatively narrow."""
    lo, hi = x._mpi_
    if to_float(lo, rnd="n") == to_float(hi, rnd="n"):
        return True
    with mpmath.workprec(iv.prec):  # the ends as they are: rounded to 53 bits, they are a double apart
        a, b = mpmath.mpf(lo), mpmath.mpf(hi)
        return bool(a * b > 0 and b - a <= REL_WIDTH * min(abs(a), abs(b)))


def _sign_known(x: Any) -> bool:
    return bool(x.a > 0 or x.b < 0 or (x.a == 0 and x.b == 0))


def _middle(a: Any, b: Any, prec: int) -> tuple[Any, Any]:
    """Midpoint and radius of ``[a, b]``: exactly, since (a + b) / 2 rounded to prec bits can be an
    end and mid +- rad then misses half the interval; rounded outward when the exact sum would be
    far longer than the ends (exp(-1.4e140) beside 1.0: an integer of 2e140 bits)."""
    if _exact_bits(a, b) <= 4 * prec:
        mid = mpmath.ldexp(mpmath.fadd(a, b, exact=True), -1)
        return mid, mpmath.ldexp(mpmath.fsub(b, a, exact=True), -1)
    mid = mpmath.ldexp(mpmath.fadd(a, b, prec=prec), -1)
    up = [mpmath.fsub(b, mid, prec=prec, rounding="u"), mpmath.fsub(mid, a, prec=prec, rounding="u")]
    return mid, max(up)


def _exact_bits(a: Any, b: Any) -> int:
    """Bits of the exact a + b: from the lowest bit of either to the highest (0 for zeros)."""
    parts = [(x._mpf_[2], x._mpf_[2] + x._mpf_[3]) for x in (a, b) if x]  # (exp, exp + bitcount)
    return max(top for _, top in parts) - min(low for low, _ in parts) if parts else 0


# ---------------------------------------------------------------------- points
def _by_points(symbols: _Symbols, exprs: _Exprs, point: _Point, signs: int, strict: bool) -> _Found:
    """Point evaluation, the precision doubled until two successive results agree (no interval
    version of some function: the best certificate mpmath offers)."""
    f = lambdified(symbols, exprs, "point")
    settle = len(exprs) - signs
    prec, before, why = START_PREC, None, ""
    while prec <= MAX_PREC:
        with mpmath.workprec(prec):
            ys = _point_attempt(f, point, strict)
            if ys is None:
                why = f"the evaluation failed at {prec} bits"
            elif before is not None and _agree(before, ys, settle):
                return tuple(Certified(y, abs(y - b), exact=False) for y, b in zip(ys, before, strict=True))
            else:
                why = f"two evaluations still differ at {prec} bits"
            before = ys
        prec *= 2
    raise ReferenceUnresolved(f"the reference did not settle: {why}")


def _point_attempt(f: Any, point: tuple[Fraction, ...], strict: bool) -> list[Any] | None:
    try:
        ys = f(*map(to_mpf, point))
    except (ZeroDivisionError, ValueError) as exc:
        if strict:
            raise _Failed from exc
        return None
    if all(isinstance(y, mpmath.mpf | int | Fraction) and mpmath.isfinite(y) for y in ys):
        return [mpmath.mpf(y) for y in ys]
    if strict:
        raise _Failed
    return None


def _agree(before: list[Any] | None, now: list[Any], settle: int) -> bool:
    """The first ``settle`` values agree to ``REL_WIDTH`` and round to the same float; the rest
    have the same sign, not 0."""
    if before is None:
        return False
    signs = zip(before[settle:], now[settle:], strict=True)
    return all(a != 0 and mpmath.sign(a) == mpmath.sign(b) for a, b in signs) and all(
        mpmath.isfinite(a)
        and mpmath.isfinite(b)
        and float(a) == float(b)
        and abs(a - b) <= REL_WIDTH * max(abs(a), abs(b))
        for a, b in zip(before[:settle], now[:settle], strict=True)
    )
