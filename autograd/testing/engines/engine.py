"""The one interface between the harness and an engine: :class:`Engine`.

Every piece of harness code reaches an engine's Values only through an
:class:`Engine` (``eng.make(x)``, ``eng.data(v)``, ``eng.grad(v)``,
``eng.set_grad(v, g)``, ``eng.backward(v)``, ``eng.apply(op, values, c)``), because
engines name these differently: a ``Scalar`` with ``.value``, ``.gradient`` and
``backwards()`` is as welcome as our ``Value``.  Each resolves what to call in the
engine first, then makes only that call inside the boundary
(:func:`autograd.testing.boundary.engine_call`): what the engine raises comes out as
``EngineRaised``, a fault of the harness propagates as itself.  An engine of another API
is given as an adapter (:mod:`autograd.testing.engines.adapter`), which becomes a scalar
class; :class:`Engine` itself follows the adapter protocol (``make``, ``data``,
``backward(output, leaves)``, ``grad``, ``set_grad``).
"""

from __future__ import annotations

import functools
import operator
import struct
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from numbers import Number
from typing import Any

from autograd.testing import boundary
from autograd.testing.engines.numbers import PLAIN, as_number, write_grad

__all__ = ["Engine", "EngineNotFound"]


class EngineNotFound(TypeError):
    """No scalar autograd class in the target (the message lists what was tried and why it failed)."""


