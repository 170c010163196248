"""``verify_engine``: the audit's checks with our engine's conventions declared.

The audit (:mod:`autograd.testing.auditor`) judges anyone's engine: what a second
``backward()`` does, whether Fraction data stay exact, whether ``create_graph`` exists
are facts it reports, never failures.  :func:`verify_engine` runs the same checks,
through the same registry (:func:`~autograd.testing.auditor.run_checks`), with those facts
declared (:class:`Conventions`, ours by default), and fails a check on any defect it
finds beyond them, so that a check is written once and serves both.

* An engine that does not follow the declared backward() convention fails ``stateful``
  (a ``wrong_gradient`` with a program that prints the declared and the actual
  gradients); the state machine then models what the engine does, so everything else
  is still judged.
* A declared capability the engine lacks leaves its check with nothing judged
  (``exact`` on an engine that turns Fractions into floats, ``second_order`` without
  ``create_graph``): such a check fails, "not judged".  Checks of capabilities not
  declared are not run by default.
* ``inconclusive`` (an oracle that cannot decide, a disagreement a second method does not
  confirm) is not a failure: the check passes on what it judged and says how much that was.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from autograd.testing.auditor import check_names, run_checks
from autograd.testing.checks import OUR_CONVENTION, BackwardConvention
from autograd.testing.engines import resolve_engine
from autograd.testing.findings import DEFECT_KINDS, CheckOutcome, Finding
from autograd.testing.runner import SearchMode

__all__ = ["CHECKS", "OURS", "RENAMED", "CheckResult", "Conventions", "verify_engine"]


@dataclass(frozen=True)
class CheckResult:
    """One check's result from :func:`verify_engine`: its name, whether it passed, and a message
    (on a failure each defect with its reproducer; on a pass how much was judged)."""

    name: str
    passed: bool
    message: str = ""  # a failure: each defect with its reproducer; a pass: how much was judged

    def __str__(self) -> str:
        return f"{self.name}: {'passed' if self.passed else 'FAILED'}" + (
            "" if self.passed else f"\n{self.message}"
        )


@dataclass(frozen=True)
class Conventions:
    """What :func:`verify_engine` holds an engine to beyond right values and gradients.

    * ``backward``: what a second ``backward()`` does (:class:`~autograd.testing.checks.BackwardConvention`).
    * ``exact``: Fraction data stay exact through the rational ops (the ``exact`` check applies).
    * ``higher_order``: ``backward(create_graph=True)`` makes gradients Values (``second_order`` applies).
    """

    backward: BackwardConvention = OUR_CONVENTION
    exact: bool = True
    higher_order: bool = True


#: Our engine's (see autograd/engine.py's docstring).
OURS = Conventions()

#: The checks :func:`verify_engine` runs by default, in order: the audit's checks of values and
#: gradients (its ``ops`` lists missing ops, facts that cannot fail; the extra-op checks judge
#: ops beyond the table).  Any other name of the registry (:func:`~autograd.testing.auditor.check_names`:
#: the extra-op checks, the probes) may be asked for.
CHECKS: tuple[str, ...] = tuple(
    name for name in check_names(probes=False) if name not in ("ops", "extra_ops", "self_consistency")
)

#: Aliases :func:`verify_engine` accepts, and the check each runs: finite differences are the
#: ``symbolic`` check's second vote; a second ``backward()`` is one step of ``stateful``, which also
#: compares the engine with the declared convention.
RENAMED = {"fd": "symbolic", "backward_twice": "stateful"}


def verify_engine(
    engine: Any = None,
    *,
    checks: Sequence[str] | None = None,
    max_examples: int = 30,
    shrink: bool = False,
    seed: int = 0,
    conventions: Conventions = OURS,
) -> dict[str, CheckResult]:
    """Run each check against ``engine`` deterministically; ``{name: CheckResult}``.

    ``checks`` (default :data:`CHECKS`, less ``exact`` and ``second_order`` when ``conventions``
    does not declare them) are names of :func:`~autograd.testing.auditor.run_check` or of
    :data:`RENAMED`; results are keyed by the names asked for.  ``max_examples`` is the audit's
    ``examples`` (per op in the per-op searches), ``seed`` fixes every search: the same engine
    always gets the same verdict.  A check stops at its first defect; the message gives it
    with its runnable reproducer, the failing example cut down to the one node that fails on
    its own where there is one; ``shrink=True`` also minimises it (slower).
    """
    eng = resolve_engine(engine)
    names = list(checks or _default_checks(conventions))
    known = [*check_names(), *RENAMED]
    unknown = sorted(set(names) - set(known))
    if unknown:
        raise ValueError(f"verify_engine: unknown checks {unknown}; known: {known}")
    runs = list(dict.fromkeys(RENAMED.get(name, name) for name in names))
    outcomes = run_checks(
        runs, eng, examples=max_examples, seed=seed, convention=conventions.backward,
        mode=SearchMode(shrink=shrink, first_defect=True),
    )  # fmt: skip
    return {name: _result(name, outcomes[RENAMED.get(name, name)]) for name in names}


def _default_checks(conventions: Conventions) -> list[str]:
    skipped = {"exact": not conventions.exact, "second_order": not conventions.higher_order}
    return [name for name in CHECKS if not skipped.get(name, False)]


def _result(name: str, outcome: CheckOutcome) -> CheckResult:
    """The audit's verdict on one check as a :class:`CheckResult`: passed only when it judged
    something and found no defect (``inconclusive`` cases are counted, not failed)."""
    judged = f"{outcome.judged} {outcome.unit} judged, {outcome.inconclusive} inconclusive ({outcome.reason})"
    if outcome.status == "passed":
        return CheckResult(name, True, judged)
    if outcome.status == "not_applicable":
        return CheckResult(name, False, f"not judged: {outcome.reason}" + _listed(outcome.findings))
    defects = [f for f in outcome.findings if f.kind in DEFECT_KINDS]
    return CheckResult(name, False, "\n\n".join(map(_describe, defects)) + f"\n\n{judged}")


def _describe(finding: Finding) -> str:
    """One defect: its kind, op and summary on the first line, then expected, actual, reproducer."""
    lines = [f"{finding.kind}{f' ({finding.op})' if finding.op else ''}: {finding.summary}"]
    shown = (("expected", finding.expected), ("actual", finding.actual))
    lines += [f"{label}: {text}" for label, text in shown if text]
    if finding.reproducer:
        lines += ["reproducer:", finding.reproducer]
    return "\n".join(lines)


def _listed(findings: Sequence[Finding]) -> str:
    return "".join(f"\n{f.kind}: {f.summary}" for f in findings)
