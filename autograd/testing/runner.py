"""The one runner of every search: its hypothesis settings, the search, and what it judged.

A check (:mod:`autograd.testing.checks`) or a probe that searches for a defect hands this module
a strategy of examples and a *trial* (``example -> findings``); :func:`search` draws the
examples deterministically (``derandomize``, no database, the given seed), shrinks a defect's
example, and records every example's findings in a :class:`Trials`, which counts what each
check judged and what its oracles left undecided, and keeps one finding per
:func:`~autograd.testing.verdicts.identity` (the smallest example).  :func:`settings` is the one
hypothesis configuration; :class:`SearchMode` says how a search goes on after a defect.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, given
from hypothesis import seed as hypothesis_seed
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from hypothesis.errors import Flaky, Unsatisfiable

from autograd.testing import verdicts
from autograd.testing.findings import DEFECT_KINDS, CheckOutcome, Finding, outcome
from autograd.testing.graph import Graph

__all__ = ["DEFAULT_MODE", "SearchMode", "Trials", "search", "settings", "size"]


@dataclass(frozen=True)
class SearchMode:
    """How a search goes on after a defect.

    ``shrink``: minimise each defect's example (hypothesis's shrink phase; the audit's way);
    without it the reproducer is the first failing example, cut down to one node where one
    fails on its own.  ``first_defect``: a check stops searching at its first defect (a
    verdict per check, as :func:`~autograd.testing.verify.verify_engine` needs, rather than
    every defect of every op).
    """

    shrink: bool = True
    first_defect: bool = False


#: The audit's way: shrink every defect's example, search on after it for the op's others.
DEFAULT_MODE = SearchMode()


def settings(examples: int, mode: SearchMode = DEFAULT_MODE, **extra: Any) -> hypothesis_settings:
    """The one hypothesis configuration of the harness's searches: deterministic, quiet, no
    database (and no shrinking when ``mode`` says so)."""
    if not mode.shrink:
        extra["phases"] = (Phase.explicit, Phase.generate)
    return hypothesis_settings(
        max_examples=examples, derandomize=True, database=None, deadline=None, verbosity=Verbosity.quiet,
        suppress_health_check=list(HealthCheck), report_multiple_bugs=False, **extra,
    )  # fmt: skip


class Trials:
    """What the searches of one or more checks found, and how many examples each check judged."""

    def __init__(self) -> None:
        self.sized: list[tuple[int, Finding]] = []  # one per identity, the smallest example kept
        self.judged: Counter[str] = Counter()
        self.inconclusive: Counter[str] = Counter()

    def record(self, checks: Sequence[str], found: list[Finding], size: int) -> None:
        """One example's findings; each check in ``checks`` judged it or was left inconclusive
        (:func:`~autograd.testing.verdicts.tally`)."""
        self.sized = verdicts.smallest([*self.sized, *((len(f.reproducer) or size, f) for f in found)])
        for check in checks:
            judged = verdicts.tally(f for f in found if f.check == check) == "judged"
            (self.judged if judged else self.inconclusive)[check] += 1

    def findings(self, name: str) -> list[Finding]:
        return [f for _, f in self.sized if f.check == name]

    def outcome(self, name: str, unit: str, reason: str) -> CheckOutcome:
        """The check ``name``'s outcome: its findings and counts (nothing judged is said so)."""
        return outcome(
            name, self.findings(name), judged=self.judged[name], inconclusive=self.inconclusive[name],
            unit=unit, reason=reason if self.judged[name] else f"nothing judged ({reason})",
        )  # fmt: skip


def size(example: Any) -> int:
    """How big an example reads (a graph by its code): the smaller of two is reported."""
    if isinstance(example, Graph):
        return len(example.code())
    if isinstance(example, tuple):
        return sum(size(e) for e in example)
    return len(repr(example))


class _DefectFound(Exception):
    """Stops a search at a defect, so that hypothesis shrinks its example."""


def search(
    trials: Trials,
    checks: Sequence[str],
    strategy: st.SearchStrategy[Any],
    trial: Callable[[Any], list[Finding]],
    examples: int,
    seed: int,
    focus: str | None = None,
    mode: SearchMode = DEFAULT_MODE,
) -> None:
    """Run ``trial`` on ``examples`` examples for ``checks``; a defect is shrunk; every finding
    and every example's verdict lands in ``trials``.

    With ``focus`` (the op under test) only a defect of that op (or of no single op)
    stops the search to shrink it: one blamed on another op (which has its own
    search) is recorded and the search goes on, so it cannot hide this op's defects.
    A defect already recorded stops it no more: the search then goes on (new examples,
    the rest of the budget) for the other defects of the same op, so that a wrong value
    found first cannot hide a wrong gradient (``1 - x`` computed as ``x - 1``: its value is
    found on the first graph, the gradient of ``x * (1 - x)`` only on a later one).
    Hypothesis's own verdicts on the engine (a defect that does not replay, a filter
    that rejects everything) leave what was recorded as it is; any other exception is
    ours and propagates.
    """

    def one_round(budget: int, round_seed: int, known: set[tuple[Any, ...]]) -> int | None:
        """A search that stops at a defect not in ``known``: how many examples it drew up to
        that one, or None when it did not stop."""
        drawn = [0, 0]  # examples tried (shrinking included); how many of them up to the first stop

        @settings(budget, mode, phases=(Phase.explicit, Phase.generate, Phase.shrink))
        @hypothesis_seed(round_seed)
        @given(strategy)
        def run(example: Any) -> None:
            found = trial(example)
            trials.record(checks, found, size(example))
            drawn[0] += 1
            if any(
                f.kind in DEFECT_KINDS
                and (focus is None or f.op in (focus, None))
                and verdicts.identity(f) not in known
                for f in found
            ):
                drawn[1] = drawn[1] or drawn[0]
                raise _DefectFound

        try:
            run()
        except _DefectFound:  # shrunk: the trials kept the smallest example
            return drawn[1]
        except Flaky:  # the engine answered differently on replay: recorded as it happened
            pass
        except Unsatisfiable:  # nothing could be drawn: the counts say nothing was judged
            pass
        return None

    budget = examples
    for round_ in itertools.count():
        known = {verdicts.identity(f) for _, f in trials.sized if f.kind in DEFECT_KINDS}
        failed = {f.check for _, f in trials.sized if f.kind in DEFECT_KINDS}
        if mode.first_defect and failed.issuperset(checks):
            return  # each check this search serves has its defect
        drawn = one_round(budget, seed + round_, known)  # another round draws other examples
        if drawn is None:  # the budget ran out with nothing new, or hypothesis gave its own verdict
            return
        budget -= drawn
        if budget <= 0:
            return
