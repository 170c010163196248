"""The audit's report: :class:`AuditReport` (text, JSON, pytest cases), apart from the checks.

Each check's line says how much it judged (``forward passed: 40 graphs judged, 0
inconclusive``); the JSON carries the same counts under ``judged``.  Findings are
listed once each (:func:`autograd.testing.verdicts.deduplicate`), a wrong value or gradient
with its severity (``wrong`` before ``inaccurate at the extremes``: what to fix first).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from autograd.testing import verdicts
from autograd.testing.findings import DEFECT_KINDS, FINDING_KINDS, SEVERITIES, CheckOutcome, Finding
from autograd.testing.ops import display

__all__ = ["DEFAULT_EXAMPLES", "SCHEMA_VERSION", "AuditCase", "AuditReport"]

#: Version of the ``--json`` schema (documented in the README); bumped on any incompatible change.
SCHEMA_VERSION = 2
#: Examples per search (per op for ``exact`` and ``symbolic``) at default settings.
DEFAULT_EXAMPLES = 40

_KIND_ORDER = {k: i for i, k in enumerate(FINDING_KINDS)}


def _rank(f: Finding) -> int:
    """Within a kind: "wrong" first, then "inaccurate at the extremes", then findings with no severity."""
    return SEVERITIES.index(f.severity.label) if f.severity else len(SEVERITIES)


def _graded(f: Finding) -> str:
    """A finding's summary, after its severity when it has one."""
    return f"{f.severity.describe()}: {f.summary}" if f.severity else f.summary


def _line(f: Finding) -> str:
    """A finding's line in the text report: its check, its op, its severity and its summary."""
    return f"  [{f.check}] {f'{display(f.op)}: ' if f.op else ''}{_graded(f)}"


@dataclass(frozen=True)
class AuditCase:
    """One pytest case of :meth:`AuditReport.pytest_cases`: a defect, or the clean bill."""

    id: str
    finding: Finding | None
    text: str

    def check(self) -> None:
        """Raise ``AssertionError`` with the defect and its reproducer (a clean bill passes)."""
        if self.finding is not None:
            raise AssertionError(self.text)

    def __str__(self) -> str:
        return self.id


def describe(outcome: CheckOutcome) -> str:
    """``forward passed: 40 graphs judged, 0 inconclusive`` (or why nothing was judged)."""
    if outcome.status == "not_applicable":
        return f"{outcome.name} not_applicable: {outcome.reason or 'nothing judged'}"
    counts = f"{outcome.judged} {outcome.unit} judged, {outcome.inconclusive} inconclusive"
    return f"{outcome.name} {outcome.status}: {counts}"


