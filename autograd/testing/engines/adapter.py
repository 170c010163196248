"""The one interface between the harness and an engine: :class:`Engine`, and the adapter protocol.

Every piece of harness code reaches an engine's Values only through an
:class:`Engine` (``eng.make(x)``, ``eng.data(v)``, ``eng.grad(v)``,
``eng.set_grad(v, g)``, ``eng.backward(v)``, ``eng.apply(op, values, c)``), because
engines name these differently: a ``Scalar`` with ``.value``, ``.gradient`` and
``backwards()`` is as welcome as our ``Value``.  Each resolves what to call in the
engine first, then makes only that call inside the boundary
(:func:`autograd.testing.boundary.engine_call`): what the engine raises comes out as
``EngineRaised``, a fault of the harness propagates as itself.

An engine whose API is not a scalar class with a backward method (a functional
``grad``, a tensor library seen through 0-d scalars, a gradient computed on read)
is given as an *adapter*: any object with the operations of :class:`Adapter`.
:func:`scalar_class` turns an adapter into a plain scalar class (``Value(x)``,
``v.data``, ``v.grad``, ``v.backward()``, the arithmetic operators), so the
harness, and every reproducer it prints, runs it exactly like an attribute engine.
:class:`Engine` itself follows the same protocol (``make``, ``data``,
``backward(output, leaves)``, ``grad``, ``set_grad``).
"""

from __future__ import annotations

import contextvars
import functools
import operator
import struct
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from numbers import Number, Real
from typing import Any, ParamSpec, Protocol, TypeVar, runtime_checkable

from autograd.testing import boundary

__all__ = [
    "WORKING_PRECISION",
    "Adapter",
    "Engine",
    "EngineNotFound",
    "as_number",
    "engine_call",
    "scalar_class",
    "write_grad",
]

#: The precision the engine under check computes in ("float64" or "float32", see
#: :attr:`Engine.precision`): set by ``resolve_engine`` for the engine it returns, so the
#: oracles' tolerances (:func:`autograd.testing.oracles.symbolic_tolerances`) follow the engine
#: being checked without every caller passing it.
WORKING_PRECISION: contextvars.ContextVar[str] = contextvars.ContextVar(
    "working_precision", default="float64"
)


_P = ParamSpec("_P")
_R = TypeVar("_R")


class EngineNotFound(TypeError):
    """No scalar autograd class in the target (the message lists what was tried and why it failed)."""


