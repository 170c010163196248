"""The ``stateful`` check: the state machine (:mod:`autograd.testing.checks.machine`), made for
the engine (:func:`stateful_machine`: the ops it has that stay exact, the rules it can take), run
under the backward() convention the engine follows.

The convention is observed first (:func:`~autograd.testing.checks.conventions.backward_convention`,
a fact); a convention declared (:func:`~autograd.testing.verify.verify_engine`) that the engine
does not follow is a ``wrong_gradient``, and the machine then models the one observed, so that it
still judges everything beyond the convention.  On Fractions for an exact engine, else on floats
with derived tolerances.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from hypothesis import seed as hypothesis_seed
from hypothesis.errors import Flaky
from hypothesis.stateful import run_state_machine_as_test

from autograd.testing.boundary import EngineRaised
from autograd.testing.checks.conventions import (
    OUR_CONVENTION,
    BackwardConvention,
    _engine_gradients,
    backward_convention,
    convention_gradients,
    convention_reproducer,
)
from autograd.testing.checks.machine import (
    SEEN,
    BinaryRule,
    EngineCrash,
    GradientMachine,
    HigherOrderRules,
    ModelMismatch,
    UnaryRule,
    ZeroGradRule,
)
from autograd.testing.checks.registry import Run, check
from autograd.testing.engines import Engine, resolve_engine
from autograd.testing.engines.support import usable_consts
from autograd.testing.findings import CheckOutcome, Finding, outcome
from autograd.testing.ops import OPS, rational_binary, rational_unary
from autograd.testing.runner import settings

__all__ = ["RATIONAL_BINARY", "RATIONAL_UNARY", "check_stateful", "run_stateful", "stateful_machine"]


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
    if observed is None:
        actual = "?"
    elif observed.graph == declared.graph:  # the reproducer runs the steps the observation ran
        actual = repr(convention_gradients(observed, exact=eng.exact))
    else:  # other steps: what the engine gives on them (it may raise at a pass over a freed graph)
        actual = _engine_gradients(eng, declared, exact=eng.exact)
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


#: The ops the machine builds with: they keep rationals rational (with these constants).
RATIONAL_BINARY = rational_binary()
RATIONAL_UNARY = rational_unary()


def _exact_gradients(eng: Engine, op: str, c: Any) -> bool:
    """Whether ``op``'s gradients come back exact (int or Fraction) at 4/3 and 5/3, points where a
    float is rounded: the exact machine judges by equality, which an engine otherwise exact but
    sending back a float (``x ** c``'s, say) cannot meet; the float checks judge such an op.  An
    op the engine raises on here is left out too (the checks per op report the crash)."""
    spec = OPS[op]

    def gradients() -> list[Any]:
        leaves = [eng.make(x) for x in (Fraction(4, 3), Fraction(5, 3))[: spec.arity]]
        eng.backward(eng.apply(spec, leaves, c))
        return [eng.grad(v) for v in leaves]

    try:
        return all(type(g) in (int, Fraction) for g in gradients())
    except EngineRaised:
        return False


def stateful_machine(
    engine: Any = None, convention: BackwardConvention = OUR_CONVENTION, *, exact: bool | None = None
) -> type[GradientMachine]:
    """The state machine for ``engine`` under ``convention`` (see the module docstring).

    An engine with higher order (and our convention) also gets create_graph steps:
    ``backward(create_graph=True)`` from any node (the gradients' values as in a plain
    pass; every reached gradient a Value; a later plain pass makes interior ones numbers
    again, leaves stay Values until zeroed), and the derivative of a leaf's Value
    gradient: every leaf zeroed, then a plain ``backward()`` from it must leave in each
    leaf j the sum, over the create_graph passes it holds, of d2 y / d leaf d x_j, from
    sympy's diff twice (exact).  Interior gradients after that pass depend on how the
    engine wrote its rules, so they are not judged until a later pass resets them.

    With ``exact=False`` (the default for an engine that does not keep Fractions exact) the
    leaves are floats (the model holds the same numbers as exact rationals) and each leaf
    gradient must be within the tolerance derived, pass by pass, from the subgraph each
    ``backward()`` ran on; interior gradients and create_graph steps are then not judged.
    The class counts its runs (``runs``) and the runs with a pass whose tolerance could not
    be derived (``unjudged``; its leaves' gradients are not judged until zeroed).

    An engine whose gradient cannot be written (no ``set_grad``: a read-only property, a method,
    an adapter without it; ``Engine.settable_grad``) gets no zero_grad and no create_graph rules;
    ``not_judged`` says so, as it does for ops left out.
    """
    eng = resolve_engine(engine)
    rational = eng.exact if exact is None else exact
    settable = eng.settable_grad  # zeroing a gradient needs set_grad
    higher = rational and convention == OUR_CONVENTION and eng.higher_order and settable
    # only ops the engine has (with constants it takes): a missing op is a fact, not a failure
    binary_ops = [op for op in RATIONAL_BINARY if eng.supports(op)]
    unary_ops = [
        (op, c)
        for op, c in RATIONAL_UNARY
        if eng.supports(op) and (c is None or c in usable_consts(eng, OPS[op]))
    ]
    # the exact machine judges by equality: ops whose gradients come back as floats are left out
    inexact: list[tuple[str, Any]] = []
    if rational:
        inexact = [(op, None) for op in binary_ops if not _exact_gradients(eng, op, None)]
        inexact += [(op, c) for op, c in unary_ops if not _exact_gradients(eng, op, c)]
        binary_ops = [op for op in binary_ops if (op, None) not in inexact]
        unary_ops = [u for u in unary_ops if u not in inexact]
    not_judged: tuple[str, ...] = ()
    if inexact:
        shown = ", ".join(OPS[op].source(["x", "y"][: OPS[op].arity], c) for op, c in inexact)
        not_judged += (f"{shown} (gradients not exact numbers: equality cannot judge them)",)
    if not settable:
        not_judged += ("zero_grad (writing a leaf's gradient: the engine, or its adapter, has no set_grad)",)
    # an engine without binary ops, or without unary ones (Values only, no constants, no
    # negation), gets no such rule: sampling from nothing is an error
    offered = (
        (ZeroGradRule, settable),
        (BinaryRule, binary_ops),
        (UnaryRule, unary_ops),
        (HigherOrderRules, higher),
    )
    rules = [rule_class for rule_class, wanted in offered if wanted]
    setup = {
        "eng": eng, "convention": convention, "rational": rational, "settable": settable, "higher": higher,
        "binary_ops": binary_ops, "unary_ops": unary_ops, "not_judged": not_judged, "runs": 0, "unjudged": 0,
        # an op valid everywhere, for a draw outside an op's domain: -a, else a + a (only an op the
        # machine uses anyway: one left out above, as unsupported or inexact, is left out here too)
        "fallback": ("neg", 1) if ("neg", None) in unary_ops else ("add", 2) if "add" in binary_ops else None,
    }  # fmt: skip
    machine: type[GradientMachine] = type("GradientMachine", (*rules, GradientMachine), setup)
    return machine


def run_stateful(
    engine: Any, example: None = None, *, max_examples: int = 30, phases: Any = None,
    convention: BackwardConvention = OUR_CONVENTION,
) -> None:  # fmt: skip
    """Run the state machine deterministically against the engine (raises on a failure)."""
    extra = {"phases": phases} if phases is not None else {}
    run_state_machine_as_test(
        stateful_machine(engine, convention), settings=settings(max_examples, stateful_step_count=15, **extra)
    )
