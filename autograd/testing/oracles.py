"""Gradient oracles that never use an engine's derivative rules.

``assert_grads_exact``
    Rational graphs on Fraction leaves: the engine's gradient must EQUAL sympy's
    derivative evaluated at the same rational point.  Zero tolerance.

``assert_grads_symbolic``
    Any graph on float leaves: sympy's derivative at the leaves (the reference,
    see :meth:`Graph.reference`: EXACT in Fractions when every op maps rationals
    to rationals, since floats are rationals; otherwise mpmath interval
    arithmetic whose precision doubles until every interval rounds to one double
    or is relatively narrower than 2**-70) against the engine's float gradient,
    within a tolerance derived per leaf from the graph, plus the reference's own
    radius:

        tol_j = S_j + C * eps * W_j + C * TINY * (1 + U_j) + C * R_j,
        eps = 2**-52,  TINY = 2**-1074,  C = 16

    A float engine makes two kinds of rounding error (first order, each op's
    error bounded as listed in :mod:`autograd.testing.ops`):

    * Forward: node k's value is off by at most ``fwd_err_k * eps`` (absolute;
      ``|v_k|`` for a correctly rounded op, ``n * sum|terms|`` for an n-term
      sum), plus ``TINY`` if it underflows.  Its effect on leaf j's gradient is
      measured directly: ``S_j = sum_k max_(+-) |g_j(v_k +- E_k) - g_j|`` with
      ``E_k = C * (fwd_err_k * eps + TINY)``, where ``g_j(v_k + E)`` is the
      gradient of a reference sweep (local partials from sympy, in doubles:
      only the magnitude of a tolerance matters) with node k's value moved by
      E.  To first order that is ``C * eps * fwd_err_k * |d g_j / d v_k|``;
      moving by the whole bound also counts the higher orders that matter
      where the first vanishes.  The sum runs over EVERY node with a path to
      the output, even one whose partials to the output are 0 in floats: at
      ``n = 0`` the partial of ``n * n`` is 0, but moving ``n`` moves it
      (issue 8), and ``n**3`` needs the second order.
    * Backward: each edge e of a path from leaf j to the output multiplies by a
      local partial that an engine evaluates with relative error at most
      ``partial_err_e * eps`` (e.g. ``1 - t*t`` from a rounded ``t = tanh x``),
      then one rounded product and one rounded accumulation.  Summed over
      paths: ``W_j = sum_paths |prod_e p_e| * sum_e (2 + partial_err_e)``.

    Underflow is absolute, at most ``TINY`` per rounding.  A node's value is
    covered by ``E_k`` above (``x * x`` at 1e-170 underflows, then meets a
    factor 1e300); in the backward pass, the product ``adjoint_k * p`` or the
    partial itself underflows into ``a``'s adjoint and reaches leaf j through
    the forward derivative of ``a``:
    ``U_j = sum_{edges k -> a} (1 + |d out / d v_k|) * |d v_a / d x_j|``
    (e.g. ``1e-130 * 1e-200`` before meeting 1e300).  Sums add exactly in the
    subnormal range, so accumulations add nothing.

    ``S`` moves one node at a time, so it misses products of several nodes'
    errors where every factor is 0 in floats (``(c - (c - x)) * (d - (d - y))**3``
    with tiny x, y).  ``R_j = |g_j(sweep) - g_j|`` is the measured error of the
    reference sweep itself, an independent float evaluation of the same graph
    that meets those zeros as the engine does.

    C = 16 covers library functions that are within a couple of ulps and the
    second-order terms the first-order bound drops.  Generated graphs keep every
    node in a well-conditioned region (see ``ops.BOUND`` and the domains), so a
    correct engine sits far below the bound while a rule off by a factor
    1 + 1e-9 (4.5e6 eps) lands far above it.  Measured on 500 generated graphs
    (1252 leaves): our engine's error is at most 1.4% of tol_j, and tol_j / |g_j|
    has median 5e-14 and 99th percentile 7e-12.  ``strategies.stress_graphs``
    (cancellation, underflow, 1e+-150 leaves, relu just off 0) checks that the
    bound holds where these terms matter (``properties/test_stress.py``).

    The forward value gets the same treatment: ``sum_k max_(+-) |y(v_k +- E_k)
    - y| + C * TINY + C * |y(sweep) - y|`` (``check_forward``).

    Relu kinks (``kink_check``): where a relu input's float value is on the
    other side of 0 than its exact value, or closer to 0 than its forward
    error bound, a correct engine's gradient may be off by the whole slope:
    the oracle raises :class:`OracleInconclusive` instead of judging.  So it
    does when the reference does not settle, when a tolerance or the exact
    gradient leaves the float range, or when a bumped sweep overflows.

``assert_grads_fd``, ``gradcheck``
    Central differences with step ``h_j = eps**(1/3) * max(1, |x_j|)`` (about
    6e-6: balances the O(h**2) truncation error against the O(eps/h) rounding
    error), Richardson-extrapolated as ``(4 D(h) - D(2h)) / 3`` (error O(h**4)).
    Tolerance per input::

        tol_j = |D(h) - D(2h)| + (4 * eps * F + 2 * f_err) / h + rtol * |numeric| + atol

    ``|D(h) - D(2h)|`` is about three times the truncation error of ``D(h)``
    alone, so it bounds the extrapolated value's truncation error generously;
    ``F`` is the largest ``|f|`` seen, so the second term bounds rounding
    (``f_err`` = 0 for a plain function, see below for graphs);
    ``rtol = 1e-7`` and ``atol = 1e-10`` absorb the engine's own float error.
    A rule off by 1e-4 is caught; one off by 1e-9 is not (use the symbolic
    oracle for that).  In graphs, a step that would move a relu input across 0,
    or move any node by more than ``FD_NODE_CHANGE * max(|v|, 1)`` (a feature
    of f smaller than the step, e.g. ``tanh(x - y)`` with x = y = 1e150), is
    shrunk by 4 until it does not; when the step vanishes next to ``x_j`` (the
    input is on the kink, within rounding) or ``f`` is not finite at a step,
    the verdict is :class:`OracleInconclusive`.  For graphs the tolerance also
    gets ``2 * f_err / h`` and ``tol_j`` of the symbolic oracle: the float
    function is off by up to its forward bound ``f_err`` (cancellation can make
    that large) and the engine's gradient by up to ``tol_j``.  A
    mismatch is confirmed by a second estimate with a step 8 times smaller: if
    that one accepts the engine, or the two estimates disagree beyond their
    tolerances (a feature of ``f`` smaller than the step), it is inconclusive.
"""

