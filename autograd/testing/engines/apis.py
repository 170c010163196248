"""Gradient APIs other than "a backward method fills an attribute", as adapters.

:class:`GradientOnRead` is the adapter discovery builds for an engine with no
backward at all, where some member *returns* d(output)/d(leaf) when read: a
method of the leaf given the output (``x.grad(y)``), a method of the output given
the leaf (``y.der(x)``), or a member of the leaf read alone (a method ``x.grad()``
or a property ``x.derivative``).  Such a member differentiates some output, and
engines differ in which (:data:`READ_CONVENTIONS`); :func:`read_convention`
observes it on ``y1 = x * 3``, ``y2 = x * 5`` built in that order.

:class:`Accessors` is the adapter of an engine with a backward method whose number
or gradient is reached through a zero-argument method (``v.data()``, ``v.grad()``,
as compiled engines often have): :func:`read_member` reads either form.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from numbers import Number
from typing import Any

from autograd.testing import boundary
from autograd.testing.engines.numbers import as_number, write_grad

__all__ = [
    "READ_CONVENTIONS",
    "Accessors",
    "AmbiguousRead",
    "GradientOnRead",
    "is_number",
    "number_of",
    "read_convention",
    "read_member",
]

#: Which output a gradient read differentiates, by the read that gives d(y1)/dx.
#: ``{m}`` is the member as read: ``grad()`` for a method, ``derivative`` for a property.
READ_CONVENTIONS = {
    "passed": "the output passed to the leaf's method: x.{m}(y)",
    "output": "the output whose method is called with the leaf: y.{m}(x)",
    "last": "the last output built: x.{m} (a later Value built from x changes it)",
    "all": "every output built from the leaf, summed: x.{m} (a Value built later from x adds to it)",
    "each": "every output built from the leaf, one entry each: x.{m} (a number when there is one output)",
}
#: Entries kept by one adapter before the oldest leaves' gradients are forgotten.
MAX_KEPT = 200_000


def read_member(v: Any, name: str, keep: type | tuple[type, ...] = ()) -> Any:
    """``v.name``, called when it is a method: a number is read through an attribute, a property,
    a descriptor or a zero-argument method alike, and from a 0-d array (:func:`as_number`) unless
    it is a Value (of ``v``'s class, or a ``keep`` one)."""
    got = getattr(v, name)
    return as_number(got() if callable(got) else got, keep=(type(v), *_types(keep)))


def _types(keep: type | tuple[type, ...]) -> tuple[type, ...]:
    return keep if isinstance(keep, tuple) else (keep,)


def shown_as(cls: type, name: str) -> str:
    """How a member reads in a sentence: ``grad()`` for a method of the class, else ``grad``."""
    return f"{name}()" if callable(getattr(cls, name, None)) else name


def number_of(v: Any, cls: type, data: str) -> Any:
    """A gradient as a number: some engines return it as one of their Values (of ``cls``, whose
    member ``data`` holds it), some as a 0-d array."""
    return read_member(v, data) if isinstance(v, cls) else as_number(v, keep=cls)


def is_number(x: Any) -> bool:
    return isinstance(x, Number) and not isinstance(x, bool)


def _entries(x: Any) -> list[Any] | None:
    """The numbers of a sequence of numbers (a list, a tuple, a 1-d array), else None."""
    if is_number(x) or isinstance(x, str | bytes) or not hasattr(x, "__len__"):
        return None
    try:
        items = list(x)
    except TypeError:  # a 0-d array: not a sequence
        return None
    return items if items and all(is_number(i) for i in items) else None


#: The calling forms of a gradient read: (form, read of d(out)/d(leaf)).
FORMS: tuple[tuple[str, Callable[[Any, Any, str], Any]], ...] = (
    ("passed", lambda leaf, out, m: getattr(leaf, m)(out)),
    ("output", lambda leaf, out, m: getattr(out, m)(leaf)),
    ("leaf", lambda leaf, out, m: read_member(leaf, m)),
)
_FORM = dict(FORMS)


def _read_in(cls: type, data: str, method: str, form: str, build: Callable[[Any], Any]) -> Any:
    """The engine's work: a fresh leaf ``x = cls(0.75)``, ``out = build(x)``, and the read in ``form``."""
    x = cls(0.75)
    out = build(x)
    return number_of(_FORM[form](x, out, method), cls, data)


def read_convention(cls: type, data: str, method: str, form: str | None = None) -> tuple[str | None, str]:
    """``(convention, what was seen)`` for the gradient read ``method``: a key of
    :data:`READ_CONVENTIONS`, or None.

    Each calling form (``form``, or every one of :data:`FORMS`) is read on ``y1 = x * 3`` alone
    (``a``) and ``y2 = x * 5`` alone (``b``), then with both built: a read of ``y1`` that still
    gives ``a`` is "passed"/"output"; a read of the leaf alone giving ``b`` is "last", ``a + b``
    "all", ``[a, b]`` "each".  The two single-output reads must differ (a member that does not
    follow the output is no gradient); they need not be 3 and 5, so an engine whose mul rule is
    wrong still shows its convention.  What the engine raises is caught at the engine boundary.
    """

    def one(x: Any) -> Any:
        return x * cls(3.0)

    def other(x: Any) -> Any:
        return x * cls(5.0)

    def both(x: Any) -> Any:
        y1 = one(x)
        other(x)  # y2: built last, a second output of x
        return y1

    seen = []
    for name, _ in FORMS if form is None else [(form, _FORM[form])]:
        reads = []
        for build in (one, other, both):
            try:
                reads.append(boundary.engine_call("gradient read", _read_in, cls, data, method, name, build))
            except boundary.EngineRaised as raised:  # the engine's refusal: not this calling form
                reads.append(type(raised.exc).__name__)
                break
        seen.append(f"{name}: " + ", ".join(map(repr, reads)))
        if len(reads) < 3 or not (is_number(reads[0]) and is_number(reads[1])) or reads[0] == reads[1]:
            continue
        a, b, got = reads
        if name != "leaf":
            if is_number(got) and got == a:
                return name, "; ".join(seen)
            continue
        entries = _entries(got)
        if entries is not None and entries in ([a, b], [b, a]):
            return "each", "; ".join(seen)
        if is_number(got) and got == b and got != a:
            return "last", "; ".join(seen)
        if is_number(got) and got == a + b:
            return "all", "; ".join(seen)
    return None, "; ".join(seen)


class AmbiguousRead(LookupError):
    """A read under the "each" convention listed several outputs' gradients: none is judged."""


class _DiscoveredClass:
    """What both discovered adapters share: Values of ``cls``, their number read through the member
    ``data_attr`` (an attribute, a property, or a zero-argument method: :func:`read_member`)."""

    def __init__(self, cls: type, data: str) -> None:
        self.cls, self.data_attr = cls, data
        self.name = f"{cls.__module__}:{cls.__qualname__}"

    def make(self, x: Any) -> Any:
        return self.cls(x)

    def is_value(self, obj: Any) -> bool:
        """A Value of the engine: of its class, or of another class showing the same number member
        (an op may build a subclass of a common base, as gradpy's ``Addition``); an array a method
        returns is none."""
        if isinstance(obj, self.cls):
            return True
        # the member on the class (a property, a method), or in the instance (not read: a property
        # may be costly, as gradpy's re-evaluates the whole expression)
        shown = hasattr(type(obj), self.data_attr) or self.data_attr in getattr(obj, "__dict__", {})
        return shown and not isinstance(obj, Number | str)

    def data(self, v: Any) -> Any:
        return read_member(v, self.data_attr, keep=self.cls)


class Accessors(_DiscoveredClass):
    """The adapter of an engine with a backward method whose number or gradient is read through a
    zero-argument method (``v.data()``, ``v.grad()``) rather than an attribute.

    ``backward(output, leaves)`` calls ``output.<backward>()``; ``grad(v)`` reads ``v.<grad>``
    (any Value, interior ones too).  ``set_grad`` exists only when the gradient is an attribute
    that can be written (``settable``): a gradient behind a method cannot be zeroed by the harness.
    """

    def __init__(self, cls: type, data: str, grad: str, backward: str, *, settable: bool = False) -> None:
        super().__init__(cls, data)
        self.grad_attr, self.backward_method = grad, backward
        if settable:
            self.set_grad = self._set_grad

    def backward(self, output: Any, leaves: Sequence[Any], *, create_graph: bool = False) -> Any:
        if create_graph:
            raise TypeError(f"{self.name}: create_graph is not known through {self.backward_method}()")
        return getattr(output, self.backward_method)()

    def grad(self, v: Any) -> Any:
        return read_member(v, self.grad_attr, keep=self.cls)

    def _set_grad(self, v: Any, g: Any) -> None:
        write_grad(v, self.grad_attr, g, keep=self.cls)


class GradientOnRead(_DiscoveredClass):
    """The adapter of an engine whose gradient is computed when read (``x.grad(y)``, ``y.der(x)``,
    ``x.grad()``, ``x.derivative``).

    ``backward(output, leaves)`` reads each leaf's gradient of ``output`` and adds it to what
    earlier passes left (leaves accumulate, as in micrograd and PyTorch).  Under the ``"passed"``
    and ``"output"`` conventions an interior node's gradient is read (``read``) from the latest
    output a pass went through it from.  Under ``"last"``, ``"all"`` and ``"each"`` the member
    differentiates what the engine decides (the harness's output only when it is the last, or
    the only, Value built from the leaves), so gradients are read when ``backward`` runs, and
    interior nodes have none (0): the audit reports the convention.  ``data`` and ``method``
    name members read as :func:`read_member` does (a method is called).
    """

    def __init__(self, cls: type, data: str, method: str, convention: str) -> None:
        if convention not in READ_CONVENTIONS:
            raise ValueError(
                f"GradientOnRead: unknown convention {convention!r} (one of {list(READ_CONVENTIONS)})"
            )
        super().__init__(cls, data)
        self.method, self.convention = method, convention
        self._grads: dict[int, tuple[Any, Any]] = {}  # id(leaf) -> (leaf, its gradient)
        # d(output)/dv for any v, later: only when the method is told which output
        self.read: Callable[[Any, Any], Any] | None = (
            self._read if convention in ("passed", "output") else None
        )

    def _read(self, v: Any, output: Any) -> Any:
        """d(output)/dv, through the engine's member and convention."""
        form = self.convention if self.convention in ("passed", "output") else "leaf"
        g = number_of(_FORM[form](v, output, self.method), self.cls, self.data_attr)
        entries = _entries(g) if self.convention == "each" else None
        if entries is not None:
            if len(entries) != 1:  # several outputs built from v: which entry is this one's is unknown
                raise AmbiguousRead(
                    f"{self.cls.__name__}.{self.method} gives one gradient per output built from the "
                    f"leaf, {len(entries)} here: which one is d(output)/dx cannot be told"
                )
            g = entries[0]
        return g

    def backward(self, output: Any, leaves: Sequence[Any], *, create_graph: bool = False) -> None:
        if create_graph:
            raise TypeError("a gradient computed on read has no create_graph")
        for leaf in leaves:
            self._accumulate(leaf, self._read(leaf, output))

    @property
    def backward_rebuilt(self) -> Callable[[Any, Sequence[Any], Sequence[Any]], None] | None:
        """Under the conventions where the engine picks the output ("last", "all", "each"),
        :func:`~autograd.testing.engines.scalar_class` passes the output rebuilt alone on fresh
        leaves (nothing else built from them, so the engine's pick is the output), and the gradient
        read from each fresh leaf is credited to the original one."""
        return None if self.read is not None else self._backward_rebuilt

    def _backward_rebuilt(self, output: Any, fresh: Sequence[Any], leaves: Sequence[Any]) -> None:
        for new, leaf in zip(fresh, leaves, strict=True):
            g = self._read(new, output)
            self._accumulate(leaf, g)

    def _accumulate(self, leaf: Any, g: Any) -> None:
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
