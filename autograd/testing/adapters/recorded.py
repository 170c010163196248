"""What the functional frameworks' adapters share (JAX, HIPS autograd): values that record how they
were computed, and a backward that replays the computation as a function of the leaves.

A functional framework has no tape and no gradient slot: it differentiates a function
(``jax.grad(f)``, ``autograd.grad(f)``).  Each scalar is a :class:`Recorded` value: the framework's
number an op returned (computed eagerly, so every forward value is the framework's own) and how it
was computed.  :class:`RecordedAdapter` replays the recorded computation as a function of the
leaves and differentiates that function with the framework's own ``grad``; with
``create_graph=True`` each gradient is itself a :class:`Recorded` value (the function ``grad``
returns, of the same leaves), so it can be differentiated again.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

__all__ = [
    "Derivatives",
    "Differentiate",
    "Gradient",
    "Recorded",
    "RecordedAdapter",
    "operators",
    "recorded_op",
    "replay",
]

#: ``grad(f, argnums)``: the framework's function of the derivatives of ``f`` with respect to the
#: arguments at ``argnums`` (a tuple), returning them as a tuple
Derivatives = Callable[..., tuple[Any, ...]]
Differentiate = Callable[[Callable[..., Any], tuple[int, ...]], Derivatives]


class Recorded:
    """A framework's value and how it was computed: ``fn(*args)``, each arg a :class:`Recorded`
    or a plain number (a leaf has ``fn`` None)."""

    __slots__ = ("args", "fn", "value")

    def __init__(self, value: Any, fn: Callable[..., Any] | None = None, args: tuple[Any, ...] = ()) -> None:
        self.value, self.fn, self.args = value, fn, args

    def __repr__(self) -> str:
        return f"Recorded({float(self.value)!r})"


def recorded_op(fn: Callable[..., Any]) -> Callable[..., Recorded]:
    """``fn`` (of the framework's numbers) as an op of Recorded values: computed now, recorded."""

    def apply(*args: Any) -> Recorded:
        return Recorded(fn(*[a.value if isinstance(a, Recorded) else a for a in args]), fn, args)

    return apply


def _reflected(fn: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """``fn(b, a)``: a reflected operator (``c - v`` is ``__rsub__(v, c)``), the framework's own."""

    def swapped(a: Any, b: Any) -> Any:
        return fn(b, a)

    return swapped


def operators() -> dict[str, Callable[..., Recorded]]:
    """Python's arithmetic operators as ops of Recorded values (the framework overloads them on its
    numbers), with their reflected forms."""
    binary = ("add", "sub", "mul", "truediv", "pow")
    return {
        **{f"__{n}__": recorded_op(getattr(operator, n)) for n in binary},
        **{f"__r{n}__": recorded_op(_reflected(getattr(operator, n))) for n in binary},
        "__neg__": recorded_op(operator.neg),
        "__pos__": recorded_op(operator.pos),
        "__abs__": recorded_op(operator.abs),
    }


def replay(output: Recorded, inputs: Sequence[Recorded], values: Sequence[Any]) -> Any:
    """``output`` computed again with each of ``inputs`` (leaves or interior values) taking the
    value at the same place in ``values`` (the framework's tracers under its ``grad``); every other
    leaf is a constant.  Iterative: a recorded chain may be deep."""
    known: dict[int, Any] = {id(v): x for v, x in zip(inputs, values, strict=True)}
    stack = [output]
    while stack:
        node = stack[-1]
        if id(node) in known:
            stack.pop()
            continue
        if node.fn is None:  # a leaf not differentiated: a constant
            known[id(node)] = node.value
            stack.pop()
            continue
        pending = [a for a in node.args if isinstance(a, Recorded) and id(a) not in known]
        if pending:
            stack.extend(pending)
            continue
        stack.pop()
        known[id(node)] = node.fn(*[known[id(a)] if isinstance(a, Recorded) else a for a in node.args])
    return known[id(output)]


def gradients(differentiate: Differentiate, output: Recorded, inputs: Sequence[Recorded]) -> tuple[Any, ...]:
    """d(output)/d(each of inputs), by one ``differentiate`` of the replayed computation."""
    if not inputs:
        return ()

    def of(*values: Any) -> Any:
        return replay(output, inputs, values)

    return tuple(differentiate(of, tuple(range(len(inputs))))(*[v.value for v in inputs]))


class Gradient:
    """d(output)/d(inputs[index]) as a function of the inputs' values: what a gradient made with
    ``create_graph=True`` computes, so that it replays (and differentiates) like any op."""

    def __init__(
        self, differentiate: Differentiate, output: Recorded, inputs: Sequence[Recorded], index: int
    ) -> None:
        self.differentiate, self.output, self.index = differentiate, output, index
        self.inputs = tuple(inputs)

    def __call__(self, *values: Any) -> Any:
        return self.differentiate(self._of, (self.index,))(*values)[0]

    def _of(self, *values: Any) -> Any:
        return replay(self.output, self.inputs, values)


class RecordedAdapter:
    """The adapter protocol over Recorded values; a subclass gives ``differentiate`` (the
    framework's ``grad``, see :data:`Differentiate`) and ``make``.

    Gradients accumulate across ``backward`` calls (PyTorch's convention, which the stateful
    check reports as a fact); an interior value's gradient is d(output)/d(value) of the latest
    output a backward went through it (``read``).
    """

    def __init__(self) -> None:
        self.grads: dict[int, tuple[Recorded, Any]] = {}  # id(leaf) -> (leaf, gradient)

    def differentiate(self, f: Callable[..., Any], argnums: tuple[int, ...]) -> Derivatives:
        raise NotImplementedError

    def data(self, v: Recorded) -> float:
        return float(v.value)

    def backward(self, output: Recorded, leaves: Sequence[Recorded], *, create_graph: bool = False) -> None:
        # every leaf the output was recorded from, as PyTorch's backward reaches every leaf: the
        # scalar class names a gradient's own leaf only (d out/d x0 depends on x1 too), and a
        # leaf left out would be a constant of the replay, its derivative silently 0
        leaves = _recorded_leaves(output, leaves)
        found = gradients(self.differentiate, output, leaves)
        if create_graph:
            found = tuple(
                Recorded(g, Gradient(self.differentiate, output, leaves, i), tuple(leaves))
                for i, g in enumerate(found)
            )
        else:
            found = tuple(float(g) for g in found)
        for leaf, g in zip(leaves, found, strict=True):
            self.grads[id(leaf)] = (leaf, _accumulated(self.grad(leaf), g))

    def grad(self, v: Recorded) -> Any:
        kept = self.grads.get(id(v))
        return kept[1] if kept is not None and kept[0] is v else 0.0

    def set_grad(self, v: Recorded, g: Any) -> None:
        self.grads[id(v)] = (v, g)

    def read(self, v: Recorded, output: Recorded) -> float:
        """d(output)/dv for an interior value ``v``: the output replayed with ``v`` as its input."""
        return float(gradients(self.differentiate, output, [v])[0])

    def is_value(self, obj: Any) -> bool:
        return isinstance(obj, Recorded)


def _recorded_leaves(output: Recorded, leaves: Sequence[Recorded]) -> list[Recorded]:
    """``leaves``, then every other leaf ``output`` was recorded from, each once (iteratively)."""
    found = {id(leaf): leaf for leaf in leaves}
    seen, stack = set(), [output]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if node.fn is None:
            found.setdefault(id(node), node)
        stack.extend(a for a in node.args if isinstance(a, Recorded))
    return list(found.values())


def _accumulated(kept: Any, g: Any) -> Any:
    """``kept + g``: a gradient added to the one a leaf holds (recorded, if either is)."""
    if isinstance(kept, Recorded) or isinstance(g, Recorded):
        return recorded_op(operator.add)(kept, g)
    return kept + g
