"""The arithmetics the certified reference evaluates sympy expressions in
(:mod:`autograd.testing.oracles.reference`): exact Fractions for rational expressions, mpmath
intervals, and mpmath points; each a namespace of the functions sympy writes, and
:func:`lambdified` compiles an expression list into one of them.

The exact arithmetic refuses a rational power of more than ``EXACT_BITS`` bits
(:class:`ReferenceUnresolved`): ``x ** y`` at (1.5, 1e300) is a fine value beyond the float range,
but not a rational to compute.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Any

import sympy  # type: ignore[import-untyped]
from mpmath import iv  # type: ignore[import-untyped]
from sympy.printing.pycode import MpmathPrinter  # type: ignore[import-untyped]

from autograd.testing.ops import MP_MODULES
from autograd.testing.ops.catalogue import EXACT_FUNCTIONS, INTERVAL_FUNCTIONS

__all__ = [
    "EXACT_BITS", "EXACT_NAMESPACE", "INTERVAL_NAMESPACE", "ReferenceUnresolved", "Straddle", "count_bits",
    "exact_bits", "exact_limit", "lambdified",
]  # fmt: skip

#: Fractions (the exact path) and sympy (which tells an undefined value) compute a rational power
#: exactly and reduce each sum and product by a gcd, quadratic in the bits: 10 ms at 2 ** 16 bits,
#: 3 s at 2 ** 20.
EXACT_BITS = 2**16


class ReferenceUnresolved(Exception):
    """The reference cannot be certified within ``MAX_PREC`` bits; ``.reason`` says why.

    Not a defect of the engine and not a pass: callers report the point as inconclusive.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _relu(x: Any) -> Any:
    return x if x > 0 else 0 * x


def _step(x: Any) -> Any:
    return 1 if x > 0 else 0


class Straddle(Exception):
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
    raise Straddle


def _iv_sign(x: Any) -> Any:  # sympy writes d|x|/dx as sign(x) (from (x*x)**c on real x)
    x = iv.mpf(x)
    if x.a > 0:
        return iv.mpf(1)
    if x.b < 0:
        return iv.mpf(-1)
    if x.a == 0 and x.b == 0:
        return iv.mpf(0)
    raise Straddle


def _iv_tanh(x: Any) -> Any:  # mpmath.iv has no tanh; x appears once, so the interval stays tight
    return 1 - 2 / (_iv_exp(2 * x) + 1)


def _iv_dirac(x: Any, *order: Any) -> Any:
    """d/dx sign(x) (sympy writes it for second derivatives of ``1/|x|``): 0 off the kink 0."""
    x = iv.mpf(x)
    if x.a > 0 or x.b < 0:
        return iv.mpf(0)
    raise Straddle  # at (or straddling) the kink: no number


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


EXACT_NAMESPACE = {"mpf": Fraction, "Relu": _relu, "Step": _step, **EXACT_FUNCTIONS}
INTERVAL_NAMESPACE = {
    "mpf": iv.mpf, "exp": _iv_exp, "log": iv.ln, "sqrt": iv.sqrt, "tanh": _iv_tanh,
    "Relu": _iv_relu, "Step": _iv_step, "sign": _iv_sign, "DiracDelta": _iv_dirac, "e": iv.e, "pi": iv.pi,
    **INTERVAL_FUNCTIONS,  # the catalogue's functions (an engine's identified extra ops)
}  # fmt: skip


@functools.lru_cache(maxsize=4096)
def lambdified(symbols: tuple[Any, ...], exprs: tuple[sympy.Expr, ...], arithmetic: str) -> Any:
    """``f(*point) -> [each expression]`` in exact, interval or point arithmetic (cached).

    mpmath's printer writes a rational constant p/q as ``mpf(p)/mpf(q)``, so binding ``mpf``
    to ``Fraction`` (or to an interval) keeps constants exact.
    """
    if arithmetic == "point":
        return sympy.lambdify(symbols, list(exprs), modules=MP_MODULES, cse=True)
    exact = arithmetic == "exact"
    namespace = {**EXACT_NAMESPACE, "_pow": _exact_pow} if exact else INTERVAL_NAMESPACE
    printer = (_ExactPrinter if exact else MpmathPrinter)(
        {"fully_qualified_modules": False, "inline": True, "allow_unknown_functions": True}
    )
    return sympy.lambdify(symbols, list(exprs), modules=[namespace], printer=printer, cse=True)


# ---------------------------------------------------------------------- exact powers, refused when huge
def exact_bits(x: Fraction) -> int:
    """About log2 of the larger of ``x``'s numerator and denominator."""
    return max(abs(x.numerator), x.denominator).bit_length() - 1


def count_bits(n: Any) -> str:
    """A count of bits, short even when it has itself more digits than the floats hold."""
    return f"{n}" if n < 10**15 else f"(2**{math.log2(n):.4g})"


def _exact_pow(base: Any, n: Any) -> Any:
    """``base ** n`` in the exact namespace (:class:`_ExactPrinter`), refused past ``EXACT_BITS``."""
    exact_limit("a power", abs(n) * exact_bits(Fraction(base)))
    return base**n


def exact_limit(part: str, bits: Any) -> None:
    """ReferenceUnresolved if an exact rational of ``bits`` bits (in ``part``) is past ``EXACT_BITS``."""
    if bits > EXACT_BITS:
        raise ReferenceUnresolved(
            f"an exact rational of about {count_bits(math.ceil(bits))} bits in {part} is beyond"
            f" what the reference computes (over {EXACT_BITS} bits)"
        )


class _ExactPrinter(MpmathPrinter):  # type: ignore[misc]
    """Writes every power as ``_pow(base, n)``, that is :func:`_exact_pow`."""

    def _print_Pow(self, expr: sympy.Expr, rational: bool = False) -> str:
        return f"_pow({self._print(expr.base)}, {self._print(expr.exp)})"