from __future__ import annotations

import math
import struct
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import mpmath  # type: ignore[import-untyped]
import sympy  # type: ignore[import-untyped]

from autograd.testing import verdicts
from autograd.testing.engines import WORKING_PRECISION, resolve_engine
from autograd.testing.graph import MP_DPS, Graph, OracleInconclusive, Reference, _mpf
from autograd.testing.ops import OPS

__all__ = [
    "EPS",
    "PRECISIONS",
    "GradcheckReport",
    "GradientMismatch",
    "LeafComparison",
    "OracleInconclusive",
    "assert_grads_exact",
    "assert_grads_fd",
    "assert_grads_symbolic",
    "fd_vote",
    "gradcheck",
    "kink_check",
    "symbolic_tolerances",
]

EPS = 2.0**-52
TINY = 2.0**-1074  # the smallest subnormal: what one op can lose to underflow, absolutely
#: (eps, TINY) of each working precision an engine may compute in (``Engine.precision``).
PRECISIONS = {"float64": (EPS, TINY), "float32": (2.0**-23, 2.0**-149)}


#: (smallest normal, largest finite) of each working precision: outside, a number is a range limit.
PRECISION_RANGES = {
    "float64": (2.0**-1022, sys.float_info.max),
    "float32": (2.0**-126, 3.4028234663852886e38),
}


def to_precision(x: float, precision: str) -> float:
    """``x`` as an engine of ``precision`` holds it (rounded to nearest; beyond the range: infinite)."""
    if precision == "float64" or not math.isfinite(x):
        return x
    try:
        return float(struct.unpack("f", struct.pack("f", x))[0])
    except OverflowError:
        return math.copysign(math.inf, x)


def in_precision_range(precision: str, *xs: Any) -> bool:
    """Whether every number is 0 or a normal number of ``precision`` (no overflow, no underflow)."""
    low, high = PRECISION_RANGES[precision]
    return all(x == 0 or low <= abs(float(x)) <= high for x in xs)


