"""Discovery: which class of a module is its scalar Value, and how to reach its number and gradient.

:func:`resolve_engine` finds the scalar class by behaviour, not by name: a class
of the target module (or re-exported there) that is constructible from a number,
has ``__add__`` and ``__mul__``, shows the number through some attribute (an
instance attribute, a slot, a property or a descriptor of the class, as C
extensions have), and either has a method that, called on ``y = x * 1``, changes
a numeric attribute of ``x`` (its gradient), or a method of ``x`` that *returns*
d(output)/dx when read (a gradient computed on read, see
:mod:`autograd.testing.engines.apis`).  What cannot be discovered is given by the
keyword options (``--class``/``--backward``/``--data``/``--grad`` of ``python -m
autograd.testing audit``), and an engine of any other API by an adapter
(``--adapter MODULE:OBJECT``); when nothing fits, :class:`EngineNotFound` says what
was looked for and why each candidate was rejected.
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys
import types
from collections.abc import Callable, Iterable
from typing import Any

from autograd.testing import boundary
from autograd.testing.engines.adapter import (
    WORKING_PRECISION,
    Engine,
    EngineNotFound,
    as_number,
    engine_call,
    scalar_class,
)
from autograd.testing.engines.apis import (
    FORMS,
    READ_CONVENTIONS,
    Accessors,
    GradientOnRead,
    is_number,
    number_of,
    read_convention,
    read_member,
    shown_as,
)

__all__ = ["resolve_engine"]

#: Attribute names tried first (in this order); any other attribute may match too.
DATA_NAMES = ("data", "value", "val", "x", "v", "item", "scalar", "num", "number", "_data", "_value")
GRAD_NAMES = ("grad", "gradient", "g", "grad_value", "adjoint", "dx", "d", "_grad", "_gradient")
BACKWARD_NAMES = ("backward", "backwards", "backprop", "back_prop", "backpropagate", "grad_backward", "bprop")
#: The number a candidate is built from: distinctive, so that an attribute equal to it is the data.
PROBE_NUMBER = 0.75


# ---------------------------------------------------------------------- discovery
def resolve_engine(
    target: Any = None,
    *,
    cls: str | None = None,
    backward: str | None = None,
    data: str | None = None,
    grad: str | None = None,
    adapter: Any = None,
) -> Engine:
    """An :class:`Engine` from a module, ``"pkg.module"``, ``"pkg.module:Class"``, a class, an
    Engine, or ``None`` (ours).  The options name what discovery cannot find by itself;
    ``adapter`` (an :class:`~autograd.testing.engines.Adapter`, or ``"MODULE:OBJECT"`` naming
    one) audits an engine of any other API.
    """
    engine = _resolve(target, cls=cls, backward=backward, data=data, grad=grad, adapter=adapter)
    WORKING_PRECISION.set(engine.precision)  # the oracles' tolerances follow the engine checked
    return engine


def _resolve(
    target: Any, *, cls: str | None, backward: str | None, data: str | None, grad: str | None, adapter: Any
) -> Engine:
    if isinstance(target, Engine):
        return target
    if adapter is not None:
        return _adapter_engine(adapter, target)
    if target is None:
        import autograd

        target = autograd
    if isinstance(target, str):
        module_name, _, class_name = target.partition(":")
        cls = cls or class_name or None
        target = _import(module_name)
    if isinstance(target, type):
        candidates = [(target.__name__, target)]
        module_name = target.__module__
        space: Any = None
    else:
        space = target
        module_name = target.__name__ if isinstance(target, types.ModuleType) else ""
        candidates = _candidates(space, cls)
        if not module_name:  # a namespace: reproducers import the class's own module
            module_name = next((c.__module__ for _, c in candidates), "")
    rejected = []
    for attr_name, candidate in candidates:
        try:
            found = _fit(candidate, backward=backward, data=data, grad=grad)
        except _Rejected as why:
            rejected.append(f"{attr_name}: {why}")
            continue
        if isinstance(found, GradientOnRead):
            return _read_engine(found, module_name, attr_name)
        if isinstance(found, Accessors):
            return _accessors_engine(found, module_name, attr_name)
        data_attr, grad_attr, backward_method = found
        return Engine(
            Value=candidate,
            vsum=getattr(space, "vsum", None),
            dot=getattr(space, "dot", None),
            name=module_name,
            data_attr=data_attr,
            grad_attr=grad_attr,
            backward_method=backward_method,
            class_name=attr_name,
        )
    raise EngineNotFound(_not_found_message(target, cls, rejected))


def _import(module_name: str) -> types.ModuleType:
    """The target module; what importing it raises (no such module, or the module's own code
    failing) is the user's fact, said as :class:`EngineNotFound`.  Only the import runs inside
    the boundary, so an error of ours (even one met while the target imports our package) is
    re-raised."""
    try:
        module: types.ModuleType = boundary.engine_call("import", importlib.import_module, module_name)
    except boundary.EngineRaised as raised:
        if _ours(raised.exc):
            raise raised.exc from None
        exc = raised.exc
        raise EngineNotFound(f"cannot import {module_name!r}: {type(exc).__name__}: {exc}") from exc
    return module


def _ours(exc: BaseException) -> bool:
    """Whether ``exc`` was raised by the harness's own code (its innermost frame is in
    ``autograd.testing``): a bug of ours, never the target's."""
    tb = exc.__traceback__
    last = None
    while tb is not None:
        last, tb = tb.tb_frame, tb.tb_next
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return last is not None and last.f_code.co_filename.startswith(here)


