"""The one registry of checks and probes, which :func:`~autograd.testing.auditor.audit`,
:func:`~autograd.testing.auditor.run_checks` and :func:`~autograd.testing.verify.verify_engine`
iterate.

A check registers with the :func:`check` decorator: the names of the outcomes it reports (a
family such as the per-op searches reports several: one search serves them all) and its place
in the report (``order``).  It is a function ``run(run: Run) -> CheckOutcome | list[CheckOutcome]``.
A probe (:mod:`autograd.testing.probes`) registers with :func:`probe`; what the engine raises
where the probe did not expect it leaves the probe not judged (a fact of the engine: the audit
goes on and says so), and the probe's own failure propagates.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from autograd.testing.boundary import EngineRaised
from autograd.testing.engines import Engine
from autograd.testing.findings import CheckOutcome, Finding, outcome
from autograd.testing.runner import DEFAULT_MODE, SearchMode

if TYPE_CHECKING:
    from autograd.testing.checks.conventions import BackwardConvention

__all__ = ["REGISTRY", "Check", "Run", "check", "names", "probe", "run_registered"]


@dataclass
class Run:
    """What every check is given: the engine, the budget and the options of one run.

    ``ops`` limits the per-op searches and ``second_order``'s graphs to these ops (None: every
    op the engine has); ``convention`` declares the backward() convention ``stateful`` holds the
    engine to (None: the one observed is a fact); ``wanted`` the names asked for (a family may
    skip the searches of the others).  A check may leave what it observed for the audit in
    ``observed`` (``stateful``: the backward() convention).
    """

    eng: Engine
    examples: int
    seed: int
    ops: Sequence[str] | None = None
    convention: BackwardConvention | None = None
    mode: SearchMode = DEFAULT_MODE
    wanted: frozenset[str] = frozenset()
    observed: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Check:
    """One registered check (or family of checks reported under several names)."""

    names: tuple[str, ...]
    run: Callable[[Run], list[CheckOutcome]]
    order: float
    probe: bool = False


#: Every check and probe, by the first name each reports.
REGISTRY: dict[str, Check] = {}


def _register(entry: Check) -> None:
    taken = {n for c in REGISTRY.values() if c.names[0] != entry.names[0] for n in c.names}
    if taken & set(entry.names):
        raise ValueError(f"check registry: {sorted(taken & set(entry.names))} registered twice")
    REGISTRY[entry.names[0]] = entry


CheckFunction = TypeVar("CheckFunction", bound=Callable[[Run], Any])


def check(*reported: str, order: float) -> Callable[[CheckFunction], CheckFunction]:
    """Register ``run(run) -> CheckOutcome | list[CheckOutcome]`` reporting ``reported``, at
    ``order`` in the report."""

    def register(run: CheckFunction) -> CheckFunction:
        def outcomes(r: Run) -> list[CheckOutcome]:
            got = run(r)
            return list(got) if isinstance(got, list) else [got]

        _register(Check(tuple(reported), outcomes, order))
        return run

    return register


def probe(name: str, run: Callable[..., CheckOutcome], order: float) -> None:
    """Register a probe ``run(engine, *, examples, seed) -> CheckOutcome`` as ``name``."""

    def outcomes(r: Run) -> list[CheckOutcome]:
        try:
            return [run(r.eng, examples=r.examples, seed=r.seed)]
        except EngineRaised as raised:
            summary = f"{name} not judged: the engine raised {raised.line()} ({raised.stage})"
            found = [Finding("inconclusive", name, summary, actual=raised.line())]
            return [
                outcome(name, found, judged=0, unit="runs", inconclusive=1, reason="cut short by the engine")
            ]

    _register(Check((name,), outcomes, order, probe=True))


def registered() -> list[Check]:
    """Every check and probe, in report order."""
    return sorted(REGISTRY.values(), key=lambda c: c.order)


def names(*, probes: bool | None = None) -> list[str]:
    """The names of the outcomes, in report order (only probes, or none of them, if asked)."""
    return [n for c in registered() if probes is None or c.probe == probes for n in c.names]


def run_registered(run: Run, wanted: Sequence[str]) -> dict[str, CheckOutcome]:
    """Each check reporting one of ``wanted`` (known names), once, in report order."""
    known = names()
    unknown = [name for name in wanted if name not in known]
    if unknown:
        raise ValueError(f"run_check: unknown check {unknown[0]!r}; known: {known}")
    run.wanted = frozenset(wanted)
    outcomes: dict[str, CheckOutcome] = {}
    for entry in registered():
        if run.wanted & set(entry.names):
            outcomes.update((o.name, o) for o in entry.run(run))
    return outcomes
