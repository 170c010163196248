"""Which ops an engine has: each op row tried on the engine at a harmless point.

An op row (:mod:`autograd.testing.ops`) is data; whether an engine computes it is a fact of the
engine, found here by calling it.  What the engine raises (``EngineRaised``) means "no";
anything else is ours and propagates.
"""

from __future__ import annotations

from typing import Any

from autograd.testing.boundary import EngineRaised

__all__ = ["supported", "usable_consts"]

#: Where an op is tried when its row names no point of its own: each operand at this value.
PROBE_AT = 1.5


def supported(engine: Any, row: Any) -> bool:
    """Whether the engine has the op of ``row`` at all (and for at least one of its constants)."""
    return bool(usable_consts(engine, row)) if row.consts else _computes(engine, row, None)


def usable_consts(engine: Any, row: Any) -> tuple[Any, ...]:
    """The constants of ``row`` with which the engine computes the op."""
    return tuple(c for c in row.consts if _computes(engine, row, c))


def _computes(engine: Any, row: Any, c: Any) -> bool:
    """Whether the engine computes the op (with ``c``) at the row's probe point."""
    if row.call.fused and getattr(engine, str(row.call.target)) is None:
        return False  # the engine has no such function
    at = row.probe or (PROBE_AT,) * row.sample_arity
    try:
        engine.apply(row, [engine.make(x) for x in at], c)
    except EngineRaised:
        return False
    return True