def _adapter_engine(adapter: Any, target: Any) -> Engine:
    """The Engine of an adapter object, or of ``"MODULE:OBJECT"`` naming one (or a factory of one,
    called with the target module, or with nothing when there is no target)."""
    spec = adapter if isinstance(adapter, str) else _where_defined(adapter)
    if isinstance(adapter, str):
        module_name, _, attr = adapter.partition(":")
        if not attr:
            raise EngineNotFound(f"--adapter wants MODULE:OBJECT, got {adapter!r}")
        module = _import(module_name)
        if not hasattr(module, attr):
            raise EngineNotFound(f"the module {module_name!r} has no adapter {attr!r}")
        adapter = getattr(module, attr)
    call = ""
    if isinstance(adapter, type) or (not callable(getattr(adapter, "make", None)) and callable(adapter)):
        # a factory (a class, or a function) of the adapter
        if isinstance(target, str):
            target = _import(target.partition(":")[0])
        adapter = adapter(target) if target is not None else adapter()
        call = f"(importlib.import_module({target.__name__!r}))" if target is not None else "()"
    missing = [m for m in ("make", "data", "backward", "grad") if not callable(getattr(adapter, m, None))]
    if missing:
        raise EngineNotFound(
            f"the adapter {spec or adapter!r} lacks {', '.join(missing)}: an adapter has make(x), data(v), "
            "backward(output, leaves, create_graph=False) and grad(leaf) "
            "(see autograd.testing.engines.Adapter)"
        )
    if spec:
        module_name, _, attr = spec.partition(":")
        imports = "\n".join(
            [
                "import importlib" if call.startswith("(importlib") else "",
                "from autograd.testing.engines import scalar_class",
                f"from {module_name} import {attr}",
                f"Value = scalar_class({attr}{call})",
            ]
        ).lstrip("\n")
    else:  # an object made on the fly: the reproducer says where to put it
        imports = (
            "from autograd.testing.engines import scalar_class\nValue = scalar_class(ADAPTER)  # your adapter"
        )
    name = str(getattr(adapter, "name", "") or spec or type(adapter).__name__)
    return Engine(
        Value=scalar_class(adapter),
        name=name,
        class_name="Value",
        gradient_api="adapter",
        gradient_convention=str(
            getattr(adapter, "convention", "") or "the output passed to the adapter's backward"
        ),
        imports=imports,
        adapter=spec or type(adapter).__qualname__,
    )


def _where_defined(obj: Any) -> str:
    """``MODULE:NAME`` of an object found at the top level of a module, else ''."""
    for module_name in (getattr(obj, "__module__", None), type(obj).__module__):
        module = sys.modules.get(module_name or "")
        for name, value in vars(module).items() if module else ():
            if value is obj and not name.startswith("_"):
                return f"{module_name}:{name}"
    return ""


def _read_engine(adapter: GradientOnRead, module_name: str, class_name: str) -> Engine:
    """The Engine of a gradient-on-read class (found by discovery)."""
    imports = "\n".join(
        [
            "from autograd.testing.engines import GradientOnRead, scalar_class",
            f"from {module_name} import {class_name}",
            f"Value = scalar_class(GradientOnRead({class_name}, {adapter.data_attr!r}, {adapter.method!r}, "
            f"{adapter.convention!r}))",
        ]
    )
    called = adapter.convention in ("passed", "output")  # x.grad(y), y.der(x): a method, with an argument
    member = adapter.method if called else shown_as(adapter.cls, adapter.method)
    return Engine(
        Value=scalar_class(adapter),
        name=module_name,
        class_name="Value",
        data_attr="data",
        grad_attr="grad",
        gradient_api=f"read: {class_name}.{adapter.method}",
        gradient_convention=READ_CONVENTIONS[adapter.convention].format(m=member),
        imports=imports,
    )


