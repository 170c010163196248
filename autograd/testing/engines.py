"""What the harness needs to know about an engine, whatever form it is given in.

Every piece of harness code reaches an engine's Values only through an
:class:`Engine` (``eng.make(x)``, ``eng.data(v)``, ``eng.grad(v)``,
``eng.backward(v)``), because engines name these differently: a ``Scalar`` with
``.value``, ``.gradient`` and ``backwards()`` is as welcome as our ``Value``.

:func:`resolve_engine` finds the scalar class by behaviour, not by name: a class
of the target module (or re-exported there) that is constructible from a number,
has ``__add__`` and ``__mul__``, shows the number through some attribute, and
has a method that, called on ``y = x * 1``, changes a numeric attribute of ``x``
(its gradient).  What cannot be discovered is given by the keyword options (the
``--class``/``--backward``/``--data``/``--grad`` options of ``python -m
autograd.testing audit``); when nothing fits, :class:`EngineNotFound` says what
was looked for and why each candidate was rejected.
"""

from __future__ import annotations

import functools
import importlib
import operator
import types
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from numbers import Number
from typing import Any

__all__ = ["Engine", "EngineNotFound", "resolve_engine"]

#: Attribute names tried first (in this order); any other attribute may match too.
DATA_NAMES = ("data", "value", "val", "x", "v", "item", "scalar", "num", "number", "_data", "_value")
GRAD_NAMES = ("grad", "gradient", "g", "grad_value", "adjoint", "dx", "d", "_grad", "_gradient")
BACKWARD_NAMES = ("backward", "backwards", "backprop", "back_prop", "backpropagate", "grad_backward", "bprop")
#: The number a candidate is built from: distinctive, so that an attribute equal to it is the data.
PROBE_NUMBER = 0.75


class EngineNotFound(TypeError):
    """No scalar autograd class in the target (the message lists what was tried and why it failed)."""


@dataclass(frozen=True)
class Engine:
    """A scalar class, how to reach its number, gradient and backward pass, and its fused ops."""

    Value: type
    vsum: Callable[..., Any] | None = None
    dot: Callable[..., Any] | None = None
    name: str = "autograd"  # the module the reproducers import from
    data_attr: str = "data"
    grad_attr: str = "grad"
    backward_method: str = "backward"
    class_name: str = ""  # the name the class is imported under ('' = its __name__)
    _supported: dict[str, bool] = field(default_factory=dict, compare=False, hash=False, repr=False)

    def __post_init__(self) -> None:
        if not self.class_name:
            object.__setattr__(self, "class_name", self.Value.__name__)

    # ------------------------------------------------------------------ accessors
    def make(self, x: Any) -> Any:
        """A leaf Value holding ``x``."""
        return self.Value(x)

    def data(self, v: Any) -> Any:
        return getattr(v, self.data_attr)

    def grad(self, v: Any) -> Any:
        return getattr(v, self.grad_attr)

    def set_grad(self, v: Any, g: Any) -> None:
        setattr(v, self.grad_attr, g)

    def backward(self, v: Any, *, create_graph: bool = False) -> Any:
        method = getattr(v, self.backward_method)
        return method(create_graph=True) if create_graph else method()

    def import_line(self, fused: Iterable[str] = ()) -> str:
        """The import a reproducer starts with, e.g. ``from micrograd.engine import Value``."""
        return f"from {self.name} import {', '.join([self.class_name, *sorted(set(fused))])}"

    # ------------------------------------------------------------------ capabilities
    def supports(self, op_name: str) -> bool:
        """Whether this engine has the op (probed on a harmless point, cached; errors mean 'no')."""
        if op_name not in self._supported:
            from autograd.testing.ops import OPS

            self._supported[op_name] = OPS[op_name].supported_by(self)
        return self._supported[op_name]

    @functools.cached_property
    def higher_order(self) -> bool:
        """Whether ``backward(create_graph=True)`` leaves differentiable gradients (Values)."""
        try:
            x = self.make(1.5)
            self.backward(x * x, create_graph=True)
            return isinstance(self.grad(x), self.Value)
        except Exception:  # an engine without the keyword, or any failure: no higher order
            return False

    @functools.cached_property
    def number_types(self) -> dict[str, str]:
        """How the engine treats ``int`` and ``Fraction`` data through + - * / and backward.

        ``exact`` (stays that type, gradients too), ``float`` (accepted but made a float on
        the way) or ``refused`` (an exception).
        """
        return {"int": self._number_type(3, 2), "fraction": self._number_type(Fraction(1, 3), Fraction(2, 5))}

    def _number_type(self, a: Any, b: Any) -> str:
        try:
            x, y = self.make(a), self.make(b)
        except Exception:
            return "refused"
        outs = []
        for op in (operator.add, operator.mul, operator.sub, operator.truediv):
            try:
                outs.append(op(x, y))
            except Exception:  # an op the engine lacks, or refuses for this type
                if not outs:
                    return "refused"
        try:
            total = functools.reduce(operator.add, outs)
            self.backward(total)
            numbers = [self.data(o) for o in [*outs, total]] + [self.grad(x), self.grad(y)]
        except Exception:
            return "refused"
        # (int / int is a Fraction in an exact engine, never a rounded float)
        return "exact" if all(type(n) in (int, Fraction) for n in numbers) else "float"

    @property
    def exact(self) -> bool:
        """Fractions stay exact through + - * / and backward: exact oracles apply."""
        return self.number_types["fraction"] == "exact"


