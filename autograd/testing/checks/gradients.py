"""Judging one graph's value and gradients: the trials of the per-op searches and properties.

A *trial* runs a graph on the engine and returns its findings.  :func:`exact_trial` (a rational
graph on an engine that keeps Fractions) demands equality with sympy's exact value and gradient;
:func:`float_trial` compares with the certified reference and reports a ``wrong_gradient`` or
``wrong_value`` only when a second method confirms it on the same numbers
(:func:`~autograd.testing.verdicts.second_vote`), else ``inconclusive``.  A confirmed defect of a
graph is moved onto the single node that is wrong on its own (:func:`blame`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Any

from autograd.testing import oracles, verdicts
from autograd.testing.boundary import EngineRaised
from autograd.testing.checks.common import (
    crash,
    num,
    numbers_source,
    run_graph,
    single_nodes,
    value_snippet,
    where,
)
from autograd.testing.engines import Engine
from autograd.testing.findings import Finding
from autograd.testing.graph import Graph, OracleInconclusive, _mpf

__all__ = ["blame", "exact_trial", "float_findings", "float_trial", "forward_finding", "gradient_findings"]


def _exact_numbers(xs: Iterable[Any]) -> bool:
    return all(type(x) in (int, Fraction) for x in xs)


def gradient_findings(
    eng: Engine, check: str, graph: Graph, op: str | None, grads: Sequence[Any] | None = None
) -> list[Finding]:
    """Symbolic oracle on the gradients ``grads`` of one run of a float graph (the engine runs it
    when they are not given), confirmed by finite differences on the same numbers."""
    if grads is None:
        _, grads = run_graph(eng, graph)
    try:
        oracles.assert_grads_symbolic(graph, eng, grads=grads)
        return []
    except oracles.GradientMismatch as mismatch:
        report = mismatch.report
    except OracleInconclusive as exc:
        return [Finding("inconclusive", check, f"{where(graph)}: {exc.reason}", op)]
    expected = numbers_source(r.oracle for r in report.rows)
    actual = numbers_source(r.engine for r in report.rows)
    wrong = ", ".join(f"d/d{r.name}" for r in report.rows if not r.ok)
    vote = verdicts.second_vote(
        verdicts.Vote("sympy", True, expected), lambda: oracles.fd_vote(graph, eng, grads)
    )
    kind = "wrong_gradient" if vote.kind == "defect" else "inconclusive"
    return [
        Finding(
            kind, check, f"{wrong} of {where(graph)}: engine {actual}; {vote.text}", op,
            graph.snippet(eng, expected), expected, actual, point=graph.leaves,
        )
    ]  # fmt: skip


def forward_finding(eng: Engine, graph: Graph, got: Any, op: str | None) -> list[Finding]:
    """Float graph: the output value vs the 50-digit reference, confirmed by a float evaluation."""
    try:
        want, _ = graph.mp_value_and_gradient()
        _, tol = oracles.symbolic_tolerances(graph, precision=eng.precision)
    except OracleInconclusive as exc:
        return [Finding("inconclusive", "forward", f"{where(graph)}: {exc.reason}", op)]
    # compared as mpmath numbers: any int, float or Fraction the engine gives, a huge one too
    off_reference = not abs(want - _mpf(got)) <= tol
    try:
        plain = graph.evaluate()[graph.out]  # the same program in Python floats (the table's functions)
    except (OverflowError, ValueError, ZeroDivisionError):
        plain = None
    expected = num(want)

    def float_evaluation() -> verdicts.Vote:
        if plain is None:
            return verdicts.Vote("a float evaluation", None, "the float program cannot run")
        return verdicts.Vote("a float evaluation", not abs(_mpf(plain) - _mpf(got)) <= tol, repr(plain))

    vote = verdicts.second_vote(verdicts.Vote("the reference", off_reference, expected), float_evaluation)
    if vote.kind is None:
        return []
    if vote.kind == "inconclusive":
        return [Finding("inconclusive", "forward", f"{where(graph)}: engine {got!r}; {vote.text}", op)]
    return [
        Finding(
            "wrong_value", "forward",
            f"{where(graph)}: engine {got!r}, expected {expected} (tolerance {tol:.3g}; "
            f"a float evaluation gives {plain!r})",
            op, value_snippet(eng, graph, expected), expected, repr(got), point=graph.leaves,
        )
    ]  # fmt: skip


def float_findings(eng: Engine, check: str, graph: Graph, op: str | None, forward: bool) -> list[Finding]:
    """Run a float graph; its value (with ``forward``) and gradient judged, or the crash."""
    try:
        got, grads = run_graph(eng, graph)
    except EngineRaised as raised:
        return [crash(eng, check, graph, raised, op)]
    findings = forward_finding(eng, graph, got, op) if forward else []
    return findings + gradient_findings(eng, check, graph, op, grads)


def float_trial(
    eng: Engine, check: str, op: str | None, forward: bool = False
) -> Callable[[Graph], list[Finding]]:
    def single(node_op: str, graph: Graph) -> list[Finding]:
        return float_findings(eng, check, graph, node_op, forward)

    def trial(graph: Graph) -> list[Finding]:
        return [blame(f, graph, single) for f in float_findings(eng, check, graph, op, forward)]

    return trial


def blame(finding: Finding, graph: Graph, single_trial: Callable[[str, Graph], list[Finding]]) -> Finding:
    """A confirmed wrong gradient or value, moved onto the single node that is wrong on its own.

    The nodes of the op under test are tried first; ``single_trial(op, one_node_graph)``
    checks one node on the operand values it saw in ``graph``.
    """
    if finding.kind not in ("wrong_gradient", "wrong_value"):
        return finding
    if len(graph.nodes) == 1:
        return finding if finding.op else replace(finding, op=graph.nodes[0].op)
    singles = sorted(single_nodes(graph), key=lambda s: s[0] != finding.op)
    for node_op, single in singles:
        wrong = [f for f in single_trial(node_op, single) if f.kind == finding.kind]
        if wrong:
            return wrong[0]
    return finding


def exact_trial(eng: Engine, op: str | None) -> Callable[[Graph], list[Finding]]:
    """Rational graph, exact engine: value and gradient must equal sympy's exactly.  A value or
    gradient that is not an exact number cannot be judged by equality: inconclusive."""

    def trial(graph: Graph) -> list[Finding]:
        try:
            got, grads = run_graph(eng, graph)
        except EngineRaised as raised:
            return [crash(eng, "exact", graph, raised, op)]
        findings = []
        values = graph.evaluate()  # exact: rational ops on Fractions
        if _exact_numbers([got]) and got != values[graph.out]:
            expected = num(values[graph.out])
            findings.append(
                Finding(
                    "wrong_value", "exact", f"{where(graph)}: engine {got!r}, exactly {expected}",
                    op, value_snippet(eng, graph, expected), expected, repr(got), point=graph.leaves,
                )
            )  # fmt: skip
        if not _exact_numbers([got, *grads]):
            findings.append(
                Finding(
                    "inconclusive",
                    "exact",
                    f"{graph.expression()}: the engine's numbers are not all exact",
                    op,
                )
            )
            return findings
        try:
            oracles.assert_grads_exact(graph, eng, grads=grads)
        except oracles.GradientMismatch as mismatch:
            rows = mismatch.report.rows
            expected = numbers_source(r.oracle for r in rows)
            actual = numbers_source(grads)
            wrong = ", ".join(f"d/d{r.name}" for r in rows if not r.ok)
            wrong_gradient = Finding(
                "wrong_gradient", "exact",
                f"{wrong} of {where(graph)}: engine {actual}, exactly {expected}",
                op, graph.snippet(eng, expected), expected, actual, point=graph.leaves,
            )  # fmt: skip
            findings.append(blame(wrong_gradient, graph, lambda o, single: exact_trial(eng, o)(single)))
        except OracleInconclusive as exc:
            findings.append(Finding("inconclusive", "exact", f"{where(graph)}: {exc.reason}", op))
        return findings

    return trial
