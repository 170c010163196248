"""Second derivatives of every op at the edges of its domain.

``edge_second_order``
    For an engine that differentiates its own gradients (``backward(create_graph=True)``),
    each op it has at the edge points of ``edge_points``
    (:func:`~autograd.testing.probes.regions.edge_points`, those whose gradient is judged):
    every entry of the engine's Hessian of the op alone against sympy's second partial,
    certified (:func:`~autograd.testing.oracles.reference.certify`), within the bound of
    :func:`~autograd.testing.oracles.hessian_bound.hessian_tolerances` for a graph of that one
    op, computed from certified magnitudes (:func:`_tolerance`).

    - An entry whose exact value is not a finite float (a pole, or beyond the largest float)
      is not judged; where the engine raises there, it is a range limit (a ``convention``).
      Elsewhere an exception is a ``crash``, unless it is raised at every point of the op and
      says the feature is missing: then the op has no second order (``unsupported``).  A point
      whose value or first derivatives already raise is the ``edge_points`` probe's.
    - An entry off beyond its bound is ``wrong_gradient`` only when certified second
      differences of the op's definition
      (:func:`~autograd.testing.oracles.definition_differences.second_difference`) confirm
      it: they reject the engine's number and agree with sympy's; ``inconclusive`` when they
      do not settle, or do not confirm.  Where the op's own value is below the normal range
      an engine may form its second derivatives from that rounded value: a range limit.
    - On an engine that flushes subnormals, a disagreement at a point with a subnormal operand,
      value or partial, or of a second partial near the bottom of the normal range
      (:data:`FLUSH_REACH`), is one more consequence of that one fact.
    - A point whose reference cannot be certified is ``inconclusive``, unless the op's first
      derivative has a kink there (the second partials' one-sided limits settle to different
      numbers, :func:`_kink_of_first`): no second derivative exists, and the engine's number is a
      ``convention``.

An engine of another precision is judged at its operands rounded to it, with its rounding; an
entry beyond its range is not judged.
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy  # type: ignore[import-untyped]

from autograd.testing.boundary import EngineRaised, error_line
from autograd.testing.engines import Engine, resolve_engine
from autograd.testing.findings import CheckOutcome, Finding, outcome
from autograd.testing.graph import Graph, Node
from autograd.testing.ops import OPS, by_op_name
from autograd.testing.oracles import SYMBOLIC_SAFETY, to_precision, working_precision
from autograd.testing.oracles.definition_differences import difference_vote
from autograd.testing.oracles.hessian_bound import SECOND_PARTIAL_ERR
from autograd.testing.oracles.higher import engine_derivatives, snippet
from autograd.testing.oracles.mismatch import _compare
from autograd.testing.oracles.precision import PRECISION_RANGES
from autograd.testing.oracles.reference import ReferenceUnresolved, certify
from autograd.testing.probes.edges import _engine_ops, _extremeness, _fold, _number, _with_extras
from autograd.testing.probes.regions import EdgePoint, arity, edge_points
from autograd.testing.probes.subnormals import subnormals_flushed
from autograd.testing.reproducers import show
from autograd.testing.verdicts import Vote, merge, second_vote

__all__ = ["probe_edge_second_order"]

NAME = "edge_second_order"
#: What the summary of a point whose second-order pass raised says after the point.
RAISED = ": second derivatives: "
#: The check of a finding that follows from flushed subnormals (before the probe gathers them).
FLUSHED = "flushed"


@dataclass(frozen=True)
class _Exprs:
    """sympy's view of one op: its value, first partials, the index pairs i <= j of its second
    partials, the partials, their magnitudes (the sum of the absolute values of the expanded
    partial's terms: what an engine's rounding is relative to, see
    :mod:`autograd.testing.oracles.hessian_bound`) and their conditions (``sum_k |x_k d/dx_k|`` of
    the partial: what rounding an intermediate such as ``x * x`` moves it by, relatively)."""

    symbols: tuple[Any, ...]
    pairs: tuple[tuple[int, int], ...]
    all: tuple[Any, ...]  # value, first partials, second partials, magnitudes, conditions

    def parts(
        self, found: tuple[Any, ...]
    ) -> tuple[Any, tuple[Any, ...], dict[tuple[int, int], tuple[Any, ...]]]:
        """(value, first partials, {pair: (second partial, magnitude, condition)}) of ``found``."""
        n, m = len(self.symbols), len(self.pairs)
        seconds = found[1 + n :]
        entries = zip(seconds[:m], seconds[m : 2 * m], seconds[2 * m :], strict=True)
        return found[0], found[1 : 1 + n], dict(zip(self.pairs, entries, strict=True))


@by_op_name
@functools.lru_cache(maxsize=1024, typed=True)
def _expressions(op: str, nargs: int, const: Any) -> _Exprs:
    symbols = tuple(sympy.symbols(f"a0:{nargs}", real=True))
    expr = OPS[op].sym(symbols, const)
    pairs = tuple(itertools.combinations_with_replacement(range(nargs), 2))
    seconds = [sympy.diff(expr, symbols[i], symbols[j]) for i, j in pairs]
    sizes = [sympy.Add(*[sympy.Abs(t) for t in sympy.Add.make_args(sympy.expand(d))]) for d in seconds]
    conditions = [sympy.Add(*[sympy.Abs(s * sympy.diff(d, s)) for s in symbols]) for d in seconds]
    firsts = [sympy.diff(expr, s) for s in symbols]
    return _Exprs(symbols, pairs, (expr, *firsts, *seconds, *sizes, *conditions))


def _unevaluated(op: str, nargs: int, const: Any) -> bool:
    """Whether sympy leaves some derivative of the op as an unevaluated ``Derivative``."""
    return any(e.has(sympy.Derivative) for e in _expressions(op, nargs, const).all)


def _tolerance(size: Any, condition: Any, partial_err: float, bounded: bool, precision: str) -> float:
    """:func:`~autograd.testing.oracles.hessian_bound.hessian_tolerances` for a graph of one op on
    its leaves, from certified magnitudes (floats overflow at the edges): no forward term (the
    operands are exact); the second partial's ``6 + partial_err`` ulps of its magnitude, and one
    ulp of each operand moved through it (its condition: ``exp(-x * x / 2)`` at x = -37 is off by
    x * x / 2 ulps however well exp rounds)."""
    eps, tiny = working_precision(precision)
    # (a row whose partials are bounded, tanh's and sigmoid's, is allowed one absolute ulp as at
    # first order: 1 - t * t at t = tanh(20) rounds to 0)
    ulps = float(size) * (2 + SECOND_PARTIAL_ERR + partial_err) + float(condition) + (1.0 if bounded else 0.0)
    return float(SYMBOLIC_SAFETY * (eps * ulps + tiny * (1 + ulps)))


@dataclass(frozen=True)
class _Exact:
    """The certified numbers of one point: ``judged`` {pair: (second partial, tolerance)} for each
    second partial that is a finite number of the precision with a finite tolerance; ``entries``:
    how many there are in all; ``underflows``: the op's value is certainly nonzero and below the
    normal range; ``subnormal``: an operand, the value or a partial is subnormal."""

    judged: dict[tuple[int, int], tuple[Any, float]]
    entries: int
    underflows: bool
    subnormal: bool


def _exact(point: EdgePoint, args: tuple[float, ...], precision: str) -> _Exact:
    """Raises :class:`ReferenceUnresolved` when the point's reference cannot be certified."""
    spec, exprs = OPS[point.op], _expressions(point.op, len(args), point.const)
    value, firsts, seconds = exprs.parts(certify(exprs.symbols, exprs.all, args))
    if not value.defined:  # operands rounded to the engine's precision onto a pole: nothing to judge
        return _Exact({}, len(seconds), underflows=False, subnormal=False)
    low, top = PRECISION_RANGES[precision]
    partial_err = float(spec.partial_err(list(args), point.const, float(value)))
    judged = {}
    for ij, (second, size, condition) in seconds.items():
        if all(c.defined and abs(c.value) <= top for c in (second, size, condition)):
            tol = _tolerance(size.value, condition.value, partial_err, spec.bounded_partials, precision)
            if math.isfinite(tol):
                judged[ij] = (second.value, tol)
    numbers = [*args, *(c.value for c in (value, *firsts) if c.defined), *(v for v, _ in judged.values())]
    return _Exact(
        judged, len(seconds), abs(value.value) > value.radius and abs(value.value) < low,
        any(0 < abs(float(x)) < low for x in numbers),
    )  # fmt: skip


