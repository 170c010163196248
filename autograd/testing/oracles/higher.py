"""Second- and third-order oracles that never use an engine's derivative rules.

The engine's derivatives come from :mod:`autograd.testing.oracles.derivatives` (a fresh build and
``backward(create_graph=True)`` per row).

``assert_hessian_exact``, ``assert_third_exact``
    Rational graphs on Fraction leaves: every entry of the engine's Hessian
    (all n*n, so an asymmetric result is caught too) must EQUAL sympy's
    ``diff`` taken twice (three times), evaluated at the rational point.  Zero
    tolerance.  sympy's partials are cached per graph structure.

``assert_hessian_symbolic``
    Float leaves: sympy's Hessian, certified (:func:`autograd.testing.oracles.reference.certify`:
    exact in Fractions when every op maps rationals to rationals, else mpmath intervals; else
    :class:`OracleInconclusive`), against the engine's float Hessian, within the tolerance
    derived per entry from the graph (:mod:`autograd.testing.oracles.hessian_bound`).

``assert_hessian_fd``, ``gradgradcheck``
    Central differences (Richardson, as ``gradcheck``) of the engine's
    FIRST-ORDER gradient against its second-order result, like torch's
    ``gradgradcheck``.  The function differenced is itself a rounded gradient,
    so on graphs the rounding term uses the first-order oracle's derived bound
    ``tol_i`` for ``g_i`` as ``_fd_row``'s ``f_err`` (``2 * tol_i / h``; Richardson's
    rounding error is at most ``1.5 * tol_i / h``), and the engine's Hessian
    may itself be off by the symbolic oracle's derived tolerance (added too).
    ``gradgradcheck`` of an arbitrary function has no graph: its rounding term
    is ``_fd_row``'s ``4 * eps * F / h`` with F the largest gradient seen, and
    ``rtol``/``atol`` (defaults one decade looser than gradcheck's).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Sequence
from typing import Any

import sympy  # type: ignore[import-untyped]

from autograd.testing.engines import resolve_engine
from autograd.testing.graph import Graph, _sympy_gradient, _sympy_slots
from autograd.testing.ops import OPS, by_op_name
from autograd.testing.oracles.derivatives import (
    derivatives_of,
    engine_derivatives,
    graph_mode_gradient,
    supports_higher_order,
)
from autograd.testing.oracles.fd import FD_ATOL, FD_RTOL, _fd_row
from autograd.testing.oracles.hessian_bound import hessian_tolerances
from autograd.testing.oracles.mismatch import GradcheckReport, OracleInconclusive, _compare, _finish
from autograd.testing.oracles.reference import ReferenceUnresolved, certify
from autograd.testing.oracles.symbolic import kink_check, symbolic_tolerances

__all__ = [
    "GRADGRAD_ATOL",
    "GRADGRAD_RTOL",
    "assert_graph_mode_gradient",
    "assert_hessian_exact",
    "assert_hessian_fd",
    "assert_hessian_symbolic",
    "assert_third_exact",
    "check_second_order",
    "engine_derivatives",
    "gradgradcheck",
    "hessian_tolerances",
    "snippet",
    "supports_higher_order",
]

#: gradgradcheck's defaults: the differenced function is a gradient, a few ulps less accurate
#: than a forward value, so one decade looser than gradcheck's.
GRADGRAD_RTOL = 1e-6
GRADGRAD_ATOL = 1e-9


# ---------------------------------------------------------------------- sympy's side
@by_op_name
@functools.lru_cache(maxsize=16384)
def _sympy_partial(structure: tuple[Any, ...], index: tuple[int, ...]) -> sympy.Expr:
    """sympy's own ``d^k out / dx_index[0] ...`` (index sorted: mixed partials commute)."""
    if len(index) == 1:
        return _sympy_gradient(structure)[index[0]]
    symbols, _ = _sympy_slots(structure)
    # the prefix is cached too, so a second derivative serves every third one above it
    return sympy.diff(_sympy_partial(structure, index[:-1]), symbols[index[-1]])


