"""Audit any scalar autograd engine: ``audit(target) -> AuditReport``.

The audit finds the engine's scalar class (:mod:`autograd.testing.engines`), probes which ops
and number types it has, and then runs every check and probe of the registry
(:mod:`autograd.testing.checks`, :mod:`autograd.testing.probes`), each on its own, collecting
:class:`~autograd.testing.findings.Finding`\\ s instead of stopping at the first failure.
:func:`run_checks` runs some of them by name (what :func:`~autograd.testing.verify.verify_engine`
does with our conventions declared).

Every check counts what it judged (graphs, runs, points) and what its oracles could not decide;
a check that judged nothing is ``not_applicable``.  The engine is called through one boundary
(:mod:`autograd.testing.boundary`): what the engine raises is a finding; what the harness raises
propagates (never read as "no finding").  A defect is reported only when a second, independent
method confirms it on the same numbers (:func:`~autograd.testing.verdicts.second_vote`),
otherwise it is ``inconclusive``; each defect is reported once per (kind, op), with the smallest
failing example found, as a runnable reproducer that imports the engine under test and prints
expected vs actual.  Conventions (what a second ``backward()`` does) are facts, never failures.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import autograd.testing.checks
import autograd.testing.probes  # noqa: F401  (and every probe)
from autograd.testing.checks.conventions import BackwardConvention
from autograd.testing.checks.registry import Run, names, run_registered
from autograd.testing.engines import Engine, EngineNotFound, resolve_engine
from autograd.testing.findings import DEFECT_KINDS, CheckOutcome, Finding, outcome
from autograd.testing.identify import extra_capabilities
from autograd.testing.ops import OPS
from autograd.testing.oracles.precision import PRECISION_RANGES
from autograd.testing.probes.edges import subnormals_flushed
from autograd.testing.report import DEFAULT_EXAMPLES, SCHEMA_VERSION, AuditCase, AuditReport
from autograd.testing.runner import DEFAULT_MODE, SearchMode

__all__ = [
    "DEFAULT_EXAMPLES", "DEFECT_KINDS", "SCHEMA_VERSION", "AuditCase", "AuditReport", "CheckOutcome",
    "EngineNotFound", "Finding", "SearchMode", "audit", "capabilities", "check_names", "run_check",
    "run_checks",
]  # fmt: skip


def check_names(*, probes: bool | None = None) -> list[str]:
    """Every check's name in report order (only the probes', or none of them, if asked)."""
    return names(probes=probes)


def capabilities(eng: Engine) -> dict[str, Any]:
    """What the engine has: ops, number types, fused ops, higher order, its API and extra ops."""
    ops = [op for op in OPS if eng.supports(op)]
    types = eng.number_types
    return {
        "ops": ops,
        "missing_ops": [op for op in OPS if op not in ops],
        "int": types["int"],
        "fraction": types["fraction"],
        "exact": eng.exact,
        "fused": [op for op in ops if OPS[op].call.fused],
        "higher_order": eng.higher_order,
        "precision": eng.precision,
        "gradient_api": eng.gradient_api,
        "gradient_convention": eng.gradient_convention,
        "adapter": eng.adapter or None,
        **extra_capabilities(eng),  # aliases ({"ln": "log"}) and extra_ops (form -> identified as)
    }


def run_check(
    name: str,
    engine: Any,
    *,
    examples: int = DEFAULT_EXAMPLES,
    seed: int = 0,
    ops: Sequence[str] | None = None,
    convention: BackwardConvention | None = None,
) -> CheckOutcome:
    """One check or probe of the registry (:func:`check_names`) on its own, by name; ``ops``
    limits the per-op searches (``exact``, ``symbolic``, ``forward``) and ``second_order``'s
    graphs to these ops; ``convention`` declares the backward() convention ``stateful`` holds
    the engine to (default: none, the one observed is a fact)."""
    return run_checks([name], engine, examples=examples, seed=seed, ops=ops, convention=convention)[name]


def run_checks(
    names: Sequence[str],
    engine: Any,
    *,
    examples: int = DEFAULT_EXAMPLES,
    seed: int = 0,
    ops: Sequence[str] | None = None,
    convention: BackwardConvention | None = None,
    mode: SearchMode = DEFAULT_MODE,
) -> dict[str, CheckOutcome]:
    """:func:`run_check` for each of ``names``, ``{name: outcome}`` in their order, each check run
    once: ``exact``, ``symbolic`` and ``forward`` share the per-op searches they need, the extra-op
    checks theirs.  ``mode``: how a search goes on after a defect (:class:`SearchMode`)."""
    run = Run(resolve_engine(engine), examples, seed, ops, convention, mode)
    outcomes = _flush_consequences(run.eng, run_registered(run, names))
    return {name: outcomes[name] for name in names}


def _flush_consequences(eng: Engine, outcomes: dict[str, CheckOutcome]) -> dict[str, CheckOutcome]:
    """On an engine that flushes subnormal numbers to zero (one engine-wide fact, which the edge
    probe reports with its own consequences), each other check's defects and inconclusive
    findings at points with a subnormal operand follow from that fact: they become one
    ``convention`` finding of that check, which counts them and names their ops."""
    how = subnormals_flushed(eng)
    if how is None:
        return outcomes
    low = PRECISION_RANGES[eng.precision][0]
    for name, was in outcomes.items():
        moved = [
            f
            for f in was.findings
            if name != "edge_points"
            and f.kind in (*DEFECT_KINDS, "inconclusive")
            and any(isinstance(x, float) and 0 < abs(x) < low for x in f.point)
        ]
        if not moved:
            continue
        ops = ", ".join(sorted({f.op for f in moved if f.op})) or "graphs"
        fact = Finding(
            "convention",
            name,
            f"subnormal numbers are flushed to zero ({how}): {len(moved)} finding(s) at points with a "
            f"subnormal operand follow from it ({ops}), e.g. {moved[0].summary}",
        )
        kept = [f for f in was.findings if all(f is not m for m in moved)]
        unsettled = sum(f.kind == "inconclusive" for f in moved)
        outcomes[name] = outcome(
            name, [*kept, fact], judged=was.judged + unsettled, unit=was.unit,
            inconclusive=was.inconclusive - unsettled, reason=was.reason,
        )  # fmt: skip
    return outcomes


def audit(
    target: Any = None,
    *,
    examples: int = DEFAULT_EXAMPLES,
    seed: int = 0,
    cls: str | None = None,
    backward: str | None = None,
    data: str | None = None,
    grad: str | None = None,
    adapter: Any = None,
) -> AuditReport:
    """Audit an engine (anything :func:`~autograd.testing.engines.resolve_engine` takes).

    ``examples`` per search (each op gets its own), ``seed`` fixes every search
    (the same engine always gets the same report); ``adapter`` audits an engine of any other
    API (see :class:`~autograd.testing.engines.Adapter`).  Raises
    :class:`~autograd.testing.engines.EngineNotFound` when no scalar class fits.
    """
    start = time.perf_counter()
    eng = resolve_engine(target, cls=cls, backward=backward, data=data, grad=grad, adapter=adapter)
    caps = capabilities(eng)
    run = Run(eng, examples, seed)
    outcomes = _flush_consequences(eng, run_registered(run, names()))
    probe_kinds = {f.kind for name in names(probes=True) for f in outcomes[name].findings}
    if "unsupported" in probe_kinds:  # the probes' own list of what is missing (same facts, one list)
        outcomes["ops"].findings.clear()
    convention = run.observed.get("convention")
    if convention is not None:
        # the probes report what passes do to gradients already there; the rest of the convention
        # the stateful check observed (a freed graph, cleared operands) is listed from it, and all
        # of it when the probes did not run
        told = convention.beyond_passes() if "convention" in probe_kinds else convention.describe()
        outcomes["stateful"].findings.extend(Finding("convention", "stateful", text) for text in told)
    return AuditReport(
        engine=eng.name,
        class_name=eng.class_name,
        capabilities=caps,
        outcomes=outcomes,
        examples=examples,
        seed=seed,
        seconds=time.perf_counter() - start,
        accessors={"data": eng.data_attr, "grad": eng.grad_attr, "backward": eng.backward_method},
    )