@dataclass
class AuditReport:
    """What :func:`~autograd.testing.audit` found: each check's outcome, the findings (defects,
    conventions, facts, inconclusive cases) and the settings.  ``str(report)`` is the text report,
    :meth:`to_json` the JSON one, :meth:`verdict` the last line; :attr:`defects` the findings that
    fail an engine."""

    engine: str
    class_name: str
    capabilities: dict[str, Any]
    outcomes: dict[str, CheckOutcome]
    examples: int = DEFAULT_EXAMPLES
    seed: int = 0
    seconds: float = 0.0
    accessors: dict[str, str] = field(default_factory=dict)

    @property
    def checks(self) -> dict[str, str]:
        """``{check: "passed" | "failed" | "not_applicable"}``."""
        return {name: outcome.status for name, outcome in self.outcomes.items()}

    @property
    def findings(self) -> list[Finding]:
        """Every finding once (:func:`~autograd.testing.verdicts.identity`), defects first; of two
        checks' findings of one identity, the more severe (the first of equal severity)."""
        every = [(_rank(f), f) for outcome in self.outcomes.values() for f in outcome.findings]
        unique = verdicts.deduplicate(every)
        return sorted(unique, key=lambda f: (_KIND_ORDER.get(f.kind, 99), _rank(f), f.op or "", f.check))

    @property
    def defects(self) -> list[Finding]:
        """The findings that are defects (not conventions, range limits, facts or inconclusive cases)."""
        return [f for f in self.findings if f.kind in DEFECT_KINDS]

    def to_dict(self) -> dict[str, Any]:
        """The report as plain data, the shape of ``--json`` (``schema_version`` names the shape)."""
        return {
            "schema_version": SCHEMA_VERSION,
            "engine": self.engine,
            "class": self.class_name,
            "accessors": self.accessors,
            "capabilities": self.capabilities,
            "checks": self.checks,
            "reasons": {n: o.reason for n, o in self.outcomes.items() if o.reason},
            "judged": {
                n: {"judged": o.judged, "inconclusive": o.inconclusive, "unit": o.unit}
                for n, o in self.outcomes.items()
            },
            "findings": [
                {
                    "kind": f.kind,
                    "check": f.check,
                    "op": f.op,
                    "form": display(f.op),
                    "summary": f.summary,
                    "reproducer": f.reproducer,
                    "expected": f.expected,
                    "actual": f.actual,
                    "severity": f.severity.to_dict() if f.severity else None,
                }
                for f in self.findings
            ],
            "defects": len(self.defects),
            "settings": {"examples": self.examples, "seed": self.seed},
            "seconds": round(self.seconds, 1),
        }

    def to_json(self) -> str:
        """:meth:`to_dict` as indented JSON, what ``python -m autograd.testing --json`` prints."""
        return json.dumps(self.to_dict(), indent=2, default=str)

    def verdict(self) -> str:
        """One line: no defects found (with the number of checks), or the defects counted by kind."""
        defects = self.defects
        if not defects:
            return f"verdict: no defects found in {self.engine} ({len(self.checks)} checks)"
        counts: dict[str, int] = {}
        for f in defects:
            counts[f.kind] = counts.get(f.kind, 0) + 1
        kinds = ", ".join(f"{k} {n}" for k, n in counts.items())
        mild = sum(f.severity is not None and f.severity.label != "wrong" for f in defects)
        if mild:
            kinds += f"; {mild} of them inaccurate at the extremes only"
        return f"verdict: {len(defects)} defect{'s' * (len(defects) != 1)} in {self.engine} ({kinds})"

    def __str__(self) -> str:
        return self.render()

    def render(self, *, timing: bool = True) -> str:
        """The text report; ``timing=False`` leaves out the wall time (for comparing two runs)."""
        caps = self.capabilities
        acc = self.accessors
        took = f"; {self.seconds:.1f} s" if timing else ""
        lines = [
            f"audit of {self.engine}: class {self.class_name} (number .{acc.get('data')}, "
            f"gradient .{acc.get('grad')}, {acc.get('backward')}())",
            f"settings: {self.examples} examples per search, seed {self.seed}{took}",
            f"ops: {', '.join(map(str, map(display, caps['ops'])))}"
            + (
                f"; missing: {', '.join(map(str, map(display, caps['missing_ops'])))}"
                if caps["missing_ops"]
                else ""
            ),
            f"numbers: int {caps['int']}, Fraction {caps['fraction']}; higher order: "
            f"{'yes' if caps['higher_order'] else 'no'}"
            # a float32 engine is judged with float32's rounding: said where the numbers are
            + (f"; precision: {caps['precision']}" if caps.get("precision", "float64") != "float64" else ""),
            *(
                [f"gradient: {caps['gradient_api']}, of {caps['gradient_convention']}"]
                if caps.get("gradient_api", "backward") != "backward"
                else []
            ),
            "checks:",
            *(f"  {describe(o)}" for o in self.outcomes.values()),
        ]
        findings = self.findings
        for kind in FINDING_KINDS:
            group = [f for f in findings if f.kind == kind]
            if group:
                lines.append(f"\n{kind} ({len(group)})" + (" -- DEFECT" if kind in DEFECT_KINDS else ""))
                lines += [_line(f) for f in group]
        reproducible = [f for f in findings if f.reproducer and f.kind in (*DEFECT_KINDS, "inconclusive")]
        if reproducible:
            lines.append("\nreproducers")
            for f in reproducible:
                lines.append(f"--- {f.kind} {display(f.op) or ''} [{f.check}]".rstrip())
                lines.append(f.reproducer)
        lines.append("")
        lines.append(self.verdict())
        return "\n".join(lines)

    def pytest_cases(self) -> list[AuditCase]:
        """One case per defect (its reproducer in the message), or one passing case if there are none.

        ``@pytest.mark.parametrize("case", audit("pkg.engine").pytest_cases(), ids=str)``
        then ``def test_engine(case): case.check()``: see the README.
        """
        if not self.defects:
            return [AuditCase(f"{self.engine}: no defects", None, self.verdict())]
        return [
            AuditCase(
                f"{f.kind}-{f.op or f.check}",
                f,
                f"{f.kind} [{f.check}] {_graded(f)}\nexpected: {f.expected}\nactual:   {f.actual}\n"
                f"reproduce with:\n{f.reproducer}",
            )
            for f in self.defects
        ]