def engine_call(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[bool, Any]:
    """``(True, fn(...))``, or ``(False, exception)`` when the engine raised.

    The discovery code's form of the one boundary (:func:`autograd.testing.boundary.engine_call`):
    ``fn`` must be a call into the engine (nothing of ours besides argument passing), so that a
    harness bug is never read as "the engine does not support this".
    """
    try:
        return True, boundary.engine_call("discovery", fn, *args, **kwargs)
    except boundary.EngineRaised as raised:
        return False, raised.exc


#: The usual numbers, let through before the (slower) ``isinstance(x, Number)``: Engine.data is hot.
_PLAIN = frozenset({float, int, Fraction})


def as_number(x: Any, keep: type | tuple[type, ...] = ()) -> Any:
    """The number a 0-d array-like ``x`` holds (a numpy, jax or torch scalar array: not a
    :class:`~numbers.Number`, ``shape == ()``, and ``item()`` giving a real number), else ``x``
    unchanged; a ``keep`` instance (the engine's own Value: a gradient under create_graph) is
    never read as a number.

    Some engines keep a Value's number and gradient as 0-d arrays (vizgrad's
    ``np.array(x, dtype=float64)``): what they hold is a number, and the oracles compare
    numbers.  Reading ``shape`` and calling ``item()`` is the engine's code: call this inside
    the engine boundary.
    """
    if type(x) in _PLAIN or isinstance(x, Number) or (keep and isinstance(x, keep)):
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

    ok, new = engine_call(holding)
    return new if ok and (as_number(new) == g or g != g) else g  # (g != g: a NaN, held as one)


def write_grad(
    v: Any, name: str, g: Any, keep: type | tuple[type, ...] = (), *, stage: str = "setting a gradient"
) -> None:
    """``v.name = g``, ``g`` in the kind of the gradient ``v`` holds now (:func:`in_kind`)."""
    ok, current = engine_call(getattr, v, name)  # a property may raise before a pass: write g as it is
    boundary.engine_call(stage, setattr, v, name, in_kind(current, g, keep) if ok else g)


@runtime_checkable
class Adapter(Protocol):
    """What the harness needs from an engine, as four operations (plus optional ones).

    * ``make(x)``: a leaf Value holding the number ``x``;
    * ``data(v)``: the number ``v`` holds;
    * ``backward(output, leaves, create_graph=False)``: differentiate ``output`` with respect
      to ``leaves`` (every leaf ``output`` was built from);
    * ``grad(leaf)``: the gradient the last ``backward`` calls left for ``leaf`` (a number, or a
      Value of the engine when ``backward(..., create_graph=True)`` made it differentiable).

    Optional: ``set_grad(leaf, g)`` (the harness writes 0 between passes), ``record(v)`` (called
    on every Value an operation returns, e.g. to keep its gradient), ``ops`` (a mapping
    from an operator's or method's name, ``"__add__"`` or ``"tanh"``, to a function of Values
    for engines whose Values lack it), ``read(v, output)`` (d(output)/dv for any Value, when
    gradients are computed on read: interior nodes' gradients then come from their latest
    output), ``name`` and ``convention`` (for the report), ``is_value(obj)``
    (default: anything that is not a plain number) and ``cls`` (the engine's Value class: its
    public methods become methods of the scalar class, so the search for extra ops sees them).
    Arithmetic that ``ops`` does not give uses the Values' own Python operators and methods.
    """

    def make(self, x: Any) -> Any: ...

    def data(self, v: Any) -> Any: ...

    def backward(self, output: Any, leaves: Sequence[Any], *, create_graph: bool = False) -> Any: ...

    def grad(self, leaf: Any) -> Any: ...


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
        return x if type(x) in _PLAIN else boundary.engine_call(stage, as_number, x, self.Value)

    def grad(self, v: Any, *, stage: str = "backward()") -> Any:
        """``v``'s gradient: a number (as :meth:`data`), or a Value of the engine under create_graph."""
        g = boundary.engine_call(stage, getattr, v, self.grad_attr)
        return g if type(g) in _PLAIN else boundary.engine_call(stage, as_number, g, self.Value)

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


# ---------------------------------------------------------------------- adapters as scalar classes
_BINARY = ("add", "sub", "mul", "truediv", "pow")
_UNARY = ("neg", "pos", "abs")
_CLASSES: dict[int, tuple[Any, type]] = {}  # id(adapter) -> (adapter, its scalar class)


def scalar_class(adapter: Any) -> type:
    """A scalar class over ``adapter`` (an :class:`Adapter`): ``Value(x)``, ``.data``, ``.grad``,
    ``.backward(create_graph=False)`` and the arithmetic operators, as the harness expects.

    Each Value remembers the Values it was computed from, so that ``backward`` can pass the
    adapter every leaf the output depends on, and how it was computed (``recipe``), so that an
    adapter whose engine decides which output a gradient is of (``backward_rebuilt``, e.g. "the
    last output built") is given the output rebuilt alone on fresh leaves.  One class per
    adapter (cached).
    """
    if id(adapter) in _CLASSES:
        return _CLASSES[id(adapter)][1]
    ops: Mapping[str, Callable[..., Any]] = getattr(adapter, "ops", None) or {}
    record: Callable[[Any], Any] | None = getattr(adapter, "record", None)
    read: Callable[[Any, Any], Any] | None = getattr(adapter, "read", None)
    rebuilt: Callable[..., Any] | None = getattr(adapter, "backward_rebuilt", None)
    is_value: Callable[[Any], bool] = getattr(adapter, "is_value", None) or (
        lambda obj: obj is not None and not isinstance(obj, Number | str)
    )

    class Value:
        """A Value of the adapted engine (``inner``) and the Values it was computed from.

        ``parents`` is None for a leaf; ``output`` is (a weak reference to) the latest output
        a backward pass went through this node from.
        """

        __slots__ = ("inner", "parents", "output", "recipe", "__weakref__")
        inner: Any
        parents: tuple[Any, ...] | None
        output: Any
        recipe: tuple[Any, tuple[Any, ...]] | None  # (None, (x,)) for a leaf, else (fn, args)

        def __init__(self, x: Any) -> None:
            self.inner = adapter.make(x)
            self.parents, self.output, self.recipe = None, None, (None, (x,))

        def __repr__(self) -> str:
            return f"Value({self.inner!r})"

        @property
        def data(self) -> Any:
            return adapter.data(self.inner)

        @property
        def grad(self) -> Any:
            if self.parents is not None and read is not None:  # an interior node, computed on read
                with boundary.harness_code():
                    out = self.output() if self.output is not None else None
                g = 0 if out is None else read(self.inner, out.inner)
            else:
                g = adapter.grad(self.inner)
            return _wrap(g, self._leaves()) if is_value(g) else g

        @grad.setter
        def grad(self, g: Any) -> None:
            set_grad = getattr(adapter, "set_grad", None)
            if set_grad is None:
                raise AttributeError(f"the adapter {_name(adapter)} cannot set a gradient (no set_grad)")
            set_grad(self.inner, _unwrap(g))

        def backward(self, create_graph: bool = False) -> Any:
            if rebuilt is not None and not create_graph:
                replayed = self._replay()
                if replayed is not None:
                    return rebuilt(*replayed)
            leaves = [leaf.inner for leaf in self._leaves(mark=True)]
            if create_graph:
                return adapter.backward(self.inner, leaves, create_graph=True)
            return adapter.backward(self.inner, leaves)

        @_harness
        def _leaves(self, *, mark: bool = False) -> tuple[Any, ...]:
            """The leaves this Value depends on, each once (iteratively: graphs may be deep);
            with ``mark``, every interior node remembers this Value as its latest output."""
            found: dict[Any, None] = {}
            seen, stack, me = {id(self)}, [self], weakref.ref(self)
            while stack:
                node = stack.pop()
                if node.parents is None:
                    found[node] = None
                    continue
                if mark:
                    node.output = me
                for p in node.parents:
                    if id(p) not in seen:
                        seen.add(id(p))
                        stack.append(p)
            return tuple(found)

        def _replay(self) -> tuple[Any, list[Any], list[Any]] | None:
            """This Value computed again from fresh leaves of the same numbers, nothing else built
            from them: (its new inner Value, the fresh leaves, the original leaves), or None when
            some Value on the way has no recipe (a gradient made a Value)."""
            order = self._order()
            if order is None:
                return None
            fresh: dict[int, Any] = {}
            leaves: list[Any] = []
            for node in order:
                fn, args = node.recipe
                if fn is None:
                    fresh[id(node)] = adapter.make(args[0])
                    leaves.append(node)
                else:
                    fresh[id(node)] = fn(*[fresh[id(a)] if isinstance(a, Value) else a for a in args])
            return fresh[id(self)], [fresh[id(leaf)] for leaf in leaves], [leaf.inner for leaf in leaves]

        @_harness
        def _order(self) -> list[Any] | None:
            """Every Value this one was computed from, inputs first (None: some has no recipe)."""
            order: list[Any] = []
            seen, stack = set(), [(self, False)]
            while stack:  # iteratively: graphs may be deep
                node, done = stack.pop()
                if done:
                    order.append(node)
                elif id(node) not in seen:
                    if node.recipe is None:
                        return None
                    seen.add(id(node))
                    stack.append((node, True))
                    stack.extend((p, False) for p in node.parents or ())
            return order

        def __getattr__(self, name: str) -> Any:
            missing = AttributeError(f"the adapted Value of {_name(adapter)} has no attribute {name!r}")
            if name.startswith("_") and name not in ops:
                raise missing
            fn: Any
            if name in ops:
                fn = ops[name]
            else:
                if not callable(
                    getattr(self.inner, name, None)
                ):  # only methods: numbers go through the adapter
                    raise missing
                fn = functools.partial(_call_method, name)
            return functools.partial(_apply, fn, (self,), self)

    @_harness
    def _wrap(inner: Any, parents: tuple[Any, ...]) -> Value:
        v = Value.__new__(Value)
        v.inner, v.parents, v.output, v.recipe = inner, parents, None, None
        return v

    def _unwrap(x: Any) -> Any:
        return x.inner if isinstance(x, Value) else x

    def _apply(fn: Callable[..., Any], operands: tuple[Any, ...], *args: Any) -> Any:
        result = fn(*[_unwrap(a) for a in args])
        if result is NotImplemented or not is_value(result):
            return result
        if record is not None:
            record(result)
        return _result(fn, result, operands, args)

    @_harness
    def _result(
        fn: Callable[..., Any], result: Any, operands: tuple[Any, ...], args: tuple[Any, ...]
    ) -> Value:
        parents = dict.fromkeys(v for v in (*operands, *args) if isinstance(v, Value))
        out = _wrap(result, tuple(parents))
        # how to compute it again: an operand's engine Value stands for its wrapper
        out.recipe = (fn, tuple(next((o for o in operands if o.inner is a), a) for a in args))
        return out

    def _binary(name: str) -> tuple[Callable[..., Any], Callable[..., Any]]:
        forward, reflected = getattr(operator, name), getattr(operator, name)

        def method(self: Value, other: Any) -> Any:
            return _apply(ops.get(f"__{name}__") or forward, (self,), self.inner, other)

        def rmethod(self: Value, other: Any) -> Any:
            fn = ops.get(f"__r{name}__")
            if fn is not None:
                return _apply(fn, (self,), self.inner, other)
            return _apply(lambda o, s: reflected(o, s), (self,), other, self.inner)

        return method, rmethod

    for name in _BINARY:
        method, rmethod = _binary(name)
        setattr(Value, f"__{name}__", method)
        setattr(Value, f"__r{name}__", rmethod)
    for name in _UNARY:
        fn = ops.get(f"__{name}__") or getattr(operator, name)
        setattr(
            Value,
            f"__{name}__",
            functools.partialmethod(lambda self, fn: _apply(fn, (self,), self.inner), fn),
        )
    # the methods of the adapted class (``adapter.cls``, when it names one), as methods of this
    # class too: what ``dir(Value)`` lists is what the search for extra ops sees
    inner_cls = getattr(adapter, "cls", None)
    for name in dir(inner_cls) if isinstance(inner_cls, type) else ():
        if not name.startswith("_") and not hasattr(Value, name) and callable(getattr(inner_cls, name, None)):
            setattr(Value, name, _forwarded(name))
    Value.__qualname__ = Value.__name__ = "Value"
    Value.__module__ = __name__
    _CLASSES[id(adapter)] = (adapter, Value)
    return Value


def _harness(f: Callable[_P, _R]) -> Callable[_P, _R]:
    """``f``, harness code of the scalar class that runs while the engine is called: what it
    raises is ours (:func:`autograd.testing.boundary.harness_code`), never the engine's."""

    @functools.wraps(f)
    def ours(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with boundary.harness_code():
            return f(*args, **kwargs)

    return ours


def _is_float32(x: float) -> bool:
    """Whether ``x`` is a float32 number (it survives a round trip through 4 bytes)."""
    try:
        return bool(struct.unpack("f", struct.pack("f", x))[0] == x)
    except OverflowError:
        return False


def _forwarded(name: str) -> Callable[..., Any]:
    """A method of an adapted Value that calls the engine Value's method ``name`` (see ``__getattr__``)."""

    def method(self: Any, *args: Any) -> Any:
        return self.__getattr__(name)(*args)

    method.__name__ = name
    return method


def _call_method(name: str, inner: Any, *args: Any) -> Any:
    """``inner.name(*args)``: a method of the engine's Value, by name (so it can be replayed)."""
    return getattr(inner, name)(*args)


def _name(adapter: Any) -> str:
    return str(getattr(adapter, "name", None) or type(adapter).__name__)