def working_precision(precision: str | None = None) -> tuple[float, float]:
    """(eps, TINY) of ``precision``, or of the engine being checked (``WORKING_PRECISION``, set by
    ``resolve_engine``): a float32 engine is judged with float32's rounding, a float64 one with
    float64's.  In float32 a leaf is rounded too (``Value(0.1)`` holds 0.10000000149011612), so
    :func:`symbolic_tolerances` then also moves each leaf by its rounding."""
    return PRECISIONS[precision or WORKING_PRECISION.get()]


SYMBOLIC_SAFETY = 16
FD_RTOL = 1e-7
FD_ATOL = 1e-10
#: Shrinking the step by 4 this often takes eps**(1/3) below the smallest subnormal.
FD_MAX_SHRINKS = 600
#: A step may move each node by at most this fraction of max(|value|, 1): beyond it, a
#: feature smaller than the step (tanh(x - y) with x, y ~ 1e150) would fool the estimate.
FD_NODE_CHANGE = 0.01
_FLOAT_MAX = 1.7976931348623157e308


class GradientMismatch(AssertionError):
    """An engine's gradient disagrees with an oracle; ``.report`` holds the per-leaf comparison."""

    def __init__(self, message: str, report: GradcheckReport) -> None:
        super().__init__(message)
        self.report = report


@dataclass(frozen=True)
class LeafComparison:
    name: str
    value: Any
    engine: Any
    oracle: Any
    abs_err: float
    rel_err: float
    tol: float
    ok: bool


@dataclass
class GradcheckReport:
    """Per-input comparison of engine and oracle gradients; ``ok`` when every row agrees."""

    title: str
    rows: list[LeafComparison] = field(default_factory=list)
    details: str = ""

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.rows)

    def __str__(self) -> str:
        cols = ("value", 14), ("engine", 24), ("oracle", 24), ("abs err", 9), ("rel err", 9), ("tol", 9)
        head = f"{'input':<6} " + " ".join(f"{c:>{w}}" for c, w in cols)
        lines = [f"{self.title}: {'ok' if self.ok else 'MISMATCH'}", head]
        for r in self.rows:
            lines.append(
                f"{r.name:<6} {_short(r.value):>14} {_short(r.engine):>24} {_short(r.oracle):>24} "
                f"{r.abs_err:>9.2e} {r.rel_err:>9.2e} {r.tol:>9.2e}{'' if r.ok else '  <-- differs'}"
            )
        return "\n".join(lines) + (f"\n{self.details}" if self.details else "")


def _short(x: Any) -> str:
    if isinstance(x, float):
        return repr(x)
    if isinstance(x, Fraction | int):
        try:
            return str(x) if len(str(x)) <= 24 or isinstance(x, int) else str(mpmath.nstr(_mpf(x), 17))
        except ValueError:  # more digits than str() converts (sys.get_int_max_str_digits)
            return str(mpmath.nstr(+_mpf(Fraction(x)), 17))  # rounded to the working precision first
    if isinstance(x, mpmath.mpf):
        return str(mpmath.nstr(x, 17))
    return repr(x)


def _compare(name: str, value: Any, engine: Any, oracle: Any, tol: float) -> LeafComparison:
    """One row; a non-number from the engine is a mismatch, not a crash."""
    try:
        with mpmath.workdps(MP_DPS):
            diff = abs(_mpf(engine) - _mpf(oracle))
            abs_err = float(diff)
            rel_err = float(diff / abs(_mpf(oracle))) if oracle != 0 else (0.0 if diff == 0 else math.inf)
            ok = diff <= tol
    except (TypeError, ValueError):
        abs_err, rel_err, ok = math.nan, math.nan, False
    return LeafComparison(name, value, engine, oracle, abs_err, rel_err, float(tol), bool(ok))


def _finish(report: GradcheckReport, graph: Graph | None, engine: Any) -> GradcheckReport:
    if report.ok:
        return report
    if graph is not None:
        expr = graph.sympy()[1]
        report.details = (
            f"output = {expr}\nreproduce with (runnable):\n{graph.snippet(engine)}\n"
            f"graph description: {graph.code()}"
        )
    raise GradientMismatch(str(report), report)


def _engine_gradient(graph: Graph, engine: Any) -> list[Any]:
    eng = resolve_engine(engine)
    values = graph.build(eng)
    eng.backward(values[graph.out])
    return [eng.grad(v) for v in values[: len(graph.leaves)]]


