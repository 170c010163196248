"""The finite-difference oracles: an engine's gradient against central differences of a forward.

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
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from autograd.testing import verdicts
from autograd.testing.engines import resolve_engine
from autograd.testing.ops import OPS
from autograd.testing.oracles.derivatives import engine_gradient
from autograd.testing.oracles.mismatch import (
    GradcheckReport,
    GradientMismatch,
    LeafComparison,
    OracleInconclusive,
    _compare,
    _finish,
)
from autograd.testing.oracles.precision import EPS
from autograd.testing.oracles.symbolic import symbolic_tolerances

if TYPE_CHECKING:
    from autograd.testing.graph import Graph

__all__ = ["FD_ATOL", "FD_RTOL", "assert_grads_fd", "fd_vote", "gradcheck"]

FD_RTOL = 1e-7
FD_ATOL = 1e-10
#: Shrinking the step by 4 this often takes eps**(1/3) below the smallest subnormal.
FD_MAX_SHRINKS = 600
#: A step may move each node by at most this fraction of max(|value|, 1): beyond it, a
#: feature smaller than the step (tanh(x - y) with x, y ~ 1e150) would fool the estimate.
FD_NODE_CHANGE = 0.01


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
    got = engine_gradient(graph, eng) if grads is None else list(grads)
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
    grad_tols, f_err = symbolic_tolerances(graph, precision=eng.precision)
    if eng.precision != "float64":  # f is evaluated in doubles, whatever the engine's precision
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
