"""Known functions beside the op table: what an engine's extra methods are checked against.

Each row is an :class:`~autograd.testing.ops.row.OpSpec`, the table's row type, with its fields
(sympy expression, plain-float function, region, kinks, rational closure, error model); the
mpmath counterpart is sympy's expression printed for mpmath (``ops.MP_MODULES``).  Only
``apply``/``source``/``form`` are placeholders: :mod:`autograd.testing.identify` fills them
with the engine's own method once its values have identified the row.

A row with ``consts`` is a family with one parameter (leaky_relu's slope, elu's alpha),
fitted from the engine's values by ``FIT[name]`` and then checked at every point.  The
table's unary ops (exp, log, tanh, relu, sigmoid, neg) are rows too, taken from ``OPS``
unchanged, so that a renamed table op (``ln``, ``sigmod``, ``reLU``) is checked as that op.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import mpmath  # type: ignore[import-untyped]
import sympy  # type: ignore[import-untyped]
from mpmath import iv

from autograd.testing.ops.row import POSITIVE, Call, OpSpec, Relu, sym_const
from autograd.testing.ops.table import OPS

__all__ = ["CATALOGUE", "EXACT_FUNCTIONS", "FIT", "INTERVAL_FUNCTIONS", "catalogue_names", "known"]


def _row(
    name: str,
    sym: Callable[..., sympy.Expr],
    num: Callable[..., float],
    *,
    arity: int = 1,
    **fields: Any,
) -> OpSpec:
    """A function of ``arity`` operands, applied through the engine's own method: ``sym`` and ``num``
    take the operands one by one, then the constant (``atan2(y, x, c)``)."""
    form = f"{name}({', '.join(('v', 'w')[:arity])})" if arity <= 2 else f"{name}(...)"
    return OpSpec(
        name=name, form=form, arity=arity, call=Call(None),
        sym=lambda s, c: sym(*s[:arity], c), num=lambda x, c: num(*x[:arity], c),
        source=lambda n, c: f"{name}({', '.join(n[:arity])})",
        **fields,
    )  # fmt: skip


def _softplus(x: float) -> float:
    return max(x, 0.0) + math.log1p(math.exp(-abs(x)))


def _silu(x: float) -> float:
    return x / (1 + math.exp(-x)) if x >= -700 else x * math.exp(x)


def _gelu(x: float) -> float:
    return 0.5 * x * (1 + math.erf(x / math.sqrt(2)))


def _elu(x: float, a: float) -> float:
    return x if x > 0 else a * math.expm1(x)


def _sqrt2() -> sympy.Expr:
    return sympy.sqrt(2)


#: Where a derivative is formed from O(1) quantities (cos x, 1 - t*t), rounding errs absolutely.
_O1 = lambda x, c, out: 4  # noqa: E731

CATALOGUE: tuple[OpSpec, ...] = (
    *(OPS[n] for n in ("neg", "exp", "log", "tanh", "relu", "sigmoid")),
    _row("pos", lambda s, c: s, lambda x, c: +x, rational=lambda c: True, partial_err=lambda x, c, o: 0),
    _row("abs", lambda s, c: sympy.Abs(s), lambda x, c: abs(x), kinks=(0.0,), rational=lambda c: True,
         partial_err=lambda x, c, o: 0),
    _row("sqrt", lambda s, c: sympy.sqrt(s), lambda x, c: math.sqrt(x),
         region=lambda c: (sympy.Interval(0, sympy.oo),), partial_err=lambda x, c, o: 3),
    _row("sin", lambda s, c: sympy.sin(s), lambda x, c: math.sin(x), partial_err=_O1),
    _row("cos", lambda s, c: sympy.cos(s), lambda x, c: math.cos(x), partial_err=_O1),
    _row("tan", lambda s, c: sympy.tan(s), lambda x, c: math.tan(x), partial_err=_O1),
    # sinh and cosh through exp: mpmath's interval arithmetic has exp, not sinh
    _row("sinh", lambda s, c: (sympy.exp(s) - sympy.exp(-s)) / 2, lambda x, c: math.sinh(x), partial_err=_O1),
    _row("cosh", lambda s, c: (sympy.exp(s) + sympy.exp(-s)) / 2, lambda x, c: math.cosh(x), partial_err=_O1),
    _row("atan", lambda s, c: sympy.atan(s), lambda x, c: math.atan(x)),
    _row("log1p", lambda s, c: sympy.log(1 + s), lambda x, c: math.log1p(x),
         region=lambda c: (sympy.Interval.open(-1, sympy.oo),), partial_err=lambda x, c, o: 3),
    _row("expm1", lambda s, c: sympy.exp(s) - 1, lambda x, c: math.expm1(x)),
    _row("softplus", lambda s, c: sympy.log(1 + sympy.exp(s)), lambda x, c: _softplus(x), partial_err=_O1),
    _row("softsign", lambda s, c: s / (1 + sympy.Abs(s)), lambda x, c: x / (1 + abs(x)), partial_err=_O1),
    _row("gelu", lambda s, c: s / 2 * (1 + sympy.erf(s / _sqrt2())), lambda x, c: _gelu(x), partial_err=_O1),
    _row("silu", lambda s, c: s / (1 + sympy.exp(-s)), lambda x, c: _silu(x), partial_err=_O1),
    _row("erf", lambda s, c: sympy.erf(s), lambda x, c: math.erf(x), partial_err=_O1),
    _row("gamma", lambda s, c: sympy.gamma(s), lambda x, c: math.gamma(x), region=lambda c: (POSITIVE,),
         fwd_err=lambda x, c, o: 16 * abs(o), partial_err=lambda x, c, o: 32),
    # families: the parameter is the row's constant, fitted from the engine's values (FIT)
    _row("leaky_relu", lambda s, c: Relu(s) - sym_const(c) * Relu(-s), lambda x, c: x if x > 0 else c * x,
         consts=(0.01,), parameter=True, kinks=(0.0,), partial_err=lambda x, c, o: 1),
    _row("elu", lambda s, c: Relu(s) + sym_const(c) * (sympy.exp(-Relu(-s)) - 1), _elu,
         consts=(1.0,), parameter=True, kinks=(0.0,), partial_err=_O1),
)  # fmt: skip


def _slope(values: dict[float, float]) -> Any:
    """leaky_relu's slope from its value at a negative point (rounded to 12 digits: 0.01, not 0.0100...02)."""
    x = min(values)
    return float(f"{values[x] / x:.12g}") if x < 0 else None


