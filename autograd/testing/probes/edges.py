"""Probes at the edges of every op's domain, and just outside it.

Every point comes from the op's ``region`` column (:mod:`autograd.testing.ops`, and
:mod:`autograd.testing.catalogue` for the ops an engine has beyond the table), never
from a list of cases: a new op gets its points with no edit here.

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
    convention); a point whose reference cannot be certified is ``inconclusive``.
    An exception is a range limit (a ``convention``) where the exact gradient is not a
    finite float, and a ``crash`` everywhere else, also where only an intermediate of the
    engine's formulas leaves the floats (``tanh(1e300)`` by ``exp(2x)``: its value and
    gradient are ordinary numbers); a value off beyond the derived forward tolerance is
    ``wrong_value``; a gradient is ``wrong_gradient``
    only when sympy's derivative AND central differences of the op's float function
    both reject it (the differences taken with a step relative to the operand), and
    ``inconclusive`` when only sympy does.
``out_of_domain``
    Points outside the region where the op is not a real number (the boundary points
    the region leaves out, and 0, ±1, ±1e-300, ±1e300 outside it), kept only when
    Python's own float evaluation refuses them too (raises, or gives a complex, an
    infinite or a NaN result): ``log(0)``, ``log(-1)``, ``(-1) ** 0.5``, ``1 / 0``,
    ``0 ** -1``.  Raising an error or returning nan / ±inf is a fact (listed as a
    ``convention``: how the engine treats it); returning a finite number (or a complex
    one) is ``accepts_invalid``, with a reproducer.
"""

from __future__ import annotations

import functools
import math
import struct
import sys
from collections.abc import Iterator
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import sympy  # type: ignore[import-untyped]

from autograd.testing.boundary import EngineRaised, error_line
from autograd.testing.engines import Engine, resolve_engine
from autograd.testing.findings import CheckOutcome, Finding, outcome
from autograd.testing.graph import OracleInconclusive
from autograd.testing.ops import OPS, PARTNER, REALS, OpSpec
from autograd.testing.oracles import SYMBOLIC_SAFETY, in_precision_range, to_precision, working_precision
from autograd.testing.oracles.fd import _fd_row
from autograd.testing.oracles.mismatch import _compare
from autograd.testing.oracles.reference import Certified, ReferenceUnresolved, certify
from autograd.testing.probes.common import same_const
from autograd.testing.reproducers import program, show
from autograd.testing.verdicts import SECOND_VOTE_FD, Vote, merge, second_vote

