"""Probe ``bad_inputs``: garbage as data and as an operand, refused at once?

A str, None, a complex, NaN, +inf, -inf, a bool and a list as data, and a str operand:
accepted without an error at once is ``accepts_invalid`` (with what happened next), the
values named.  A careful user expects a Value to hold a finite real number: an infinity or a
NaN as a leaf makes every gradient through it inf or NaN (``inf - inf``, ``0 * inf``) with
no error where it came from, so it is refused when the Value is made.  Accepting one is
information, not a defect: the engine computes what it was given.
"""

from __future__ import annotations

import math
import operator
from typing import Any

from autograd.testing.boundary import EngineRaised, engine_call
from autograd.testing.engines import Engine, resolve_engine
from autograd.testing.findings import CheckOutcome, Finding, outcome
from autograd.testing.reproducers import program

#: Data that is not a finite real number: (source, value).
GARBAGE: tuple[tuple[str, Any], ...] = (
    ("'abc'", "abc"),
    ("None", None),
    ("complex(1, 2)", complex(1, 2)),
    ("float('nan')", math.nan),
    ("float('inf')", math.inf),
    ("float('-inf')", -math.inf),
    ("True", True),
    ("[1]", [1]),
)


def _what_happens_next(eng: Engine, v: Any) -> str:
    """Use an accepted garbage Value as a number: where does it fail, if anywhere?"""
    try:
        y = engine_call("v * v", operator.mul, v, v)
        y = engine_call("v * v + v", operator.add, y, v)
        eng.backward(y)
    except EngineRaised as raised:
        return f"fails later, in {raised.stage}: {raised.line()}"
    try:
        data, grad = eng.data(y, stage="reading"), eng.grad(v, stage="reading")
    except EngineRaised as raised:  # an attribute missing on a half-built Value
        return f"never fails in arithmetic, then: {raised.line()}"
    return f"never fails: v * v + v = {data!r}, its gradient {grad!r}"


def probe_bad_inputs(engine: Any, *, examples: int = 30, seed: int = 0) -> CheckOutcome:
    """Garbage as data and as an operand: refused at once, or accepted silently?"""
    eng = resolve_engine(engine)
    accepted = []
    for source, x in GARBAGE:
        try:
            v = eng.make(x, stage="make")
        except EngineRaised:
            continue  # refused at once: what we want
        accepted.append((source, _what_happens_next(eng, v)))
    findings = []
    if accepted:
        lines = ["for bad in [" + ", ".join(s for s, _ in accepted) + "]:"]
        lines += [
            "    try:",
            "        v = {V}(bad)",
            "        y = v * v + v",
            "        y.{backward}()",
            "        print(repr(bad), 'expected: an error at once; actual: accepted, v*v+v =', y.{data})",
            "    except Exception as exc:",
            "        print(repr(bad), 'expected: an error at once; actual: accepted, then', repr(exc))",
        ]
        findings.append(
            Finding(
                "accepts_invalid",
                "bad_inputs",
                f"accepts {len(accepted)} of {len(GARBAGE)} invalid data values without an error: "
                + ", ".join(f"{s} ({what.split(':')[0]})" for s, what in accepted),
                reproducer=program(eng, *lines),
                expected="TypeError or ValueError when the Value is made",
                actual="; ".join(f"{s}: accepted, {what}" for s, what in accepted),
            )
        )
    findings += _str_operand(eng)
    reason = f"{len(GARBAGE)} invalid data values ({', '.join(s for s, _ in GARBAGE)}) and v * 's'"
    return outcome("bad_inputs", findings, judged=len(GARBAGE) + 1, unit="inputs", reason=reason)


def _str_operand(eng: Engine) -> list[Finding]:
    for start in (2, 2.0):  # an int first: "s" * 2 is a str in Python, so int data shows more
        try:
            v = eng.make(start, stage="make")
        except EngineRaised:
            continue
        try:
            w = engine_call("v * 's'", operator.mul, v, "s")
        except EngineRaised:
            return []  # refused at once
        try:
            got = repr(eng.data(w, stage="reading"))
        except EngineRaised as raised:
            got = f"a Value whose data cannot be read ({raised.line()})"
        reproducer = program(
            eng,
            f"v = {{V}}({start!r})",
            "try:",
            "    w = v * 's'",
            "    print(\"expected: TypeError for v * 's'; actual: accepted, data =\", repr(w.{data}))",
            "except Exception as exc:",
            "    print('refused:', repr(exc))",
        )
        return [
            Finding(
                "accepts_invalid",
                "bad_inputs",
                f"v * 's' with v = {start!r} is accepted: data {got}",
                "mul",
                reproducer,
                "TypeError naming the op and the str",
                f"accepted, data {got}",
            )
        ]
    return []
