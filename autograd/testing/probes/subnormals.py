"""Engines that flush subnormal numbers to zero: found once, for every op.

XLA on the CPU flushes (JAX's ``x * 1.0`` at 5e-324 is 0.0): :func:`subnormals_flushed` finds it
on two multiplications, and the edge probes (:mod:`autograd.testing.probes.edges`,
:mod:`autograd.testing.probes.curvature`) report it as one ``convention`` fact, with the points
where an operand or the exact result is subnormal and the engine differs as its consequences
(:func:`flush_fact`), not as a defect of each op.
"""

from __future__ import annotations

from typing import Any

from autograd.testing.boundary import EngineRaised
from autograd.testing.engines import Engine, resolve_engine
from autograd.testing.findings import Finding
from autograd.testing.ops import OPS
from autograd.testing.oracles.precision import PRECISION_RANGES
from autograd.testing.oracles.reference import ReferenceUnresolved
from autograd.testing.probes.regions import EdgePoint, reference
from autograd.testing.reproducers import program, show

__all__ = ["flush_cases", "flush_fact", "subnormal_point", "subnormals_flushed"]


def flush_cases(precision: str) -> list[tuple[float, float]]:
    """Two products whose exact results are subnormal in ``precision``: of a subnormal operand
    (kept by an engine that does not flush inputs) and of normal operands (a subnormal result)."""
    low = PRECISION_RANGES[precision][0]  # the smallest normal number
    return [(low * 2.0**-10, 1.0), (low, 0.5)]


def subnormals_flushed(engine: Any) -> str | None:
    """How the engine flushes subnormal numbers to zero (the products that came out 0, in words),
    or None when it keeps them (or raises on them: the edge points judge that op by op)."""
    eng = resolve_engine(engine)
    flushed = []
    for a, b in flush_cases(eng.precision):
        try:
            got = eng.data(eng.apply(OPS["mul"], [eng.make(a), eng.make(b)]))
        except EngineRaised:
            return None
        if float(got) == 0:
            flushed.append(f"{a!r} * {b!r} gives {show(got)}, not {a * b!r}")
    return "; ".join(flushed) or None


def subnormal_point(point: EdgePoint, precision: str) -> bool:
    """Whether an operand, or the exact value or a partial, is subnormal in ``precision``."""
    low = PRECISION_RANGES[precision][0]
    try:
        ref = reference(point.op, point.args, point.const)
    except ReferenceUnresolved:
        ref = None
    exact = () if ref is None else (ref[0], *(p for p in ref[1] if p is not None))
    return any(0 < abs(float(x)) < low for x in (*point.args, *exact))


def flush_fact(eng: Engine, how: str, consequences: list[list[Finding]]) -> Finding:
    """The one fact of an engine that flushes subnormals, with what it changes at the edge points
    (``consequences``: the findings of each point where it differs, a list a point)."""
    ops = sorted({f.op for at_point in consequences for f in at_point if f.op})
    summary = f"subnormal numbers are flushed to zero ({how}): an engine-wide choice, not a defect of each op"
    if consequences:
        summary += (
            f"; at {len(consequences)} edge point{'s' if len(consequences) > 1 else ''} where an operand or "
            f"the exact result is subnormal the engine differs because of it ({', '.join(ops)}), e.g. "
            f"{consequences[0][0].summary}"
        )
    lines = [
        f"print({a!r} * {b!r}, '->', ({{V}}({a!r}) * {{V}}({b!r})).{{data}})"
        for a, b in flush_cases(eng.precision)
    ]
    return Finding("convention", "edge_points", summary, None, program(eng, *lines))
