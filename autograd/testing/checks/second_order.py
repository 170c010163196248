"""The ``second_order`` check: Hessians of random graphs against sympy's, for an engine that
differentiates its own gradients (``backward(create_graph=True)``).

A Hessian off from sympy's is a ``wrong_gradient`` when exact (a rational graph on an exact
engine) or confirmed by finite differences of the reference gradient on the same Hessian
(:func:`~autograd.testing.verdicts.second_vote`); otherwise ``inconclusive``.  An exception of
the engine's own passes is a ``crash``.
"""

from __future__ import annotations

from typing import Any

from autograd.testing import oracles, verdicts
from autograd.testing import strategies as gs
from autograd.testing.boundary import EngineRaised
from autograd.testing.checks.common import numbers_source, where
from autograd.testing.checks.per_op import MAX_NODES
from autograd.testing.checks.registry import Run, check
from autograd.testing.engines import Engine
from autograd.testing.findings import CheckOutcome, Finding, outcome
from autograd.testing.graph import Graph, OracleInconclusive
from autograd.testing.oracles import higher
from autograd.testing.runner import Trials, search

__all__ = ["check_second_order"]


def _hessian_fd_vote(eng: Engine, graph: Graph, got: dict[tuple[int, ...], Any]) -> verdicts.Vote:
    """Central differences of the reference gradient on the Hessian ``got`` of one engine run."""
    method = "finite differences of the reference gradient"
    try:
        higher.assert_hessian_fd(graph, eng, derivatives=got)
    except oracles.GradientMismatch:
        return verdicts.Vote(method, True)
    except OracleInconclusive as exc:
        return verdicts.Vote(method, None, exc.reason)
    return verdicts.Vote(method, False, "agree with the engine")


@check("second_order", order=50)
def check_second_order(run: Run) -> CheckOutcome:
    """:func:`autograd.testing.oracles.higher.check_second_order` on random graphs, when the engine
    differentiates its own gradients (capability ``higher_order``); ``run.ops`` limits the
    graphs to these ops (default: every op the engine has)."""
    name, eng = "second_order", run.eng
    if not eng.higher_order:
        return outcome(
            name, [], judged=0, unit="graphs", reason="backward(create_graph=True) is not supported"
        )
    trials = Trials()

    def trial(graph: Graph) -> list[Finding]:
        try:
            got = higher.engine_derivatives(graph, eng, 2)
        except EngineRaised as raised:
            summary = f"second derivatives of {where(graph)} raise {raised}"
            return [Finding("crash", name, summary, None, graph.snippet(eng), "no exception", str(raised))]
        try:
            higher.check_second_order(eng, graph, derivatives=got)
            return []
        except oracles.GradientMismatch as mismatch:
            text, rows = str(mismatch), mismatch.report.rows
        except OracleInconclusive as exc:
            return [Finding("inconclusive", name, f"{where(graph)}: {exc.reason}")]
        expected, actual = numbers_source(r.oracle for r in rows), numbers_source(r.engine for r in rows)
        if graph.rational and eng.exact:  # an exact comparison needs no second vote
            summary = f"second derivatives of {where(graph)} differ from sympy's exactly (rationals)"
            return [
                Finding("wrong_gradient", name, summary, None, text, expected, actual, point=graph.leaves)
            ]
        vote = verdicts.second_vote(verdicts.Vote("sympy", True), lambda: _hessian_fd_vote(eng, graph, got))
        kind = "wrong_gradient" if vote.kind == "defect" else "inconclusive"
        summary = f"second derivatives of {where(graph)}: {vote.text}"
        return [Finding(kind, name, summary, None, text, expected, actual, point=graph.leaves)]

    per = max(1, run.examples // 2)
    for exact in (True, False) if eng.exact else (False,):
        try:
            strategy = gs.graphs(eng, exact=exact, ops=run.ops, max_nodes=MAX_NODES)
        except ValueError:  # no graphs of this arithmetic from the ops this engine has
            continue
        search(trials, (name,), strategy, trial, per, run.seed, mode=run.mode)
    return trials.outcome(name, "graphs", f"{per} graphs per arithmetic, Hessians vs sympy")