def _alpha(values: dict[float, float]) -> Any:
    x = min(values)
    return float(f"{values[x] / math.expm1(x):.12g}") if x < 0 else None


#: How each family's parameter is read from the engine's values ``{x: f(x)}``.
FIT: dict[str, Callable[[dict[float, float]], Any]] = {"leaky_relu": _slope, "elu": _alpha}


def known(name: str) -> OpSpec:
    return next(spec for spec in CATALOGUE if spec.name == name)


# ---------------------------------------------------------------------- references
def _iv_point(f: Callable[..., Any]) -> Callable[..., Any]:
    """An interval version of a point function that mpmath.iv lacks (erf, gamma, atan, ...).

    f at both ends (and the middle), widened by a few units of the working precision: not a
    rigorous enclosure, but the reference's intervals are a few ulps of 128+ bits wide, where
    these functions are smooth, and the reference raises its precision until results settle.
    """

    def g(*args: Any) -> Any:
        xs = [iv.mpf(a) for a in args]
        with mpmath.workprec(iv.prec + 20):
            ends = [[mpmath.mpf(x.a) for x in xs], [mpmath.mpf(x.b) for x in xs]]
            ends.append([(a + b) / 2 for a, b in zip(*ends[:2], strict=True)])
            ys = [f(*e) for e in ends]
            lo, hi = min(ys), max(ys)
            pad = (abs(lo) + abs(hi)) * mpmath.mpf(2) ** (-iv.prec + 4)
            lo, hi = lo - pad, hi + pad  # here: outside, they round to 53 bits and enclose nothing
        return iv.mpf([lo, hi])

    return g


def _sign(x: Any) -> Any:
    return (x > 0) - (x < 0)


#: What graph references need for the catalogue's functions, in mpmath interval arithmetic.
INTERVAL_FUNCTIONS: dict[str, Any] = {
    "sin": iv.sin, "cos": iv.cos, "tan": iv.tan, "Abs": abs, "fabs": abs,
    **{n: _iv_point(getattr(mpmath, n)) for n in ("erf", "gamma", "atan")},
    "polygamma": _iv_point(lambda n, x: mpmath.polygamma(int(n), x)),
}  # fmt: skip
#: ... and in exact rational arithmetic (the rational rows: abs, pos, leaky_relu with a rational slope).
EXACT_FUNCTIONS: dict[str, Any] = {"Abs": abs, "fabs": abs, "sign": _sign}


def catalogue_names() -> Sequence[str]:
    return [spec.name for spec in CATALOGUE]
