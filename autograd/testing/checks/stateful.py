"""The ``stateful`` check: the state machine (:mod:`autograd.testing.checks.machine`) run on the
engine under the backward() convention it follows.

The convention is observed first (:func:`~autograd.testing.checks.conventions.backward_convention`,
a fact); a convention declared (:func:`~autograd.testing.verify.verify_engine`) that the engine
does not follow is a ``wrong_gradient``, and the machine then models the one observed, so that it
still judges everything beyond the convention.  On Fractions for an exact engine, else on floats
with derived tolerances.
"""

from __future__ import annotations

from hypothesis import seed as hypothesis_seed
from hypothesis.errors import Flaky
from hypothesis.stateful import run_state_machine_as_test

from autograd.testing.boundary import EngineRaised
from autograd.testing.checks.conventions import (
    BackwardConvention,
    backward_convention,
    convention_gradients,
    convention_reproducer,
)
from autograd.testing.checks.machine import SEEN, EngineCrash, ModelMismatch, stateful_machine
from autograd.testing.checks.registry import Run, check
from autograd.testing.engines import Engine
from autograd.testing.findings import CheckOutcome, Finding, outcome
from autograd.testing.runner import settings

__all__ = ["check_stateful"]


@check("stateful", order=40)
def check_stateful(run: Run) -> CheckOutcome:
    """The state machine under the convention observed (``run.observed["convention"]``, for the
    audit to list).

    A convention declared (``run.convention``) the engine does not follow is a
    ``wrong_gradient`` (its gradients after a second ``backward()`` are not the declared ones);
    the machine then models the one observed, so that it still judges everything beyond the
    convention (the declared one when the observed matches none)."""
    name, eng, declared, examples = "stateful", run.eng, run.convention, run.examples
    try:
        observed = backward_convention(eng, exact=eng.exact)
    except EngineRaised as raised:
        reproducer = "" if declared is None else convention_reproducer(eng, declared, exact=eng.exact)
        summary = f"x * x * c, backward() twice: {raised}"
        crash = Finding("crash", name, summary, None, reproducer, "no exception", str(raised))
        return outcome(name, [crash], judged=1, unit="runs", reason="the convention probe raised")
    run.observed["convention"] = observed
    findings: list[Finding] = []
    if declared is not None and observed != declared:
        findings.append(_convention_finding(eng, declared, observed))
    convention = observed or declared
    if convention is None:
        return outcome(
            name, [Finding("inconclusive", name, "two backward() calls on x*x*c match no known convention")],
            judged=0, inconclusive=1, unit="runs",
            reason="the engine's backward() convention matches none the model knows",
        )  # fmt: skip
    machine = stateful_machine(eng, convention, exact=eng.exact)
    # the seed chooses the runs, as it does every search's; as many runs as examples: a defect
    # that needs steps in order (a pass, a zeroed gradient, another pass reaching it) is met in
    # few runs (tests/engines/planted_stateful: found for each of the seeds 0-49 with 20 runs,
    # missed for 1 with 10; the machine draws that sequence on purpose)
    try:
        run_state_machine_as_test(
            hypothesis_seed(run.seed)(machine),
            settings=settings(max(1, examples), run.mode, stateful_step_count=15),
        )
    except (EngineCrash, ModelMismatch, Flaky) as raised:  # Flaky: a failure that did not replay
        findings.append(_stateful_finding(_first_failure(raised)))
    how = "exact" if eng.exact else "floats: leaf gradients within derived tolerances"
    reason = f"{how}; backward() convention: " + "; ".join(convention.describe())
    reason += "".join(f"; not judged: {what}" for what in machine.not_judged)
    ran, unjudged = machine.runs, machine.unjudged
    return outcome(name, findings, judged=ran - unjudged, inconclusive=unjudged, unit="runs", reason=reason)


def _convention_finding(
    eng: Engine, declared: BackwardConvention, observed: BackwardConvention | None
) -> Finding:
    """The engine does not follow the ``declared`` backward() convention: what differs."""
    differs = [d for d in declared.describe() if observed is None or d not in observed.describe()]
    seen = "matches no known convention" if observed is None else "; ".join(observed.describe())
    summary = f"backward() does not follow the declared convention ({'; '.join(differs)}): observed {seen}"
    script = convention_reproducer(eng, declared, exact=eng.exact)
    actual = "?" if observed is None else repr(convention_gradients(observed, exact=eng.exact))
    return Finding("wrong_gradient", "stateful", summary, None, script, _expected_actual(script)[0], actual)


def _stateful_finding(exc: BaseException) -> Finding:
    if isinstance(exc, Flaky):  # the engine answered differently when hypothesis replayed the steps
        return Finding("inconclusive", "stateful", f"a failure that did not replay: {exc}")
    if isinstance(exc, EngineCrash):
        return Finding("crash", "stateful", f"raises {exc}", None, exc.reproducer, "no exception", str(exc))
    if isinstance(exc, ModelMismatch):
        summary, _, script = str(exc).partition("\n")
        return Finding(
            "wrong_gradient", "stateful", f"{summary} (the convention as observed)", None, script,
            *_expected_actual(script),
        )  # fmt: skip
    raise exc  # hypothesis's or our own trouble: never the engine's defect


def _first_failure(exc: BaseException) -> BaseException:
    """The first real failure inside hypothesis's exception groups (a crash or assertion first)."""
    members = list(getattr(exc, "exceptions", ()))
    if not members:
        return exc
    found = [_first_failure(m) for m in members]
    return next((f for f in found if isinstance(f, EngineCrash | ModelMismatch)), found[0])


def _expected_actual(script: str) -> tuple[str, str]:
    """The expected values a stateful reproducer prints and the actual ones the harness read
    (from its last lines; actual "" where the script does not say: run it)."""
    expected = actual = ""
    for line in script.splitlines():
        if line.startswith("print('expected:', "):
            expected = line.removeprefix("print('expected:', ").removesuffix(")")
        elif line.startswith(SEEN):
            actual = line.removeprefix(SEEN).strip()
    return expected, actual
