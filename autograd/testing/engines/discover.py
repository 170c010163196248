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
import os
import sys
import types
from typing import Any

from autograd.testing import boundary
from autograd.testing.engines.adapter import scalar_class
from autograd.testing.engines.apis import Accessors, GradientOnRead
from autograd.testing.engines.engine import Engine, EngineNotFound
from autograd.testing.engines.fit import BACKWARD_NAMES, DATA_NAMES, GRAD_NAMES, PROBE_NUMBER, Rejected, fit
from autograd.testing.engines.forms import accessors_engine, read_engine

__all__ = ["resolve_engine"]


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
    return _resolve(target, cls=cls, backward=backward, data=data, grad=grad, adapter=adapter)


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
            found = fit(candidate, backward=backward, data=data, grad=grad)
        except Rejected as why:
            rejected.append(f"{attr_name}: {why}")
            continue
        if isinstance(found, GradientOnRead):
            return read_engine(found, module_name, attr_name)
        if isinstance(found, Accessors):
            return accessors_engine(found, module_name, attr_name)
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
