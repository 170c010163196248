"""Known functions beside the op table: what an engine's extra methods are checked against.

Each row is an :class:`~autograd.testing.ops.row.OpSpec`, the table's row type, with its fields
(sympy expression, plain-float function, region, kinks, rational closure, error model); the
mpmath counterpart is sympy's expression printed for mpmath (``ops.MP_MODULES``).  Only
``apply``/``source``/``form`` are placeholders: :mod:`autograd.testing.identify` fills them
with the engine's own method once its values have identified the row.

The rows are the elementwise functions PyTorch, JAX, MyGrad and tinygrad share: the table's
unary ops (exp, log, tanh, relu, sigmoid, neg), taken from ``OPS`` unchanged so that a renamed
table op (``ln``, ``sigmod``, ``reLU``) is checked as that op; the trigonometric, hyperbolic,
exponential and logarithmic functions and their inverses; the activations (softplus, gelu and
its tanh approximation, silu, mish, selu, the hard ones, ...); erf, erfc, gamma, lgamma,
digamma and sinc; and the functions of two operands atan2, hypot, xlogy, logaddexp, maximum and
minimum, whose regions and kinks are per operand, the other held at ``PARTNER`` (maximum's kink
where the operands are equal is the first operand's point ``PARTNER``; generated graphs keep
the operands ``KINK_MARGIN`` apart).

A row with ``consts`` is a family with one parameter (leaky_relu's slope, elu's and celu's
alpha), fitted from the engine's values by ``FIT[name]`` and then checked at every point.  A
family's parameter is one number, so clip's bounds are fixed ([0, 1]): the edge probe makes the
constant 0 of the parameter's type (``probes.regions.edge_consts``), which a pair has not.

Error models (``fwd_err``, ``partial_err``, in units of eps): a few ulps of the result, as
libm's functions give, plus what the usual float evaluation of each function commits however
carefully its terms are rounded: the rounded exponent of ``x ** (1/3)`` (cbrt), the rounded
``pi * x`` of ``sin(pi * x)`` (sinc: absolute), the rounded argument of gelu_tanh's tanh, the
absolute error of lgamma and digamma near their roots, of ``log(x / (1 - x))`` near 1/2, of
``x / 6 + 1/2`` near -3; and for partials, the formula frameworks differentiate with: ``1 - x*x``
(asin, acos, atanh, acosh: the tanh row's ``1 - t*t``), ``exp(-x*x)`` (erfc), ``1 - s`` and
``out + alpha`` (logsigmoid, selu, celu: ``bounded_partials``), ``tan(pi * x)`` (digamma's
reflection).  A textbook formula that cancels (``1 + erf``, ``x - tanh(x)``, ``1 - erf``) errs
beyond these: that is a defect, as the verdict standard says.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import mpmath  # type: ignore[import-untyped]
import sympy  # type: ignore[import-untyped]
from mpmath import iv

from autograd.testing.ops import special as sp
from autograd.testing.ops.row import (
    AWAY_FROM_ZERO,
    KINK_MARGIN,
    PARTNER,
    POSITIVE,
    Call,
    OpSpec,
    Relu,
    nonzero,
    sym_const,
)
from autograd.testing.ops.table import OPS

__all__ = [
    "CATALOGUE", "EXACT_FUNCTIONS", "FIT", "GAMMA_POLES", "INTERVAL_FUNCTIONS", "catalogue_names", "known",
]  # fmt: skip

#: lgamma's and digamma's regions: the positive reals and the unit intervals between their first
#: poles; below -GAMMA_POLES they are defined too, but a region is a finite union of intervals
#: (``probes.regions``), so the rows leave that out (no point of a region is ever a pole).
GAMMA_POLES = 4
#: Partial error models are relative; one that divides an absolute error by a partial near 0 is
#: capped here (a finite tolerance: times the partial, it is the absolute error again).
_CAP = 1e300


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


def _silu(x: float) -> float:
    return x / (1 + math.exp(-x)) if x >= -700 else x * math.exp(x)


def _gelu(x: float) -> float:
    """x ncdf(x) by erfc, which keeps its digits far left (1 + erf(x / sqrt 2) cancels there)."""
    return 0.5 * x * math.erfc(-x / math.sqrt(2))


def _elu(x: float, a: float) -> float:
    return x if x > 0 else a * math.expm1(x)


def _sqrt2() -> sympy.Expr:
    return sympy.sqrt(2)


def _relative(absolute: float, partial: float) -> float:
    """An absolute error (eps) of a partial as a relative one, capped where the partial is 0."""
    return min(absolute / abs(partial), _CAP) if partial else (_CAP if absolute else 0.0)


def _ln(x: float) -> float:
    """|log |x||, 0 at 0: the error of x ** (1/3) from its rounded exponent is |log x| / 12 eps."""
    return abs(math.log(abs(x))) if x else 0.0


def _near_one(x: float) -> float:
    """x^2 / |1 - x^2|: the relative error of 1 - x*x (or x*x - 1) from the rounding of x*x (1 where
    x*x is beyond 1e300; 0 at x = 1, where the slope is infinite and not judged)."""
    t = min(x * x, 1e300)
    return t / abs(1 - t) if t != 1 else 0.0


def _exp_capped(t: float) -> float:
    return math.exp(min(t, 690.0))


def _gelu_tanh_fwd_err(x: float, out: float) -> float:
    """x sigmoid(2 z) with z rounded (5 eps relative): far left, where sigmoid(2 z) is e^(2 z), the
    error is 10 |z| eps relative."""
    z = sp.gelu_tanh_z(min(max(x, -1e5), 1e5))[0]
    return abs(out) * (4 + 10 * abs(z) * sp.sigmoid(-2 * z))


def _gelu_tanh_partial_err(x: float) -> float:
    """The error of 0.5 (1 + t) + 0.5 x (1 - t*t) z' with t = tanh(z): the rounding of z (5 eps
    relative), of t*t (absolute, but never more than 1 - t*t itself) and of the rest (beyond
    |x| = 1e5 the slope is 0 or 1 to the last digit)."""
    x = min(max(x, -1e5), 1e5)
    z, dz = sp.gelu_tanh_z(x)
    s, w = sp.sigmoid(2 * z), 4 * sp.sigmoid(2 * z) * sp.sigmoid(-2 * z)  # w = 1 - tanh(z)^2
    slope = abs(x * dz)
    absolute = 2 + slope * min(1.0, w * 2.0**51) + 10 * abs(z) * w * (1 + slope)
    return 4 + _relative(absolute, s + x * dz * w / 2)


def _mish_partial_err(x: float) -> float:
    """The error of t + x s (1 - t*t), t = tanh(softplus(x)), s = sigmoid(x): of t (3 eps), and of
    1 - t*t (8 eps absolute, but never more than 1 - t*t itself)."""
    t, s = math.tanh(sp.softplus(x)), sp.sigmoid(x)
    w = 1 - t * t
    return 4 + _relative(3 * abs(t) + abs(x * s) * min(8.0, w * 2.0**53), t + x * s * w)


def _reflection(x: float) -> float:
    """Digamma's reflection psi(x) = psi(1 - x) - pi / tan(pi x) (x < 0): the size of its terms and
    the error of a rounded pi x in tan (absolute, eps)."""
    s = sp.sinpi(x)
    if x >= 0 or s == 0:  # (s == 0: a pole, outside the region)
        return 0.0 if x >= 0 else _CAP
    t = math.pi / s
    return min(math.log(2 - x) + abs(t * sp.cospi(x)) + t * t * abs(x), _CAP)


def _digamma_fwd_err(x: float, out: float) -> float:
    return 2 * abs(out) + 4 + _reflection(x)


def _lgamma_partial_err(x: float) -> float:
    return 4 + _relative(4 + _ln(x) + _reflection(x), sp.digamma(x))


def _trigamma_partial_err(x: float) -> float:
    """pi^2 / sin(pi x)^2 of the reflection (x < 0), with pi x rounded: 2 pi |x cot(pi x)| relative."""
    s = sp.sinpi(x)
    return 4 + (min(2 * math.pi * abs(x * sp.cospi(x) / s), _CAP) if x < 0 and s else 0.0)


def _celu_partial_err(x: float, alpha: float) -> float:
    """exp(x / alpha) with x / alpha rounded (|x / alpha| eps relative), or out / alpha + 1, which
    cancels far left (2 eps absolute, over exp(x / alpha))."""
    if x >= 0:
        return 2.0
    t = x / alpha
    return min(4 + abs(t) + 2 * _exp_capped(-t), _CAP)


def _hardswish_partial_err(x: float) -> float:
    """x / 3 + 1/2 cancels near -1.5 (absolute eps); outside (-3, 3) the slope is exact."""
    return 3 + (_relative(1, (2 * x + 3) / 6) if -3 < x < 3 else 0)


def _gamma_region() -> Any:
    unit = [sympy.Interval.open(-k, 1 - k) for k in range(1, GAMMA_POLES + 1)]
    return sympy.Union(POSITIVE, *unit)


#: Where a derivative is formed from O(1) quantities (cos x, 1 - t*t), rounding errs absolutely.
_O1 = lambda x, c, out: 4  # noqa: E731
_UNIT = sympy.Interval(-1, 1)
_SELU_A, _SELU_L = sympy.Rational(sp.SELU_ALPHA), sympy.Rational(sp.SELU_SCALE)
_SELU_LA = float(_SELU_L * _SELU_A)

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
    _row("softplus", lambda s, c: sympy.log(1 + sympy.exp(s)), lambda x, c: sp.softplus(x), partial_err=_O1),
    _row("softsign", lambda s, c: s / (1 + sympy.Abs(s)), lambda x, c: x / (1 + abs(x)), partial_err=_O1),
    # far left, the rounding of x / sqrt 2 moves erfc's tail by 2 x^2 eps relative
    _row("gelu", lambda s, c: s / 2 * (1 + sympy.erf(s / _sqrt2())), lambda x, c: _gelu(x), partial_err=_O1,
         fwd_err=lambda x, c, o: abs(o) * (4 + (min(2 * x[0] * x[0], _CAP) if x[0] < 0 else 0))),
    _row("silu", lambda s, c: s / (1 + sympy.exp(-s)), lambda x, c: _silu(x), partial_err=_O1),
    _row("erf", lambda s, c: sympy.erf(s), lambda x, c: math.erf(x), partial_err=_O1),
    _row("gamma", lambda s, c: sympy.gamma(s), lambda x, c: math.gamma(x), region=lambda c: (POSITIVE,),
         fwd_err=lambda x, c, o: 16 * abs(o), partial_err=lambda x, c, o: 32),
    # families: the parameter is the row's constant, fitted from the engine's values (FIT)
    _row("leaky_relu", lambda s, c: Relu(s) - sym_const(c) * Relu(-s), lambda x, c: x if x > 0 else c * x,
         consts=(0.01,), parameter=True, kinks=(0.0,), partial_err=lambda x, c, o: 1),
    _row("elu", lambda s, c: Relu(s) + sym_const(c) * (sympy.exp(-Relu(-s)) - 1), _elu,
         consts=(1.0,), parameter=True, kinks=(0.0,), partial_err=_O1),
    # ------------------------------------------------------------ powers and roots
    _row("rsqrt", lambda s, c: 1 / sympy.sqrt(s), lambda x, c: 1 / math.sqrt(x), region=lambda c: (POSITIVE,),
         fwd_err=lambda x, c, o: 2 * abs(o), partial_err=lambda x, c, o: 3),
    _row("reciprocal", lambda s, c: 1 / s, lambda x, c: 1 / x, region=lambda c: (nonzero(),),
         rational=lambda c: True, partial_err=lambda x, c, o: 3),
    _row("square", lambda s, c: s**2, lambda x, c: x * x, rational=lambda c: True),
    # the real cube root; its slope is infinite at 0 (graphs keep KINK_MARGIN from there)
    _row("cbrt", lambda s, c: sp.real_cbrt(s), lambda x, c: sp.cbrt(x),
         domain=lambda x, c: abs(x[0]) >= KINK_MARGIN, fwd_err=lambda x, c, o: abs(o) * (2 + _ln(x[0]) / 12),
         partial_err=lambda x, c, o: 4 + _ln(x[0]) / 6),
    # ------------------------------------------------------------ inverse trigonometric and hyperbolic
    _row("asin", lambda s, c: sympy.asin(s), lambda x, c: math.asin(x), region=lambda c: (_UNIT,),
         fwd_err=lambda x, c, o: 2 * abs(o), partial_err=lambda x, c, o: 3 + _near_one(x[0])),
    _row("acos", lambda s, c: sympy.acos(s), lambda x, c: math.acos(x), region=lambda c: (_UNIT,),
         fwd_err=lambda x, c, o: 2 * abs(o), partial_err=lambda x, c, o: 3 + _near_one(x[0])),
    _row("asinh", lambda s, c: sympy.asinh(s), lambda x, c: math.asinh(x),
         fwd_err=lambda x, c, o: 2 * abs(o), partial_err=lambda x, c, o: 3),
    _row("acosh", lambda s, c: sympy.acosh(s), lambda x, c: math.acosh(x),
         region=lambda c: (sympy.Interval(1, sympy.oo),), fwd_err=lambda x, c, o: 2 * abs(o),
         partial_err=lambda x, c, o: 3 + _near_one(x[0])),
    _row("atanh", lambda s, c: sympy.atanh(s), lambda x, c: math.atanh(x),
         region=lambda c: (sympy.Interval.open(-1, 1),), fwd_err=lambda x, c, o: 2 * abs(o),
         partial_err=lambda x, c, o: 3 + _near_one(x[0])),
    # ------------------------------------------------------------ logarithms and exponentials
    _row("log2", lambda s, c: sympy.log(s) / sympy.log(2), lambda x, c: math.log2(x),
         region=lambda c: (POSITIVE,), fwd_err=lambda x, c, o: 3 * abs(o), partial_err=lambda x, c, o: 3),
    _row("log10", lambda s, c: sympy.log(s) / sympy.log(10), lambda x, c: math.log10(x),
         region=lambda c: (POSITIVE,), fwd_err=lambda x, c, o: 3 * abs(o), partial_err=lambda x, c, o: 3),
    _row("exp2", lambda s, c: 2**s, lambda x, c: 2.0**x, fwd_err=lambda x, c, o: 2 * abs(o),
         partial_err=lambda x, c, o: 3),
    _row("logsigmoid", lambda s, c: -sympy.log(1 + sympy.exp(-s)), lambda x, c: sp.logsigmoid(x),
         fwd_err=lambda x, c, o: 3 * abs(o), partial_err=lambda x, c, o: 4 + _exp_capped(x[0]),
         bounded_partials=True),
    _row("logit", lambda s, c: sympy.log(s / (1 - s)), lambda x, c: sp.logit(x),
         region=lambda c: (sympy.Interval.open(0, 1),), fwd_err=lambda x, c, o: 3 * abs(o) + 2,
         partial_err=lambda x, c, o: 3),
    # ------------------------------------------------------------ activations
    # x / 2 * (1 + tanh(z)), written x / (1 + e^(-2 z)): its intervals stay narrow where tanh(z) is 1
    _row("gelu_tanh", lambda s, c: s / (1 + sympy.exp(-2 * sympy.sqrt(2 / sympy.pi)
                                                      * (s + sympy.Rational("0.044715") * s**3))),
         lambda x, c: sp.gelu_tanh(x),
         fwd_err=lambda x, c, o: _gelu_tanh_fwd_err(x[0], o),
         partial_err=lambda x, c, o: _gelu_tanh_partial_err(x[0])),
    _row("selu", lambda s, c: _SELU_L * (Relu(s) + _SELU_A * (sympy.exp(-Relu(-s)) - 1)),
         lambda x, c: float(_SELU_L) * x if x > 0 else _SELU_LA * math.expm1(x), kinks=(0.0,),
         fwd_err=lambda x, c, o: 3 * abs(o),
         partial_err=lambda x, c, o: 4 + (2 * _exp_capped(-x[0]) if x[0] < 0 else 0), bounded_partials=True),
    _row("mish", lambda s, c: s * sympy.tanh(sympy.log(1 + sympy.exp(s))), lambda x, c: sp.mish(x),
         fwd_err=lambda x, c, o: 4 * abs(o), partial_err=lambda x, c, o: _mish_partial_err(x[0])),
    _row("tanhshrink", lambda s, c: s - sympy.tanh(s), lambda x, c: sp.tanhshrink(x),
         fwd_err=lambda x, c, o: 3 * abs(o), partial_err=lambda x, c, o: 3),
    _row("relu6", lambda s, c: Relu(s) - Relu(s - 6), lambda x, c: min(max(x, 0), 6), kinks=(0.0, 6.0),
         rational=lambda c: True, partial_err=lambda x, c, o: 0),
    _row("hardtanh", lambda s, c: Relu(s + 1) - Relu(s - 1) - 1, lambda x, c: min(max(x, -1), 1),
         kinks=(-1.0, 1.0), rational=lambda c: True, partial_err=lambda x, c, o: 0),
    # torch's: x / 6 + 1/2 clipped to [0, 1] (relu6(x + 3) / 6)
    _row("hardsigmoid", lambda s, c: (Relu(s + 3) - Relu(s - 3)) / 6,
         lambda x, c: min(max((x + 3) / 6, 0), 1), kinks=(-3.0, 3.0), rational=lambda c: True,
         fwd_err=lambda x, c, o: 2 * abs(o) + 1),
    _row("hardswish", lambda s, c: s * (Relu(s + 3) - Relu(s - 3)) / 6,
         lambda x, c: x * (min(max(x + 3, 0), 6) / 6), kinks=(-3.0, 3.0), rational=lambda c: True,
         fwd_err=lambda x, c, o: 3 * abs(o) + 2,
         partial_err=lambda x, c, o: _hardswish_partial_err(x[0])),
    # ------------------------------------------------------------ special functions
    _row("erfc", lambda s, c: sympy.erfc(s), lambda x, c: math.erfc(x), fwd_err=lambda x, c, o: 2 * abs(o),
         partial_err=lambda x, c, o: min(3 + x[0] * x[0], _CAP)),
    # log|gamma(x)|, as torch.lgamma and math.lgamma (also left of 0, between the poles)
    _row("lgamma", lambda s, c: sympy.log(sympy.Abs(sp.gamma(s))), lambda x, c: math.lgamma(x),
         region=lambda c: (_gamma_region(),), fwd_err=lambda x, c, o: 4 * abs(o) + 4,
         partial_err=lambda x, c, o: _lgamma_partial_err(x[0]), bounded_partials=True),
    _row("digamma", lambda s, c: sympy.polygamma(0, s), lambda x, c: sp.digamma(x),
         region=lambda c: (_gamma_region(),), fwd_err=lambda x, c, o: _digamma_fwd_err(x[0], o),
         partial_err=lambda x, c, o: _trigamma_partial_err(x[0])),
    # normalised, as torch.sinc and numpy.sinc: sin(pi x) / (pi x), 1 at 0
    _row("sinc", lambda s, c: sp.sincpi(s), lambda x, c: sp.sinc(x), fwd_err=lambda x, c, o: 3 * abs(o) + 2,
         partial_err=lambda x, c, o: 4 + _relative(8, sp.dsinc(x[0]))),
    # ------------------------------------------------------------ two operands (regions per operand)
    _row("atan2", lambda y, x, c: sympy.atan2(y, x), lambda y, x, c: math.atan2(y, x), arity=2,
         domain=lambda x, c: x[1] >= AWAY_FROM_ZERO or abs(x[0]) >= AWAY_FROM_ZERO,  # off 0 and the cut
         fwd_err=lambda x, c, o: 2 * abs(o), partial_err=lambda x, c, o: 3),
    _row("hypot", lambda a, b, c: sympy.sqrt(a**2 + b**2), lambda a, b, c: math.hypot(a, b), arity=2,
         domain=lambda x, c: math.hypot(*x) >= AWAY_FROM_ZERO, fwd_err=lambda x, c, o: 2 * abs(o)),
    _row("xlogy", lambda a, b, c: a * sympy.log(b), lambda a, b, c: sp.xlogy(a, b), arity=2,
         region=lambda c: (sympy.S.Reals, POSITIVE), domain=lambda x, c: x[1] >= AWAY_FROM_ZERO,
         fwd_err=lambda x, c, o: 2 * abs(o)),
    _row("logaddexp", lambda a, b, c: sympy.log(sympy.exp(a) + sympy.exp(b)),
         lambda a, b, c: sp.logaddexp(a, b), arity=2, fwd_err=lambda x, c, o: 2 * abs(o) + 1,
         partial_err=lambda x, c, o: 3 + (abs(o) if abs(x[0] - x[1]) < 746 else 0)),
    _row("maximum", lambda a, b, c: b + Relu(a - b), lambda a, b, c: max(a, b), arity=2, kinks=(PARTNER,),
         domain=lambda x, c: abs(x[0] - x[1]) >= KINK_MARGIN, rational=lambda c: True,
         partial_err=lambda x, c, o: 0),
    _row("minimum", lambda a, b, c: a - Relu(a - b), lambda a, b, c: min(a, b), arity=2, kinks=(PARTNER,),
         domain=lambda x, c: abs(x[0] - x[1]) >= KINK_MARGIN, rational=lambda c: True,
         partial_err=lambda x, c, o: 0),
    # ------------------------------------------------------------ more families
    # celu is once differentiable at 0 (its slope is 1 either side): no kink
    _row("celu", lambda s, c: s + Relu(-s) + sym_const(c) * (sympy.exp(-Relu(-s) / sym_const(c)) - 1),
         sp.celu, consts=(1.0,), parameter=True, fwd_err=lambda x, c, o: 3 * abs(o),
         partial_err=lambda x, c, o: _celu_partial_err(x[0], c),
         bounded_partials=True),
    # clip to [0, 1], bounds fixed: a family's parameter is one number (probes.regions.edge_consts
    # makes the constant 0 of its type), so a pair of bounds cannot be fitted
    _row("clip", lambda s, c: Relu(s) - Relu(s - 1), lambda x, c: min(max(x, 0), 1), kinks=(0.0, 1.0),
         rational=lambda c: True, partial_err=lambda x, c, o: 0),
)  # fmt: skip


def _slope(values: dict[float, float]) -> Any:
    """leaky_relu's slope from its value at a negative point (rounded to 12 digits: 0.01, not 0.0100...02)."""
    x = min(values)
    return float(f"{values[x] / x:.12g}") if x < 0 else None


