"""What several probes share (one definition each)."""

from __future__ import annotations

from typing import Any


def same_const(a: Any, b: Any) -> bool:
    """The same op constant: 2 and 2.0 are different ones here (an engine may take one, not the other)."""
    return type(a) is type(b) and a == b
