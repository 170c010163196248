"""The points of the edge and out-of-domain probes, derived from each op's region.

Every point comes from the op's ``region`` field (:mod:`autograd.testing.ops`, the table's
rows and the catalogue's for the ops an engine has beyond the table), never from a list of
cases: a new op gets its points with no edit here.  The probes that judge an engine at
these points are in :mod:`autograd.testing.probes.edges`.

``edge_points``
    For each operand of each op (the other operands at ``ops.PARTNER``; every usable
    constant, and the constant 0 wherever the region allows it: ``0 / v``, ``0 * v``,
    ``0 ** v``), the points inside the region at the magnitudes where engines go wrong:
    0, the smallest subnormal, 1e-300, 1e-20, 1, 1e20, 1e300 and the largest float,
    each sign; the points just inside each finite boundary (the next float, and 1e-9
    away); and the overflow and underflow thresholds (the largest magnitudes at which
    value and gradient are still finite, and at which the value is still a normal
    float, found by bisection: ``exp`` near 709.78 and -708.4).  A point is kept when
    its value, sympy's expression evaluated by the certified reference
    (:func:`autograd.testing.oracles.reference.certify`), is a finite float; its gradient is
    checked too when that is finite and the point is not a kink (relu'(0) is a
    convention).  A point whose reference cannot be certified is kept (its probe
    reports it ``inconclusive``).
``out_of_domain_points``
    Points outside the region where the op is not a real number (the boundary points
    the region leaves out, and 0, ±1, ±1e-300, ±1e300 outside it), kept only when
    Python's own float evaluation refuses them too (raises, or gives a complex, an
    infinite or a NaN result): ``log(0)``, ``log(-1)``, ``(-1) ** 0.5``, ``1 / 0``,
    ``0 ** -1``.
"""

from __future__ import annotations

import functools
import math
import struct
import sys
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy  # type: ignore[import-untyped]

from autograd.testing.ops import OPS, PARTNER, REALS, OpSpec, by_op_name
from autograd.testing.oracles.reference import Certified, ReferenceUnresolved, certify
from autograd.testing.probes.common import same_const

__all__ = [
    "FLOAT_MAX",
    "MAGNITUDES",
    "MATH_ERRORS",
    "ROUNDS_TO_INF",
    "EdgePoint",
    "arity",
    "edge_consts",
    "edge_points",
    "out_of_domain_points",
    "partial_condition",
    "reference",
]

FLOAT_MAX = sys.float_info.max
NORMAL_MIN = sys.float_info.min
#: The smallest magnitude that rounds to an infinity (to nearest): the largest float plus half its ulp.
ROUNDS_TO_INF = 2**1024 - 2**970
#: Halvings of a threshold's bisection: the floats between 1 and the largest are fewer than 2 ** 63.
BISECTION_STEPS = 64
#: Magnitudes tried on each side of 0 (where the region has them).
MAGNITUDES = (5e-324, 1e-300, 1e-20, 1.0, 1e20, 1e300, FLOAT_MAX)
#: Outside the region: these (and the region's own boundary points) where the op is undefined.
OUTSIDE = (0.0, 1.0, -1.0, 1e-300, -1e-300, 1e300, -1e300)
#: How far "just inside" a finite boundary b is, besides the next float: 1e-9 * max(1, |b|).
NEAR = 1e-9

# what plain Python math raises outside a domain
MATH_ERRORS = (ArithmeticError, ValueError, TypeError)


@dataclass(frozen=True)
class EdgePoint:
    """``op`` (with ``const``) at operand values ``args``; ``moved`` is the operand at its edge."""

    op: str
    args: tuple[float, ...]
    const: Any = None
    moved: int = 0
    check_gradient: bool = True

    @property
    def names(self) -> list[str]:
        """x, y, z; past three operands x0, x1, ... (as :attr:`OpSpec.operand_names` names them)."""
        n = len(self.args)
        return ["x", "y", "z"][:n] if n <= 3 else [f"x{i}" for i in range(n)]

    def source(self) -> str:
        return OPS[self.op].source(self.names, self.const)

    def label(self) -> str:
        at = ", ".join(f"{n} = {x!r}" for n, x in zip(self.names, self.args, strict=True))
        return f"{self.source()} at {at}"


def arity(spec: OpSpec) -> int:
    """Operands at the op's points: its arity, or a variadic op's example count (the row's)."""
    return spec.sample_arity


