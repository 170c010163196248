"""The exact oracle: on a rational graph with Fraction leaves, the engine's gradient must EQUAL
sympy's derivative evaluated at the same rational point.  Zero tolerance."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import sympy  # type: ignore[import-untyped]

from autograd.testing.engines import resolve_engine
from autograd.testing.oracles.derivatives import engine_gradient
from autograd.testing.oracles.mismatch import GradcheckReport, _compare, _finish

if TYPE_CHECKING:
    from autograd.testing.graph import Graph

__all__ = ["assert_grads_exact"]


def assert_grads_exact(
    graph: Graph, engine: Any = None, *, grads: Sequence[Any] | None = None
) -> GradcheckReport:
    """Engine gradient == sympy's exact derivative, for a rational graph on Fraction/int leaves.

    ``grads``: the leaves' gradients the engine already gave (one run judged, not run again)."""
    if not graph.rational:
        raise ValueError(f"assert_grads_exact: needs rational ops on Fraction leaves, got {graph.code()}")
    eng = resolve_engine(engine)
    got = engine_gradient(graph, eng) if grads is None else list(grads)
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