# ---------------------------------------------------------------------- exact
def assert_grads_exact(
    graph: Graph, engine: Any = None, *, grads: Sequence[Any] | None = None
) -> GradcheckReport:
    """Engine gradient == sympy's exact derivative, for a rational graph on Fraction/int leaves.

    ``grads``: the leaves' gradients the engine already gave (one run judged, not run again)."""
    if not graph.rational:
        raise ValueError(f"assert_grads_exact: needs rational ops on Fraction leaves, got {graph.code()}")
    eng = resolve_engine(engine)
    got = _engine_gradient(graph, eng) if grads is None else list(grads)
    symbols, _ = graph.sympy()
    point = {
        s: sympy.Rational(x.numerator, x.denominator)
        for s, x in zip(symbols, map(Fraction, graph.leaves), strict=True)
    }
    report = GradcheckReport("exact oracle (sympy derivative at the rational point, zero tolerance)")
    for name, x, g, d in zip(
        graph.names()[: len(graph.leaves)], graph.leaves, got, graph.sympy_gradient(), strict=True
    ):
        want = d.xreplace(point)
        report.rows.append(_compare(name, x, g, Fraction(int(want.p), int(want.q)), 0))
    return _finish(report, graph, eng)


# ---------------------------------------------------------------------- symbolic
def _reference_sweep(
    graph: Graph,
    point: list[float],
    bump: tuple[int, float] | None = None,
    base: tuple[list[Any], list[Any]] | None = None,
) -> tuple[list[Any], list[Any], list[Any]]:
    """Values, local partials (from sympy) and adjoints d out / d slot, in floats.

    Values come from the table's float functions (``num``), in the order the graph
    states them (sympy would reorder a sum: a cancelling ``dot`` then differs by
    orders of magnitude).  ``bump = (slot, h)`` adds h to one slot's value; ``base``
    (an unbumped sweep's values and partials) lets the slots before the bumped one
    be reused.
    """
    n_leaves = len(graph.leaves)
    values: list[Any] = list(point)
    partials: list[Any] = []
    if bump is not None and base is not None:  # the slots before the bumped one are unchanged
        values, partials = base[0][: bump[0]], base[1][: bump[0] - n_leaves]
    start = len(values)
    for node in graph.nodes[start - n_leaves :]:
        args = [values[a] for a in node.args]
        _, *ps = OPS[node.op].rule(len(node.args), node.const)(*args)
        v = float(OPS[node.op].num(args, node.const))
        if bump is not None and bump[0] == len(values):
            v += bump[1]
        values.append(v)
        partials.append(ps)
    adjoint = [0.0] * len(values)
    adjoint[graph.out] = 1.0
    for i in reversed(range(len(graph.nodes))):
        g = adjoint[n_leaves + i]
        if g:
            for a, p in zip(graph.nodes[i].args, partials[i], strict=True):
                adjoint[a] += g * p
    return values, partials, adjoint


def _sweep_or_inconclusive(
    graph: Graph, point: list[float], bump: tuple[int, float], base: tuple[list[Any], list[Any]]
) -> tuple[list[Any], list[Any], list[Any]]:
    """A bumped sweep; a bump that leaves the float range cannot size a tolerance."""
    try:
        return _reference_sweep(graph, point, bump, base)
    except (OverflowError, ValueError, ZeroDivisionError) as exc:
        raise OracleInconclusive(
            f"symbolic oracle: moving node {bump[0]} by {bump[1]:.3g} to size the tolerance fails ({exc})"
        ) from exc


def _leaf_sweep_or_inconclusive(graph: Graph, point: list[float]) -> tuple[list[Any], list[Any], list[Any]]:
    """A sweep at a moved point (a rounded leaf); one that leaves the float range cannot size a tolerance."""
    try:
        return _reference_sweep(graph, point)
    except (OverflowError, ValueError, ZeroDivisionError) as exc:
        raise OracleInconclusive(
            f"symbolic oracle: moving a leaf to size the tolerance fails ({exc})"
        ) from exc


def _tangents(graph: Graph, partials: list[Any]) -> list[list[float]]:
    """``|d v_slot / d x_j|`` summed over paths with |partials|: how an error in a slot reaches leaf j."""
    n_leaves = len(graph.leaves)
    tangent = [[float(i == j) for j in range(n_leaves)] for i in range(n_leaves)]
    for node, ps in zip(graph.nodes, partials, strict=True):
        row = [0.0] * n_leaves
        for a, p in zip(node.args, ps, strict=True):
            for j in range(n_leaves):
                row[j] += abs(p) * tangent[a][j]
        tangent.append(row)
    return tangent