def _alpha(values: dict[float, float]) -> Any:
    x = min(values)
    return float(f"{values[x] / math.expm1(x):.12g}") if x < 0 else None


def _celu_alpha(values: dict[float, float]) -> Any:
    """celu's alpha from its value y at the leftmost point x < 0: alpha (e^(x / alpha) - 1) falls
    from 0 to x as alpha grows, so one alpha gives y when x < y < 0 (found by bisection)."""
    x = min(values)
    y = values[x]
    if not x < y < 0:
        return None
    lo, hi = 1e-6, 1e6
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if mid * math.expm1(x / mid) > y else (lo, mid)
    return float(f"{lo:.12g}")


#: How each family's parameter is read from the engine's values ``{x: f(x)}``.
FIT: dict[str, Callable[[dict[float, float]], Any]] = {
    "leaky_relu": _slope, "elu": _alpha, "celu": _celu_alpha,
}  # fmt: skip


def known(name: str) -> OpSpec:
    return next(spec for spec in CATALOGUE if spec.name == name)


# ---------------------------------------------------------------------- references
_iv_point = sp.iv_point


def _sign(x: Any) -> Any:
    return (x > 0) - (x < 0)


def _polygamma(n: Any, x: Any) -> Any:
    """polygamma(n, x), digamma with the bits it cancels near its roots (1.4616..., and one
    between each two poles left of 0): there its terms are of order 1 and its value is not."""
    y = mpmath.polygamma(int(n), x)
    if y and mpmath.mag(y) < -8:
        with mpmath.extraprec(8 - int(mpmath.mag(y))):
            y = mpmath.polygamma(int(n), x)
    return y


#: What graph references need for the catalogue's functions, in mpmath interval arithmetic.
INTERVAL_FUNCTIONS: dict[str, Any] = {
    "sin": iv.sin, "cos": iv.cos, "tan": iv.tan, "Abs": abs, "fabs": abs,
    **{n: _iv_point(getattr(mpmath, n)) for n in ("erf", "gamma", "atan", "atan2", "sincpi")},
    "erfc": _iv_point(sp.erfc_mp),
    **{n: _iv_point(getattr(mpmath, n)) for n in ("asin", "acos", "asinh", "acosh", "atanh")},
    "polygamma": _iv_point(_polygamma), "dsincpi": sp.dsincpi._imp_, "real_cbrt": sp.real_cbrt._imp_,
}  # fmt: skip
#: ... and in exact rational arithmetic (the rational rows: abs, pos, leaky_relu with a rational slope).
EXACT_FUNCTIONS: dict[str, Any] = {"Abs": abs, "fabs": abs, "sign": _sign}


def catalogue_names() -> Sequence[str]:
    return [spec.name for spec in CATALOGUE]
