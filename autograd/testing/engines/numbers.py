"""The numbers an engine shows: a number kept as a 0-d array is read as the number, and a
gradient the harness writes is written in the kind the engine keeps.

Some engines keep a Value's number and gradient as 0-d arrays (vizgrad's
``np.array(x, dtype=float64)``): what they hold is a number, and the oracles compare
numbers (:func:`as_number`).  Such an engine adds into its gradient in place, so a gradient
the harness writes is a copy of the engine's array holding it (:func:`in_kind`,
:func:`write_grad`).
"""

from __future__ import annotations

from fractions import Fraction
from numbers import Number, Real
from typing import Any

from autograd.testing import boundary

__all__ = ["PLAIN", "as_number", "in_kind", "write_grad", "written"]

#: The usual numbers, let through before the (slower) ``isinstance(x, Number)``: Engine.data is hot.
PLAIN = frozenset({float, int, Fraction})


def as_number(x: Any, keep: type | tuple[type, ...] = ()) -> Any:
    """The number a 0-d array-like ``x`` holds (a numpy, jax or torch scalar array: not a
    :class:`~numbers.Number`, ``shape == ()``, and ``item()`` giving a real number), else ``x``
    unchanged; a ``keep`` instance (the engine's own Value: a gradient under create_graph) is
    never read as a number.

    Reading ``shape`` and calling ``item()`` is the engine's code: call this inside the engine
    boundary.
    """
    if type(x) in PLAIN or isinstance(x, Number) or (keep and isinstance(x, keep)):
        return x
    shape = getattr(x, "shape", None)
    if not isinstance(shape, tuple) or len(shape) != 0:
        return x
    item = getattr(x, "item", None)
    number = item() if callable(item) else None
    return number if isinstance(number, Real) and not isinstance(number, bool) else x


def in_kind(current: Any, g: Any, keep: type | tuple[type, ...] = ()) -> Any:
    """``g`` as the engine keeps a gradient: a copy of ``current`` holding ``g`` when ``current`` is
    a 0-d array (:func:`as_number`; a ``keep`` instance is none) and ``g`` a number, else ``g``.

    An engine that keeps 0-d arrays adds into its gradient in place (``grad += ...``, or
    ``grad.__iadd__``): a plain number, or a numpy scalar (which has no ``__iadd__``), written
    in its place would make the engine fail where the engine is right.  A copy, not ``current``
    written into, because nodes may share one array.  When the array cannot hold ``g`` exactly
    (an int array and 0.5, or 2**70) or be copied, ``g`` is written as it is: nothing is coerced
    silently, and no failure of ours is blamed on the engine.
    """
    if not isinstance(g, Number) or isinstance(current, Number) or as_number(current, keep) is current:
        return g

    def holding() -> Any:  # the array's own code: copy() and item assignment
        new = current.copy()
        new[()] = g
        return new

    try:
        new = boundary.engine_call("setting a gradient", holding)
    except boundary.EngineRaised:  # the array cannot be copied or hold g: g as it is
        return g
    return new if as_number(new) == g or g != g else g  # (g != g: a NaN, held as one)


def written(
    v: Any, name: str, g: Any, keep: type | tuple[type, ...] = (), *, stage: str = "setting a gradient"
) -> Any:
    """What :func:`write_grad` writes as ``v.name`` for ``g``: ``g`` in the kind of the gradient
    ``v`` holds now (:func:`in_kind`), or ``g`` itself when reading it raises (a property may,
    before a pass)."""
    try:
        current = boundary.engine_call(stage, getattr, v, name)
    except boundary.EngineRaised:
        return g
    return in_kind(current, g, keep)


def write_grad(
    v: Any, name: str, g: Any, keep: type | tuple[type, ...] = (), *, stage: str = "setting a gradient"
) -> None:
    """``v.name = g``, ``g`` in the kind of the gradient ``v`` holds now (:func:`written`)."""
    boundary.engine_call(stage, setattr, v, name, written(v, name, g, keep, stage=stage))
