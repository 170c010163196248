"""The :class:`Engine` of a class discovery found in a form other than "a backward method fills
an attribute": a class whose gradient is computed on read, and a class with a backward method
whose number or gradient is behind a method.  Each is run through its adapter
(:mod:`autograd.testing.engines.apis`) as a scalar class, and its reproducers start with the
lines that build that class (:func:`~autograd.testing.engines.scalar_class`).
"""

from __future__ import annotations

from autograd.testing.engines.adapter import scalar_class
from autograd.testing.engines.apis import READ_CONVENTIONS, Accessors, GradientOnRead, shown_as
from autograd.testing.engines.engine import Engine

__all__ = ["accessors_engine", "read_engine"]


def read_engine(adapter: GradientOnRead, module_name: str, class_name: str) -> Engine:
    """The Engine of a gradient-on-read class (found by discovery)."""
    made = f"GradientOnRead({class_name}, {adapter.data_attr!r}, {adapter.method!r}, {adapter.convention!r})"
    called = adapter.convention in ("passed", "output")  # x.grad(y), y.der(x): a method, with an argument
    member = adapter.method if called else shown_as(adapter.cls, adapter.method)
    return _engine(
        adapter,
        module_name,
        class_name,
        made,
        gradient_api=f"read: {class_name}.{adapter.method}",
        gradient_convention=READ_CONVENTIONS[adapter.convention].format(m=member),
    )


def accessors_engine(adapter: Accessors, module_name: str, class_name: str) -> Engine:
    """The Engine of a class with a backward method whose number or gradient is behind a method."""
    settable = ", settable=True" if hasattr(adapter, "set_grad") else ""
    made = (
        f"Accessors({class_name}, {adapter.data_attr!r}, {adapter.grad_attr!r}, "
        f"{adapter.backward_method!r}{settable})"
    )
    shown = [shown_as(adapter.cls, n) for n in (adapter.data_attr, adapter.grad_attr)]
    return _engine(
        adapter,
        module_name,
        class_name,
        made,
        gradient_api=f"backward: {class_name}.{adapter.backward_method}(); number {class_name}.{shown[0]}, "
        f"gradient {class_name}.{shown[1]}",
        gradient_convention=f"the output {adapter.backward_method}() is called on",
    )


def _engine(
    adapter: Accessors | GradientOnRead,
    module_name: str,
    class_name: str,
    made: str,
    *,
    gradient_api: str,
    gradient_convention: str,
) -> Engine:
    """The Engine of the class ``module_name.class_name`` run through ``adapter`` as a scalar class;
    ``made`` is the adapter as the reproducers build it."""
    imports = "\n".join(
        [
            f"from autograd.testing.engines import {type(adapter).__name__}, scalar_class",
            f"from {module_name} import {class_name}",
            f"Value = scalar_class({made})",
        ]
    )
    return Engine(
        Value=scalar_class(adapter),
        name=module_name,
        class_name="Value",
        data_attr="data",
        grad_attr="grad",
        gradient_api=gradient_api,
        gradient_convention=gradient_convention,
        imports=imports,
    )
