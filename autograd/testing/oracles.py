"""Gradient oracles that never use an engine's derivative rules.

``assert_grads_exact``
    Rational graphs on Fraction leaves: the engine's gradient must EQUAL sympy's
    derivative evaluated at the same rational point.  Zero tolerance.

``assert_grads_symbolic``
    Any graph on float leaves: sympy's derivative evaluated by mpmath at 50
    digits (the reference, exact to ~1e-45 here) against the engine's float
    gradient, within a tolerance derived per leaf from the graph:

        tol_j = C * eps * (S_j + W_j),        eps = 2**-52,  C = 16

    A float engine makes two kinds of rounding error (first order, each op's
    error bounded as listed in :mod:`autograd.testing.ops`):

    * Forward: node k's value is off by at most ``fwd_err_k * eps`` (absolute;
      ``|v_k|`` for a correctly rounded op, ``n * sum|terms|`` for an n-term
      sum).  Its effect on leaf j's gradient is at most
      ``S_j = sum_k fwd_err_k * |d g_j / d v_k|``, the sensitivity of the exact
      gradient to node k's value, measured by central differences on a
      reference sweep whose local partials come from sympy (in doubles: only
      the magnitude of a tolerance matters).
    * Backward: each edge e of a path from leaf j to the output multiplies by a
      local partial that an engine evaluates with relative error at most
      ``partial_err_e * eps`` (e.g. ``1 - t*t`` from a rounded ``t = tanh x``),
      then one rounded product and one rounded accumulation.  Summed over
      paths: ``W_j = sum_paths |prod_e p_e| * sum_e (2 + partial_err_e)``.

    Underflow adds an absolute ``2**-1074`` per op, pushed through the same
    paths: ``C * 2**-1074 * (1 + W_j)``.

    C = 16 covers library functions that are within a couple of ulps and the
    second-order terms the first-order bound drops.  Generated graphs keep every
    node in a well-conditioned region (see ``ops.BOUND`` and the domains), so a
    correct engine sits far below the bound while a rule off by a factor
    1 + 1e-9 (4.5e6 eps) lands far above it.  Measured on 500 generated graphs
    (1254 leaves): our engine's error is at most 1% of tol_j, and tol_j / |g_j|
    has median 5e-14 and 99th percentile 1.4e-12.

    The forward value gets the same treatment: ``C * eps * sum_k fwd_err_k *
    |d y / d v_k|`` (``check_forward``).

``assert_grads_fd``, ``gradcheck``
    Central differences with step ``h_j = eps**(1/3) * max(1, |x_j|)`` (about
    6e-6: balances the O(h**2) truncation error against the O(eps/h) rounding
    error), Richardson-extrapolated as ``(4 D(h) - D(2h)) / 3`` (error O(h**4)).
    Tolerance per input::

        tol_j = |D(h) - D(2h)| + 4 * eps * F / h + rtol * |numeric| + atol

    ``|D(h) - D(2h)|`` is about three times the truncation error of ``D(h)``
    alone, so it bounds the extrapolated value's truncation error generously;
    ``F`` is the largest ``|f|`` seen, so the second term bounds rounding;
    ``rtol = 1e-7`` and ``atol = 1e-10`` absorb the engine's own float error.
    A rule off by 1e-4 is caught; one off by 1e-9 is not (use the symbolic
    oracle for that).  In graphs, a step that would move a relu input across 0
    is shrunk until it does not.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import mpmath  # type: ignore[import-untyped]
import sympy  # type: ignore[import-untyped]

from autograd.testing.engines import resolve_engine
from autograd.testing.graph import MP_DPS, Graph, _mpf
from autograd.testing.ops import OPS

__all__ = [
    "EPS",
    "GradcheckReport",
    "GradientMismatch",
    "LeafComparison",
    "assert_grads_exact",
    "assert_grads_fd",
    "assert_grads_symbolic",
    "gradcheck",
    "symbolic_tolerances",
]

EPS = 2.0**-52
TINY = 2.0**-1074  # the smallest subnormal: what one op can lose to underflow, absolutely
SYMBOLIC_SAFETY = 16
FD_RTOL = 1e-7
FD_ATOL = 1e-10


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
    if isinstance(x, Fraction):
        return str(x)
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
def assert_grads_exact(graph: Graph, engine: Any = None) -> GradcheckReport:
    """Engine gradient == sympy's exact derivative, for a rational graph on Fraction/int leaves."""
    if not graph.rational:
        raise ValueError(f"assert_grads_exact: needs rational ops on Fraction leaves, got {graph.code()}")
    eng = resolve_engine(engine)
    got = _engine_gradient(graph, eng)
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

    ``bump = (slot, h)`` adds h to one slot's value; ``base`` (an unbumped sweep's
    values and partials) lets the slots before the bumped one be reused.
    """
    n_leaves = len(graph.leaves)
    values: list[Any] = list(point)
    partials: list[Any] = []
    if bump is not None and base is not None:  # the slots before the bumped one are unchanged
        values, partials = base[0][: bump[0]], base[1][: bump[0] - n_leaves]
    start = len(values)
    for node in graph.nodes[start - n_leaves :]:
        v, *ps = OPS[node.op].rule(len(node.args), node.const)(*[values[a] for a in node.args])
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


def symbolic_tolerances(graph: Graph) -> tuple[list[float], float]:
    """The derived per-leaf gradient tolerances and the output's forward tolerance (see module doc).

    Only magnitudes matter here, so this runs in double precision; the sensitivities
    d g_j / d v_k come from central differences with step 1e-6 * max(1, |v_k|).
    """
    n_leaves = len(graph.leaves)
    point = [float(x) for x in graph.leaves]
    values, partials, adjoint = _reference_sweep(graph, point)
    # W: backward rounding, summed over paths with |partials| (paths: plain path sums).
    paths = [0.0] * len(values)
    weighted = [0.0] * len(values)
    paths[graph.out] = 1.0
    for i in reversed(range(len(graph.nodes))):
        slot, node = n_leaves + i, graph.nodes[i]
        if not paths[slot]:
            continue
        w = 2 + OPS[node.op].partial_err([values[a] for a in node.args], node.const, values[slot])
        for a, p in zip(node.args, partials[i], strict=True):
            paths[a] += abs(p) * paths[slot]
            weighted[a] += abs(p) * (weighted[slot] + w * paths[slot])
    # S: forward rounding of every reachable node, pushed through the exact gradient.
    sens = [0.0] * n_leaves
    forward = 0.0
    for i, node in enumerate(graph.nodes):
        slot = n_leaves + i
        if not paths[slot]:
            continue
        err = OPS[node.op].fwd_err([values[a] for a in node.args], node.const, values[slot])
        forward += err * abs(adjoint[slot])
        h = 1e-6 * max(1.0, abs(values[slot]))
        up = _reference_sweep(graph, point, (slot, h), (values, partials))[2]
        down = _reference_sweep(graph, point, (slot, -h), (values, partials))[2]
        for j in range(n_leaves):
            sens[j] += err * abs((up[j] - down[j]) / (2 * h))
    scale = SYMBOLIC_SAFETY * EPS
    grad_tols = [
        scale * (sens[j] + weighted[j]) + SYMBOLIC_SAFETY * TINY * (1 + weighted[j]) for j in range(n_leaves)
    ]
    return grad_tols, scale * forward + SYMBOLIC_SAFETY * TINY


def assert_grads_symbolic(graph: Graph, engine: Any = None) -> GradcheckReport:
    """Engine gradient vs sympy's derivative at 50 digits, within the derived tolerance."""
    eng = resolve_engine(engine)
    point = [float(x) for x in graph.leaves]
    graph = graph.with_leaves(point)
    got = _engine_gradient(graph, eng)
    _, want = graph.mp_value_and_gradient()
    tols, _ = symbolic_tolerances(graph)
    report = GradcheckReport("symbolic oracle (sympy derivative, mpmath 50 digits, derived tolerance)")
    for name, x, g, d, tol in zip(graph.names()[: len(point)], point, got, want, tols, strict=True):
        report.rows.append(_compare(name, x, g, d, tol))
    return _finish(report, graph, eng)


