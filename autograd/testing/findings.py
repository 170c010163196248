"""What an audit reports: findings, classified, and each check's outcome (contract C3).

A *defect* (``DEFECT_KINDS``) is a confirmed fault of the engine under test; every
other kind is information a maintainer wants to know (a convention, a missing op,
how deep backward can go, garbage the engine accepts).  ``audit.py`` re-exports
these; probes and checks build them.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DEFECT_KINDS", "FINDING_KINDS", "INFORMATION_KINDS", "CheckOutcome", "Finding", "outcome"]

DEFECT_KINDS = (
    "wrong_gradient",
    "wrong_value",
    "crash",
    "nondeterministic",
    "exponential_time",
    "memory_leak",
)
INFORMATION_KINDS = (
    "accepts_invalid",
    "depth_limit",
    "convention",
    "unsupported",
    "inconclusive",
    "reference_cycles",
)
FINDING_KINDS = (*DEFECT_KINDS, *INFORMATION_KINDS)


@dataclass(frozen=True)
class Finding:
    """One thing an audit found; ``(kind, op)`` is its identity for deduplication."""

    kind: str  # one of FINDING_KINDS
    check: str  # the check or probe that found it, e.g. "symbolic", "edge_points", "depth"
    summary: str  # one line
    op: str | None = None  # the op of the table involved
    reproducer: str = ""  # runnable Python: imports the engine under test, prints expected vs actual
    expected: str = ""
    actual: str = ""


@dataclass
class CheckOutcome:
    """A check's verdict: "failed" only when it holds a defect finding (build it with :func:`outcome`)."""

    name: str
    status: str  # "passed" | "failed" | "not_applicable"
    findings: list[Finding]
    reason: str = ""  # why not applicable / what was run
    judged: int = 0  # cases (graphs, points, runs, ...) the check actually reached a verdict on
    inconclusive: int = 0  # cases it ran but could not judge (an oracle that cannot decide)
    unit: str = "cases"  # what a case is: "graphs", "points", "runs", ...


def outcome(
    name: str, findings: list[Finding], *, judged: int, unit: str, inconclusive: int = 0, reason: str = ""
) -> CheckOutcome:
    """The one verdict rule: "failed" with a defect; else "passed" only if something was judged.

    A check that judged nothing is "not_applicable" (never "passed"), with ``reason`` saying why.
    """
    if any(f.kind in DEFECT_KINDS for f in findings):
        status = "failed"
    elif judged > 0:
        status = "passed"
    else:
        status = "not_applicable"
    return CheckOutcome(name, status, findings, reason, judged, inconclusive, unit)