@dataclass(frozen=True)
class Engine:
    """A scalar class, how to reach its number, gradient and backward pass, and its fused ops."""

    Value: type
    vsum: Callable[..., Any] | None = None
    dot: Callable[..., Any] | None = None
    name: str = "autograd"  # the module the reproducers import from (or the adapter's name)
    data_attr: str = "data"
    grad_attr: str = "grad"
    backward_method: str = "backward"
    class_name: str = ""  # the name the class is imported under ('' = its __name__)
    #: How the engine's gradient is reached: "backward" (a method filling an attribute), or
    #: "adapter" (a :class:`Adapter`, through :func:`scalar_class`).
    gradient_api: str = "backward"
    #: What the gradient differentiates, in words (e.g. "the output passed to backward").
    gradient_convention: str = "the output backward() is called on"
    #: The reproducers' first lines when the class is not importable by name ('' = import it).
    imports: str = ""
    adapter: str = ""  # the adapter, as MODULE:OBJECT, when one was given
    _supported: dict[str, bool] = field(default_factory=dict, compare=False, hash=False, repr=False)

    def __post_init__(self) -> None:
        if not self.class_name:
            object.__setattr__(self, "class_name", self.Value.__name__)

    # ------------------------------------------------------------------ accessors (the protocol)
    # Each resolves what to call in the engine here, then calls only that inside the boundary
    # (:func:`autograd.testing.boundary.engine_call`): what the engine raises comes out as
    # ``EngineRaised`` (with ``stage``), a fault of these lines of ours propagates as it is.
    def make(self, x: Any, *, stage: str = "forward") -> Any:
        """A leaf Value holding ``x``."""
        return boundary.engine_call(stage, self.Value, x)

    def data(self, v: Any, *, stage: str = "forward") -> Any:
        """The number ``v`` holds (read from a 0-d array when the engine keeps one: :func:`as_number`)."""
        x = boundary.engine_call(stage, getattr, v, self.data_attr)
        return x if type(x) in PLAIN else boundary.engine_call(stage, as_number, x, self.Value)

    def grad(self, v: Any, *, stage: str = "backward()") -> Any:
        """``v``'s gradient: a number (as :meth:`data`), or a Value of the engine under create_graph."""
        g = boundary.engine_call(stage, getattr, v, self.grad_attr)
        return g if type(g) in PLAIN else boundary.engine_call(stage, as_number, g, self.Value)

    def set_grad(self, v: Any, g: Any, *, stage: str = "setting a gradient") -> None:
        """Write ``g`` as ``v``'s gradient, in the engine's own kind (:func:`in_kind`)."""
        write_grad(v, self.grad_attr, g, keep=self.Value, stage=stage)

    def backward(
        self, v: Any, leaves: Sequence[Any] = (), *, create_graph: bool = False, stage: str = "backward()"
    ) -> Any:
        """Run the engine's backward pass from ``v`` (it finds the leaves itself)."""
        kwargs = {"create_graph": True} if create_graph else {}
        return boundary.engine_call(stage, operator.methodcaller(self.backward_method, **kwargs), v)

    def apply(self, spec: Any, values: Sequence[Any], const: Any = None, *, stage: str = "forward") -> Any:
        """The op ``spec`` (an :class:`~autograd.testing.ops.OpSpec`) applied to the engine's
        ``values`` (with its constant ``const``): what to call and with which operands is chosen
        here, from the row's :class:`~autograd.testing.ops.Call`; only the call is the engine's."""
        fn, args = self.call_of(spec, values, const)
        return boundary.engine_call(stage, fn, *args)

    def call_of(
        self, spec: Any, values: Sequence[Any], const: Any = None
    ) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        """What :meth:`apply` calls, without calling it: the engine's callable and its arguments.
        For code that runs the engine's ops itself, outside the audit (a function traced by a
        compiler): what the engine raises then is its own exception, not ``EngineRaised``."""
        call = spec.call
        if call.target is None:
            raise TypeError(
                f"{spec.name} has no call of its own (a catalogue row): apply the engine's method"
            )
        if call.fused:
            fn = getattr(self, call.target)
            if fn is None:
                raise TypeError(
                    f"{spec.name}: the engine {self.name} has no {call.target} (ask supports() first)"
                )
            if call.target == "dot":
                k = len(values) // 2
                return fn, (list(values[:k]), list(values[k : 2 * k]), values[-1])
            return fn, (list(values),)
        if len(values) != spec.arity:
            raise TypeError(f"{spec.name} takes {spec.arity} operands, given {len(values)}")
        named = {f"v{i}": v for i, v in enumerate(values)}
        if "c" in call.operands and const is None:
            raise TypeError(f"{spec.name} needs a constant, given None")
        named["c"] = const
        operands = (*(named[o] for o in call.operands), *call.numbers)
        if isinstance(call.target, str):  # a method of the first operand
            return operator.methodcaller(call.target, *operands[1:]), operands[:1]
        return call.target, operands

    def import_line(self, fused: Iterable[str] = ()) -> str:
        """The import a reproducer starts with, e.g. ``from micrograd.engine import Value``."""
        if self.imports:
            return self.imports
        return f"from {self.name} import {', '.join([self.class_name, *sorted(set(fused))])}"

    # ------------------------------------------------------------------ capabilities
    def supports(self, op_name: str) -> bool:
        """Whether this engine has the op (probed on a harmless point, cached; errors mean 'no')."""
        if op_name not in self._supported:
            from autograd.testing.engines.support import supported
            from autograd.testing.ops import OPS

            self._supported[op_name] = supported(self, OPS[op_name])
        return self._supported[op_name]

    # (each probe calls the engine only through the accessors above and ``boundary.engine_call``:
    # what the engine raises means "no"; a fault of ours propagates)
    @functools.cached_property
    def higher_order(self) -> bool:
        """Whether ``backward(create_graph=True)`` leaves differentiable gradients (Values)."""
        at = "probing backward(create_graph=True)"
        try:
            x = self.make(1.5, stage=at)
            self.backward(boundary.engine_call(at, operator.mul, x, x), create_graph=True, stage=at)
            g = self.grad(x, stage=at)
        except boundary.EngineRaised:  # an engine without the keyword: no higher order
            return False
        return isinstance(g, self.Value)

    @functools.cached_property
    def precision(self) -> str:
        """``"float32"`` when every number the engine shows is a float32 (its data of 0.1 is
        0.10000000149011612, and so are its sums and products rounded), else ``"float64"``."""
        at = "probing the precision"
        try:
            a, b = self.make(0.1, stage=at), self.make(1 / 3, stage=at)
            values = [a, b, *(boundary.engine_call(at, op, a, b) for op in (operator.add, operator.mul))]
            numbers = [self.data(v, stage=at) for v in values]
        except boundary.EngineRaised:
            return "float64"  # the forward check says what is wrong with it
        if not all(isinstance(n, Number) and not isinstance(n, bool | complex) for n in numbers):
            return "float64"
        return "float32" if all(_is_float32(float(n)) for n in numbers) else "float64"

    @functools.cached_property
    def settable_grad(self) -> bool:
        """Whether the harness can write a leaf's gradient (``set_grad(v, 0)``, as zero_grad does):
        not when the gradient is a read-only property or a method, or an adapter has no ``set_grad``."""
        try:
            self.set_grad(self.make(1.5, stage="probing set_grad"), 0, stage="probing set_grad")
        except boundary.EngineRaised:
            return False
        return True

    @functools.cached_property
    def number_types(self) -> dict[str, str]:
        """How the engine treats ``int`` and ``Fraction`` data through + - * / and backward.

        ``exact`` (stays that type, gradients too), ``float`` (accepted but made a float on
        the way) or ``refused`` (an exception).
        """
        return {"int": self._number_type(3, 2), "fraction": self._number_type(Fraction(1, 3), Fraction(2, 5))}

    def _number_type(self, a: Any, b: Any) -> str:
        at = "probing number types"
        try:
            x, y = self.make(a, stage=at), self.make(b, stage=at)
        except boundary.EngineRaised:
            return "refused"
        outs = []
        for op in (operator.add, operator.mul, operator.sub, operator.truediv):
            try:
                outs.append(boundary.engine_call(at, op, x, y))
            except boundary.EngineRaised:
                if not outs:  # an op the engine lacks, or refuses for this type
                    return "refused"
        try:
            total = outs[0]
            for out in outs[1:]:
                total = boundary.engine_call(at, operator.add, total, out)
            self.backward(total, stage=at)
            numbers = [self.data(o, stage=at) for o in [*outs, total]]
            numbers += [self.grad(x, stage=at), self.grad(y, stage=at)]
        except boundary.EngineRaised:
            return "refused"
        # (int / int is a Fraction in an exact engine, never a rounded float)
        return "exact" if all(type(n) in (int, Fraction) for n in numbers) else "float"

    @property
    def exact(self) -> bool:
        """Fractions stay exact through + - * / and backward: exact oracles apply."""
        return self.number_types["fraction"] == "exact"


def _is_float32(x: float) -> bool:
    """Whether ``x`` is a float32 number (it survives a round trip through 4 bytes)."""
    try:
        return bool(struct.unpack("f", struct.pack("f", x))[0] == x)
    except OverflowError:
        return False
