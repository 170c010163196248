"""What every reproducer's text shares: the engine's import and accessor names, and numbers
as a person writes them.  Each probe writes its own lines (with ``{V}``, ``{data}``,
``{grad}``, ``{backward}`` for the engine's class, number, gradient and backward pass);
:func:`program` makes them a program to paste and run."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from autograd.testing.engines import Engine

__all__ = ["program", "show"]


def show(x: Any) -> str:
    """A number as a person writes it (numpy's float64 shows as a float)."""
    return repr(float(x)) if isinstance(x, float) else repr(x)


def program(eng: Engine, *lines: str, preamble: Sequence[str] = ()) -> str:
    """A reproducer: ``preamble`` (imports of its own), the engine's import, then ``lines``
    with the engine's names filled in."""
    names = {
        "V": eng.class_name,
        "data": eng.data_attr,
        "grad": eng.grad_attr,
        "backward": eng.backward_method,
    }
    return "\n".join([*preamble, eng.import_line(), *(line.format(**names) for line in lines)])
