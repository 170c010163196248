"""What the harness needs to know about an engine, whatever form it is given in."""

from __future__ import annotations

import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["Engine", "resolve_engine"]


@dataclass(frozen=True)
class Engine:
    """A ``Value`` class plus the fused n-ary ops, ``None`` where the engine has none."""

    Value: type
    vsum: Callable[..., Any] | None = None
    dot: Callable[..., Any] | None = None
    name: str = "autograd"  # the module the runnable snippets import from

    def supports(self, op_name: str) -> bool:
        """Whether this engine has the op (probed on a harmless point; errors mean 'no')."""
        from autograd.testing.ops import OPS

        return OPS[op_name].supported_by(self)


def resolve_engine(engine: Any = None) -> Engine:
    """An :class:`Engine` from a module, namespace, Value class, Engine, or ``None`` (ours)."""
    if engine is None:
        import autograd

        engine = autograd
    if isinstance(engine, Engine):
        return engine
    if isinstance(engine, type):
        return Engine(Value=engine, name=engine.__module__)
    value = getattr(engine, "Value", None)
    if not isinstance(value, type):
        raise TypeError(f"resolve_engine: {engine!r} has no Value class; pass a module, namespace or class")
    name = engine.__name__ if isinstance(engine, types.ModuleType) else value.__module__
    return Engine(
        Value=value, vsum=getattr(engine, "vsum", None), dot=getattr(engine, "dot", None), name=name
    )