def _judge_point(eng: Engine, point: EdgePoint, flushed: bool) -> tuple[bool, list[Finding]]:
    """(judged, findings) of one point: judged is False when no entry of its Hessian is.  On an
    engine that flushes subnormals (``flushed``) a disagreement that follows from it is a finding
    of kind ``convention`` whose check is :data:`FLUSHED` (gathered into one fact by the probe)."""
    spec = OPS[point.op]
    args = tuple(to_precision(x, eng.precision) for x in point.args)
    if not all(map(math.isfinite, args)):  # beyond the engine's range: nothing to judge
        return False, []
    names = point.names
    label = EdgePoint(point.op, args, point.const).label()
    graph = Graph(args, (Node(point.op, tuple(range(len(args))), point.const),))
    try:
        exact = _exact(point, args, eng.precision)
    except ReferenceUnresolved as exc:
        kink = _kink_of_first(point, args)
        if kink is not None:  # the first derivative has a kink here: its slope is the engine's choice
            return True, [_kink_convention(eng, graph, spec.name, (label, names), kink)]
        return True, [_inconclusive(spec.name, f"{label}: no certified reference ({exc.reason}); not judged")]
    try:
        got = engine_derivatives(graph, eng, 2)
    except EngineRaised as raised:
        if _first_order_raises(eng, graph):  # the edge_points probe reports it, at first order
            return False, []
        summary = f"{label}{RAISED}{raised.stage} raises {error_line(raised.exc)}"
        if len(exact.judged) < exact.entries:  # some exact entry is not a finite float: the engine may say so
            return True, [Finding("convention", NAME, f"range limit: {summary}", spec.name)]
        if flushed and exact.subnormal:  # a subnormal operand or result, flushed: the engine-wide fact
            return True, [Finding("convention", FLUSHED, f"{summary} (subnormals flushed)", spec.name)]
        repro = snippet(graph, eng, 2)
        expected = ", ".join(
            f"d2/d{names[i]}d{names[j]} {float(v)!r}" for (i, j), (v, _) in exact.judged.items()
        )
        return True, [Finding("crash", NAME, summary, spec.name, repro, expected, error_line(raised.exc))]
    findings = []
    for (i, j), (want, tol) in exact.judged.items():
        for a, b in sorted({(i, j), (j, i)}):  # an engine's Hessian need not be symmetric: both entries
            if _compare(names[b], args[b], got[(a, b)], want, tol).ok:
                continue
            entry = _entry(label, names, (a, b), got[(a, b)])
            if flushed and (exact.subnormal or abs(want) < FLUSH_REACH):
                findings.append(_flush_consequence(spec.name, entry, want))
            elif exact.underflows and _finite(got[(a, b)]):
                findings.append(_underflow(spec.name, entry, want))
            else:
                findings.append(_disagreement(eng, point, args, graph, (a, b), got[(a, b)], want, tol, entry))
            break
    return bool(exact.judged), findings


