"""Our engine, except that ``+`` takes only Values (a plain number is refused with TypeError) and
a leaf that no share reaches in a ``backward(create_graph=True)`` pass keeps its gradient as it
was (the plain 0 it was given), not a Value.

Both are conventions, not defects: the nested probe must wrap a plain gradient in a Value of the
engine before adding it to another, and judge this engine right.
"""

from pathlib import Path

import autograd.engine

# a copy of the engine's source in this module (so reproducers import it from here)
exec(compile(Path(autograd.engine.__file__).read_text(encoding="utf-8"), autograd.engine.__file__, "exec"))

_any_add = Value.__add__  # noqa: F821  (defined by the exec above)
_any_accumulate = _accumulate  # noqa: F821


def _values_add(self, other):
    if type(other) is not Value:  # noqa: F821
        raise TypeError(f"add: both operands must be Values, got {other!r}")
    return _any_add(self, other)


def _accumulate(before, now):  # backward() reads this module's global
    if type(now) is not Value:  # noqa: F821  (no share reached the leaf: it keeps what it held)
        return before
    return _any_accumulate(before, now)


Value.__add__ = _values_add  # noqa: F821
