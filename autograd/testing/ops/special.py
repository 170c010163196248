"""The catalogue's functions in plain floats, and the few sympy lacks, for its rows.

Each float form is written so that it keeps the digits the exact function has where a textbook
formula would cancel them: ``logit`` near 1/2, ``tanhshrink`` near 0, ``gelu_tanh`` and
``logsigmoid`` in their tails, ``sinc`` near the integers (``sinpi`` reduces the argument
exactly, never rounding ``pi * x``).  A row's ``num`` is one of these (or ``math``'s own);
the certified reference never uses them, and the catalogue's tests hold each within its row's
forward error bound of the reference.  ``digamma``, ``tanhshrink`` and ``dsincpi`` take a few
extra bits of mpmath where floats alone cannot keep them.

The sympy functions here are those the rows need beyond sympy's own: ``gamma``, sympy's gamma
known to be real on the reals (so that the derivative of ``log|gamma(x)|`` is ``psi(x)``, not an
expression in ``re`` and ``im``); ``real_cbrt``, the real cube root; ``sincpi``, the normalised
sinc, exact at the integers where ``sin(pi * x)`` in intervals never settles; and its derivative
``dsincpi``.  The two no library names are given by ``_imp_`` (:func:`everywhere`) in floats,
in mpmath and in mpmath's intervals alike.
"""

from __future__ import annotations

import math
from typing import Any

import mpmath  # type: ignore[import-untyped]
import sympy  # type: ignore[import-untyped]
from mpmath import iv

__all__ = [
    "GELU_C", "GELU_K", "SELU_ALPHA", "SELU_SCALE", "cbrt", "celu", "cospi", "digamma", "dsinc",
    "dsincpi", "erfc_mp", "everywhere", "gamma", "gelu_tanh", "gelu_tanh_z", "iv_point", "logaddexp", "logit",
    "logsigmoid", "mish", "real_cbrt", "sigmoid", "sinc", "sincpi", "sinpi", "softplus", "tanhshrink",
    "trigamma", "xlogy",
]  # fmt: skip

#: gelu's tanh approximation: ``x / 2 * (1 + tanh(K * (x + C * x**3)))`` (as PyTorch and JAX).
GELU_K = math.sqrt(2 / math.pi)
GELU_C = 0.044715
#: selu's constants, as PyTorch writes them (the sympy rows take them as these decimals).
SELU_ALPHA = "1.6732632423543772848170429916717"
SELU_SCALE = "1.0507009873554804934193349852946"
#: Every float of at least this magnitude is an even integer: sin(pi x) is 0 there.
_INTEGERS = 2.0**53


def sigmoid(t: float) -> float:
    """1 / (1 + e^-t) without overflow on either side."""
    if t >= 0:
        return 1 / (1 + math.exp(-t))
    e = math.exp(t)
    return e / (1 + e)


def softplus(x: float) -> float:
    return max(x, 0.0) + math.log1p(math.exp(-abs(x)))


def _quadrant(x: float) -> tuple[int, float]:
    """x = n / 2 + r with n an integer and |r| <= 1/4, both exact (x - n / 2 is exact by Sterbenz)."""
    n = round(2 * x)
    return n % 4, math.pi * (x - n / 2)


def sinpi(x: float) -> float:
    """sin(pi x), from the exact reduction of x to its nearest half-integer."""
    if abs(x) >= _INTEGERS:
        return 0.0
    q, t = _quadrant(x)
    return (math.sin(t), math.cos(t), -math.sin(t), -math.cos(t))[q]


def cospi(x: float) -> float:
    if abs(x) >= _INTEGERS:
        return 1.0
    q, t = _quadrant(x)
    return (math.cos(t), -math.sin(t), -math.cos(t), math.sin(t))[q]


def sinc(x: float) -> float:
    """The normalised sinc, sin(pi x) / (pi x), 1 at 0 (as torch.sinc and numpy.sinc)."""
    if x == 0:
        return 1.0
    return sinpi(x) / (math.pi * x)


