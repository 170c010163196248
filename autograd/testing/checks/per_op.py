"""The ops check and the per-op searches (``exact``, ``symbolic``, ``forward``).

``ops`` lists the ops of the table and the number types the engine lacks (facts).  Each op the
engine has gets its own searches, on random graphs of that op plus ``add`` and ``mul``, so that a
defect in one op cannot hide another: ``exact`` (engines that keep ``Fraction`` data exact,
rational ops) demands equality with sympy; ``symbolic`` judges float gradients against the
certified reference, and the same float search judges the forward values (``forward``).
"""

from __future__ import annotations

from hypothesis import strategies as st

from autograd.testing import strategies as gs
from autograd.testing.checks.gradients import exact_trial, float_trial
from autograd.testing.checks.registry import Run, check
from autograd.testing.engines import Engine
from autograd.testing.engines.support import usable_consts
from autograd.testing.findings import CheckOutcome, Finding, outcome
from autograd.testing.graph import Graph
from autograd.testing.ops import OPS
from autograd.testing.runner import Trials, search

__all__ = ["MAX_NODES", "PER_OP_CHECKS"]

#: Nodes per generated graph in the per-op searches (small graphs shrink fast and read well).
MAX_NODES = 5
#: The checks of the per-op searches (one exact and one float search per op).
PER_OP_CHECKS = ("exact", "symbolic", "forward")


@check("ops", order=0)
def check_ops(run: Run) -> CheckOutcome:
    """The ops of the table and the number types the engine lacks (``unsupported`` facts)."""
    eng = run.eng
    caps = eng.number_types
    unsupported = [
        Finding("unsupported", "ops", f"{OPS[op].example} is not supported", op)
        for op in OPS
        if not eng.supports(op)
    ]
    for kind, example in (
        ("int", f"{eng.class_name}(3) / {eng.class_name}(2)"),
        ("fraction", f"{eng.class_name}(Fraction(1, 3))"),
    ):
        if caps[kind] == "refused":
            unsupported.append(Finding("unsupported", "ops", f"{kind} data is refused ({example})"))
        elif caps[kind] == "float":
            unsupported.append(
                Finding("unsupported", "ops", f"{kind} data does not stay exact through + - * / ({example})")
            )
    return outcome(
        "ops",
        unsupported,
        judged=len(OPS) + 2,
        unit="ops and number types",
        reason="every op of the table probed",
    )


def _op_graphs(eng: Engine, op: str, exact: bool) -> st.SearchStrategy[Graph] | None:
    """Graphs of ``op`` plus ``add`` and ``mul`` (those the engine has) in which ``op`` occurs."""
    ops = [o for o in dict.fromkeys((op, "add", "mul")) if eng.supports(o)]
    try:
        strategy = gs.graphs(eng, exact=exact, ops=ops, max_nodes=MAX_NODES)
    except ValueError:  # no usable constant for this op in this mode
        return None
    return strategy.filter(lambda g: any(n.op == op for n in g.nodes))


@check(*PER_OP_CHECKS, order=10)
def check_per_op(run: Run) -> list[CheckOutcome]:
    """The per-op searches of the checks asked for (of :data:`PER_OP_CHECKS`; ``forward`` comes
    from the float search of ``symbolic``): the outcomes of all three, those not run judging
    nothing.  ``run.ops`` limits them to these ops."""
    eng, examples, seed, mode = run.eng, run.examples, run.seed, run.mode
    checks = [name for name in PER_OP_CHECKS if name in run.wanted]
    ops = [op for op in (run.ops or OPS) if eng.supports(op)]
    symbolic, exact = Trials(), Trials()
    exact_ops = [op for op in ops if eng.exact and _rational_op(eng, op)]
    for op in ops:
        if op in exact_ops and "exact" in checks:
            strategy = _op_graphs(eng, op, exact=True)
            if strategy is not None:
                search(exact, ("exact",), strategy, exact_trial(eng, op), examples, seed, op, mode)
        strategy = _op_graphs(eng, op, exact=False)
        float_checks = tuple(c for c in ("symbolic", "forward") if c in checks)
        if strategy is not None and float_checks:
            trial = float_trial(eng, "symbolic", op, forward=True)
            search(symbolic, float_checks, strategy, trial, examples, seed, op, mode)
    ran = f"{examples} examples for each of {len(ops)} ops"
    outcomes = [symbolic.outcome("symbolic", "graphs", ran), symbolic.outcome("forward", "graphs", ran)]
    if eng.exact:
        reason = f"{examples} examples for each of {len(exact_ops)} rational ops"
        outcomes.insert(0, exact.outcome("exact", "graphs", reason))
    else:
        outcomes.insert(0, not_applicable("exact", eng))
    return outcomes


def _rational_op(eng: Engine, op: str) -> bool:
    spec = OPS[op]
    if spec.consts:
        return any(spec.rational(c) for c in usable_consts(eng, spec))
    return bool(spec.rational(None))


def not_applicable(name: str, eng: Engine) -> CheckOutcome:
    how = eng.number_types["fraction"]
    why = {"refused": "refuses Fraction data", "float": "turns Fraction data into floats"}.get(how, how)
    reason = f"needs exact arithmetic; the engine {why} (checked on floats)"
    return outcome(name, [], judged=0, unit="graphs", reason=reason)
