"""Probe ``support``: the ops of the table and the number types (int, Fraction) the engine
lacks, as ``unsupported`` facts (with the error each raised).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from autograd.testing.boundary import EngineRaised
from autograd.testing.engines import Engine, resolve_engine
from autograd.testing.engines.support import usable_consts
from autograd.testing.findings import CheckOutcome, Finding, outcome
from autograd.testing.ops import OPS
from autograd.testing.probes.common import same_const
from autograd.testing.reproducers import program


def _op_error(eng: Engine, op: str, const: Any) -> str:
    spec = OPS[op]
    try:
        eng.apply(spec, [eng.make(1.5) for _ in range(spec.arity)], const, stage=op)
    except EngineRaised as raised:
        return raised.line()
    return "no error"


def _number_type_facts(eng: Engine) -> list[str]:
    """What the adapter found int and Fraction data to become (``Engine.number_types``), in words."""
    facts = []
    for kind, example in (("int", 3), ("fraction", Fraction(1, 3))):
        label = "Fraction" if kind == "fraction" else kind
        how = eng.number_types[kind]
        if how == "refused":
            try:
                eng.make(example, stage="make")
            except EngineRaised as raised:
                facts.append(f"{label} data: refused ({raised.line()})")
            else:
                facts.append(f"{label} data: refused by + - * / or backward()")
        elif how == "float":
            try:
                made = eng.data(eng.make(example, stage="make"), stage="make")
            except EngineRaised:  # accepted when the adapter probed it; refused now
                made = None
            if isinstance(made, float):
                facts.append(f"{label} data: silently converted to float ({example!r} -> {made!r})")
            else:
                facts.append(f"{label} data: does not stay exact through + - * / and backward()")
    return facts


def _op_reproducer(eng: Engine, source: str) -> str:
    return program(
        eng,
        "from fractions import Fraction",
        "x, y = {V}(1.5), {V}(1.5)",
        "try:",
        f"    {source}",
        f"    print('{source}: supported')",
        "except Exception as exc:",
        f"    print('{source}: unsupported,', type(exc).__name__, exc)",
    )


def probe_support(engine: Any, *, examples: int = 30, seed: int = 0) -> CheckOutcome:
    """The ops of the table (constants included) and the number types the engine lacks."""
    eng = resolve_engine(engine)
    findings = []
    probed = [name for name, spec in OPS.items() if not spec.variadic]  # vsum, dot: optional fused ops
    for name in probed:
        spec = OPS[name]
        usable = usable_consts(eng, spec) if spec.consts else ()
        if not eng.supports(name):
            const = spec.consts[0] if spec.consts else None
            error = _op_error(eng, name, const)
            source = spec.source(["x", "y"][: spec.arity], const)
            reproducer = _op_reproducer(eng, source)
            findings.append(
                Finding("unsupported", "support", f"{source} is not supported ({error})", name, reproducer)
            )
        elif len(usable) < len(spec.consts):
            missing = [c for c in spec.consts if not any(same_const(c, u) for u in usable)]
            const = missing[0]
            source = spec.source(["x"], const)
            reproducer = _op_reproducer(eng, source)
            findings.append(
                Finding(
                    "unsupported",
                    "support",
                    f"{', '.join(spec.source(['x'], c) for c in missing)} not supported "
                    f"({_op_error(eng, name, const)})",
                    name,
                    reproducer,
                )
            )
    facts = _number_type_facts(eng)
    if facts:
        reproducer = program(
            eng,
            "from fractions import Fraction",
            "for x in (3, Fraction(1, 3)):",
            "    try:",
            "        v = {V}(x)",
            "        y = v * v + v",
            "        y.{backward}()",
            "        print(repr(x), 'expected exact: v*v+v =', x * x + x, 'and d/dv =', 2 * x + 1, ';',",
            "              'actual:', repr(y.{data}), repr(v.{grad}))",
            "    except Exception as exc:",
            "        print(repr(x), 'refused:', type(exc).__name__, exc)",
        )
        findings.append(Finding("unsupported", "support", "; ".join(facts), None, reproducer))
    reason = f"{len(probed)} ops of the table (their reflected forms and constants), int and Fraction data"
    judged = len(probed) + 2  # each op, int data, Fraction data
    return outcome("support", findings, judged=judged, unit="ops and number types", reason=reason)
