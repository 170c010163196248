"""How a disagreement becomes a verdict, in one place: pure functions, no engine, no oracle.

* :func:`confirm`: "wrong only when a second method agrees".  A first oracle that
  rejects the engine is a defect only when a second, independent one rejects it too;
  a second oracle that agrees, or cannot judge, leaves it ``inconclusive``.
  :func:`second_vote` is that rule as every judge calls it: both :class:`Vote` s judge the
  numbers the engine gave in ONE run (the second method evaluates only forwards, in plain
  floats or the reference, on the same inputs; it never runs the engine again), and it
  words the verdict: an unresolved disagreement says so, with both methods' numbers.
  :data:`SECOND_VOTE_FD` are the margins of finite differences as that second vote.
* :func:`identity` and :func:`deduplicate`: a defect is reported once per
  ``(kind, op)`` (the smallest example kept; a crash of no op once per check: the checks
  run different code, e.g. a second backward() and a deep chain), a fact once per ``(kind, op, summary)``,
  an inconclusive case once per ``(kind, op, check)``.
* :func:`merge`: one finding per ``(kind, op)`` that names the others in its summary.
* :func:`tally`: whether one example was judged or left inconclusive by a check.

The rule "failed only with a defect, passed only when something was judged" is
:func:`autograd.testing.findings.outcome`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

from autograd.testing.findings import DEFECT_KINDS, Finding

__all__ = [
    "SECOND_VOTE_FD",
    "SecondVote",
    "Vote",
    "confirm",
    "deduplicate",
    "identity",
    "merge",
    "second_vote",
    "smallest",
    "tally",
]

#: ``rtol`` and ``atol`` of central differences when they confirm a gradient that sympy rejected
#: beyond its derived tolerance: none beyond their own derived error (truncation ``|D(h) - D(2h)|``,
#: rounding ``4 eps |f| / h`` and the float function's forward bound) and the engine's derived
#: tolerance, which are added where they are called.  The margins of ``gradcheck``
#: (``FD_RTOL = 1e-7``, for functions of unknown accuracy) would leave every error between the
#: derived tolerance (about 1e-15 relative) and 1e-7 ``inconclusive``: a ``v / c`` computed as
#: ``v * (c + 1e-8) ** -1`` has d/dv off by 5e-9 relative, and the differences resolve 1e-10.
SECOND_VOTE_FD = {"rtol": 0.0, "atol": 0.0}


def confirm(first_rejects: bool, second_rejects: bool | None) -> str | None:
    """The verdict of two independent methods on one value: ``None`` (no finding),
    ``"defect"`` (both reject it) or ``"inconclusive"`` (only the first does, or the second
    cannot judge: ``second_rejects is None``).  The second alone rejecting is no finding:
    the first, primary method is the judge and only needs a second vote to convict."""
    if not first_rejects:
        return None
    return "defect" if second_rejects else "inconclusive"


@dataclass(frozen=True)
class Vote:
    """What one method says about numbers the engine gave: ``rejects`` (``None``: it cannot
    judge them) and ``says``, its own number(s) (or why it cannot judge) as a report shows them."""

    method: str
    rejects: bool | None
    says: str = ""


@dataclass(frozen=True)
class SecondVote:
    """The verdict of :func:`second_vote`: ``kind`` ``None``, ``"defect"`` or ``"inconclusive"``,
    and ``text``, both methods' words for a finding (empty when there is none)."""

    kind: str | None
    text: str


def second_vote(first: Vote, second: Callable[[], Vote]) -> SecondVote:
    """The rule of :func:`confirm` on one run's numbers: ``second`` (called only when ``first``
    rejects) is an independent method on the same numbers and inputs.  A defect names both
    methods; an inconclusive case says the first disagrees and the second did not confirm it
    (its number, or why it could not judge): unresolved, never cleared."""
    if not first.rejects:
        return SecondVote(None, "")
    vote = second()
    kind = confirm(True, vote.rejects)
    said = f"{first.method} {first.says}".strip()
    if kind == "defect":
        return SecondVote("defect", f"{said} differs, confirmed by {vote.method} {vote.says}".rstrip())
    if vote.rejects is None:
        return SecondVote(
            "inconclusive", f"{said} differs, {vote.method} cannot judge ({vote.says}): unresolved"
        )
    return SecondVote("inconclusive", f"{said} differs, {vote.method} {vote.says}: not confirmed, unresolved")


def identity(finding: Finding) -> tuple[Any, ...]:
    """What makes two findings the same report (see the module docstring)."""
    if finding.kind == "crash" and finding.op is None:
        return (finding.kind, None, finding.check)
    if finding.kind in DEFECT_KINDS:
        return (finding.kind, finding.op)
    if finding.kind == "inconclusive":
        return (finding.kind, finding.op, finding.check)
    return (finding.kind, finding.op, finding.summary)


def deduplicate(sized: Iterable[tuple[int, Finding]]) -> list[Finding]:
    """One finding per :func:`identity`: the smallest by size (the first of equal sizes),
    in the order each identity was first seen."""
    return [f for _, f in smallest(sized)]


def smallest(sized: Iterable[tuple[int, Finding]]) -> list[tuple[int, Finding]]:
    """:func:`deduplicate` keeping the sizes (to go on adding examples later)."""
    best: dict[tuple[Any, ...], tuple[int, Finding]] = {}
    for size, finding in sized:
        key = identity(finding)
        if key not in best or size < best[key][0]:
            best[key] = (size, finding)
    return list(best.values())


def merge(findings: Iterable[Finding], shown: int = 2) -> list[Finding]:
    """One finding per ``(kind, op)``: the first keeps its reproducer, ``shown`` more are named in
    its summary and the rest counted."""
    groups: dict[tuple[str, str | None], list[Finding]] = {}
    for f in findings:
        groups.setdefault((f.kind, f.op), []).append(f)
    out = []
    for first, *rest in groups.values():
        if rest:
            also = "; ".join(f.summary for f in rest[:shown])
            if len(rest) > shown:
                also += f"; {len(rest) - shown} more points"
            first = replace(first, summary=f"{first.summary} (also: {also})")
        out.append(first)
    return out


def tally(findings: Iterable[Finding]) -> str:
    """What one example's findings (of one check) say about it: ``"judged"`` (a verdict, a
    defect or none) or ``"inconclusive"`` (an oracle could not decide and nothing was found)."""
    kinds = {f.kind for f in findings}
    if kinds & set(DEFECT_KINDS):
        return "judged"
    return "inconclusive" if "inconclusive" in kinds else "judged"