def symbolic_tolerances(
    graph: Graph, reference: Reference | None = None, precision: str | None = None
) -> tuple[list[float], float]:
    """The derived per-leaf gradient tolerances and the output's forward tolerance (see module doc).

    ``reference`` is ``graph.reference()``, computed here when not given.
    Only magnitudes matter here, so this runs in double precision; the effect of node k's
    rounding comes from sweeps with node k moved by its error bound ``E_k`` either way.
    ``precision`` (default: the engine being checked, see :func:`working_precision`) sets eps and TINY.
    Raises :class:`OracleInconclusive` when a bound leaves the float range.
    """
    eps, tiny = working_precision(precision)
    n_leaves = len(graph.leaves)
    point = [float(x) for x in graph.leaves]
    try:
        values, partials, adjoint = _reference_sweep(graph, point)
    except (OverflowError, ValueError, ZeroDivisionError) as exc:
        raise OracleInconclusive(
            f"symbolic oracle: the reference sweep leaves the float range ({exc})"
        ) from exc
    reaching = graph.reaching()
    # W: backward rounding, summed over paths with |partials| (paths: plain path sums).
    paths = [0.0] * len(values)
    weighted = [0.0] * len(values)
    paths[graph.out] = 1.0
    for i in reversed(range(len(graph.nodes))):
        slot, node = n_leaves + i, graph.nodes[i]
        if not paths[slot]:  # no path weight: nothing of W to pass on (S below still counts the node)
            continue
        w = 2 + OPS[node.op].partial_err([values[a] for a in node.args], node.const, values[slot])
        for a, p in zip(node.args, partials[i], strict=True):
            paths[a] += abs(p) * paths[slot]
            weighted[a] += abs(p) * (weighted[slot] + w * paths[slot])
    # S: forward rounding of EVERY node that reaches the output, measured as the change of the
    # gradient (and of the output) when the node moves by its whole error bound E_k, so that a
    # zero partial (d(n*n)/dn at n = 0) cuts no subgraph off and higher orders (n**3) count.
    sens = [0.0] * n_leaves
    forward = 0.0
    # below double precision the engine rounds the leaves too: each moves by its rounding
    rounded_leaves = [] if eps == EPS else [j for j in range(n_leaves) if j in reaching]
    for slot in [*rounded_leaves, *range(n_leaves, len(values))]:
        if slot not in reaching:
            continue
        if slot < n_leaves:
            bump = SYMBOLIC_SAFETY * (abs(point[slot]) * eps + tiny)
            moved = [[*point[:slot], point[slot] + h, *point[slot + 1 :]] for h in (bump, -bump)]
            up, _, up_adjoint = _leaf_sweep_or_inconclusive(graph, moved[0])
            down, _, down_adjoint = _leaf_sweep_or_inconclusive(graph, moved[1])
        else:
            node = graph.nodes[slot - n_leaves]
            err = OPS[node.op].fwd_err([values[a] for a in node.args], node.const, values[slot])
            bump = SYMBOLIC_SAFETY * (err * eps + tiny)
            up, _, up_adjoint = _sweep_or_inconclusive(graph, point, (slot, bump), (values, partials))
            down, _, down_adjoint = _sweep_or_inconclusive(graph, point, (slot, -bump), (values, partials))
        forward += max(abs(up[graph.out] - values[graph.out]), abs(down[graph.out] - values[graph.out]))
        for j in range(n_leaves):
            sens[j] += max(abs(up_adjoint[j] - adjoint[j]), abs(down_adjoint[j] - adjoint[j]))
    # U: each backward product adjoint * partial (and the partial itself) may underflow by TINY,
    # absolutely; that error in slot a's adjoint reaches leaf j through d v_a / d x_j.
    tangent = _tangents(graph, partials)
    backward_underflow = [0.0] * n_leaves
    for i, node in enumerate(graph.nodes):
        slot = n_leaves + i
        if slot in reaching:
            for a in node.args:
                for j in range(n_leaves):
                    backward_underflow[j] += (1 + abs(adjoint[slot])) * tangent[a][j]
    # R: the measured error of the reference sweep itself (another float evaluation of the same
    # graph), which includes products of several nodes' errors where each factor is 0 in floats.
    ref = graph.reference() if reference is None else reference
    measured = [SYMBOLIC_SAFETY * _distance(adjoint[j], ref.gradient[j]) for j in range(n_leaves)]
    scale = SYMBOLIC_SAFETY * eps
    grad_tols = [
        sens[j] + scale * weighted[j] + SYMBOLIC_SAFETY * tiny * (1 + backward_underflow[j]) + measured[j]
        for j in range(n_leaves)
    ]
    forward_tol = forward + SYMBOLIC_SAFETY * tiny + SYMBOLIC_SAFETY * _distance(values[graph.out], ref.value)
    if not all(math.isfinite(t) for t in [*grad_tols, forward_tol]):
        raise OracleInconclusive(f"symbolic oracle: a derived tolerance leaves the float range: {grad_tols}")
    return grad_tols, forward_tol


