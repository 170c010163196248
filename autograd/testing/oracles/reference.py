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

Before a numeric evaluation, a magnitude guard computes every part of the expressions at the
point in ``START_PREC``-bit mpmath, each checked before it is computed: a part whose exponent
(past ``POW_BITS`` bits) or whose argument of exp, sin or any function but log and the
piecewise-linear ones (past ``RANGE_BITS`` bits) is too large for mpmath to reduce in time is
:class:`ReferenceUnresolved`, its size named: a tower such as ``x ** (x ** y)`` at (2, 1e10),
about 2 ** (2 ** 1e10).  The exact evaluations (Fractions; sympy telling an undefined value) refuse
a rational power of more than ``EXACT_BITS`` bits the same way: ``x ** y`` at (1.5, 1e300) is a
fine value beyond the float range, but not a rational to compute.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath  # type: ignore[import-untyped]
import sympy  # type: ignore[import-untyped]
from mpmath import iv
from mpmath.libmp import to_float  # type: ignore[import-untyped]
from sympy.printing.pycode import MpmathPrinter  # type: ignore[import-untyped]

from autograd.testing.ops import MP_MODULES
from autograd.testing.ops.catalogue import EXACT_FUNCTIONS, INTERVAL_FUNCTIONS

__all__ = ["UNDEFINED", "Certified", "ReferenceUnresolved", "certify", "to_mpf"]

#: Interval (and point) evaluation starts at this many bits and doubles up to MAX_PREC.
START_PREC = 128
MAX_PREC = 8192
#: A result is settled when both ends round to the same double, or its width is below this
#: fraction of its magnitude (for values that sit on a rounding boundary).
REL_WIDTH = 2.0**-70
#: The guard's limits, in bits, where mpmath's pure-Python arithmetic stops being quick.  exp,
#: sin and the like reduce their argument (a power b ** e: e * ln b) with as many bits beyond
#: the precision as the argument's exponent has: 0.05 s at 2 ** 16 bits, 4 s at 2 ** 19.
RANGE_BITS = 2**16
#: ... a power whose exponent is an integer (every exponent past 2 ** prec is one) takes as many
#: squarings as the exponent has bits, each at four times as many bits: 0.1 s at 2 ** 11, 3.5 s
#: at 2 ** 13.
POW_BITS = 2**11
#: ... and Fractions (the exact path) and sympy (which tells an undefined value) compute a
#: rational power exactly and reduce each sum and product by a gcd, quadratic in the bits: 10 ms
#: at 2 ** 16 bits, 3 s at 2 ** 20.
EXACT_BITS = 2**16