def edge_consts(spec: OpSpec, usable: tuple[Any, ...] | None = None) -> tuple[Any, ...]:
    """The constants of the op's edge points: its (usable) constants, and 0 where the region allows.

    0 takes the type of the first constant, so that an engine that has the op is never
    fed a constant type it lacks.
    """
    if not spec.consts:
        return (None,)
    consts = spec.consts if usable is None else usable
    if not consts:
        return ()
    zero = type(consts[0])(0)
    if spec.parameter:  # a family's fitted parameter: the engine's function has that one only
        return tuple(consts)
    if not any(same_const(zero, c) for c in consts) and _regions(spec, zero)[0] is not sympy.S.EmptySet:
        consts = (*consts, zero)
    return tuple(consts)


def _regions(spec: OpSpec, const: Any) -> list[Any]:
    sets = list(spec.region(const))
    return [sets[i] if i < len(sets) else REALS for i in range(arity(spec))]


def _inside(region: Any, x: float) -> bool:
    return any(
        (lo < x or (lo == x and lo_in)) and (x < hi or (x == hi and hi_in))
        for lo, hi, lo_in, hi_in in _pieces(region)
    )


@functools.cache
def _pieces(region: Any) -> tuple[tuple[float, float, bool, bool], ...]:
    """A region (a union of intervals and points) as float intervals (lo, hi, lo closed, hi closed)."""
    sets = region.args if isinstance(region, sympy.Union) else (region,)
    pieces = []
    for part in sets:
        if part is sympy.S.EmptySet:
            continue
        if isinstance(part, sympy.FiniteSet):
            pieces += [(float(p), float(p), True, True) for p in part]
            continue
        if part is sympy.S.Reals:
            part = sympy.Interval(-sympy.oo, sympy.oo)
        if not isinstance(part, sympy.Interval):
            raise TypeError(f"region {region}: only unions of intervals and points are supported")
        pieces.append((float(part.start), float(part.end), not part.left_open, not part.right_open))
    return tuple(pieces)


@by_op_name
@functools.lru_cache(maxsize=None, typed=True)  # typed: 0.5 and Fraction(1, 2) are different constants
def _op_expressions(op: str, nargs: int, const: Any) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """The op's symbols, and sympy's expression of its value and of each partial."""
    symbols = tuple(sympy.symbols(f"a0:{nargs}", real=True))
    expr = OPS[op].sym(symbols, const)
    return symbols, (expr, *(sympy.diff(expr, s) for s in symbols))


def _finite_float(c: Certified) -> Any:
    """The certified number, or None where it is not a real number that rounds to a finite float."""
    return c.value if c.defined and abs(c.value) < ROUNDS_TO_INF else None


@by_op_name
@functools.lru_cache(maxsize=1 << 16, typed=True)
def reference(op: str, args: tuple[float, ...], const: Any) -> tuple[Any, list[Any]] | None:
    """sympy's value and partials at ``args``, certified (:func:`autograd.testing.oracles.reference.certify`;
    a partial is None where not a finite float); None when the value itself is not a finite real
    float there.  Raises :class:`ReferenceUnresolved` when they cannot be certified (cached per
    point: the thresholds' bisections and the judging ask for the same points again)."""
    symbols, exprs = _op_expressions(op, len(args), const)
    value, *partials = (_finite_float(c) for c in certify(symbols, exprs, args))
    if value is None:
        return None
    return value, partials


@by_op_name
@functools.lru_cache(maxsize=1024, typed=True)
def _conditions(op: str, nargs: int, const: Any) -> tuple[Any, ...]:
    """For each partial of the op, ``sum_k |x_k d/dx_k|`` of it: how far rounding an operand moves
    it, relatively."""
    symbols, (_, *partials) = _op_expressions(op, nargs, const)
    return tuple(sympy.Add(*[sympy.Abs(s * sympy.diff(d, s)) for s in symbols]) for d in partials)


def partial_condition(op: str, args: tuple[float, ...], const: Any, j: int) -> float:
    """The certified condition of the op's partial ``j`` at ``args`` (see :func:`_conditions`; inf
    where it is not a finite float); ReferenceUnresolved where it cannot be certified (sympy
    leaving the derivative of the partial unevaluated included)."""
    symbols, _ = _op_expressions(op, len(args), const)
    condition = _conditions(op, len(args), const)[j]
    if condition.has(sympy.Derivative):
        raise ReferenceUnresolved(f"sympy cannot differentiate the partial of {op} again")
    (found,) = certify(symbols, [condition], args)
    return float(abs(found.value)) if found.defined and abs(found.value) <= FLOAT_MAX else math.inf


