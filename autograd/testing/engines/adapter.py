"""An engine of any API, given as an *adapter*, and the scalar class an adapter becomes.

An engine whose API is not a scalar class with a backward method (a functional
``grad``, a tensor library seen through 0-d scalars, a gradient computed on read)
is given as an adapter: any object with the operations of :class:`Adapter`.
:func:`scalar_class` turns an adapter into a plain scalar class (``Value(x)``,
``v.data``, ``v.grad``, ``v.backward()``, the arithmetic operators), so the
harness, and every reproducer it prints, runs it exactly like an attribute engine.
The class is a subclass of :class:`AdaptedValue` that holds the adapter (and what is
read from it once); every Value's behaviour is :class:`AdaptedValue`'s.
"""

from __future__ import annotations

import functools
import operator
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from numbers import Number
from typing import Any, ClassVar, ParamSpec, Protocol, TypeVar, runtime_checkable

from autograd.testing import boundary

__all__ = ["AdaptedValue", "Adapter", "scalar_class"]

_P = ParamSpec("_P")
_R = TypeVar("_R")


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
    public methods become methods of the scalar class, so the search for extra ops sees them; so
    do the public names of ``ops``: a framework adapter maps its functions there).
    Arithmetic that ``ops`` does not give uses the Values' own Python operators and methods.
    """

    def make(self, x: Any) -> Any: ...

    def data(self, v: Any) -> Any: ...

    def backward(self, output: Any, leaves: Sequence[Any], *, create_graph: bool = False) -> Any: ...

    def grad(self, leaf: Any) -> Any: ...


_CLASSES: dict[int, tuple[Any, type]] = {}  # id(adapter) -> (adapter, its scalar class)


def scalar_class(adapter: Any) -> type[AdaptedValue]:
    """A scalar class over ``adapter`` (an :class:`Adapter`): ``Value(x)``, ``.data``, ``.grad``,
    ``.backward(create_graph=False)`` and the arithmetic operators, as the harness expects (see
    :class:`AdaptedValue`).  One class per adapter (cached), named ``Value``."""
    if id(adapter) not in _CLASSES:
        names = {
            "__slots__": (),
            "__module__": __name__,
            "__qualname__": "Value",
            "_of": _Adapted.of(adapter),
        }
        _CLASSES[id(adapter)] = (adapter, type("Value", (AdaptedValue,), names | _forwarded_methods(adapter)))
    return _CLASSES[id(adapter)][1]


@dataclass(frozen=True)
class _Adapted:
    """An adapter and its optional operations, read once (see :class:`Adapter`)."""

    adapter: Any
    ops: Mapping[str, Callable[..., Any]]
    record: Callable[[Any], Any] | None
    read: Callable[[Any, Any], Any] | None
    rebuilt: Callable[..., Any] | None  # backward_rebuilt
    is_value: Callable[[Any], bool]

    @classmethod
    def of(cls, adapter: Any) -> _Adapted:
        return cls(
            adapter,
            getattr(adapter, "ops", None) or {},
            getattr(adapter, "record", None),
            getattr(adapter, "read", None),
            getattr(adapter, "backward_rebuilt", None),
            getattr(adapter, "is_value", None) or _not_a_number,
        )


def _forwarded_methods(adapter: Any) -> dict[str, Callable[..., Any]]:
    """The public methods of the adapted class (``adapter.cls``, when it names one) and the public
    names of ``adapter.ops`` (a framework's functions: ``"sin": torch.sin``) as methods of the
    scalar class too: what ``dir(Value)`` lists is what the search for extra ops sees."""
    inner_cls = getattr(adapter, "cls", None)
    ops = getattr(adapter, "ops", None) or {}
    methods = [
        n
        for n in (dir(inner_cls) if isinstance(inner_cls, type) else ())
        if callable(getattr(inner_cls, n, None))
    ]
    return {
        name: _forwarded(name)
        for name in [*methods, *ops]
        if not name.startswith("_") and not hasattr(AdaptedValue, name)
    }


def _harness(f: Callable[_P, _R]) -> Callable[_P, _R]:
    """``f``, harness code of the scalar class that runs while the engine is called: what it
    raises is ours (:func:`autograd.testing.boundary.harness_code`), never the engine's."""

    @functools.wraps(f)
    def ours(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with boundary.harness_code():
            return f(*args, **kwargs)

    return ours


def _binary(name: str) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """The operator ``__name__`` of an adapted Value and its reflected form ``__rname__``: the
    adapter's op when ``ops`` names one, else the engine Values' own operator."""
    forward = reflected = getattr(operator, name)

    def method(self: AdaptedValue, other: Any) -> Any:
        return self._apply(self._of.ops.get(f"__{name}__") or forward, (self,), self.inner, other)

    def rmethod(self: AdaptedValue, other: Any) -> Any:
        fn = self._of.ops.get(f"__r{name}__")
        if fn is not None:
            return self._apply(fn, (self,), self.inner, other)
        return self._apply(lambda o, s: reflected(o, s), (self,), other, self.inner)

    return method, rmethod


def _unary(name: str) -> Callable[..., Any]:
    """The operator ``__name__`` of an adapted Value (the adapter's op, else the engine's)."""

    def method(self: AdaptedValue) -> Any:
        return self._apply(self._of.ops.get(f"__{name}__") or getattr(operator, name), (self,), self.inner)

    return method


class AdaptedValue:
    """A Value of an adapted engine (``inner``) and the Values it was computed from.

    ``parents`` is None for a leaf; ``output`` is (a weak reference to) the latest output a
    backward pass went through this node from; ``recipe`` is how it was computed, so that an
    adapter whose engine decides which output a gradient is of (``backward_rebuilt``, e.g. "the
    last output built") is given the output rebuilt alone on fresh leaves.  Each Value remembers
    the Values it was computed from, so that ``backward`` can pass the adapter every leaf the
    output depends on.  The adapter is the class attribute ``_of`` of the subclass
    :func:`scalar_class` makes for it.
    """

    __slots__ = ("inner", "parents", "output", "recipe", "__weakref__")
    inner: Any
    parents: tuple[Any, ...] | None
    output: Any
    recipe: tuple[Any, tuple[Any, ...]] | None  # (None, (x,)) for a leaf, else (fn, args)
    _of: ClassVar[_Adapted]  # the adapter, set by scalar_class on the subclass

    def __init__(self, x: Any) -> None:
        self.inner = self._of.adapter.make(x)
        self.parents, self.output, self.recipe = None, None, (None, (x,))

    def __repr__(self) -> str:
        return f"Value({self.inner!r})"

    @property
    def data(self) -> Any:
        return self._of.adapter.data(self.inner)

    @property
    def grad(self) -> Any:
        if self.parents is not None and self._of.read is not None:  # an interior node, computed on read
            with boundary.harness_code():
                out = self.output() if self.output is not None else None
            g = 0 if out is None else self._of.read(self.inner, out.inner)
        else:
            g = self._of.adapter.grad(self.inner)
        return self._wrap(g, self._leaves()) if self._of.is_value(g) else g

    @grad.setter
    def grad(self, g: Any) -> None:
        set_grad = getattr(self._of.adapter, "set_grad", None)
        if set_grad is None:
            raise AttributeError(f"the adapter {_name(self._of.adapter)} cannot set a gradient (no set_grad)")
        set_grad(self.inner, self._unwrap(g))

    def backward(self, create_graph: bool = False) -> Any:
        if self._of.rebuilt is not None and not create_graph:
            replayed = self._replay()
            if replayed is not None:
                return self._of.rebuilt(*replayed)
        leaves = [leaf.inner for leaf in self._leaves(mark=True)]
        if create_graph:
            return self._of.adapter.backward(self.inner, leaves, create_graph=True)
        return self._of.adapter.backward(self.inner, leaves)

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
                fresh[id(node)] = self._of.adapter.make(args[0])
                leaves.append(node)
            else:
                fresh[id(node)] = fn(*[fresh[id(a)] if isinstance(a, type(self)) else a for a in args])
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
        missing = AttributeError(f"the adapted Value of {_name(self._of.adapter)} has no attribute {name!r}")
        if name.startswith("_") and name not in self._of.ops:
            raise missing
        fn: Any
        if name in self._of.ops:
            fn = self._of.ops[name]
        else:
            if not callable(getattr(self.inner, name, None)):  # only methods: numbers go through the adapter
                raise missing
            fn = functools.partial(_call_method, name)
        return functools.partial(self._apply, fn, (self,), self)

    @_harness
    def _wrap(self, inner: Any, parents: tuple[Any, ...]) -> AdaptedValue:
        """A Value of this class over the engine's ``inner``, computed from ``parents``, no recipe."""
        v = type(self).__new__(type(self))
        v.inner, v.parents, v.output, v.recipe = inner, parents, None, None
        return v

    def _unwrap(self, x: Any) -> Any:
        return x.inner if isinstance(x, type(self)) else x

    def _apply(self, fn: Callable[..., Any], operands: tuple[Any, ...], *args: Any) -> Any:
        """``fn`` of the engine Values behind ``args``; a Value it returns is wrapped (its parents
        the Values among ``operands`` and ``args``)."""
        result = fn(*[self._unwrap(a) for a in args])
        if result is NotImplemented or not self._of.is_value(result):
            return result
        if self._of.record is not None:
            self._of.record(result)
        return self._result(fn, result, operands, args)

    @_harness
    def _result(
        self, fn: Callable[..., Any], result: Any, operands: tuple[Any, ...], args: tuple[Any, ...]
    ) -> AdaptedValue:
        parents = dict.fromkeys(v for v in (*operands, *args) if isinstance(v, type(self)))
        out = self._wrap(result, tuple(parents))
        # how to compute it again: an operand's engine Value stands for its wrapper
        out.recipe = (fn, tuple(next((o for o in operands if o.inner is a), a) for a in args))
        return out

    __add__, __radd__ = _binary("add")
    __sub__, __rsub__ = _binary("sub")
    __mul__, __rmul__ = _binary("mul")
    __truediv__, __rtruediv__ = _binary("truediv")
    __pow__, __rpow__ = _binary("pow")
    __neg__, __pos__, __abs__ = _unary("neg"), _unary("pos"), _unary("abs")


def _not_a_number(obj: Any) -> bool:
    """An adapter's Value, by default: anything that is not None, a plain number or a string."""
    return obj is not None and not isinstance(obj, Number | str)


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