__all__ = [
    "MAGNITUDES",
    "EdgePoint",
    "edge_points",
    "out_of_domain_points",
    "probe_edge_points",
    "probe_out_of_domain",
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
#: Below this |x| a relative finite-difference step rounds away (subnormals): no second vote.
FD_SMALLEST = 1e-290
#: Operands of the variadic ops at their edge points: vsum of two terms, dot([w], [x], b).
VARIADIC_ARITY = {"vsum": 2, "dot": 3}
#: Ops whose local derivative is formed from O(1) quantities (1 - t*t, s*(1 - s)): rounding
#: them errs by a few eps absolutely, however small the derivative itself is.
BOUNDED_PARTIALS = frozenset({"tanh", "sigmoid"})

# what plain Python math raises outside a domain
_MATH_ERRORS = (ArithmeticError, ValueError, TypeError)


# ---------------------------------------------------------------------- points
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
        return ["x", "y", "z"][: len(self.args)]

    def source(self) -> str:
        return OPS[self.op].source(self.names, self.const)

    def label(self) -> str:
        at = ", ".join(f"{n} = {x!r}" for n, x in zip(self.names, self.args, strict=True))
        return f"{self.source()} at {at}"


def arity(spec: OpSpec) -> int:
    return spec.arity or VARIADIC_ARITY.get(spec.name, 2)


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


@functools.lru_cache(maxsize=None, typed=True)  # typed: 0.5 and Fraction(1, 2) are different constants
def _op_expressions(op: str, nargs: int, const: Any) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """The op's symbols, and sympy's expression of its value and of each partial."""
    symbols = tuple(sympy.symbols(f"a0:{nargs}", real=True))
    expr = OPS[op].sym(symbols, const)
    return symbols, (expr, *(sympy.diff(expr, s) for s in symbols))


def _finite_float(c: Certified) -> Any:
    """The certified number, or None where it is not a real number that rounds to a finite float."""
    return c.value if c.defined and abs(c.value) < ROUNDS_TO_INF else None


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
    except _MATH_ERRORS:
        return True
    return not isinstance(y, int | float | Fraction) or not math.isfinite(y)


# ---------------------------------------------------------------------- the engine at a point
def _program(eng: Engine, point: EdgePoint, lines: list[str]) -> str:
    """A reproducer building the point's operands as Values, then ``lines``."""
    head = ["from fractions import Fraction"] if isinstance(point.const, Fraction) else []
    build = [f"{n} = {{V}}({x!r})" for n, x in zip(point.names, point.args, strict=True)]
    return program(eng, *build, *lines, preamble=head)


def _edge_reproducer(eng: Engine, point: EdgePoint, want: str) -> str:
    grads = ", ".join(f"{n}.{{grad}}" for n in point.names)
    return _program(
        eng,
        point,
        [
            f"# expected (sympy, evaluated by mpmath): {want}",
            "try:",
            f"    out = {point.source()}",
            *(["    out.{backward}()"] if point.check_gradient else []),
            f"    print('expected: {want}; actual: value', repr(out.{{data}})"
            + (f", ', gradient', [{grads}])" if point.check_gradient else ")"),
            "except Exception as exc:",
            f"    print('expected: {want}; actual:', type(exc).__name__, exc)",
        ],
    )


def _forward_tol(spec: OpSpec, point: EdgePoint, value: Any) -> float:
    err = spec.fwd_err(list(point.args), point.const, float(value))
    eps, tiny = working_precision()  # the engine's precision (float32 engines: float32's rounding)
    return float(SYMBOLIC_SAFETY * (eps * err + tiny))


def _gradient_tol(spec: OpSpec, point: EdgePoint, value: Any, grad: Any) -> float:
    # (the partial_err that divide guard their division: 1 - t*t with t == 1 is the absolute term's)
    partial_err = float(spec.partial_err(list(point.args), point.const, float(value)))
    absolute = 1.0 if spec.name in BOUNDED_PARTIALS else 0.0
    eps, tiny = working_precision()
    return float(SYMBOLIC_SAFETY * (eps * ((2 + partial_err) * abs(float(grad)) + absolute) + tiny))


def _judge_point(eng: Engine, point: EdgePoint, check: str) -> list[Finding]:
    spec = OPS[point.op]
    if eng.precision != "float64":  # judged where the engine is: at its operands, rounded
        given = point.args  # an operand beyond the range (1e-300 is 0 in float32) is a range limit too
        point = replace(point, args=tuple(to_precision(x, eng.precision) for x in point.args))
        try:  # an operand rounded to an infinity has no reference: a range limit below
            ref = (
                reference(point.op, point.args, point.const) if all(map(math.isfinite, point.args)) else None
            )
        except ReferenceUnresolved as exc:
            return [_unresolved(point, check, exc)]
        shown = () if ref is None else (ref[0], *(p for p in ref[1] if p is not None))
        unbounded = ref is None or (point.check_gradient and None in ref[1])  # a pole after rounding
        if unbounded or not in_precision_range(eng.precision, *given, *shown):
            return [
                Finding(
                    "convention", check, f"range limit: {point.label()}: beyond {eng.precision}", spec.name
                )
            ]
    try:
        ref = reference(point.op, point.args, point.const)
    except ReferenceUnresolved as exc:
        return [_unresolved(point, check, exc)]
    if ref is None:
        raise ValueError(f"edge probe: {point.label()} has no finite value; edge_points keeps none such")
    value, partials = ref
    want_value = float(value)
    want_grads = [float(g) for g in partials] if point.check_gradient else None
    want = f"value {want_value!r}" + ("" if want_grads is None else f", gradient {want_grads!r}")
    repro = _edge_reproducer(eng, point, want)
    label = spec.name  # the op's key; reports show its form (ops.display)
    try:
        leaves = [eng.make(x) for x in point.args]
        out = eng.apply(spec, leaves, point.const)
        got_value = eng.data(out)
        got_grads: list[Any] = []
        if point.check_gradient:
            eng.backward(out)
            got_grads = [eng.grad(v) for v in leaves]
    except EngineRaised as raised:
        stage, error = raised.stage, raised.exc
        summary = f"{point.label()}: {stage} raises {error_line(error)}"
        if None in partials or any(abs(r) > FLOAT_MAX for r in (value, *partials)):
            # the exact gradient is not a finite float (the value is: edge_points keeps no other
            # point), and an engine may form it in the forward pass: a range limit; so is a result
            # beyond the largest float that only rounds to it (dot's x * y there overflows before
            # z is added).  Where the value and every partial are finite, only an intermediate of
            # the engine's formulas left the floats (tanh(1e300) by exp(2x), 0 / x at 1e-300 by
            # x * x): a crash.
            return [Finding("convention", check, f"range limit: {summary}", label)]
        if stage == "forward" and _added_zero(spec, point) and not isinstance(error, ArithmeticError):
            # the constant 0 is not one the op was found to take: an engine may refuse it, clearly
            refused = f"{point.source()}: the constant 0 is refused ({error_line(error)})"
            return [Finding("unsupported", check, refused, label)]
        return [Finding("crash", check, summary, label, repro, want, error_line(error))]
    findings = []
    if not _compare("x", point.args[0], got_value, value, _forward_tol(spec, point, value)).ok:
        findings.append(
            Finding(
                "wrong_value", check, f"{point.label()}: value {show(got_value)}, expected {want_value!r}",
                label, repro, repr(want_value), show(got_value), point=point.args,
            )
        )  # fmt: skip
    for j, (got, grad) in enumerate(zip(got_grads, partials, strict=False)):
        findings += _judge_gradient(spec, point, j, value, grad, got, repro, check)
    return findings


def _unresolved(point: EdgePoint, check: str, exc: ReferenceUnresolved) -> Finding:
    """A point whose reference cannot be certified: judged by nobody, so inconclusive."""
    summary = f"{point.label()}: no certified reference ({exc.reason}); not judged"
    return Finding("inconclusive", check, summary, OPS[point.op].name)


def _added_zero(spec: OpSpec, point: EdgePoint) -> bool:
    return bool(spec.consts) and point.const == 0 and not any(same_const(point.const, c) for c in spec.consts)


def _judge_gradient(
    spec: OpSpec, point: EdgePoint, j: int, value: Any, grad: Any, got: Any, repro: str, check: str
) -> list[Finding]:
    """Two independent oracles: sympy's derivative (mpmath) judges; where it disagrees, central
    differences of the op confirm it (``wrong_gradient``) or cannot (``inconclusive``)."""
    name = point.names[j]
    tol = _gradient_tol(spec, point, value, grad)
    symbolic = _compare(name, point.args[j], got, grad, tol)
    if symbolic.ok:  # the reference agrees: finite differences would only ever confirm it
        return []

    x = point.args[j]
    scale = x if x != 0 else 1.0  # a step relative to x: 1e-20 is differenced at 1e-20 * (1 +- h)

    def f(us: list[float]) -> float:
        return float(spec.num([*point.args[:j], us[0] * scale, *point.args[j + 1 :]], point.const))

    def differences() -> Vote:
        if 0 < abs(x) < FD_SMALLEST:
            return Vote("finite differences", None, "no relative step is representable")
        try:
            # the second vote's margins: the differences' own error, and the engine's (in units of scale)
            margins = SECOND_VOTE_FD["rtol"], SECOND_VOTE_FD["atol"] + tol * abs(scale)
            row = _fd_row(f, [1.0 if x != 0 else 0.0], 0, float(got) * scale, name, *margins)
        except (OracleInconclusive, *_MATH_ERRORS) as exc:  # finite differences cannot judge here
            return Vote("finite differences", None, error_line(exc))
        return Vote("finite differences", not row.ok, repr(float(row.oracle) / scale))

    want = float(grad)
    vote = second_vote(Vote("sympy/mpmath", True, repr(want)), differences)
    kind = "wrong_gradient" if vote.kind == "defect" else "inconclusive"
    summary = f"{point.label()}: d/d{name} {show(got)}; {vote.text}"
    return [Finding(kind, check, summary, spec.name, repro, repr(want), show(got), point=point.args)]


# ---------------------------------------------------------------------- which ops
def _engine_ops(eng: Engine) -> Iterator[tuple[str, tuple[Any, ...]]]:
    """(op, constants of its points) for every op of ``OPS`` the engine has (registered extras too)."""
    for name, spec in list(OPS.items()):
        if spec.variadic and getattr(eng, name, None) is None:
            continue
        if not eng.supports(name):
            continue
        yield name, edge_consts(spec, spec.usable_consts(eng) if spec.consts else None)


def _with_extras(eng: Engine, run: Any) -> Any:
    """``run()`` with the engine's identified extra ops registered (when identification exists)."""
    from autograd.testing import identify  # below this module: identification uses the catalogue

    with identify.registered_extras(eng):
        return run()


def probe_edge_points(engine: Any, *, examples: int = 30, seed: int = 0) -> CheckOutcome:
    """Each op the engine has at the edge points its region gives; every point on its own."""
    eng = resolve_engine(engine)

    def run() -> CheckOutcome:
        found: list[tuple[float, int, Finding]] = []
        judged = 0
        ops = []
        for name, consts in _engine_ops(eng):
            ops.append(OPS[name].label)
            for const in consts:
                for point in edge_points(name, const):
                    for f in _judge_point(eng, point, "edge_points"):
                        found.append((_extremeness(point), len(found), f))
                    judged += 1
        findings = _fold([f for _, _, f in sorted(found)])  # each op's plainest point first
        inconclusive = sum(f.kind == "inconclusive" for f in findings)
        reason = f"{judged} points at the edges of the regions of {len(ops)} ops"
        return outcome(
            "edge_points", merge(findings), judged=judged - inconclusive, unit="points",
            inconclusive=inconclusive, reason=reason,
        )  # fmt: skip

    return _with_extras(eng, run)  # type: ignore[no-any-return]


def _fold(findings: list[Finding]) -> list[Finding]:
    """Drop an op's inconclusive gradients when a wrong gradient of that op is confirmed."""
    wrong = {f.op for f in findings if f.kind == "wrong_gradient"}
    return [f for f in findings if not (f.kind == "inconclusive" and f.op in wrong)]


def _extremeness(point: EdgePoint) -> float:
    """How far the point's operands are from 1 in orders of magnitude (0 counts as plain)."""
    return max(abs(math.log10(abs(x))) if x else 0.0 for x in point.args)


def _treatment(eng: Engine, point: EdgePoint) -> tuple[str, Any]:
    """("raises", error) / ("nonfinite", value) / ("complex", value) / ("finite", value)."""
    spec = OPS[point.op]
    try:
        y = eng.data(eng.apply(spec, [eng.make(x) for x in point.args], point.const))
    except EngineRaised as raised:
        return "raises", error_line(raised.exc)
    if isinstance(y, complex):
        return ("finite" if y.imag == 0 else "complex"), y
    try:
        finite = math.isfinite(y)
    except TypeError:  # not a number at all
        return "complex", y
    return ("finite" if finite else "nonfinite"), y


def probe_out_of_domain(engine: Any, *, examples: int = 30, seed: int = 0) -> CheckOutcome:
    """Each op the engine has where it is not a real number: refused (a fact) or silent garbage?"""
    eng = resolve_engine(engine)

    def run() -> CheckOutcome:
        findings: list[Finding] = []
        judged = 0
        for name, consts in _engine_ops(eng):
            facts: dict[str, list[str]] = {}  # how the engine treats it -> where
            for const in consts:
                for point in out_of_domain_points(name, const):
                    judged += 1
                    how, what = _treatment(eng, point)
                    if how == "raises":
                        facts.setdefault(f"raises {what.split(':')[0]}", []).append(point.label())
                    elif how == "nonfinite":
                        facts.setdefault(f"returns {show(what)}", []).append(point.label())
                    else:
                        findings.append(_accepts(eng, point, how, what))
            for how, where in facts.items():
                shown = "; ".join(where[:4]) + (f"; {len(where) - 4} more points" if len(where) > 4 else "")
                summary = f"outside its domain, {how}: {shown}"
                findings.append(Finding("convention", "out_of_domain", summary, name))
        reason = f"{judged} points outside the ops' regions"
        return outcome("out_of_domain", merge(findings), judged=judged, unit="points", reason=reason)

    return _with_extras(eng, run)  # type: ignore[no-any-return]


def _accepts(eng: Engine, point: EdgePoint, how: str, what: Any) -> Finding:
    want = "an error, nan or inf (not a real number)"
    repro = _program(
        eng,
        point,
        [
            "try:",
            f"    print('expected: {want}; actual:', repr({point.source()}.{{data}}))",
            "except Exception as exc:",
            "    print('refused:', type(exc).__name__, exc)",
        ],
    )
    kind = "a finite number" if how == "finite" else "a complex number"
    if how != "finite" and not isinstance(what, complex):
        kind = "something that is not a number"
    summary = f"{point.label()} is not a real number, yet returns {kind}: {what!r}"
    return Finding("accepts_invalid", "out_of_domain", summary, point.op, repro, want, repr(what))