def dsinc(x: float) -> float:
    """sinc'(x) = (cos(pi x) - sinc(x)) / x, by its series near 0 where that cancels."""
    if abs(x) < 1e-4:
        return -(math.pi**2) * x / 3 + math.pi**4 * x**3 / 30
    return (cospi(x) - sinc(x)) / x


def cbrt(x: float) -> float:
    """The real cube root (negative for negative x): x ** (1/3), then one Newton step, which
    takes off the error of the rounded exponent (up to 60 ulps at the largest floats)."""
    y = math.copysign(abs(x) ** (1 / 3), x)
    if y == 0:
        return y
    return y - (y - x / (y * y)) / 3


def logsigmoid(x: float) -> float:
    """log(1 / (1 + e^-x)) = -softplus(-x), a sum of two terms of one sign."""
    return min(x, 0.0) - math.log1p(math.exp(-abs(x)))


def gelu_tanh_z(x: float) -> tuple[float, float]:
    """The argument z of gelu_tanh's tanh and its derivative dz/dx (both infinite far out)."""
    return GELU_K * x * (1 + GELU_C * x * x), GELU_K * (1 + 3 * GELU_C * x * x)


def gelu_tanh(x: float) -> float:
    """x / 2 * (1 + tanh z) as x * sigmoid(2 z): no 1 + tanh(z) to cancel far left."""
    return x * sigmoid(2 * gelu_tanh_z(x)[0])


def mish(x: float) -> float:
    return x * math.tanh(softplus(x))


def logit(x: float) -> float:
    """log(x / (1 - x)): by log1p of (2x - 1) / (1 - x) around 1/2 (2x - 1 is exact there)."""
    if 0.25 <= x <= 0.75:
        return math.log1p((2 * x - 1) / (1 - x))
    return math.log(x) - math.log1p(-x)


def tanhshrink(x: float) -> float:
    """x - tanh(x): its series where it underflows, mpmath with the bits x - tanh(x) cancels
    below 2, plain floats above (where less than one bit cancels)."""
    if abs(x) < 1e-5:
        return x * x * x / 3 - 2 * x**5 / 15
    if abs(x) < 2:
        with mpmath.workprec(64 - 2 * math.frexp(x)[1]):
            return float(mpmath.mpf(x) - mpmath.tanh(x))
    return x - math.tanh(x)


def erfc_mp(x: Any) -> Any:
    """erfc in mpmath also beyond |x| = 1e150, where mpmath's own erfc overflows a float estimate
    of its series: there as the regularised upper incomplete gamma function of 1/2 at x^2."""
    if abs(x) < 1e100:
        return mpmath.erfc(x)
    tail = mpmath.gammainc(0.5, x * x, mpmath.inf, regularized=True)
    return tail if x > 0 else 2 - tail


def digamma(x: float) -> float:
    """psi(x) by mpmath at 64 bits (a pole raises ValueError, as math's functions do)."""
    with mpmath.workprec(64):
        return float(mpmath.digamma(x))


def trigamma(x: float) -> float:
    with mpmath.workprec(64):
        return float(mpmath.polygamma(1, x))


def celu(x: float, alpha: float) -> float:
    return x if x > 0 else alpha * math.expm1(x / alpha)


def xlogy(x: float, y: float) -> float:
    """x log(y), and 0 where x is 0 whatever y (as torch.xlogy and scipy.special.xlogy)."""
    return 0.0 if x == 0 else x * math.log(y)


def logaddexp(x: float, y: float) -> float:
    return max(x, y) + math.log1p(math.exp(-abs(x - y)))


# ---------------------------------------------------------------------- intervals
def iv_point(f: Any) -> Any:
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
            if any(isinstance(y, mpmath.mpc) for y in ys):  # asin(2): not a real number (the reference
                raise ValueError("a complex result")  # then asks sympy whether the point is one)
            lo, hi = min(ys), max(ys)
            pad = (abs(lo) + abs(hi)) * mpmath.mpf(2) ** (-iv.prec + 4)
            lo, hi = lo - pad, hi + pad  # here: outside, they round to 53 bits and enclose nothing
        return iv.mpf([lo, hi])

    return g


