"""Gradient APIs other than "a backward method fills an attribute", as adapters.

:class:`GradientOnRead` is the adapter discovery builds for an engine with no
backward at all, whose leaf has a method that *returns* d(output)/d(leaf) when
called.  Such a method differentiates some output, and engines differ in which
(:data:`READ_CONVENTIONS`); :func:`read_convention` observes it on ``y1 = x * 3``,
``y2 = x * 5`` built in that order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from numbers import Number
from typing import Any

__all__ = ["READ_CONVENTIONS", "GradientOnRead", "read_convention"]

#: Which output a gradient-on-read method differentiates, by the call that gives d(y1)/dx.
READ_CONVENTIONS = {
    "passed": "the output passed to the leaf's method: x.{m}(y)",
    "output": "the output whose method is called with the leaf: y.{m}(x)",
    "last": "the last output built: x.{m}() (a later Value built from x changes it)",
    "all": "every output built from the leaf, summed: x.{m}() (a Value built later from x adds to it)",
}
#: Entries kept by one adapter before the oldest leaves' gradients are forgotten.
MAX_KEPT = 200_000


def _number(v: Any, cls: type, data: str) -> Any:
    """A gradient as a number (some engines return it as one of their Values)."""
    return getattr(v, data) if isinstance(v, cls) else v


def _is_number(x: Any) -> bool:
    return isinstance(x, Number) and not isinstance(x, bool)


def read_convention(cls: type, data: str, method: str) -> tuple[str | None, str]:
    """``(convention, what was seen)`` for ``method``: a key of :data:`READ_CONVENTIONS` or None.

    Calls into the engine: the caller catches what it raises (see ``engine_call``).
    """
    x = cls(0.75)
    y1 = x * cls(3.0)
    x * cls(5.0)  # y2: built last, a second output of x
    seen = []
    calls: list[tuple[str, Callable[[], Any]]] = [
        ("passed", lambda: getattr(x, method)(y1)),
        ("output", lambda: getattr(y1, method)(x)),
        ("", lambda: getattr(x, method)()),
    ]
    for convention, call in calls:
        try:
            got: Any = _number(call(), cls, data)
        except Exception as exc:  # the engine's error: this calling form is not the engine's
            seen.append(f"{type(exc).__name__}")
            continue
        seen.append(repr(got))
        if not _is_number(got):
            continue
        if convention and got == 3:
            return convention, ", ".join(seen)
        if not convention and got in (5, 8):  # d(y2)/dx, or d(y1 + y2)/dx
            return ("last" if got == 5 else "all"), ", ".join(seen)
    return None, ", ".join(seen)


class GradientOnRead:
    """The adapter of an engine whose gradient is computed when read (``x.grad(y)``, ``x.grad()``).

    ``backward(output, leaves)`` reads each leaf's gradient of ``output`` and adds it to what
    earlier passes left (leaves accumulate, as in micrograd and PyTorch).  Under the ``"passed"``
    and ``"output"`` conventions an interior node's gradient is read (``read``) from the latest
    output a pass went through it from.  Under ``"last"`` and ``"all"`` the method
    differentiates what the engine decides (the harness's output only when it is the last, or
    the only, Value built from the leaves), so gradients are read when ``backward`` runs, and
    interior nodes have none (0): the audit reports the convention.
    """

    def __init__(self, cls: type, data: str, method: str, convention: str) -> None:
        if convention not in READ_CONVENTIONS:
            raise ValueError(
                f"GradientOnRead: unknown convention {convention!r} (one of {list(READ_CONVENTIONS)})"
            )
        self.cls, self.data_attr, self.method, self.convention = cls, data, method, convention
        self.name = f"{cls.__module__}:{cls.__qualname__}"
        self._grads: dict[int, tuple[Any, Any]] = {}  # id(leaf) -> (leaf, its gradient)
        # d(output)/dv for any v, later: only when the method is told which output
        self.read: Callable[[Any, Any], Any] | None = (
            self._read if convention in ("passed", "output") else None
        )

    def make(self, x: Any) -> Any:
        return self.cls(x)

    def data(self, v: Any) -> Any:
        return getattr(v, self.data_attr)

    def _read(self, v: Any, output: Any) -> Any:
        """d(output)/dv, through the engine's method and convention."""
        method: Callable[..., Any]
        if self.convention == "passed":
            g = getattr(v, self.method)(output)
        elif self.convention == "output":
            g = getattr(output, self.method)(v)
        else:
            method = getattr(v, self.method)
            g = method()
        return _number(g, self.cls, self.data_attr)

    def backward(self, output: Any, leaves: Sequence[Any], *, create_graph: bool = False) -> None:
        if create_graph:
            raise TypeError("a gradient computed on read has no create_graph")
        for leaf in leaves:
            g = self._read(leaf, output)
            old = self._grads.pop(id(leaf), (leaf, None))
            self._grads[id(leaf)] = (leaf, g if old[0] is not leaf or old[1] is None else old[1] + g)
        while len(self._grads) > MAX_KEPT:  # the oldest leaves' gradients are forgotten
            del self._grads[next(iter(self._grads))]

    def grad(self, v: Any) -> Any:
        kept = self._grads.get(id(v))
        if kept is not None and kept[0] is v:
            return kept[1]
        return 0  # a leaf no backward pass reached

    def set_grad(self, v: Any, g: Any) -> None:
        self._grads.pop(id(v), None)
        self._grads[id(v)] = (v, g)