def _certified_partials(graph: Graph, order: int) -> dict[tuple[int, ...], Any]:
    """sympy's partials of ``order`` at the graph's leaves, by the certified reference
    (:func:`autograd.testing.oracles.reference.certify`): Fractions for a graph of rational ops, else
    mpmath numbers whose intervals settled; :class:`OracleInconclusive` when they do not, or
    when a partial is not a finite real number there (a pole, or DiracDelta at its kink)."""
    symbols, _ = _sympy_slots(graph.structure)
    indices = tuple(itertools.combinations_with_replacement(range(len(symbols)), order))
    exprs = [_sympy_partial(graph.structure, idx) for idx in indices]
    exact = all(OPS[n.op].rational(n.const) for n in graph.nodes)
    try:
        found = certify(symbols, exprs, graph.leaves, exact=exact)
    except ReferenceUnresolved as exc:
        raise OracleInconclusive(f"symbolic order-{order} oracle: sympy's partials: {exc.reason}") from exc
    if not all(c.defined for c in found):
        raise OracleInconclusive(
            f"symbolic order-{order} oracle: a partial is not a finite real number at the leaves"
        )
    return {idx: c.value for idx, c in zip(indices, found, strict=True)}


# ---------------------------------------------------------------------- reports
def _row_name(names: Sequence[str], index: tuple[int, ...]) -> str:
    return ",".join(names[i] for i in index)


def _report(
    title: str, graph: Graph, got: dict[tuple[int, ...], Any], want: Callable[[tuple[int, ...]], Any],
    tol: Callable[[tuple[int, ...]], float],
) -> GradcheckReport:  # fmt: skip
    """One row per multi-index (value column: the leaf differentiated last)."""
    names = graph.names()
    report = GradcheckReport(title)
    for index in sorted(got):
        value = graph.leaves[index[-1]]
        report.rows.append(_compare(_row_name(names, index), value, got[index], want(index), tol(index)))
    return report


def _finish_higher(report: GradcheckReport, graph: Graph, eng: Any, order: int) -> GradcheckReport:
    return _finish(report, graph, eng, lambda: snippet(graph, eng, order))


def snippet(graph: Graph, engine: Any = None, order: int = 2) -> str:
    """Runnable Python printing the engine's derivatives of ``order`` (2 or 3) of the graph, one
    row per line, computed as the oracles do (with the engine's own names)."""
    eng = resolve_engine(engine)
    lines = graph.snippet(eng).splitlines()[:-2]  # the build, without its backward and print
    names = graph.names()
    grad, backward = eng.grad_attr, eng.backward_method
    lines += [
        f"leaves = [{', '.join(names[: len(graph.leaves)])}]",
        "",
        "",
        "def grads_of(y, create_graph):  # d y / d leaf, each leaf's gradient zeroed first",
        "    for x in leaves:",
        f"        x.{grad} = 0",
        f"    if not isinstance(y, {eng.class_name}):  # a constant: every derivative is 0",
        "        return [0] * len(leaves)",
        f"    y.{backward}(create_graph=True) if create_graph else y.{backward}()",
        f"    return [x.{grad} for x in leaves]",
        "",
        "",
        f"for gi in grads_of({names[graph.out]}, True):",
    ]
    if order == 2:
        lines.append("    print(grads_of(gi, False))  # a row of the Hessian")
    else:
        lines += ["    for gij in grads_of(gi, True):", "        print(grads_of(gij, False))"]
    return "\n".join(lines)


# ---------------------------------------------------------------------- exact
def _assert_exact(
    graph: Graph, engine: Any, order: int, who: str, got: dict[tuple[int, ...], Any] | None = None
) -> GradcheckReport:
    if not graph.rational:
        raise ValueError(f"{who}: needs rational ops on Fraction leaves, got {graph.code()}")
    eng = resolve_engine(engine)
    got = engine_derivatives(graph, eng, order) if got is None else got
    want = _certified_partials(graph, order)
    title = f"exact order-{order} oracle (sympy's diff at the rational point, zero tolerance)"
    report = _report(title, graph, got, lambda idx: want[tuple(sorted(idx))], lambda idx: 0)
    return _finish_higher(report, graph, eng, order)


def assert_hessian_exact(
    graph: Graph, engine: Any = None, *, derivatives: dict[tuple[int, ...], Any] | None = None
) -> GradcheckReport:
    """Engine Hessian == sympy's exact second derivatives, every entry, on a rational graph
    (``derivatives``: the engine's, already read by :func:`engine_derivatives`)."""
    return _assert_exact(graph, engine, 2, "assert_hessian_exact", derivatives)


def assert_third_exact(graph: Graph, engine: Any = None) -> GradcheckReport:
    """Engine third derivatives == sympy's, every entry, on a rational graph."""
    return _assert_exact(graph, engine, 3, "assert_third_exact")