def _distance(x: float, exact: Any) -> float:
    """``|x - exact|`` for a float and a Fraction or mpmath number, as a float (rounded up)."""
    if isinstance(exact, Fraction):
        return float(abs(Fraction(x) - exact)) * (1 + EPS)
    with mpmath.workprec(mpmath.mp.prec + 64):
        return float(abs(mpmath.mpf(x) - exact)) * (1 + EPS)


def kink_check(graph: Graph, reference: Reference, relu_grad_at_zero: float | None = None) -> None:
    """Raise :class:`OracleInconclusive` when a relu input is too close to its kink to judge.

    The engine's float value of a relu input must be on the same side of 0 as the exact
    one and farther from 0 than its forward error bound ``fb``, which is propagated
    forwards, first order: ``fb_k = C * (fwd_err_k * eps + TINY) + sum_a |p_a| * fb_a``
    over node k's operands a (leaves: 0).  Otherwise a correct engine's relu'(input)
    may legitimately differ from sympy's Step at the exact input: a gradient error of 1.
    An input exactly 0 both ways is judged only when ``relu_grad_at_zero == 0``, the
    reference's convention (Step(0) = 0), declared for an engine that evaluates the graph
    in its order (ours); elsewhere relu'(0) is a convention, not a verdict.
    """
    if not reference.kink_inputs:
        return
    eps, tiny = working_precision()
    n_leaves = len(graph.leaves)
    values, partials, _ = _reference_sweep(graph, [float(x) for x in graph.leaves])
    # leaves: exact in double precision; rounded on input below it
    bound = [0.0 if eps == EPS else SYMBOLIC_SAFETY * (abs(v) * eps + tiny) for v in values]
    for i, node in enumerate(graph.nodes):
        slot = n_leaves + i
        err = OPS[node.op].fwd_err([values[a] for a in node.args], node.const, values[slot])
        own = SYMBOLIC_SAFETY * (err * eps + tiny)
        bound[slot] = own + sum(abs(p) * bound[a] for a, p in zip(node.args, partials[i], strict=True))
    names = graph.names()
    for slot, exact in reference.kink_inputs.items():
        a = graph.nodes[slot - n_leaves].args[0]
        if values[a] == 0 and exact == 0 and relu_grad_at_zero == 0:
            continue
        if (values[a] > 0) != (exact > 0) or not abs(values[a]) > bound[a]:
            raise OracleInconclusive(
                f"relu {names[slot]}: its input {names[a]} is {values[a]!r} in floats and "
                f"{_short(exact)} exactly, forward error bound {bound[a]:.3g}: too close to the kink to judge"
            )


