"""Derivatives from an op's definition alone: certified difference quotients.

Where floats cannot difference (a subnormal operand, or an operand of 1e300 whose neighbours
are 1e284 apart), exact arithmetic can: the op's own sympy function (never its derivative) is
evaluated by the certified reference at rational points beside the operands, and

    D(h) = (f(x + h e_i + h e_j) - f(x + h e_i - h e_j)
            - f(x - h e_i + h e_j) + f(x - h e_i - h e_j)) / (4 h_i h_j)

is the mixed second difference (``i == j``: the central second difference with step ``2 h``), and
``(f(x + h e_i) - f(x - h e_i)) / (2 h_i)`` the central first difference.  Their values are
certified, so only the truncation ``O(h**2)`` is left, and that is measured, not assumed: the step
starts at ``2**-START_STEP`` of the operand (of 1 at 0) and shrinks by ``2**-STEP_BITS`` while
two successive quotients differ by more than the caller can use, or while a shifted point leaves
the definition's domain (an operand just beside a boundary).
:func:`first_difference` and :func:`second_difference` return the last quotient and how far it
moved from the one before (a bound of its error once the quotients converge: the truncation falls
2**(2 * STEP_BITS) per step), or None when no pair settles; a caller that cannot use it does not
judge.

This is the independent second method of the edge probes, at first order where floats cannot
difference and at second order everywhere: sympy differentiates nothing here, and no engine is
called.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy  # type: ignore[import-untyped]

from autograd.testing.ops import OPS, by_op_name
from autograd.testing.oracles.reference import ReferenceUnresolved, certify
from autograd.testing.verdicts import Vote

__all__ = [
    "MAX_STEPS",
    "RELATIVE_STEPS",
    "START_STEP",
    "STEP_BITS",
    "Difference",
    "difference_vote",
    "first_difference",
    "second_difference",
]

#: The first step: this many bits below the operand's magnitude (1 at 0).
START_STEP = 20
#: Each further step is this many bits smaller.
STEP_BITS = 12
#: Two successive quotients agree when they differ by at most this fraction of the larger (an int:
#: quotients are Fractions or mpmath numbers beyond the float range, and stay so).
RELATIVE_STEPS = 2**20
#: Steps tried at most (the smallest is 2**-(20 + 12 * 11) = 2**-152 of the operand).
MAX_STEPS = 12


@dataclass(frozen=True)
class Difference:
    """A certified difference quotient ``value`` of the definition, and ``spread``: how far
    it moved from the quotient at the step before (``steps`` tried)."""

    value: Any
    spread: Any
    steps: int


@by_op_name
@functools.lru_cache(maxsize=1024, typed=True)
def _quotient(op: str, nargs: int, const: Any, i: int, j: int | None) -> tuple[tuple[Any, ...], Any]:
    """Symbols ``(x..., hi, hj)`` and the mixed second difference of the op's definition in them;
    with ``j`` None, symbols ``(x..., hi)`` and the central first difference along ``x_i``."""
    xs = sympy.symbols(f"a0:{nargs}", real=True)
    hi, hj = sympy.symbols("h_i h_j", positive=True)

    def at(si: int, sj: int = 0) -> Any:
        shifted = list(xs)
        shifted[i] += si * hi
        if j is not None:
            shifted[j] += sj * hj
        return OPS[op].sym(shifted, const)

    if j is None:
        return (*xs, hi), (at(1) - at(-1)) / (2 * hi)
    quotient = (at(1, 1) - at(1, -1) - at(-1, 1) + at(-1, -1)) / (4 * hi * hj)
    return (*xs, hi, hj), quotient


def _step(x: float, k: int) -> Fraction:
    """``2**-k`` of ``|x|`` (of 1 at 0), a power of two: every shifted point stays exact."""
    scale = 0 if x == 0 else math.frexp(x)[1]
    return Fraction(2) ** (scale - k)


def _agree(now: Any, before: Any, wanted: Any) -> bool:
    """Within ``wanted`` of each other, and equal or relatively close: quotients at steps far
    beyond the function's own scale (sin at 1e300) are tiny numbers that differ wholly."""
    spread = abs(now - before)
    return bool(spread <= wanted and (spread == 0 or spread * RELATIVE_STEPS <= max(abs(now), abs(before))))


def first_difference(op: str, args: Sequence[float], const: Any, i: int, *, wanted: Any) -> Difference | None:
    """The certified central difference quotient of ``d op / dx_i`` at ``args``, settled as
    :func:`second_difference`'s is (see the module doc); None when no two steps agree."""
    symbols, quotient = _quotient(op, len(args), const, i, None)
    return _settle(symbols, quotient, args, (i,), wanted)


def second_difference(
    op: str, args: Sequence[float], const: Any, i: int, j: int, *, wanted: Any
) -> Difference | None:
    """The certified difference quotient of ``d2 op / dx_i dx_j`` at ``args`` (see the module doc),
    once two successive steps agree to ``wanted`` (the margin the caller needs: a difference
    smaller than it cannot change the caller's verdict) and to :data:`RELATIVE_STEPS` of their size (or
    exactly); None when none do.  A quotient is evidence beside an independent value, not alone:
    the probe that votes with it also demands that it agree with sympy's derivative."""
    symbols, quotient = _quotient(op, len(args), const, i, j)
    return _settle(symbols, quotient, args, (i, j), wanted)


def _settle(
    symbols: tuple[Any, ...], quotient: Any, args: Sequence[float], along: tuple[int, ...], wanted: Any
) -> Difference | None:
    """The quotient at steps shrinking along the operands ``along`` until two successive ones agree."""
    before = None
    for n in range(MAX_STEPS):
        k = START_STEP + STEP_BITS * n
        point = (*args, *(_step(args[a], k) for a in along))
        try:
            (found,) = certify(symbols, [quotient], point)
        except ReferenceUnresolved:
            return None
        if not found.defined:  # a shifted point left the domain: a smaller step
            before = None
            continue
        if before is not None and _agree(found.value, before, wanted):
            return Difference(found.value, abs(found.value - before), n + 1)
        before = found.value
    return None


def difference_vote(
    op: str, args: Sequence[float], const: Any, along: tuple[int, ...], number: float | None, want: float,
    tol: float,
) -> Vote:  # fmt: skip
    """The second vote on an engine's derivative of ``op`` along the operands ``along`` (one: a
    first derivative; two: a second) at ``args``: ``number`` is the engine's (None when it is not
    a number), ``want`` sympy's, which rejects it, ``tol`` the bound.  The quotient settles to a
    sixteenth of the disagreement (or the bound); it must agree with sympy's value and reject the
    engine's, each beyond the bound and four times its spread, to confirm; otherwise it cannot
    judge, or does not confirm."""
    order = "first" if len(along) == 1 else "second"
    method = f"certified {order} differences of the definition"
    off = abs(number - want) if number is not None and math.isfinite(number) else abs(want)
    margin = max(tol, off / 16)
    if len(along) == 1:
        found = first_difference(op, args, const, along[0], wanted=margin)
    else:
        found = second_difference(op, args, const, min(along), max(along), wanted=margin)
    if found is None:
        return Vote(method, None, "the quotients did not settle as the step shrank")
    estimate, spread = float(found.value), float(found.spread)
    if abs(estimate - want) > tol + 4 * spread:
        return Vote(method, None, f"{estimate!r} disagrees with sympy's too")
    rejects = number is None or not math.isfinite(number) or abs(number - estimate) > tol + 4 * spread
    return Vote(method, rejects, repr(estimate))