#: On an engine that flushes subnormal numbers, a second partial this close to the bottom of the
#: normal range may be a product of a flushed intermediate (pow's y * (y - 1) * x ** (y - 2) is 3e-302
#: where x ** (y - 2) is 1e-308): its disagreement follows from that fact.
FLUSH_REACH = 2.0**-1022 * 2.0**64


def _entry(label: str, names: list[str], ab: tuple[int, int], got: Any) -> str:
    """What every finding of one Hessian entry starts with: the point, the entry, the engine's number."""
    a, b = ab
    return f"{label}: d2/d{names[a]}d{names[b]} {show(got)}"


def _flush_consequence(op: str, entry: str, want: Any) -> Finding:
    summary = (
        f"{entry}, sympy/mpmath {float(want)!r}: near or below the normal range on an engine that flushes "
        "subnormal numbers (a consequence of that fact)"
    )
    return Finding("convention", FLUSHED, summary, op)


def _underflow(op: str, entry: str, want: Any) -> Finding:
    """The op's value is below the normal range: a range limit of the value an engine may form its
    second derivatives from (a fact, and the entry is not judged)."""
    summary = (
        f"range limit: {entry}, sympy/mpmath {float(want)!r}: the op's value is below the normal range, and "
        "an engine may form its second derivatives from its rounded value"
    )
    return Finding("convention", NAME, summary, op)