# ---------------------------------------------------------------------- symbolic
def assert_hessian_symbolic(
    graph: Graph, engine: Any = None, *, derivatives: dict[tuple[int, ...], Any] | None = None
) -> GradcheckReport:
    """Engine Hessian vs sympy's second derivatives (exact when every op maps rationals to
    rationals, since floats are rationals; else mpmath, see the module doc), within the
    derived tolerance (``derivatives``: the engine's, already read by :func:`engine_derivatives`)."""
    eng = resolve_engine(engine)
    graph = graph.with_leaves([float(x) for x in graph.leaves])
    got = engine_derivatives(graph, eng, 2) if derivatives is None else derivatives
    tols = hessian_tolerances(graph)
    kink_check(graph, graph.reference(), precision=eng.precision)  # a relu input too near 0: inconclusive
    want = _certified_partials(graph, 2)
    title = "symbolic order-2 oracle (sympy's diff, exact or mpmath reference, derived tolerance)"
    report = _report(
        title, graph, got, lambda idx: want[tuple(sorted(idx))], lambda idx: tols[idx[0]][idx[1]]
    )
    return _finish_higher(report, graph, eng, 2)


# ---------------------------------------------------------------------- finite differences
def _kink_guard(graph: Graph, point: list[float]) -> Callable[[list[float], int, float], bool] | None:
    """A step test that refuses steps moving any relu input across its kink (None: no relu)."""
    relu_inputs = [graph.nodes[k].args[0] for k, node in enumerate(graph.nodes) if OPS[node.op].kinks]
    if not relu_inputs:
        return None
    base = [graph.evaluate(point)[a] > 0 for a in relu_inputs]

    def step_ok(x: list[float], j: int, h: float) -> bool:
        for s in (h, -h):
            moved = list(x)
            moved[j] += s
            try:
                values = graph.evaluate(moved)
            except (ValueError, ZeroDivisionError, OverflowError):
                return False
            if [values[a] > 0 for a in relu_inputs] != base:
                return False
        return True

    return step_ok


def _fd_hessian_report(
    title: str, names: Sequence[str], point: list[float], got: dict[tuple[int, ...], Any],
    gradient: Callable[[list[float]], list[Any]], rtol: float, atol: Callable[[int, int], float],
    step_ok: Callable[[list[float], int, float], bool] | None, f_err: Callable[[int], float],
) -> GradcheckReport:  # fmt: skip
    memo: dict[tuple[float, ...], list[float]] = {}

    def component(i: int) -> Callable[[list[float]], float]:
        def grad_i(x: list[float]) -> float:
            key = tuple(x)
            if key not in memo:  # one backward serves every component at this point
                memo[key] = [float(g) for g in gradient(x)]
            return memo[key][i]

        return grad_i

    report = GradcheckReport(title)
    n = len(point)
    for i in range(n):
        for j in range(n):
            name = f"{names[i]},{names[j]}"
            row = _fd_row(component(i), point, j, got[(i, j)], name, rtol, atol(i, j), step_ok, f_err(i))
            report.rows.append(row)
    return report


def assert_hessian_fd(
    graph: Graph, engine: Any = None, *, rtol: float = FD_RTOL, atol: float = FD_ATOL,
    derivatives: dict[tuple[int, ...], Any] | None = None,
) -> GradcheckReport:  # fmt: skip
    """Engine Hessian vs central differences of a first-order gradient: the engine's own, or,
    given ``derivatives`` (the engine's Hessian, already read), the reference gradient's, so
    that the engine is not run again."""
    eng = resolve_engine(engine)
    point = [float(x) for x in graph.leaves]
    graph = graph.with_leaves(point)
    got = engine_derivatives(graph, eng, 2) if derivatives is None else derivatives
    grad_tols, _ = symbolic_tolerances(graph, precision=eng.precision)
    hessian_tols = hessian_tolerances(graph)
    step_ok = _kink_guard(graph, point)

    def gradient(x: list[float]) -> list[Any]:
        if derivatives is not None:
            return graph.mp_value_and_gradient(x)[1]
        values = graph.build(eng, x)
        eng.backward(values[graph.out])
        return [eng.grad(v) for v in values[: len(x)]]

    def total_atol(i: int, j: int) -> float:  # the engine's Hessian may be off by its own bound
        return atol + hessian_tols[i][j]

    whose = "the engine's" if derivatives is None else "the reference"
    title = f"finite differences of {whose} gradient (central, Richardson, rtol={rtol:g}, atol={atol:g})"
    report = _fd_hessian_report(
        title, graph.names(), point, got, gradient, rtol, total_atol, step_ok, lambda i: grad_tols[i]
    )
    return _finish_higher(report, graph, eng, 2)


