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
import sys
import types
from collections.abc import Callable, Iterable
from numbers import Number
from typing import Any

from autograd.testing.engines.adapter import Engine, EngineNotFound, engine_call, scalar_class
from autograd.testing.engines.apis import READ_CONVENTIONS, GradientOnRead, read_convention

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
    try:
        return importlib.import_module(module_name)
    except Exception as exc:  # ImportError, or the module's own error while importing
        raise EngineNotFound(f"cannot import {module_name!r}: {type(exc).__name__}: {exc}") from exc


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
    return Engine(
        Value=scalar_class(adapter),
        name=module_name,
        class_name="Value",
        data_attr="data",
        grad_attr="grad",
        gradient_api=f"read: {class_name}.{adapter.method}",
        gradient_convention=READ_CONVENTIONS[adapter.convention].format(m=adapter.method),
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
    """The number-valued attributes of an instance (see :func:`_attribute_names`)."""
    found = {}
    for name in _attribute_names(obj):
        ok, value = engine_call(getattr, obj, name)  # a property is the engine's code
        if ok and isinstance(value, Number) and not isinstance(value, bool):
            found[name] = value
    return found


def _backward_from(build: Callable[[Any], Any], x: Any, method: str) -> Any:
    """The engine's work in a discovery trial: build ``y`` from ``x`` and call ``y.method()``."""
    return getattr(build(x), method)()


def _has_method(x: Any, name: str) -> bool:
    """Whether ``x.name`` is callable (reading it is the engine's code: a property may raise)."""
    ok, attr = engine_call(getattr, x, name)
    return ok and callable(attr)


def _ordered(names: Iterable[str], preferred: tuple[str, ...]) -> list[str]:
    return sorted(names, key=lambda n: (preferred.index(n) if n in preferred else len(preferred), n))


def _fit(
    candidate: type, *, backward: str | None, data: str | None, grad: str | None
) -> tuple[str, str, str] | GradientOnRead:
    """(data attribute, grad attribute, backward method) of a class that behaves like a scalar,
    or the adapter of a class whose gradient is computed on read."""
    ok, x = engine_call(candidate, PROBE_NUMBER)
    if not ok:
        raise _Rejected(f"{candidate.__name__}({PROBE_NUMBER}) raised {type(x).__name__}: {x}")
    missing = [d for d in ("__add__", "__mul__") if not callable(getattr(candidate, d, None))]
    if missing:
        raise _Rejected(f"no {' or '.join(missing)}")
    before = _numbers(x)
    if data is not None:
        if data not in before and not engine_call(getattr, x, data)[0]:
            raise _Rejected(f"no attribute {data!r}")
        data_attr = data
    else:
        holding = [n for n, v in before.items() if v == PROBE_NUMBER]
        if not holding:
            raise _Rejected(
                f"no attribute holds the number it was built from ({PROBE_NUMBER}); tried {sorted(before)}"
            )
        data_attr = _ordered(holding, DATA_NAMES)[0]
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
                if grad not in after:
                    raise _Rejected(f"no numeric attribute {grad!r} after {method}()")
                return data_attr, grad, method
            changed = [n for n, v in after.items() if n != data_attr and before.get(n) != v]
            if changed:
                ones = [n for n in changed if after[n] == 1]
                return data_attr, _ordered(ones or changed, GRAD_NAMES)[0], method
            tried.append(f"{method}() on y = x * 1 changed no numeric attribute of x")
            break
    if backward is None:
        return _gradient_on_read(candidate, data_attr, grad, "; ".join(dict.fromkeys(tried)))
    raise _Rejected("; ".join(dict.fromkeys(tried)) or "no backward method worked")


def _gradient_on_read(candidate: type, data_attr: str, grad: str | None, why: str) -> GradientOnRead:
    """The adapter of a class whose leaves return their gradient from a method, or _Rejected."""
    x = candidate(PROBE_NUMBER)
    if grad is not None:
        methods = [grad]
    else:
        methods = [m for m in GRAD_NAMES if _has_method(x, m)]
        methods += sorted(
            m
            for m in dir(candidate)
            if ("grad" in m.lower() or "deriv" in m.lower()) and m not in methods and not m.startswith("__")
            and _has_method(x, m)
        )  # fmt: skip
    seen = []
    for method in methods:
        ok, found = engine_call(read_convention, candidate, data_attr, method)
        if not ok:
            seen.append(f"{method}: {type(found).__name__}: {found}")
            continue
        convention, observed = found
        if convention is not None:
            return GradientOnRead(candidate, data_attr, method, convention)
        seen.append(f"{method} on y1 = x * 3, y2 = x * 5 gave {observed}")
    reads = "; ".join(seen) if seen else "no method named like a gradient (grad, gradient, *deriv*)"
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