def assert_grads_symbolic(
    graph: Graph,
    engine: Any = None,
    *,
    relu_grad_at_zero: float | None = None,
    grads: Sequence[Any] | None = None,
) -> GradcheckReport:
    """Engine gradient vs sympy's derivative (exact or settled intervals), within the derived tolerance.

    Raises :class:`OracleInconclusive` when the point cannot be judged (see ``kink_check``,
    :meth:`Graph.reference` and ``symbolic_tolerances``).  ``relu_grad_at_zero=0`` declares
    that the engine takes relu'(0) = 0 and evaluates the graph in its order (see ``kink_check``).
    ``grads``: the leaves' gradients the engine already gave at this point (not run again).
    """
    eng = resolve_engine(engine)
    point = [float(x) for x in graph.leaves]
    graph = graph.with_leaves(point)
    got = _engine_gradient(graph, eng) if grads is None else list(grads)
    reference = graph.reference()
    kink_check(graph, reference, relu_grad_at_zero)
    tols, _ = symbolic_tolerances(graph, reference)
    radii = reference.gradient_radius or (0,) * len(point)
    for name, d in zip(graph.names(), reference.gradient, strict=False):
        if not abs(d) <= _FLOAT_MAX:
            raise OracleInconclusive(f"symbolic oracle: d out / d {name} = {_short(d)} is beyond floats")
    title = "symbolic oracle (sympy derivative, exact/interval reference, derived tolerance)"
    report = GradcheckReport(title)
    for name, x, g, d, tol, r in zip(
        graph.names()[: len(point)], point, got, reference.gradient, tols, radii, strict=True
    ):
        report.rows.append(_compare(name, x, g, d, tol + float(r)))
    return _finish(report, graph, eng)


# ---------------------------------------------------------------------- finite differences
def _central(f: Callable[[list[float]], float], x: list[float], j: int, h: float) -> tuple[float, float]:
    """Central difference of f along input j with step h, and the largest |f| it saw."""
    up, down = list(x), list(x)
    up[j] += h
    down[j] -= h
    if up[j] == down[j]:  # a step shrunk (away from a kink) below x_j's resolution
        raise OracleInconclusive(f"finite differences: the step {h:.3g} vanishes next to x{j} = {x[j]!r}")
    try:
        fu, fd = f(up), f(down)
    except (OverflowError, ValueError, ZeroDivisionError) as exc:
        raise OracleInconclusive(f"finite differences: f fails at x{j} +- {h:.3g} ({exc})") from exc
    if not (math.isfinite(fu) and math.isfinite(fd)):
        raise OracleInconclusive(f"finite differences: f is not finite at x{j} +- {h:.3g} ({fu}, {fd})")
    return (fu - fd) / (up[j] - down[j]), max(abs(fu), abs(fd))


def _fd_estimate(
    f: Callable[[list[float]], float], x: list[float], j: int, h: float, rtol: float, atol: float,
    f_err: float = 0.0,
) -> tuple[float, float]:  # fmt: skip
    """The Richardson-extrapolated derivative along input j with step h, and its tolerance."""
    d1, f1 = _central(f, x, j, h)
    d2, f2 = _central(f, x, j, 2 * h)
    numeric = (4 * d1 - d2) / 3
    tol = abs(d1 - d2) + (4 * EPS * max(f1, f2, abs(f(x))) + 2 * f_err) / h + rtol * abs(numeric) + atol
    return numeric, tol


def _fd_row(
    f: Callable[[list[float]], float], x: list[float], j: int, engine_grad: Any, name: str,
    rtol: float, atol: float, step_ok: Callable[[list[float], int, float], bool] | None = None,
    f_err: float = 0.0,
) -> LeafComparison:  # fmt: skip
    h = EPS ** (1 / 3) * max(1.0, abs(x[j]))
    for _ in range(FD_MAX_SHRINKS):  # a step that crosses a kink (or jumps a node) is shrunk
        if step_ok is None or step_ok(x, j, 2 * h):
            break
        h /= 4
        if x[j] + 2 * h == x[j]:  # at (or within rounding of) a kink: no derivative to measure
            raise OracleInconclusive(f"finite differences: no step along {name} avoids a kink or a jump")
    numeric, tol = _fd_estimate(f, x, j, h, rtol, atol, f_err)
    row = _compare(name, x[j], engine_grad, numeric, tol)
    if not row.ok:  # confirm with a step 8 times smaller: a feature below the step fools one estimate
        confirm, confirm_tol = _fd_estimate(f, x, j, h / 8, rtol, atol, f_err)
        agrees = _compare(name, x[j], engine_grad, confirm, confirm_tol).ok
        if agrees or abs(confirm - numeric) > tol + confirm_tol:
            raise OracleInconclusive(
                f"finite differences along {name} did not converge: {numeric!r} at step {h:.3g}, "
                f"{confirm!r} at step {h / 8:.3g}; the engine says {engine_grad!r}"
            )
    return row