#: Where the second partials straddle a kink, they are evaluated this far beside the point on each side
#: (relative to the operand, or absolute at 0), at two distances: a side's limit is settled when the
#: two agree to ``KINK_RTOL``, and the sides differ when their limits do by more than that.
KINK_STEPS = (2.0**-60, 2.0**-120)
KINK_RTOL = 1e-9


def _kink_of_first(point: EdgePoint, args: tuple[float, ...]) -> tuple[tuple[int, int], Any, Any] | None:
    """((i, j), limit from below, limit from above) of a second partial whose one-sided limits along
    an operand settle and differ: the first derivative has a kink at the point (softsign' = 1 / (1 +
    |x|) ** 2 at 0), where no second derivative exists; None when none is found (the first partials
    must certify at the point too: a kink of the function itself is not judged at all)."""
    exprs = _expressions(point.op, len(args), point.const)
    n, m = len(exprs.symbols), len(exprs.pairs)
    try:
        firsts = certify(exprs.symbols, exprs.all[1 : 1 + n], args)
    except ReferenceUnresolved:
        return None
    if not all(c.defined for c in firsts):
        return None
    seconds = exprs.all[1 + n : 1 + n + m]
    for k, x in enumerate(args):
        limits = []
        for side in (-1.0, 1.0):
            near = []
            for step in KINK_STEPS:
                at: list[Any] = list(args)
                at[k] = Fraction(x) + Fraction(side * step) * max(abs(Fraction(x)), Fraction(1))  # exact
                try:
                    near.append(certify(exprs.symbols, seconds, at))
                except ReferenceUnresolved:
                    return None
            if not all(_close(a, b) for a, b in zip(*near, strict=True)):
                return None  # a side whose second partials do not settle: nothing is known
            limits.append(near[-1])
        for ij, below, above in zip(exprs.pairs, *limits, strict=True):
            if not _close(below, above):
                return ij, float(below), float(above)
    return None


def _close(a: Any, b: Any) -> bool:
    if not (a.defined and b.defined):
        return False
    x, y = float(a), float(b)
    return abs(x - y) <= KINK_RTOL * max(abs(x), abs(y), 1.0)


def _kink_convention(
    eng: Engine, graph: Graph, op: str, where: tuple[str, list[str]], kink: tuple[tuple[int, int], Any, Any]
) -> Finding:
    """The engine's second partial where its op's first derivative has a kink: a fact, not judged."""
    (i, j), below, above = kink
    label, names = where
    try:
        got = show(engine_derivatives(graph, eng, 2)[(i, j)])
    except EngineRaised as raised:
        got = f"raises {error_line(raised.exc)}"
    summary = (
        f"{label}: d2/d{names[i]}d{names[j]} {got}: the first derivative has a kink here (its slope tends to "
        f"{float(below)!r} from below and {float(above)!r} from above), so the value is a convention"
    )
    return Finding("convention", NAME, summary, op, snippet(graph, eng, 2))


def _first_order_raises(eng: Engine, graph: Graph) -> bool:
    """Whether the value or the first derivatives already raise (not a second-order matter)."""
    try:
        values = graph.build(eng)
        eng.backward(values[graph.out])
    except EngineRaised:
        return True
    return False


def _disagreement(
    eng: Engine, point: EdgePoint, args: tuple[float, ...], graph: Graph, ab: tuple[int, int], got: Any,
    exact: Any, tol: float, entry: str,
) -> Finding:  # fmt: skip
    """The entry ``ab`` (its summary's start: ``entry``) disagrees with sympy: confirmed by the
    differences, or inconclusive."""
    a, b = ab
    names = point.names
    want = float(exact)

    def differences() -> Vote:
        return difference_vote(point.op, args, point.const, (a, b), _number(got), want, tol)

    vote = second_vote(Vote("sympy/mpmath", True, repr(want)), differences)
    kind = "wrong_gradient" if vote.kind == "defect" else "inconclusive"
    summary = f"{entry}; {vote.text}"
    repro = f"# expected d2/d{names[a]}d{names[b]} (sympy, certified): {want!r}\n" + snippet(graph, eng, 2)
    return Finding(kind, NAME, summary, OPS[point.op].name, repro, repr(want), show(got), point=args)


