"""The symbolic oracle: an engine's float gradient against sympy's derivative at the leaves.

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
      ``n = 0`` the partial of ``n * n`` is 0, but moving ``n`` moves it,
      and ``n**3`` needs the second order.
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
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import mpmath  # type: ignore[import-untyped]

from autograd.testing.engines import resolve_engine
from autograd.testing.ops import OPS
from autograd.testing.oracles.derivatives import engine_gradient
from autograd.testing.oracles.mismatch import GradcheckReport, OracleInconclusive, _compare, _finish, _short
from autograd.testing.oracles.precision import EPS, working_precision
from autograd.testing.oracles.sweep import (
    backward_path_sums,
    leaf_sweep_or_inconclusive,
    reference_sweep,
    sweep_or_inconclusive,
    tangents,
)

if TYPE_CHECKING:
    from autograd.testing.graph import Graph, Reference

__all__ = ["SYMBOLIC_SAFETY", "assert_grads_symbolic", "kink_check", "symbolic_tolerances"]

SYMBOLIC_SAFETY = 16
_FLOAT_MAX = 1.7976931348623157e308

Sweep = tuple[list[Any], list[Any]]  # a reference sweep's values and local partials


def symbolic_tolerances(
    graph: Graph, reference: Reference | None = None, precision: str = "float64"
) -> tuple[list[float], float]:
    """The derived per-leaf gradient tolerances and the output's forward tolerance (see module doc).

    ``reference`` is ``graph.reference()``, computed here when not given.
    Only magnitudes matter here, so this runs in double precision; the effect of node k's
    rounding comes from sweeps with node k moved by its error bound ``E_k`` either way.
    ``precision`` (the checked engine's: see :func:`working_precision`) sets eps and TINY.
    Raises :class:`OracleInconclusive` when a bound leaves the float range.
    """
    eps, tiny = working_precision(precision)
    n_leaves = len(graph.leaves)
    point = [float(x) for x in graph.leaves]
    try:
        values, partials, adjoint = reference_sweep(graph, point)
    except (OverflowError, ValueError, ZeroDivisionError) as exc:
        raise OracleInconclusive(
            f"symbolic oracle: the reference sweep leaves the float range ({exc})"
        ) from exc
    _, weighted = backward_path_sums(graph, values, partials)
    sens, forward = _forward_rounding(graph, point, (values, partials), adjoint, eps, tiny)
    backward_underflow = _backward_underflow(graph, partials, adjoint)
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


def _forward_rounding(
    graph: Graph, point: list[float], sweep: Sweep, adjoint: list[Any], eps: float, tiny: float
) -> tuple[list[float], float]:
    """S and the forward tolerance's own sum: forward rounding of EVERY node that reaches the
    output, measured as the change of the gradient (and of the output) when the node moves by its
    whole error bound E_k, so that a zero partial (d(n*n)/dn at n = 0) cuts no subgraph off and
    higher orders (n**3) count."""
    values = sweep[0]
    n_leaves = len(graph.leaves)
    reaching = graph.reaching()
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
            up, _, up_adjoint = leaf_sweep_or_inconclusive(graph, moved[0])
            down, _, down_adjoint = leaf_sweep_or_inconclusive(graph, moved[1])
        else:
            node = graph.nodes[slot - n_leaves]
            err = OPS[node.op].fwd_err([values[a] for a in node.args], node.const, values[slot])
            bump = SYMBOLIC_SAFETY * (err * eps + tiny)
            up, _, up_adjoint = sweep_or_inconclusive(graph, point, (slot, bump), sweep)
            down, _, down_adjoint = sweep_or_inconclusive(graph, point, (slot, -bump), sweep)
        forward += max(abs(up[graph.out] - values[graph.out]), abs(down[graph.out] - values[graph.out]))
        for j in range(n_leaves):
            sens[j] += max(abs(up_adjoint[j] - adjoint[j]), abs(down_adjoint[j] - adjoint[j]))
    return sens, forward


def _backward_underflow(graph: Graph, partials: list[Any], adjoint: list[Any]) -> list[float]:
    """U: each backward product adjoint * partial (and the partial itself) may underflow by TINY,
    absolutely; that error in slot a's adjoint reaches leaf j through d v_a / d x_j."""
    n_leaves = len(graph.leaves)
    reaching = graph.reaching()
    tangent = tangents(graph, partials)
    underflow = [0.0] * n_leaves
    for i, node in enumerate(graph.nodes):
        slot = n_leaves + i
        if slot in reaching:
            for a in node.args:
                for j in range(n_leaves):
                    underflow[j] += (1 + abs(adjoint[slot])) * tangent[a][j]
    return underflow


def _distance(x: float, exact: Any) -> float:
    """``|x - exact|`` for a float and a Fraction or mpmath number, as a float (rounded up)."""
    if isinstance(exact, Fraction):
        return float(abs(Fraction(x) - exact)) * (1 + EPS)
    with mpmath.workprec(mpmath.mp.prec + 64):
        return float(abs(mpmath.mpf(x) - exact)) * (1 + EPS)


def kink_check(
    graph: Graph, reference: Reference, relu_grad_at_zero: float | None = None, precision: str = "float64"
) -> None:
    """Raise :class:`OracleInconclusive` when a relu input is too close to its kink to judge.

    The engine's float value of a relu input must be on the same side of 0 as the exact
    one and farther from 0 than its forward error bound ``fb``, which is propagated
    forwards, first order: ``fb_k = C * (fwd_err_k * eps + TINY) + sum_a |p_a| * fb_a``
    over node k's operands a (leaves: 0).  Otherwise a correct engine's relu'(input)
    may legitimately differ from sympy's Step at the exact input: a gradient error of 1.
    An input exactly 0 both ways is judged only when ``relu_grad_at_zero == 0``, the
    reference's convention (Step(0) = 0), declared for an engine that evaluates the graph
    in its order (ours); elsewhere relu'(0) is a convention, not a verdict.  ``precision``
    (the checked engine's: see :func:`working_precision`) sets eps and TINY.
    """
    if not reference.kink_inputs:
        return
    eps, tiny = working_precision(precision)
    n_leaves = len(graph.leaves)
    values, partials, _ = reference_sweep(graph, [float(x) for x in graph.leaves])
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
    got = engine_gradient(graph, eng) if grads is None else list(grads)
    reference = graph.reference()
    kink_check(graph, reference, relu_grad_at_zero, eng.precision)
    tols, _ = symbolic_tolerances(graph, reference, eng.precision)
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
