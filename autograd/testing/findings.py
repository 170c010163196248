"""What an audit reports: findings, classified, and each check's outcome (contract C3).

A *defect* (``DEFECT_KINDS``) is a confirmed fault of the engine under test; every
other kind is information a maintainer wants to know (a convention, a missing op,
how deep backward can go, garbage the engine accepts).  ``audit.py`` re-exports
these; probes and checks build them.

A wrong value or gradient also says how far off it is and where (:class:`Severity`,
computed by :func:`autograd.testing.verdicts.severity` when a check's findings are
finalised by :func:`outcome`): "wrong" (at an ordinary point, or far off) is what a
maintainer fixes first; "inaccurate at the extremes" (a few digits lost where an operand
or the exact result is subnormal or huge) comes after.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "DEFECT_KINDS",
    "FINDING_KINDS",
    "INFORMATION_KINDS",
    "SEVERITIES",
    "CheckOutcome",
    "Finding",
    "Severity",
    "outcome",
]

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
#: The labels of :class:`Severity`, the one to fix first first.
SEVERITIES = ("wrong", "inaccurate at the extremes")


@dataclass(frozen=True)
class Severity:
    """How far off a wrong value or gradient is (its worst number), and where.

    ``point`` is ``"ordinary"`` or ``"extreme"`` (:func:`autograd.testing.verdicts.severity`
    defines them); ``label`` is one of :data:`SEVERITIES`.
    """

    label: str
    point: str
    relative_error: float  # |actual - expected| / |expected|; inf where expected is 0 or actual not finite
    ulps: float  # the same error in units in the last place of the expected number (a float)

    def describe(self) -> str:
        """``wrong: relative error 2 at an ordinary point``, or with the ulps where they are few."""
        size = f"relative error {self.relative_error:.2g}"
        if 0.5 <= self.ulps <= 2**20:  # a count of last places reads better than a tiny fraction
            size = f"{self.ulps:.3g} ulp{'s' * (self.ulps != 1)} ({size})"
        return f"{self.label}: {size} at an {self.point} point"

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: a number that is not finite is ``None``."""

        def finite(x: float) -> float | None:
            return x if math.isfinite(x) else None

        return {
            "label": self.label,
            "point": self.point,
            "relative_error": finite(self.relative_error),
            "ulps": finite(self.ulps),
        }


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
    #: the operands' numbers, where the check judged one point (they make it ordinary or extreme)
    point: tuple[Any, ...] = field(default=(), kw_only=True)
    #: how far off a wrong value or gradient is (set by :func:`outcome` from expected, actual and
    #: point: derived from them, so no part of a finding's equality)
    severity: Severity | None = field(default=None, kw_only=True, compare=False)


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
    Each wrong value or gradient gets its :class:`Severity` here, the one place every check's
    findings pass (:func:`autograd.testing.verdicts.graded`).
    """
    from autograd.testing import verdicts  # verdicts is built on this module: imported when used

    findings = [verdicts.graded(f) for f in findings]
    if any(f.kind in DEFECT_KINDS for f in findings):
        status = "failed"
    elif judged > 0:
        status = "passed"
    else:
        status = "not_applicable"
    return CheckOutcome(name, status, findings, reason, judged, inconclusive, unit)