# ---------------------------------------------------------------------- sympy's missing functions
_IVMPF = type(iv.mpf(0))


def everywhere(f: Any) -> Any:
    """``f`` (a function of an mpmath number, at the working precision) in every arithmetic the
    harness evaluates sympy in: mpmath intervals (:func:`iv_point`), mpmath numbers, and floats (at
    64 bits).  lambdify prefers a function's ``_imp_`` to every namespace, so one serves all."""
    interval = iv_point(f)

    def g(x: Any) -> Any:
        if isinstance(x, _IVMPF):
            return interval(x)
        if isinstance(x, mpmath.mpf):
            return f(x)
        with mpmath.workprec(64):
            return float(f(mpmath.mpf(x)))

    return g


class _Implemented(sympy.Function):  # type: ignore[misc]
    """A real function of one real argument, evaluated by its ``_imp_`` (see :func:`everywhere`)."""

    _imp_: Any

    def _eval_is_extended_real(self) -> bool | None:
        return True if self.args[0].is_extended_real else None

    def _eval_evalf(self, prec: int) -> Any:
        if not self.args[0].is_number:
            return None
        with mpmath.workprec(prec):
            y = self._imp_(mpmath.mpf(self.args[0].evalf(prec)._to_mpmath(prec)))
        return sympy.Float._new(y._mpf_, prec)


def _real_cbrt_mp(x: Any) -> Any:
    return mpmath.sign(x) * mpmath.cbrt(abs(x))


class real_cbrt(_Implemented):
    """The real cube root (sympy's cbrt is the principal one, complex for x < 0; sign(x) |x|^(1/3)
    differentiates to a DiracDelta, which no float namespace has)."""

    _imp_ = staticmethod(everywhere(_real_cbrt_mp))

    @classmethod
    def eval(cls, x: sympy.Expr) -> sympy.Expr | None:
        return sympy.S.Zero if x.is_zero else None

    def fdiff(self, argindex: int = 1) -> sympy.Expr:
        return 1 / (3 * real_cbrt(self.args[0]) ** 2)


class gamma(sympy.gamma):  # type: ignore[misc]
    """sympy's gamma (named as sympy's: every printer knows it), real on the reals (so ``Abs(gamma(x))`` differentiates to ``sign(gamma) gamma'``)."""

    def _eval_is_extended_real(self) -> bool | None:
        return True if self.args[0].is_extended_real else None


class sincpi(sympy.Function):  # type: ignore[misc]
    """sin(pi x) / (pi x), 1 at 0 and exactly 0 at the other integers (named as mpmath's: its
    namespaces know it)."""

    @classmethod
    def eval(cls, x: sympy.Expr) -> sympy.Expr | None:
        if x.is_zero:
            return sympy.S.One
        if x.is_integer and x.is_Number:
            return sympy.S.Zero
        return None

    def _eval_is_extended_real(self) -> bool | None:
        return True if self.args[0].is_extended_real else None

    def fdiff(self, argindex: int = 1) -> sympy.Expr:
        return dsincpi(self.args[0])


def _dsincpi_mp(x: Any) -> Any:
    """sinc'(x) in mpmath at the working precision, with the bits its two terms cancel near 0."""
    if x == 0:
        return mpmath.mpf(0)
    with mpmath.extraprec(max(0, -2 * int(mpmath.mag(x))) + 10):
        return (mpmath.cospi(x) - mpmath.sincpi(x)) / x


class dsincpi(_Implemented):
    """The derivative of :class:`sincpi`: (cos(pi x) - sincpi(x)) / x, 0 at 0."""

    _imp_ = staticmethod(everywhere(_dsincpi_mp))

    @classmethod
    def eval(cls, x: sympy.Expr) -> sympy.Expr | None:
        if x.is_zero:
            return sympy.S.Zero
        if x.is_integer and x.is_Number:
            return (-1) ** x / x
        return None