def _finite(x: Any) -> bool:
    number = _number(x)
    return number is not None and math.isfinite(number)


def _inconclusive(op: str, summary: str) -> Finding:
    return Finding("inconclusive", NAME, summary, op)


def probe_edge_second_order(engine: Any, *, examples: int = 30, seed: int = 0) -> CheckOutcome:
    """Each op the engine has, its second derivatives at the edge points of its region."""
    eng = resolve_engine(engine)
    if not eng.higher_order:
        reason = "backward(create_graph=True) is not supported"
        return outcome(NAME, [], judged=0, unit="points", reason=reason)
    flushed = subnormals_flushed(eng)

    def run() -> CheckOutcome:
        found: list[tuple[float, int, int, Finding]] = []  # (extremeness, order, point, finding)
        judged, ops, no_closed_form, consequences = 0, 0, [], []
        for name, consts in _engine_ops(eng):
            ops += 1
            if any(_unevaluated(name, arity(OPS[name]), c) for c in consts):
                no_closed_form.append(OPS[name].label)
                continue
            of_op: list[tuple[float, int, Finding]] = []
            points = raised = 0
            for const in consts:
                for point in edge_points(name, const):
                    if not point.check_gradient:
                        continue
                    was_judged, findings = _judge_point(eng, point, flushed is not None)
                    judged += was_judged
                    points += was_judged
                    raised += any(RAISED in f.summary for f in findings)
                    consequences += [f for f in findings if f.check == FLUSHED]
                    of_op += [(_extremeness(point), judged, f) for f in findings if f.check != FLUSHED]
            crashes = [f for *_, f in of_op if f.kind == "crash"]
            if crashes and raised == points and all(map(_says_missing, crashes)):  # a missing feature
                first = crashes[0]
                how = first.summary.split(RAISED, 1)[1]
                summary = f"no second derivatives: at each of its {points} points {how}"
                of_op = [(0.0, 0, Finding("unsupported", NAME, summary, first.op))]
            found += [(x, len(found) + k, p, f) for k, (x, p, f) in enumerate(of_op)]
        ordered = sorted(found)
        findings = _fold([f for *_, f in ordered])
        kept = {id(f) for f in findings}
        # points, not findings: two entries of one point's Hessian may each be inconclusive
        inconclusive = len({p for *_, p, f in ordered if f.kind == "inconclusive" and id(f) in kept})
        if consequences:
            findings.append(_flush_fact(flushed, consequences))
        reason = f"{judged} points at the edges of the regions of {ops} ops, every entry of the Hessian"
        if no_closed_form:  # a limit of the reference, not of the engine
            reason += (
                f"; not judged (sympy has no closed form of their derivatives): {', '.join(no_closed_form)}"
            )
        return outcome(
            NAME, merge(findings), judged=judged - inconclusive, unit="points",
            inconclusive=inconclusive, reason=reason,
        )  # fmt: skip

    return _with_extras(eng, run)  # type: ignore[no-any-return]


def _says_missing(crash: Finding) -> bool:
    """Whether an error says the feature is missing (NotImplementedError, "... is not implemented",
    "not supported"): raised at every point of an op, the plainest too, it has no second order.
    Any other error at every point is a crash at every point."""
    error = crash.actual.lower()
    return error.startswith("notimplementederror") or "not implemented" in error or "not supported" in error


def _flush_fact(how: str | None, consequences: list[Finding]) -> Finding:
    """The second-order consequences of an engine's flushed subnormals, as one fact."""
    ops = sorted({f.op for f in consequences if f.op})
    summary = (
        f"subnormal numbers are flushed to zero ({how}): {len(consequences)} second derivative(s) near or "
        f"below the normal range differ because of it ({', '.join(ops)}), e.g. {consequences[0].summary}"
    )
    return Finding("convention", NAME, summary)