def assert_grads_fd(
    graph: Graph, engine: Any = None, *, rtol: float = FD_RTOL, atol: float = FD_ATOL,
    grads: Sequence[Any] | None = None,
) -> GradcheckReport:  # fmt: skip
    """Engine gradient vs central differences of the graph's float function (see module doc).

    The differences evaluate the graph's forward in plain floats only; ``grads`` are the leaves'
    gradients the engine already gave at this point (then the engine is not run again)."""
    eng = resolve_engine(engine)
    point = [float(x) for x in graph.leaves]
    graph = graph.with_leaves(point)
    got = _engine_gradient(graph, eng) if grads is None else list(grads)
    n_leaves = len(point)
    relus = [n_leaves + i for i, n in enumerate(graph.nodes) if OPS[n.op].kinks]

    def f(x: list[float]) -> float:
        return float(graph.evaluate(x)[graph.out])

    def signs(values: list[Any]) -> list[bool]:
        return [values[graph.nodes[s - n_leaves].args[0]] > 0 for s in relus]

    base_values = graph.evaluate(point)
    base = signs(base_values)

    def smooth(x: list[float]) -> bool:
        values = graph.evaluate(x)
        return signs(values) == base and all(
            abs(v - b) <= FD_NODE_CHANGE * max(abs(b), 1.0)
            for v, b in zip(values[n_leaves:], base_values[n_leaves:], strict=True)
        )

    def step_ok(x: list[float], j: int, h: float) -> bool:
        up, down = list(x), list(x)
        up[j] += h
        down[j] -= h
        try:
            return smooth(up) and smooth(down)
        except (ValueError, ZeroDivisionError, OverflowError):
            return False

    # the float function is off by up to f_err (cancellation can make that huge), the engine's
    # gradient by up to grad_tols[j]: both widen the tolerance (symbolic_tolerances, see module doc)
    grad_tols, f_err = symbolic_tolerances(graph)
    if WORKING_PRECISION.get() != "float64":  # f is evaluated in doubles, whatever the engine's precision
        f_err = symbolic_tolerances(graph, precision="float64")[1]
    report = GradcheckReport(f"finite differences (central, Richardson, rtol={rtol:g}, atol={atol:g})")
    for j, name in enumerate(graph.names()[: len(point)]):
        report.rows.append(_fd_row(f, point, j, got[j], name, rtol, atol + grad_tols[j], step_ok, f_err))
    return _finish(report, graph, eng)


def fd_vote(
    graph: Graph, engine: Any, grads: Sequence[Any], method: str = "finite differences"
) -> verdicts.Vote:
    """:func:`assert_grads_fd` as the second vote on gradients ``grads`` that the engine gave in one
    run (:func:`autograd.testing.verdicts.second_vote`): only the graph's forward is evaluated, in
    plain floats, with the margins :data:`~autograd.testing.verdicts.SECOND_VOTE_FD`."""
    try:
        report = assert_grads_fd(graph, engine, grads=grads, **verdicts.SECOND_VOTE_FD)
        rejects = False
    except GradientMismatch as mismatch:
        report, rejects = mismatch.report, True
    except OracleInconclusive as exc:
        return verdicts.Vote(method, None, exc.reason)
    return verdicts.Vote(method, rejects, "[" + ", ".join(repr(float(r.oracle)) for r in report.rows) + "]")


def gradcheck(
    f: Callable[..., Any], inputs: Sequence[Any], *, engine: Any = None, rtol: float = FD_RTOL,
    atol: float = FD_ATOL, raise_exception: bool = True,
) -> GradcheckReport:  # fmt: skip
    """Check ``f(*Values) -> Value`` by finite differences at ``inputs``, like torch's gradcheck.

    The engine's gradient comes from one ``backward()``; the numeric one from
    forward evaluations only.  Returns the per-input report; on a mismatch,
    raises :class:`GradientMismatch` (or returns the report with ``ok`` False
    when ``raise_exception=False``).
    """
    eng = resolve_engine(engine)
    point = [float(x) for x in inputs]
    leaves = [eng.make(x) for x in point]
    eng.backward(f(*leaves))
    got = [eng.grad(v) for v in leaves]

    def forward(x: list[float]) -> float:
        return float(eng.data(f(*[eng.make(v) for v in x])))

    name = getattr(f, "__name__", "f")
    report = GradcheckReport(f"gradcheck of {name} (central differences, rtol={rtol:g}, atol={atol:g})")
    for j in range(len(point)):
        report.rows.append(_fd_row(forward, point, j, got[j], f"x{j}", rtol, atol))
    if not raise_exception:
        return report
    return _finish(report, None, eng)