def _accessors_engine(adapter: Accessors, module_name: str, class_name: str) -> Engine:
    """The Engine of a class with a backward method whose number or gradient is behind a method."""
    settable = hasattr(adapter, "set_grad")
    imports = "\n".join(
        [
            "from autograd.testing.engines import Accessors, scalar_class",
            f"from {module_name} import {class_name}",
            f"Value = scalar_class(Accessors({class_name}, {adapter.data_attr!r}, {adapter.grad_attr!r}, "
            f"{adapter.backward_method!r}{', settable=True' if settable else ''}))",
        ]
    )
    shown = [shown_as(adapter.cls, n) for n in (adapter.data_attr, adapter.grad_attr)]
    return Engine(
        Value=scalar_class(adapter),
        name=module_name,
        class_name="Value",
        data_attr="data",
        grad_attr="grad",
        gradient_api=f"backward: {class_name}.{adapter.backward_method}(); number {class_name}.{shown[0]}, "
        f"gradient {class_name}.{shown[1]}",
        gradient_convention=f"the output {adapter.backward_method}() is called on",
        imports=imports,
    )


class _Rejected(Exception):
    pass


def _candidates(space: Any, cls: str | None) -> list[tuple[str, type]]:
    """The classes of a module or namespace worth trying, the likeliest first."""
    if cls is not None:
        found = getattr(space, cls, None)
        if not isinstance(found, type):
            raise EngineNotFound(f"{_label(space)} has no class {cls!r}")
        return [(cls, found)]
    own = getattr(space, "__name__", "").split(".")[0]
    classes = [
        (name, obj)
        for name, obj in getattr(space, "__dict__", {}).items()
        if isinstance(obj, type)
        and not name.startswith("__")
        # classes of the target's own package (a module re-exporting its engine's class counts)
        and (not own or obj.__module__.split(".")[0] == own or not isinstance(space, types.ModuleType))
    ]
    # a conventional name only decides the order of trial, never whether a class fits
    usual = ("Value", "Scalar", "Variable", "Var", "Tensor", "Node")
    return sorted(classes, key=lambda nc: usual.index(nc[0]) if nc[0] in usual else len(usual))