def gradgradcheck(
    f: Callable[..., Any], inputs: Sequence[Any], *, engine: Any = None, rtol: float = GRADGRAD_RTOL,
    atol: float = GRADGRAD_ATOL, raise_exception: bool = True,
) -> GradcheckReport:  # fmt: skip
    """Check the second derivatives of ``f(*Values) -> Value`` at ``inputs``, like torch's gradgradcheck.

    The engine's Hessian comes from ``backward(create_graph=True)`` and a plain
    ``backward()`` per row; the numeric one from central differences of the
    engine's first-order gradient.  Returns the per-entry report (row
    ``xi,xj`` is d2 f / dxi dxj); on a mismatch raises :class:`GradientMismatch`
    (or returns the report with ``ok`` False when ``raise_exception=False``).
    """
    eng = resolve_engine(engine)
    if not supports_higher_order(eng):
        raise TypeError(f"gradgradcheck: the engine {eng.name} has no backward(create_graph=True)")
    point = [float(x) for x in inputs]
    n = len(point)

    def build(x: Sequence[float] = point) -> tuple[list[Any], list[Any], Any]:
        leaves = [eng.make(v) for v in x]
        return leaves, leaves, f(*leaves)

    got = derivatives_of(build, eng, n, 2)

    def gradient(x: list[float]) -> list[Any]:
        leaves, _, out = build(x)
        eng.backward(out)
        return [eng.grad(v) for v in leaves]

    name = getattr(f, "__name__", "f")
    title = f"gradgradcheck of {name} (central differences of the gradient, rtol={rtol:g}, atol={atol:g})"
    names = [f"x{i}" for i in range(n)]
    report = _fd_hessian_report(
        title, names, point, got, gradient, rtol, lambda i, j: atol, None, lambda i: 0.0
    )
    if not raise_exception:
        return report
    return _finish(report, None, eng)


# ---------------------------------------------------------------------- first order in graph mode
def assert_graph_mode_gradient(graph: Graph, engine: Any = None) -> None:
    """``backward(create_graph=True)``'s gradient values equal a plain ``backward()``'s: exactly on a
    rational graph; on floats both within the first-order derived tolerance of each other."""
    eng = resolve_engine(engine)
    graph_mode = graph_mode_gradient(graph, eng)
    values = graph.build(eng)
    eng.backward(values[graph.out])
    plain = [eng.grad(v) for v in values[: len(graph.leaves)]]
    tols = [0.0] * len(plain) if graph.rational else symbolic_tolerances(graph, precision=eng.precision)[0]
    for name, a, b, tol in zip(graph.names(), graph_mode, plain, tols):
        if not abs(a - b) <= 2 * tol:
            raise AssertionError(
                f"graph mode: d out/d{name} is {a!r} after backward(create_graph=True) but {b!r} after "
                f"backward() (allowed difference {2 * tol:.3g})\nreproduce with (runnable):\n"
                + _graph_mode_snippet(graph, eng)
            )


def _graph_mode_snippet(graph: Graph, eng: Any) -> str:
    """Runnable Python printing the leaf gradients' values after each kind of pass."""
    lines = graph.snippet(eng).splitlines()[:-2]
    leaves = graph.names()[: len(graph.leaves)]
    out, grad, backward = graph.names()[graph.out], eng.grad_attr, eng.backward_method
    lines += [
        f"{out}.{backward}(create_graph=True)",
        f"print('create_graph:', [{', '.join(f'{x}.{grad}.{eng.data_attr}' for x in leaves)}])",
        *(f"{x}.{grad} = 0" for x in leaves),
        f"{out}.{backward}()",
        f"print('plain:       ', [{', '.join(f'{x}.{grad}' for x in leaves)}])",
    ]
    return "\n".join(lines)


# ---------------------------------------------------------------------- for the audit
def check_second_order(
    engine: Any, graph: Graph, *, derivatives: dict[tuple[int, ...], Any] | None = None
) -> None:
    """Second derivatives of the graph vs sympy: exact on a rational graph when the engine keeps
    Fractions exact, else the symbolic oracle on float leaves.  Raises :class:`GradientMismatch`
    when the engine is outside the bound, ``NotImplementedError`` when it has no higher order.
    ``derivatives``: the engine's, already read by :func:`engine_derivatives` (not run again)."""
    eng = resolve_engine(engine)
    if not supports_higher_order(eng):
        raise NotImplementedError(
            f"check_second_order: the engine {eng.name} has no backward(create_graph=True)"
        )
    if graph.rational and eng.exact:
        assert_hessian_exact(graph, eng, derivatives=derivatives)
    else:
        assert_hessian_symbolic(graph, eng, derivatives=derivatives)