def _certified_or_none(op: str, args: tuple[float, ...], const: Any) -> tuple[Any, list[Any]] | None:
    """:func:`reference`, where a point whose reference cannot be certified counts as one without
    a finite value: it places no threshold (a point of the probe is judged, and inconclusive)."""
    try:
        return reference(op, args, const)
    except ReferenceUnresolved:
        return None


def _bits(x: float) -> int:
    return int(struct.unpack("<q", struct.pack("<d", x))[0])


def _from_bits(n: int) -> float:
    return float(struct.unpack("<d", struct.pack("<q", n))[0])


def _threshold(op: str, args: list[float], i: int, const: Any, sign: float, normal: bool) -> float | None:
    """The largest |x| (sign ``sign``) at which value and gradient are finite floats (with
    ``normal``: at which the value is a normal float, not subnormal or 0), by bisection on the
    floats between 1 and the largest float; None when that property does not end in between."""

    def holds(x: float) -> bool:
        ref = _certified_or_none(op, (*args[:i], x, *args[i + 1 :]), const)
        if ref is None:
            return False
        if normal:
            return bool(abs(ref[0]) >= NORMAL_MIN)
        return all(g is not None for g in ref[1])

    lo, hi = _bits(1.0), _bits(FLOAT_MAX)
    if not holds(sign * 1.0) or holds(sign * FLOAT_MAX):
        return None
    for _ in range(BISECTION_STEPS):  # bounded: a bisection of < 2**63 floats ends in 63 halvings
        if hi - lo <= 1:
            break
        mid = (lo + hi) // 2
        if holds(sign * _from_bits(mid)):
            lo = mid
        else:
            hi = mid
    return sign * _from_bits(lo)


def _candidates(op: str, region: Any, args: list[float], i: int, const: Any) -> list[float]:
    xs = [0.0, *(s * m for m in MAGNITUDES for s in (1.0, -1.0))]
    for b in region.boundary:
        if b.is_finite:
            b = float(b)
            for direction in (math.inf, -math.inf):
                step = math.copysign(NEAR * max(1.0, abs(b)), direction)
                xs += [math.nextafter(b, direction), b + step]
            xs.append(b)
    # a threshold is sought on both sides, also where the region ends before the largest float: an
    # op may leave the floats inside a bounded region (exp on (0, 800)); one outside is dropped below
    for sign in (1.0, -1.0):
        for normal in (False, True):
            t = _threshold(op, args, i, const, sign, normal)
            if t is not None:
                xs.append(t)
    return [x for x in dict.fromkeys(xs) if _inside(region, x)]


@by_op_name
@functools.lru_cache(maxsize=None, typed=True)
def edge_points(op: str, const: Any = None) -> tuple[EdgePoint, ...]:
    """The points of ``op`` with ``const`` inside its region, derived from the region (cached)."""
    spec = OPS[op]
    regions = _regions(spec, const)
    points = []
    for i, region in enumerate(regions):
        args = [PARTNER] * len(regions)
        for x in _candidates(op, region, args, i, const):
            at = (*args[:i], x, *args[i + 1 :])
            kink = i == 0 and x in spec.kinks
            try:
                ref = reference(op, tuple(at), const)
            except ReferenceUnresolved:  # kept: the probe reports it inconclusive, never a pass
                points.append(EdgePoint(op, at, const, i, not kink))
                continue
            if ref is None:
                continue
            points.append(EdgePoint(op, at, const, i, not kink and all(g is not None for g in ref[1])))
    return tuple(points)


@by_op_name
@functools.lru_cache(maxsize=None, typed=True)
def out_of_domain_points(op: str, const: Any = None) -> tuple[EdgePoint, ...]:
    """Points outside the region where Python's float evaluation refuses the op too."""
    spec = OPS[op]
    regions = _regions(spec, const)
    points = []
    for i, region in enumerate(regions):
        outside = [float(b) for b in region.boundary if b.is_finite and not _inside(region, float(b))]
        for x in dict.fromkeys([*outside, *OUTSIDE]):
            if _inside(region, x):
                continue
            at = tuple(PARTNER if j != i else x for j in range(len(regions)))
            if _undefined_in_floats(spec, at, const):
                points.append(EdgePoint(op, at, const, i, check_gradient=False))
    return tuple(points)


def _undefined_in_floats(spec: OpSpec, args: tuple[float, ...], const: Any) -> bool:
    try:
        y = spec.num(list(args), const)
    except MATH_ERRORS:
        return True
    return not isinstance(y, int | float | Fraction) or not math.isfinite(y)