def _label(target: Any) -> str:
    return getattr(target, "__name__", None) or repr(target)


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
    read as the number it holds (:func:`~autograd.testing.engines.adapter.as_number`)."""
    found = {}
    for name in _attribute_names(obj):
        ok, value = engine_call(_read_number, obj, name)  # a property, an item(): the engine's code
        if ok and is_number(value):
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
    ok, attr = engine_call(getattr, x, name)
    return ok and callable(attr)


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
        ok, got = engine_call(read_member, x, data)
        if not ok or not is_number(got):
            raise _Rejected(f"no attribute or zero-argument method {data!r} giving a number")
        return data
    holding = [n for n, v in before.items() if v == PROBE_NUMBER]
    if holding:
        return _ordered(holding, DATA_NAMES)[0]
    for method in _ordered(_methods(x), DATA_NAMES):  # the usual names first; the first that fits wins
        ok, got = engine_call(_method_reading, candidate, method, None, "")
        if ok and is_number(got) and got == PROBE_NUMBER:
            return method
    raise _Rejected(
        f"no attribute or zero-argument method gives the number it was built from ({PROBE_NUMBER}); "
        f"attributes tried: {sorted(before)}"
    )


def _fit(
    candidate: type, *, backward: str | None, data: str | None, grad: str | None
) -> tuple[str, str, str] | GradientOnRead | Accessors:
    """(data attribute, grad attribute, backward method) of a class that behaves like a scalar,
    the adapter of one whose number or gradient is behind a method (:class:`Accessors`), or the
    adapter of one whose gradient is computed on read (:class:`GradientOnRead`)."""
    ok, x = engine_call(candidate, PROBE_NUMBER)
    if not ok:
        raise _Rejected(f"{candidate.__name__}({PROBE_NUMBER}) raised {type(x).__name__}: {x}")
    missing = [d for d in ("__add__", "__mul__") if not callable(getattr(candidate, d, None))]
    if missing:
        raise _Rejected(f"no {' or '.join(missing)}")
    before = _numbers(x)
    data_attr = _find_data(candidate, x, before, data)
    if backward is not None:
        methods = [backward]
        if not _has_method(x, backward):
            raise _Rejected(f"no method {backward!r}")
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
    tried = []
    builds: list[Callable[[Any], Any]] = [lambda v: v * 1, lambda v: v * candidate(1), lambda v: v + 0]
    for method in methods:
        for build in builds:
            ok, x = engine_call(candidate, PROBE_NUMBER)
            before = _numbers(x) if ok else {}  # ours: outside the engine boundary
            ok, result = (ok, x) if not ok else engine_call(_backward_from, build, x, method)
            if not ok:
                tried.append(f"{method}(): {type(result).__name__}: {result}")
                continue
            after = _numbers(x)
            if grad is not None:
                if grad in after:
                    return _fill(candidate, data_attr, grad, method)
                ok, got = engine_call(_method_reading, candidate, grad, build, method)
                if ok and is_number(got):
                    return _fill(candidate, data_attr, grad, method)
                raise _Rejected(f"no numeric attribute {grad!r} after {method}()")
            changed = [n for n, v in after.items() if n != data_attr and before.get(n) != v]
            if changed:
                ones = [n for n in changed if after[n] == 1]
                return _fill(candidate, data_attr, _ordered(ones or changed, GRAD_NAMES)[0], method)
            reader = _gradient_method(candidate, data_attr, method, build)
            if reader is not None:
                return _fill(candidate, data_attr, reader, method)
            tried.append(f"{method}() on y = x * 1 changed no numeric attribute or zero-argument method of x")
            break
    if backward is None:
        return _gradient_on_read(candidate, data_attr, grad, "; ".join(dict.fromkeys(tried)))
    raise _Rejected("; ".join(dict.fromkeys(tried)) or "no backward method worked")


def _gradient_method(
    candidate: type, data_attr: str, backward: str, build: Callable[[Any], Any]
) -> str | None:
    """A zero-argument method of the leaf whose number ``backward()`` changed (the gradient, read
    as ``x.grad()``): each method read on a fresh leaf, then on a fresh one after a pass (a
    reading may have effects)."""
    x = candidate(PROBE_NUMBER)
    for method in _ordered(_methods(x, skip=(data_attr, backward, *BACKWARD_NAMES)), GRAD_NAMES):
        ok, old = engine_call(_method_reading, candidate, method, None, backward)
        ok, new = engine_call(_method_reading, candidate, method, build, backward) if ok else (False, None)
        if ok and is_number(old) and is_number(new) and old != new:
            return method
    return None


def _fill(candidate: type, data_attr: str, grad_attr: str, backward: str) -> tuple[str, str, str] | Accessors:
    """A backward that fills a gradient: plain attributes are read by the Engine itself, a member
    behind a method through :class:`Accessors`."""
    x = candidate(PROBE_NUMBER)
    behind = [n for n in (data_attr, grad_attr) if _has_method(x, n)]
    if not behind:
        return data_attr, grad_attr, backward
    ok, _ = (False, None) if grad_attr in behind else engine_call(setattr, x, grad_attr, 0)
    return Accessors(candidate, data_attr, grad_attr, backward, settable=ok)


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
    x = candidate(PROBE_NUMBER)
    ok, y = engine_call(lambda: x * candidate(3.0))
    names = {m for obj in ((x, y) if ok else (x,)) for m in dir(obj) if not m.startswith("_")}
    usual = tuple(n for n in names if any(k in n.lower() for k in ("grad", "deriv", "der", "diff", "adj")))
    return _ordered(names, (*GRAD_NAMES, *sorted(usual)))


def _gradient_on_read(candidate: type, data_attr: str, grad: str | None, why: str) -> GradientOnRead:
    """The adapter of a class some member of which returns d(output)/d(leaf) when read, or _Rejected.

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
                ok, got = engine_call(_known_read, candidate, data_attr, member, form, build)
                if ok and is_number(got) and got == want:
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
    raise _Rejected(f"{why}; no gradient computed on read either ({reads})")


def _not_found_message(target: Any, cls: str | None, rejected: list[str]) -> str:
    where = _label(target)
    lines = [
        f"no scalar autograd class found in {where}: looked for a class constructible from a number "
        f"({PROBE_NUMBER}), with __add__ and __mul__, an attribute holding that number "
        f"(such as {', '.join(DATA_NAMES[:4])}), and a backward method "
        f"(such as {', '.join(BACKWARD_NAMES[:3])}) "
        f"that fills a gradient attribute (such as {', '.join(GRAD_NAMES[:3])}) of x on y = x * 1."
    ]
    if rejected:
        lines.append("candidates tried: " + "; ".join(rejected))
    else:
        lines.append(f"{where} has no classes to try" + ("" if cls else " (name one with --class)"))
    lines.append("name what cannot be found with --class NAME, --backward NAME, --data NAME, --grad NAME")
    return "\n".join(lines)