# ---------------------------------------------------------------------- discovery
def resolve_engine(
    target: Any = None,
    *,
    cls: str | None = None,
    backward: str | None = None,
    data: str | None = None,
    grad: str | None = None,
) -> Engine:
    """An :class:`Engine` from a module, ``"pkg.module"``, ``"pkg.module:Class"``, a class, an
    Engine, or ``None`` (ours).  The options name what discovery cannot find by itself.
    """
    if isinstance(target, Engine):
        return target
    if target is None:
        import autograd

        target = autograd
    if isinstance(target, str):
        module_name, _, class_name = target.partition(":")
        cls = cls or class_name or None
        try:
            target = importlib.import_module(module_name)
        except Exception as exc:  # ImportError, or the module's own error while importing
            raise EngineNotFound(f"cannot import {module_name!r}: {type(exc).__name__}: {exc}") from exc
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


def _numbers(obj: Any) -> dict[str, Any]:
    """The number-valued attributes of an instance (plain attributes and slots)."""
    names = set(getattr(obj, "__dict__", {}))
    for klass in type(obj).__mro__:
        slots = getattr(klass, "__slots__", ())
        names.update([slots] if isinstance(slots, str) else slots)
    found = {}
    for name in names:
        try:
            value = getattr(obj, name)
        except AttributeError:
            continue
        if isinstance(value, Number) and not isinstance(value, bool):
            found[name] = value
    return found


def _ordered(names: Iterable[str], preferred: tuple[str, ...]) -> list[str]:
    return sorted(names, key=lambda n: (preferred.index(n) if n in preferred else len(preferred), n))


def _fit(
    candidate: type, *, backward: str | None, data: str | None, grad: str | None
) -> tuple[str, str, str]:
    """(data attribute, grad attribute, backward method) of a class that behaves like a scalar."""
    try:
        x = candidate(PROBE_NUMBER)
    except Exception as exc:
        raise _Rejected(f"{candidate.__name__}({PROBE_NUMBER}) raised {type(exc).__name__}: {exc}") from None
    missing = [d for d in ("__add__", "__mul__") if not callable(getattr(candidate, d, None))]
    if missing:
        raise _Rejected(f"no {' or '.join(missing)}")
    before = _numbers(x)
    if data is not None:
        if not hasattr(x, data):
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
        if not callable(getattr(x, backward, None)):
            raise _Rejected(f"no method {backward!r}")
    else:
        methods = [m for m in BACKWARD_NAMES if callable(getattr(x, m, None))]
        methods += sorted(
            m
            for m in dir(candidate)
            if "back" in m.lower() and m not in methods and not m.startswith("__")
            and callable(getattr(x, m, None))
        )  # fmt: skip
        if not methods:
            raise _Rejected(f"no backward method (looked for {', '.join(BACKWARD_NAMES)} or any '*back*')")
    tried = []
    builds: list[Callable[[Any], Any]] = [lambda v: v * 1, lambda v: v * candidate(1), lambda v: v + 0]
    for method in methods:
        for build in builds:
            try:
                x = candidate(PROBE_NUMBER)
                before = _numbers(x)
                y = build(x)
                getattr(y, method)()
            except Exception as exc:
                tried.append(f"{method}(): {type(exc).__name__}: {exc}")
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
    raise _Rejected("; ".join(dict.fromkeys(tried)) or "no backward method worked")


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
