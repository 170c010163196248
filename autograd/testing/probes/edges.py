"""Probes at the edges of every op's domain, and just outside it.

The points come from each op's region (:mod:`autograd.testing.probes.regions`); here the
engine is judged at them.

``edge_points``
    Each op the engine has, at the points inside its region
    (:func:`~autograd.testing.probes.regions.edge_points`): a point whose reference cannot
    be certified is ``inconclusive``.
    An exception is a range limit (a ``convention``) where the exact gradient is not a
    finite float, and a ``crash`` everywhere else, also where only an intermediate of the
    engine's formulas leaves the floats (``tanh(1e300)`` by ``exp(2x)``: its value and
    gradient are ordinary numbers); a value off beyond the derived forward tolerance is
    ``wrong_value``; a gradient is ``wrong_gradient``
    only when sympy's derivative AND central differences of the op's float function
    both reject it (the differences taken with a step relative to the operand), or, where
    float differences cannot judge or do not confirm (no representable step at 1e-300,
    values that round alike at 1e20), certified first differences of the op's definition
    (:func:`~autograd.testing.oracles.definition_differences.difference_vote`) do; and
    ``inconclusive`` when only sympy does.
``out_of_domain``
    Each op the engine has, at the points outside its region where it is not a real number
    and Python's own float evaluation refuses it too
    (:func:`~autograd.testing.probes.regions.out_of_domain_points`).  Raising an error or
    returning nan / ±inf is a fact (listed as a ``convention``: how the engine treats it);
    returning a finite number (or a complex one) is ``accepts_invalid``, with a reproducer.

An engine that flushes subnormal numbers to zero (XLA on the CPU does: JAX's ``x * 1.0`` at
5e-324 is 0.0) makes that choice once for every op
(:func:`~autograd.testing.probes.subnormals.subnormals_flushed`), and ``edge_points`` then reports
it as one ``convention`` fact, with the points where an operand or the exact result is subnormal
and the engine differs listed as its consequences, not as a defect of each op.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import replace
from fractions import Fraction
from typing import Any

from autograd.testing.boundary import EngineRaised, error_line
from autograd.testing.engines import Engine, resolve_engine
from autograd.testing.engines.support import usable_consts
from autograd.testing.findings import DEFECT_KINDS, CheckOutcome, Finding, outcome
from autograd.testing.graph import OracleInconclusive
from autograd.testing.ops import OPS, OpSpec
from autograd.testing.oracles import SYMBOLIC_SAFETY, in_precision_range, to_precision, working_precision
from autograd.testing.oracles.definition_differences import difference_vote
from autograd.testing.oracles.fd import _fd_row
from autograd.testing.oracles.mismatch import _compare
from autograd.testing.oracles.reference import ReferenceUnresolved
from autograd.testing.probes.common import same_const
from autograd.testing.probes.regions import (
    FLOAT_MAX,
    MAGNITUDES,
    MATH_ERRORS,
    EdgePoint,
    arity,
    edge_consts,
    edge_points,
    out_of_domain_points,
    partial_condition,
    reference,
)
from autograd.testing.probes.subnormals import flush_fact, subnormal_point, subnormals_flushed
from autograd.testing.reproducers import program, show
from autograd.testing.verdicts import SECOND_VOTE_FD, Vote, merge, second_vote

__all__ = [
    "MAGNITUDES",
    "EdgePoint",
    "arity",
    "edge_consts",
    "edge_points",
    "out_of_domain_points",
    "probe_edge_points",
    "probe_out_of_domain",
    "reference",
    "subnormals_flushed",
]

#: Below this |x| a relative finite-difference step rounds away (subnormals): no second vote.
FD_SMALLEST = 1e-290
#: Operands of the variadic ops at their edge points: vsum of two terms, dot([w], [x], b).


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


def _forward_tol(spec: OpSpec, point: EdgePoint, value: Any, precision: str) -> float:
    err = spec.fwd_err(list(point.args), point.const, float(value))
    eps, tiny = working_precision(precision)  # the engine's (float32 engines: float32's rounding)
    return float(SYMBOLIC_SAFETY * (eps * err + tiny))


def _gradient_tol(spec: OpSpec, point: EdgePoint, value: Any, grad: Any, precision: str) -> float:
    # (the partial_err that divide guard their division: 1 - t*t with t == 1 is the absolute term's)
    partial_err = float(spec.partial_err(list(point.args), point.const, float(value)))
    absolute = 1.0 if spec.bounded_partials else 0.0
    eps, tiny = working_precision(precision)
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
    if not _compare("x", point.args[0], got_value, value, _forward_tol(spec, point, value, eng.precision)).ok:
        findings.append(
            Finding(
                "wrong_value", check, f"{point.label()}: value {show(got_value)}, expected {want_value!r}",
                label, repro, repr(want_value), show(got_value), point=point.args,
            )
        )  # fmt: skip
    for j, (got, grad) in enumerate(zip(got_grads, partials, strict=False)):
        findings += _judge_gradient(spec, point, j, value, grad, got, repro, check, eng.precision)
    return findings


def _unresolved(point: EdgePoint, check: str, exc: ReferenceUnresolved) -> Finding:
    """A point whose reference cannot be certified: judged by nobody, so inconclusive."""
    summary = f"{point.label()}: no certified reference ({exc.reason}); not judged"
    return Finding("inconclusive", check, summary, OPS[point.op].name)


def _added_zero(spec: OpSpec, point: EdgePoint) -> bool:
    return bool(spec.consts) and point.const == 0 and not any(same_const(point.const, c) for c in spec.consts)


def _judge_gradient(
    spec: OpSpec, point: EdgePoint, j: int, value: Any, grad: Any, got: Any, repro: str, check: str,
    precision: str,
) -> list[Finding]:  # fmt: skip
    """Two independent oracles: sympy's derivative (mpmath) judges; where it disagrees, central
    differences of the op confirm it (``wrong_gradient``), or, where they cannot judge or do not
    confirm, the certified differences of its definition do; else ``inconclusive``."""
    name = point.names[j]
    tol = _gradient_tol(spec, point, value, grad, precision)
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
        except (OracleInconclusive, *MATH_ERRORS) as exc:  # finite differences cannot judge here
            return Vote("finite differences", None, error_line(exc))
        return Vote("finite differences", not row.ok, repr(float(row.oracle) / scale))

    def votes() -> Vote:
        floats = differences()
        if floats.rejects:
            return floats
        # floats cannot difference at 1e-300, or round away what they difference at 1e20: the
        # definition's certified differences can, and then they judge
        # (they confirm only beyond one ulp of each operand moved through the partial too: the
        # engine may round an intermediate, as exp(-x * x / 2) at x = -37 is off by x * x / 2 ulps)
        try:
            condition = partial_condition(point.op, point.args, point.const, j)
        except ReferenceUnresolved:  # unknown: they confirm only a number that is not finite
            condition = math.inf
        eps, _ = working_precision(precision)
        margin = tol + SYMBOLIC_SAFETY * eps * condition
        exact = difference_vote(point.op, point.args, point.const, (j,), _number(got), want, margin)
        return exact if exact.rejects is not None else floats

    want = float(grad)
    vote = second_vote(Vote("sympy/mpmath", True, repr(want)), votes)
    kind = "wrong_gradient" if vote.kind == "defect" else "inconclusive"
    summary = f"{point.label()}: d/d{name} {show(got)}; {vote.text}"
    return [Finding(kind, check, summary, spec.name, repro, repr(want), show(got), point=point.args)]


def _number(x: Any) -> float | None:
    """The engine's number as a float, None when it is not one."""
    try:
        return float(x)
    except (TypeError, ValueError, OverflowError):
        return None


