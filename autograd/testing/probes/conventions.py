"""Probe ``conventions``: what engines choose differently, as ``convention`` facts (never defects).

What a second ``backward()`` does to leaves, interior nodes and the output, how the
output gradient is seeded, and relu'(0).
"""

from __future__ import annotations

from typing import Any

from autograd.testing.boundary import EngineRaised
from autograd.testing.engines import Engine, resolve_engine
from autograd.testing.findings import CheckOutcome, Finding, outcome
from autograd.testing.ops import OPS
from autograd.testing.reproducers import program, show


def _change(first: Any, second: Any) -> str:
    if second == 2 * first:
        return "doubled"
    if second == first:
        return "unchanged"
    return f"{show(first)} -> {show(second)}"


def _backward_numbers(eng: Engine) -> tuple[list[Any], list[Any], Any]:
    """The engine's side (nothing else): gradients of a, b, h, y after one and two backward()
    on y = (a*b)*a, and the output's gradient after backward() from 5.0."""
    at = "backward()"  # the stage any failure here is reported under
    mul = OPS["mul"]
    a, b = eng.make(3.0, stage=at), eng.make(2.0, stage=at)
    h = eng.apply(mul, [a, b], stage=at)
    y = eng.apply(mul, [h, a], stage=at)
    eng.backward(y)
    first = [eng.grad(v) for v in (a, b, h, y)]
    eng.backward(y)
    second = [eng.grad(v) for v in (a, b, h, y)]
    a, b = eng.make(3.0, stage=at), eng.make(2.0, stage=at)
    y = eng.apply(mul, [eng.apply(mul, [a, b], stage=at), a], stage=at)
    eng.set_grad(y, 5.0, stage=at)
    eng.backward(y)
    return first, second, eng.grad(y)


def _backward_facts(first: list[Any], second: list[Any], seeded: Any) -> str:
    """Second backward() on y = (a*b)*a, and the output's gradient seeding, in words."""
    leaves = sorted({_change(first[0], second[0]), _change(first[1], second[1])})
    interior = _change(first[2], second[2])
    accumulates = {
        "doubled": "interior gradients accumulate across calls",
        "unchanged": "interior nodes hold the latest pass only",
    }.get(interior, "")
    facts = [
        f"a second backward() on y = (a*b)*a: leaf gradients {' and '.join(leaves)}, interior ones {interior}"
        + (f" ({accumulates})" if accumulates else "")
        + f", the output's {_change(first[3], second[3])}"
    ]
    seeding = {
        1: "assigned 1 (a gradient left on it is overwritten)",
        6: "increased by 1 (a gradient left on it flows back too)",
    }.get(seeded, f"{show(seeded)} after backward() (5.0 was left on it)")
    facts.append(f"the output's gradient is {seeding}")
    return "; ".join(facts)


_BACKWARD_FACTS_REPRODUCER = (
    "a, b = {V}(3.0), {V}(2.0)",
    "h = a * b",
    "y = h * a",
    "y.{backward}()",
    "print('after one backward():  a, b, h, y gradients', a.{grad}, b.{grad}, h.{grad}, y.{grad})",
    "y.{backward}()",
    "print('after two backward():  a, b, h, y gradients', a.{grad}, b.{grad}, h.{grad}, y.{grad})",
    "a, b = {V}(3.0), {V}(2.0)",
    "y = (a * b) * a",
    "y.{grad} = 5.0",
    "y.{backward}()",
    "print('output gradient 5.0 before backward(), after:', y.{grad})",
)


def probe_conventions(engine: Any, *, examples: int = 30, seed: int = 0) -> CheckOutcome:
    """Facts about backward() that engines choose differently; none of them is a defect."""
    eng = resolve_engine(engine)
    findings, notes = [], []
    try:
        numbers = _backward_numbers(eng)
    except EngineRaised as raised:
        notes.append(f"backward conventions not determined: {raised.line()}")
    else:
        summary = _backward_facts(*numbers)
        findings.append(
            Finding("convention", "conventions", summary, None, program(eng, *_BACKWARD_FACTS_REPRODUCER))
        )
    if eng.supports("relu"):
        try:
            slope = _relu_slope_at_zero(eng)
        except EngineRaised as raised:
            notes.append(f"relu'(0) not determined: {raised.line()}")
        else:
            reproducer = program(
                eng, "x = {V}(0.0)", "x.relu().{backward}()", 'print("relu\'(0) =", x.{grad})'
            )
            findings.append(
                Finding(
                    "convention", "conventions", f"relu'(0) is taken as {show(slope)}", "relu", reproducer
                )
            )
    reason = "second backward(), output gradient seeding, relu'(0)"
    if notes:
        reason += "; " + "; ".join(notes)
    return outcome("conventions", findings, judged=len(findings), unit="facts", reason=reason)


def _relu_slope_at_zero(eng: Engine) -> Any:
    x = eng.make(0.0, stage="relu(0)")
    eng.backward(eng.apply(OPS["relu"], [x], stage="relu(0)"), stage="relu(0)")
    return eng.grad(x, stage="relu(0)")