# ---------------------------------------------------------------------- finite differences
def _central(f: Callable[[list[float]], float], x: list[float], j: int, h: float) -> tuple[float, float]:
    """Central difference of f along input j with step h, and the largest |f| it saw."""
    up, down = list(x), list(x)
    up[j] += h
    down[j] -= h
    fu, fd = f(up), f(down)
    return (fu - fd) / (up[j] - down[j]), max(abs(fu), abs(fd))


def _fd_row(
    f: Callable[[list[float]], float], x: list[float], j: int, engine_grad: Any, name: str,
    rtol: float, atol: float, step_ok: Callable[[list[float], int, float], bool] | None = None,
) -> LeafComparison:  # fmt: skip
    h = EPS ** (1 / 3) * max(1.0, abs(x[j]))
    for _ in range(20):  # a step that crosses a kink is shrunk
        if step_ok is None or step_ok(x, j, 2 * h):
            break
        h /= 4
    d1, f1 = _central(f, x, j, h)
    d2, f2 = _central(f, x, j, 2 * h)
    numeric = (4 * d1 - d2) / 3
    tol = abs(d1 - d2) + 4 * EPS * max(f1, f2, abs(f(x))) / h + rtol * abs(numeric) + atol
    return _compare(name, x[j], engine_grad, numeric, tol)


def assert_grads_fd(
    graph: Graph, engine: Any = None, *, rtol: float = FD_RTOL, atol: float = FD_ATOL
) -> GradcheckReport:
    """Engine gradient vs central differences of the graph's float function (see module doc)."""
    eng = resolve_engine(engine)
    point = [float(x) for x in graph.leaves]
    graph = graph.with_leaves(point)
    got = _engine_gradient(graph, eng)
    relus = [len(point) + i for i, n in enumerate(graph.nodes) if OPS[n.op].kinks]

    def f(x: list[float]) -> float:
        return float(graph.evaluate(x)[graph.out])

    def signs(x: list[float]) -> list[bool]:
        values = graph.evaluate(x)
        return [values[graph.nodes[s - len(point)].args[0]] > 0 for s in relus]

    base = signs(point)

    def step_ok(x: list[float], j: int, h: float) -> bool:
        up, down = list(x), list(x)
        up[j] += h
        down[j] -= h
        try:
            return signs(up) == base and signs(down) == base
        except (ValueError, ZeroDivisionError, OverflowError):
            return False

    report = GradcheckReport(f"finite differences (central, Richardson, rtol={rtol:g}, atol={atol:g})")
    for j, name in enumerate(graph.names()[: len(point)]):
        report.rows.append(_fd_row(f, point, j, got[j], name, rtol, atol, step_ok if relus else None))
    return _finish(report, graph, eng)


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
