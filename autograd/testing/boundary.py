"""The one boundary between the harness and the engine under test.

Whatever an engine raises is a fact about the engine (a crash, a refusal, a missing
op); whatever the harness raises is a bug of ours and must propagate, never read as
"no finding".  So every call into an engine that may raise goes through
:func:`engine_call`, which turns the engine's exception into :class:`EngineRaised`,
and no other code catches a broad ``Exception``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

__all__ = ["EngineRaised", "engine_call"]


class EngineRaised(Exception):
    """The engine under test raised ``exc`` (``stage`` says where: "forward", "backward()", ...)."""

    def __init__(self, stage: str, exc: BaseException) -> None:
        super().__init__(f"{type(exc).__name__}: {exc}")
        self.stage, self.exc = stage, exc

    def line(self) -> str:
        """One line: the exception's type and message, without object addresses (they vary by run)."""
        return re.sub(r" at 0x[0-9a-fA-F]+", "", str(self))[:300]


def engine_call(stage: str, call: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``call(*args, **kwargs)``, which must be the engine's own code (or a few lines that only use
    the engine's Values); whatever it raises becomes :class:`EngineRaised`."""
    try:
        return call(*args, **kwargs)
    except Exception as exc:
        raise EngineRaised(stage, exc) from exc