# ---------------------------------------------------------------------- which ops
def _engine_ops(eng: Engine) -> Iterator[tuple[str, tuple[Any, ...]]]:
    """(op, constants of its points) for every op of ``OPS`` the engine has (registered extras too)."""
    for name, spec in list(OPS.items()):
        if spec.variadic and getattr(eng, name, None) is None:
            continue
        if not eng.supports(name):
            continue
        yield name, edge_consts(spec, usable_consts(eng, spec) if spec.consts else None)


def _with_extras(eng: Engine, run: Any) -> Any:
    """``run()`` with the engine's identified extra ops registered (when identification exists)."""
    from autograd.testing import identify  # below this module: identification uses the catalogue

    with identify.registered_extras(eng):
        return run()


def probe_edge_points(engine: Any, *, examples: int = 30, seed: int = 0) -> CheckOutcome:
    """Each op the engine has at the edge points its region gives; every point on its own (an
    engine that flushes subnormals: where they are involved, a consequence of that one fact)."""
    eng = resolve_engine(engine)
    flushed = subnormals_flushed(eng)

    def run() -> CheckOutcome:
        found: list[tuple[float, int, int, Finding]] = []  # (extremeness, order, point, finding)
        consequences: list[list[Finding]] = []  # a point's value and gradients can each differ
        judged = 0
        ops = []
        for name, consts in _engine_ops(eng):
            ops.append(OPS[name].label)
            for const in consts:
                for point in edge_points(name, const):
                    judgement = _judge_point(eng, point, "edge_points")
                    if flushed and judgement and subnormal_point(point, eng.precision):
                        differs = [f for f in judgement if f.kind in (*DEFECT_KINDS, "inconclusive")]
                        judgement = [f for f in judgement if f.kind not in (*DEFECT_KINDS, "inconclusive")]
                        if differs:
                            consequences.append(differs)
                    for f in judgement:
                        found.append((_extremeness(point), len(found), judged, f))
                    judged += 1
        ordered = sorted(found)  # each op's plainest point first
        findings = _fold([f for *_, f in ordered])
        kept = {id(f) for f in findings}
        # points, not findings: both gradients of x / y may be inconclusive at one point
        inconclusive = len({p for *_, p, f in ordered if f.kind == "inconclusive" and id(f) in kept})
        if flushed:
            findings.append(flush_fact(eng, flushed, consequences))
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
