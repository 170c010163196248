"""Fitting one class: whether it behaves like a scalar Value, and through which members.

:func:`fit` builds Values of a candidate class from :data:`PROBE_NUMBER` and watches what
they do: the member showing that number, a backward method that changes a numeric member of
the leaf (its gradient, an attribute or a zero-argument method), or else a member that
*returns* d(output)/d(leaf) when read (:class:`~autograd.testing.engines.apis.GradientOnRead`).
Every call into the candidate goes through the engine boundary: what the candidate raises
means "not this way", a fault of ours propagates.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from typing import Any

from autograd.testing import boundary
from autograd.testing.engines.apis import (
    FORMS,
    Accessors,
    GradientOnRead,
    is_number,
    number_of,
    read_convention,
    read_member,
)
from autograd.testing.engines.numbers import as_number

__all__ = ["BACKWARD_NAMES", "DATA_NAMES", "GRAD_NAMES", "PROBE_NUMBER", "Rejected", "fit"]

#: Attribute names tried first (in this order); any other attribute may match too.
DATA_NAMES = ("data", "value", "val", "x", "v", "item", "scalar", "num", "number", "_data", "_value")
GRAD_NAMES = ("grad", "gradient", "g", "grad_value", "adjoint", "dx", "d", "_grad", "_gradient")
BACKWARD_NAMES = ("backward", "backwards", "backprop", "back_prop", "backpropagate", "grad_backward", "bprop")
#: The number a candidate is built from: distinctive, so that an attribute equal to it is the data.
PROBE_NUMBER = 0.75
#: The stage an engine's exception is told under (discovery reads it as "not this way").
STAGE = "discovery"


class Rejected(Exception):
    """The candidate does not behave like a scalar Value (the message says what it lacked)."""


def _attribute_names(obj: Any) -> set[str]:
    """Every attribute that may hold a number: instance ``__dict__``, slots, and the properties
    and descriptors of the class (Python ``@property``, C extensions' getset/member descriptors)."""
    names = set(getattr(obj, "__dict__", {}))
    for klass in type(obj).__mro__:
        slots = getattr(klass, "__slots__", ())
        names.update([slots] if isinstance(slots, str) else slots)
        for name, attr in vars(klass).items():
            if not name.startswith("__") and (
                inspect.isdatadescriptor(attr)
                or inspect.ismemberdescriptor(attr)
                or inspect.isgetsetdescriptor(attr)
            ):
                names.add(name)
    return names


def _numbers(obj: Any) -> dict[str, Any]:
    """The number-valued attributes of an instance (see :func:`_attribute_names`), a 0-d array
    read as the number it holds (:func:`~autograd.testing.engines.numbers.as_number`)."""
    found = {}
    for name in _attribute_names(obj):
        try:  # a property, an item(): the engine's code
            value = boundary.engine_call(STAGE, _read_number, obj, name)
        except boundary.EngineRaised:
            continue
        if is_number(value):
            found[name] = value
    return found


def _read_number(obj: Any, name: str) -> Any:
    """The engine's work: ``obj.name``, the number it holds when it is a 0-d array."""
    return as_number(getattr(obj, name), keep=type(obj))


def _backward_from(build: Callable[[Any], Any], x: Any, method: str) -> Any:
    """The engine's work in a discovery trial: build ``y`` from ``x`` and call ``y.method()``."""
    return getattr(build(x), method)()


def _has_method(x: Any, name: str) -> bool:
    """Whether ``x.name`` is callable (reading it is the engine's code: a property may raise)."""
    try:
        return callable(boundary.engine_call(STAGE, getattr, x, name))
    except boundary.EngineRaised:
        return False


def _ordered(names: Iterable[str], preferred: tuple[str, ...]) -> list[str]:
    return sorted(names, key=lambda n: (preferred.index(n) if n in preferred else len(preferred), n))


def _methods(x: Any, skip: Iterable[str] = ()) -> list[str]:
    """The public methods of ``x`` (zero-argument readers are among them; which, only calling tells)."""
    return [m for m in dir(x) if not m.startswith("_") and m not in skip and _has_method(x, m)]


def _method_reading(candidate: type, method: str, build: Callable[[Any], Any] | None, backward: str) -> Any:
    """The engine's work: ``x.method()`` on a fresh leaf, after ``build(x).backward()`` when given."""
    x = candidate(PROBE_NUMBER)
    if build is not None:
        getattr(build(x), backward)()
    return as_number(getattr(x, method)(), keep=candidate)


def _find_data(candidate: type, x: Any, before: dict[str, Any], data: str | None) -> str:
    """The member showing the number a Value was built from: an attribute holding it, else (as
    compiled engines have) a zero-argument method returning it, each tried on a fresh leaf."""
    if data is not None:
        try:
            got = boundary.engine_call(STAGE, read_member, x, data)
        except boundary.EngineRaised:
            got = None
        if not is_number(got):
            raise Rejected(f"no attribute or zero-argument method {data!r} giving a number")
        return data
    holding = [n for n, v in before.items() if v == PROBE_NUMBER]
    if holding:
        return _ordered(holding, DATA_NAMES)[0]
    for method in _ordered(_methods(x), DATA_NAMES):  # the usual names first; the first that fits wins
        try:
            got = boundary.engine_call(STAGE, _method_reading, candidate, method, None, "")
        except boundary.EngineRaised:
            continue
        if is_number(got) and got == PROBE_NUMBER:
            return method
    raise Rejected(
        f"no attribute or zero-argument method gives the number it was built from ({PROBE_NUMBER}); "
        f"attributes tried: {sorted(before)}"
    )


def fit(
    candidate: type, *, backward: str | None, data: str | None, grad: str | None
) -> tuple[str, str, str] | GradientOnRead | Accessors:
    """(data attribute, grad attribute, backward method) of a class that behaves like a scalar,
    the adapter of one whose number or gradient is behind a method (:class:`Accessors`), or the
    adapter of one whose gradient is computed on read (:class:`GradientOnRead`)."""
    x = _leaf(candidate)
    missing = [d for d in ("__add__", "__mul__") if not callable(getattr(candidate, d, None))]
    if missing:
        raise Rejected(f"no {' or '.join(missing)}")
    data_attr = _find_data(candidate, x, _numbers(x), data)
    if backward is not None:
        methods = [backward]
        if not _has_method(x, backward):
            raise Rejected(f"no method {backward!r}")
    else:
        methods = [m for m in BACKWARD_NAMES if _has_method(x, m)]
        methods += sorted(
            m
            for m in dir(candidate)
            if "back" in m.lower() and m not in methods and not m.startswith("__")
            and _has_method(x, m)
        )  # fmt: skip
        if not methods:
            return _gradient_on_read(candidate, data_attr, grad, "no backward method")
    tried: list[str] = []
    builds: list[Callable[[Any], Any]] = [lambda v: v * 1, lambda v: v * candidate(1), lambda v: v + 0]
    for method in methods:
        for build in builds:
            try:
                x, before = _backward_on_leaf(candidate, build, method)
            except boundary.EngineRaised as raised:
                tried.append(f"{method}(): {type(raised.exc).__name__}: {raised.exc}")
                continue
            found = _gradient_member(candidate, data_attr, grad, method, build, x, before)
            if found is not None:
                return found
            tried.append(f"{method}() on y = x * 1 changed no numeric attribute or zero-argument method of x")
            break
    if backward is None:
        return _gradient_on_read(candidate, data_attr, grad, "; ".join(dict.fromkeys(tried)))
    raise Rejected("; ".join(dict.fromkeys(tried)) or "no backward method worked")


def _leaf(candidate: type) -> Any:
    """A fresh leaf ``candidate(PROBE_NUMBER)``; :class:`Rejected` when the constructor raises."""
    try:
        return boundary.engine_call(STAGE, candidate, PROBE_NUMBER)
    except boundary.EngineRaised as raised:
        exc = raised.exc
        raise Rejected(f"{candidate.__name__}({PROBE_NUMBER}) raised {type(exc).__name__}: {exc}") from None


def _backward_on_leaf(
    candidate: type, build: Callable[[Any], Any], method: str
) -> tuple[Any, dict[str, Any]]:
    """A fresh leaf ``x``, after ``build(x).method()``, and its numbers before the call (the
    engine's exception leaves as ``EngineRaised``)."""
    x = boundary.engine_call(STAGE, candidate, PROBE_NUMBER)
    before = _numbers(x)  # ours: outside the engine boundary
    boundary.engine_call(STAGE, _backward_from, build, x, method)
    return x, before


def _gradient_member(
    candidate: type,
    data_attr: str,
    grad: str | None,
    method: str,
    build: Callable[[Any], Any],
    x: Any,
    before: dict[str, Any],
) -> tuple[str, str, str] | Accessors | None:
    """After ``build(x).method()``: the member of ``x`` that holds its gradient (``grad`` when
    named, else the numeric member the call changed, else a zero-argument method whose reading
    it changed), as :func:`fit` gives it; None when nothing changed."""
    after = _numbers(x)
    if grad is not None:
        if grad in after or _reads_a_number(candidate, grad, build, method):
            return _fill(candidate, data_attr, grad, method)
        raise Rejected(f"no numeric attribute {grad!r} after {method}()")
    changed = [n for n, v in after.items() if n != data_attr and before.get(n) != v]
    if changed:
        ones = [n for n in changed if after[n] == 1]
        return _fill(candidate, data_attr, _ordered(ones or changed, GRAD_NAMES)[0], method)
    reader = _gradient_method(candidate, data_attr, method, build)
    return None if reader is None else _fill(candidate, data_attr, reader, method)


def _reads_a_number(candidate: type, member: str, build: Callable[[Any], Any] | None, backward: str) -> bool:
    """Whether ``x.member()`` gives a number on a fresh leaf (after ``build(x).backward()`` when given)."""
    try:
        return is_number(boundary.engine_call(STAGE, _method_reading, candidate, member, build, backward))
    except boundary.EngineRaised:
        return False


def _gradient_method(
    candidate: type, data_attr: str, backward: str, build: Callable[[Any], Any]
) -> str | None:
    """A zero-argument method of the leaf whose number ``backward()`` changed (the gradient, read
    as ``x.grad()``): each method read on a fresh leaf, then on a fresh one after a pass (a
    reading may have effects)."""
    x = _leaf(candidate)
    for method in _ordered(_methods(x, skip=(data_attr, backward, *BACKWARD_NAMES)), GRAD_NAMES):
        try:
            old = boundary.engine_call(STAGE, _method_reading, candidate, method, None, backward)
            new = boundary.engine_call(STAGE, _method_reading, candidate, method, build, backward)
        except boundary.EngineRaised:
            continue
        if is_number(old) and is_number(new) and old != new:
            return method
    return None


def _fill(candidate: type, data_attr: str, grad_attr: str, backward: str) -> tuple[str, str, str] | Accessors:
    """A backward that fills a gradient: plain attributes are read by the Engine itself, a member
    behind a method through :class:`Accessors`."""
    x = _leaf(candidate)
    behind = [n for n in (data_attr, grad_attr) if _has_method(x, n)]
    if not behind:
        return data_attr, grad_attr, backward
    return Accessors(
        candidate,
        data_attr,
        grad_attr,
        backward,
        settable=grad_attr not in behind and _writable(x, grad_attr),
    )


def _writable(x: Any, name: str) -> bool:
    """Whether ``x.name = 0`` is let through (the engine's code: a property may refuse)."""
    try:
        boundary.engine_call(STAGE, setattr, x, name, 0)
    except boundary.EngineRaised:
        return False
    return True


#: Known graphs on which a gradient read must give d(out)/dx to be taken for one:
#: (what it is, build out from the leaf x = 2, d out / dx).  Two, of different ops, so that an engine
#: whose mul rule is wrong is still discovered (and then audited: its rule is what is wrong).
KNOWN_GRAPHS: tuple[tuple[str, Callable[[Any, type], Any], float], ...] = (
    ("y = x * x + x * 3 at x = 2", lambda x, cls: x * x + x * cls(3.0), 7.0),
    ("y = (x + 3) + 1.5 at x = 2", lambda x, cls: (x + cls(3.0)) + cls(1.5), 1.0),
)


def _known_read(
    candidate: type, data_attr: str, member: str, form: str, build: Callable[[Any, type], Any]
) -> Any:
    """The engine's work: the read of ``member`` in ``form`` on a known graph from a fresh leaf 2."""
    x = candidate(2.0)
    out = build(x, candidate)
    return number_of(dict(FORMS)[form](x, out, member), candidate, data_attr)


def _read_members(candidate: type) -> list[str]:
    """Every public member of a leaf and of an output (a Value built by an op may be of a subclass
    with members of its own), the usual gradient names first; which is the gradient, behaviour tells."""
    x = _leaf(candidate)
    try:
        built: tuple[Any, ...] = (x, boundary.engine_call(STAGE, lambda: x * candidate(3.0)))
    except boundary.EngineRaised:
        built = (x,)
    names = {m for obj in built for m in dir(obj) if not m.startswith("_")}
    usual = tuple(n for n in names if any(k in n.lower() for k in ("grad", "deriv", "der", "diff", "adj")))
    return _ordered(names, (*GRAD_NAMES, *sorted(usual)))


def _gradient_on_read(candidate: type, data_attr: str, grad: str | None, why: str) -> GradientOnRead:
    """The adapter of a class some member of which returns d(output)/d(leaf) when read, or Rejected.

    A member is taken for the gradient when, in some calling form (``x.m(y)``, ``y.m(x)``,
    ``x.m()`` or the property ``x.m``), it gives d(out)/dx on one of :data:`KNOWN_GRAPHS`; then
    :func:`~autograd.testing.engines.apis.read_convention` must say which output it follows.
    """
    members = [grad] if grad is not None else _read_members(candidate)
    seen = []
    for member in members:
        if member == data_attr:
            continue
        for form, _ in FORMS:
            found = False
            for _, build, want in KNOWN_GRAPHS:
                try:
                    got = boundary.engine_call(STAGE, _known_read, candidate, data_attr, member, form, build)
                except boundary.EngineRaised:
                    continue
                if is_number(got) and got == want:
                    found = True
                    break
            if not found:
                continue
            convention, observed = read_convention(candidate, data_attr, member, form)
            if convention is not None:
                return GradientOnRead(candidate, data_attr, member, convention)
            seen.append(f"{member} ({form}) on y1 = x * 3, y2 = x * 5 gave {observed}")
    if grad is not None and not seen:
        seen.append(f"{grad} gave no d(out)/dx on {'; '.join(k[0] for k in KNOWN_GRAPHS)}")
    reads = (
        "; ".join(seen)
        if seen
        else (
            f"no member of a leaf or an output gives d(out)/dx on {' or '.join(k[0] for k in KNOWN_GRAPHS)}"
        )
    )
    raise Rejected(f"{why}; no gradient computed on read either ({reads})")