class ReferenceUnresolved(Exception):
    """The reference cannot be certified within ``MAX_PREC`` bits; ``.reason`` says why.

    Not a defect of the engine and not a pass: callers report the point as inconclusive.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


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
    _guard(symbols, exprs, at)
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
        _functions(exprs) <= set(_EXACT_NAMESPACE)
        and all(p.exp.is_Integer for e in exprs for p in e.atoms(sympy.Pow))
        and not any(e.atoms(sympy.NumberSymbol) or e.has(sympy.E) for e in exprs)
    )


@functools.lru_cache(maxsize=4096)
def _has_intervals(exprs: tuple[sympy.Expr, ...]) -> bool:
    return _functions(exprs) <= set(_INTERVAL_NAMESPACE)


def _undefined(
    symbols: tuple[Any, ...], exprs: tuple[sympy.Expr, ...], point: tuple[Fraction, ...]
) -> set[int]:
    """The expressions that sympy finds not finite real at the exact point: a pole, or a complex
    value of the expression OR OF ANY PART OF IT (``x ** y * log(x)`` at x = -1 is the real pi
    in complex arithmetic, but a real function of real numbers has no value there)."""
    _check_exact(symbols, exprs, point)  # sympy computes a rational power exactly
    at = {s: sympy.Rational(x.numerator, x.denominator) for s, x in zip(symbols, point, strict=True)}
    seen: dict[sympy.Expr, bool] = {}

    def bad(e: sympy.Expr) -> bool:
        if e not in seen:
            y = e.xreplace(at)
            seen[e] = bool(y.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo) or y.is_extended_real is False)
        return seen[e]

    return {i for i, e in enumerate(exprs) if any(bad(sub) for sub in sympy.postorder_traversal(e))}


# ---------------------------------------------------------------------- namespaces
def _relu(x: Any) -> Any:
    return x if x > 0 else 0 * x


def _step(x: Any) -> Any:
    return 1 if x > 0 else 0


class _Straddle(Exception):
    """An interval argument of Step contains 0 and other numbers: more precision needed."""


def _iv_relu(x: Any) -> Any:
    x = iv.mpf(x)  # also a constant such as e
    return iv.mpf([iv.mpf(0) if x.a < 0 else x.a, iv.mpf(0) if x.b < 0 else x.b])


def _iv_step(x: Any) -> Any:
    x = iv.mpf(x)
    if x.a > 0:
        return iv.mpf(1)
    if x.b <= 0:
        return iv.mpf(0)
    raise _Straddle


def _iv_sign(x: Any) -> Any:  # sympy writes d|x|/dx as sign(x) (from (x*x)**c on real x)
    x = iv.mpf(x)
    if x.a > 0:
        return iv.mpf(1)
    if x.b < 0:
        return iv.mpf(-1)
    if x.a == 0 and x.b == 0:
        return iv.mpf(0)
    raise _Straddle


def _iv_tanh(x: Any) -> Any:  # mpmath.iv has no tanh; x appears once, so the interval stays tight
    return 1 - 2 / (_iv_exp(2 * x) + 1)


def _iv_dirac(x: Any, *order: Any) -> Any:
    """d/dx sign(x) (sympy writes it for second derivatives of ``1/|x|``): 0 off the kink 0."""
    x = iv.mpf(x)
    if x.a > 0 or x.b < 0:
        return iv.mpf(0)
    raise _Straddle  # at (or straddling) the kink: no number


def _iv_exp(x: Any) -> Any:
    """``iv.exp`` widened by 16 ulps of its precision: mpmath rounds an approximation computed at a
    few more bits in the outward direction, which does not cover that approximation's error (at
    2048 bits ``iv.exp(2 ** -1074) - 1 - 2 ** -1074`` is the point [0, 0]; the truth is 2 ** -2149).
    exp is positive, so a relative widening contains the value.  exp(0) is 1 exactly, and stays so
    (tanh(0) and relu(x) * exp(0) must not straddle a kink)."""
    x = iv.mpf(x)
    if x.a == 0 and x.b == 0:
        return iv.mpf(1)
    y = iv.exp(x)
    slack = iv.mpf(2) ** (4 - iv.prec)
    return y * iv.mpf([1 - slack.a, 1 + slack.b])


_EXACT_NAMESPACE = {"mpf": Fraction, "Relu": _relu, "Step": _step, **EXACT_FUNCTIONS}
_INTERVAL_NAMESPACE = {
    "mpf": iv.mpf, "exp": _iv_exp, "log": iv.ln, "sqrt": iv.sqrt, "tanh": _iv_tanh,
    "Relu": _iv_relu, "Step": _iv_step, "sign": _iv_sign, "DiracDelta": _iv_dirac, "e": iv.e, "pi": iv.pi,
    **INTERVAL_FUNCTIONS,  # the catalogue's functions (an engine's identified extra ops)
}  # fmt: skip


@functools.lru_cache(maxsize=4096)
def _function(symbols: tuple[Any, ...], exprs: tuple[sympy.Expr, ...], arithmetic: str) -> Any:
    """``f(*point) -> [each expression]`` in exact, interval or point arithmetic (cached).

    mpmath's printer writes a rational constant p/q as ``mpf(p)/mpf(q)``, so binding ``mpf``
    to ``Fraction`` (or to an interval) keeps constants exact.
    """
    if arithmetic == "point":
        return sympy.lambdify(symbols, list(exprs), modules=MP_MODULES, cse=True)
    exact = arithmetic == "exact"
    namespace = {**_EXACT_NAMESPACE, "_pow": _exact_pow} if exact else _INTERVAL_NAMESPACE
    printer = (_ExactPrinter if exact else MpmathPrinter)(
        {"fully_qualified_modules": False, "inline": True, "allow_unknown_functions": True}
    )
    return sympy.lambdify(symbols, list(exprs), modules=[namespace], printer=printer, cse=True)


# ---------------------------------------------------------------------- the magnitude guard
def _guard(symbols: _Symbols, exprs: _Exprs, point: _Point) -> None:
    """Every part of ``exprs`` at the point in ``START_PREC``-bit mpmath, each checked before it is
    computed (:func:`_check`): ReferenceUnresolved before a tower."""
    with mpmath.workprec(START_PREC):
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
    except Exception:  # any failure: the evaluation finds out why
        return None
    return y if mpmath.isfinite(y) else None


#: Functions whose cost does not grow with their argument: the exact ones (piecewise linear) and
#: log (its cost grows with the bits of its argument's exponent, which the checks of exp and of
#: powers keep near RANGE_BITS).
_FLAT = {"log", *_EXACT_NAMESPACE}


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
            f"{what} of about 2**{_count(bits)} in {_short(node)} is beyond what the reference can"
            f" evaluate (over 2**{limit})"
        )


def _count(n: Any) -> str:
    """A count of bits, short even when it has itself more digits than the floats hold."""
    return f"{n}" if n < 10**15 else f"(2**{math.log2(n):.4g})"


def _short(node: sympy.Expr) -> str:
    text = str(node)
    return text if len(text) <= 60 else text[:57] + "..."


@functools.lru_cache(maxsize=1024)
def _point_function(func: Any, n: int) -> Any:
    """``func`` of ``n`` arguments as an mpmath function (compiled once per function)."""
    slots = tuple(sympy.symbols(f"a0:{n}", cls=sympy.Dummy))
    f = _function(slots, (func(*slots),), "point")
    return lambda *xs: f(*xs)[0]


def _check_exact(symbols: _Symbols, exprs: _Exprs, point: _Point) -> None:
    """ReferenceUnresolved if a rational power in ``exprs`` at the point would have more than
    ``EXACT_BITS`` bits (sympy, asked what is undefined, computes one exactly)."""
    values: dict[Any, Any] = dict(zip(symbols, point, strict=True))
    for node in _parts(exprs):
        if node not in values:
            args: list[Any] = [values.get(a) for a in node.args]
            if node.is_Pow and all(isinstance(a, Fraction) for a in args):
                _exact_limit(_short(node), abs(args[1]) * _bits(args[0]))
            values[node] = _exactly(node, args)


def _bits(x: Fraction) -> int:
    return max(abs(x.numerator), x.denominator).bit_length() - 1


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
        return Fraction(_EXACT_NAMESPACE[name](*args)) if name in _EXACT_NAMESPACE else None
    except ZeroDivisionError:  # a pole (0 ** -1): no number
        return None


def _exact_pow(base: Any, n: Any) -> Any:
    """``base ** n`` in the exact namespace (:class:`_ExactPrinter`), refused past ``EXACT_BITS``."""
    _exact_limit("a power", abs(n) * _bits(Fraction(base)))
    return base**n


def _exact_limit(part: str, bits: Any) -> None:
    if bits > EXACT_BITS:
        raise ReferenceUnresolved(
            f"an exact rational of about {_count(math.ceil(bits))} bits in {part} is beyond"
            f" what the reference computes (over {EXACT_BITS} bits)"
        )


class _ExactPrinter(MpmathPrinter):  # type: ignore[misc]
    """Writes every power as ``_pow(base, n)``, that is :func:`_exact_pow`."""

    def _print_Pow(self, expr: sympy.Expr, rational: bool = False) -> str:
        return f"_pow({self._print(expr.base)}, {self._print(expr.exp)})"


# ---------------------------------------------------------------------- exact
def _exact(
    symbols: tuple[Any, ...], exprs: tuple[sympy.Expr, ...], point: tuple[Fraction, ...]
) -> tuple[Certified, ...]:
    try:
        values = _function(symbols, exprs, "exact")(*point)
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
    f = _function(symbols, exprs, "interval")
    prec, why = START_PREC, ""
    while prec <= MAX_PREC:
        saved = iv.prec
        iv.prec = prec  # mpmath.iv has no workprec context
        try:
            found = _interval_attempt(f, point, prec, len(exprs) - signs)
        except (_Straddle, ZeroDivisionError, ValueError) as exc:  # ComplexResult is a ValueError
            if strict and not isinstance(exc, _Straddle):
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
    f = _function(symbols, exprs, "point")
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
