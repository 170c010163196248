"""``Graph``: a computation as plain data, compiled to engine Values, sympy or floats.

Slots ``0 .. len(leaves) - 1`` are the leaves (inputs); slot ``len(leaves) + i``
is ``nodes[i]``, whose ``args`` name earlier slots.  ``output`` is a slot (the
last one by default).  ``repr(graph)`` is a short runnable Python snippet that
rebuilds the graph with the engine and prints the leaf gradients;
``graph.code()`` is the constructor call that rebuilds the description itself.
``graph.reference()`` is the oracles' reference: output, sympy's gradient and relu
inputs, exact (Fractions) for graphs of rational ops, else mpmath intervals at a
precision raised until they settle, or :class:`OracleInconclusive`.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy  # type: ignore[import-untyped]

from autograd.testing.engines import resolve_engine
from autograd.testing.ops import OPS, by_op_name, const_source, sym_const
from autograd.testing.oracles.mismatch import OracleInconclusive
from autograd.testing.oracles.reference import ReferenceUnresolved, certify, to_mpf

__all__ = ["Graph", "Node", "OracleInconclusive", "Reference"]


@dataclass(frozen=True)
class Reference:
    """The exact output, gradient and relu inputs of a graph at a point, each with an error radius.

    Values are Fractions (rational graphs: radius 0) or mpmath numbers (the midpoint of an
    interval whose half-width is the radius).  ``kink_inputs[slot]`` is the value of the
    operand of the relu node ``slot`` (only nodes that reach the output); its sign is certain.
    """

    value: Any
    gradient: tuple[Any, ...]
    kink_inputs: dict[int, Any]
    value_radius: Any = 0
    gradient_radius: tuple[Any, ...] = ()
    exact: bool = True


@dataclass(frozen=True)
class Node:
    """``op`` applied to the slots ``args`` (and ``const`` for the ops that take one)."""

    op: str
    args: tuple[int, ...]
    const: Any = None

    def __repr__(self) -> str:
        const = "" if self.const is None else f", {const_source(self.const)}"
        return f"Node({self.op!r}, {self.args!r}{const})"


@dataclass(frozen=True, repr=False)
class Graph:
    """A computation as plain data: the leaves' values, then nodes (an op row's name, its operands'
    slots, its constant), each slot a leaf or an earlier node; the output is the last node unless
    ``output`` names a slot.  One description, compiled to an engine's values (:meth:`build`),
    sympy (:meth:`sympy`), plain floats and certified references.  Bad rows raise ``ValueError``
    naming the node.

    >>> Graph((2.0, 3.0), (Node("mul", (0, 1)), Node("exp", (2,)))).expression()
    '(x0 * x1).exp()'
    """

    leaves: tuple[Any, ...]
    nodes: tuple[Node, ...] = ()
    output: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "leaves", tuple(self.leaves))
        object.__setattr__(self, "nodes", tuple(self.nodes))
        for i, node in enumerate(self.nodes):
            slot = len(self.leaves) + i
            spec = OPS.get(node.op)
            if spec is None:
                raise ValueError(f"Graph: node {slot} has unknown op {node.op!r}; known: {sorted(OPS)}")
            if not spec.takes(len(node.args)):
                raise ValueError(
                    f"Graph: node {slot} ({node.op}) has a wrong number of operands: {node.args}"
                )
            if any(not 0 <= a < slot for a in node.args):
                raise ValueError(f"Graph: node {slot} ({node.op}) refers to a later slot: {node.args}")
            if bool(spec.consts) != (node.const is not None):
                raise ValueError(f"Graph: node {slot} ({node.op}) constant {node.const!r} is misplaced")
        if not 0 <= self.out < len(self.leaves) + len(self.nodes):
            raise ValueError(f"Graph: output slot {self.output} does not exist")

    # ------------------------------------------------------------------ shape
    @property
    def out(self) -> int:
        """The output slot."""
        return len(self.leaves) + len(self.nodes) - 1 if self.output is None else self.output

    @property
    def structure(self) -> tuple[Any, ...]:
        """Everything but the leaf values: the key under which sympy work is cached."""
        return (len(self.leaves), self.nodes, self.out)

    @property
    def rational(self) -> bool:
        """True when every op is closed over the rationals and no leaf is a float."""
        return all(not isinstance(x, float) for x in self.leaves) and all(
            OPS[n.op].rational(n.const) for n in self.nodes
        )

    def names(self) -> list[str]:
        """Each slot's name in reproducers: leaves first (``x0``, ``x1``), then nodes (``n2``)."""
        return [f"x{i}" for i in range(len(self.leaves))] + [
            f"n{len(self.leaves) + i}" for i in range(len(self.nodes))
        ]

    def expression(self) -> str:
        """The program as one Python expression of the leaves, as an engine runs it (``x0 ** 0``)."""
        n = len(self.leaves)
        exprs = [f"x{i}" for i in range(n)]
        for node in self.nodes:
            exprs.append(
                OPS[node.op].source([exprs[a] if a < n else f"({exprs[a]})" for a in node.args], node.const)
            )
        return exprs[self.out]

    def with_leaves(self, leaves: Sequence[Any]) -> Graph:
        """The same program at other leaves (exactly one value per leaf, or ``ValueError``)."""
        return Graph(tuple(self.point(leaves, "with_leaves")), self.nodes, self.output)

    def point(self, values: Sequence[Any] | None, where: str = "point") -> list[Any]:
        """The leaves' values: the graph's own (``None``), or ``values``, exactly one per leaf
        (one more or fewer would shift every slot and give another function's value)."""
        if values is None:
            return list(self.leaves)
        values = list(values)
        if len(values) != len(self.leaves):
            raise ValueError(f"Graph.{where}: {len(values)} values {values!r} for {len(self.leaves)} leaves")
        return values

    # ------------------------------------------------------------------ backends
    def build(self, engine: Any = None, leaves: Sequence[Any] | None = None) -> list[Any]:
        """Engine Values for every slot (fresh leaves each call); the output is ``[graph.out]``."""
        eng = resolve_engine(engine)
        values = [eng.make(x) for x in self.point(leaves, "build")]
        for node in self.nodes:
            values.append(eng.apply(OPS[node.op], [values[a] for a in node.args], node.const))
        return values

    def evaluate(self, point: Sequence[Any] | None = None) -> list[Any]:
        """Plain numbers for every slot (exact for rational graphs on Fractions)."""
        values = self.point(point, "evaluate")
        for node in self.nodes:
            values.append(OPS[node.op].num([values[a] for a in node.args], node.const))
        return values

    def __call__(self, *point: Any) -> Any:
        """The plain-number function of the leaves: ``graph(0.5, 2.0)``."""
        return self.evaluate(point)[self.out]

    def sympy(self) -> tuple[tuple[sympy.Symbol, ...], sympy.Expr]:
        """Leaf symbols ``x0, x1, ...`` and the output as a sympy expression of them."""
        symbols, exprs = _sympy_slots(self.structure)
        return symbols, exprs[self.out]

    def sympy_gradient(self) -> tuple[Any, ...]:  # sympy expressions
        """sympy's own derivative of the output with respect to each leaf (cached per structure)."""
        return _sympy_gradient(self.structure)

    def reaching(self) -> frozenset[int]:
        """The slots with a path to the output (the output included)."""
        return _reaching(self.structure)

    def reference(self, point: Sequence[Any] | None = None) -> Reference:
        """Output, sympy's gradient and relu inputs, evaluated so that their error is known.

        The certified reference (:func:`autograd.testing.oracles.reference.certify`): EXACT in
        Fractions for a graph of rational ops (floats are rationals), otherwise mpmath
        intervals at a precision raised until every result is settled and every relu input's
        sign is certain; raises :class:`OracleInconclusive` when that does not happen, or
        when a result is not a finite real number at the point.
        """
        return _certified(self.structure, self.point(point, "reference"))

    def mp_value_and_gradient(self, point: Sequence[Any] | None = None) -> tuple[Any, list[Any]]:
        """Output and sympy gradient as mpmath numbers, from :meth:`reference`."""
        ref = self.reference(point)
        value, *grad = (_mpf(x) if isinstance(x, Fraction) else x for x in (ref.value, *ref.gradient))
        return value, grad

    # ------------------------------------------------------------------ printing
    def snippet(self, engine: Any = None, expected: str | None = None) -> str:
        """Runnable Python that rebuilds this graph with the engine and prints the leaf gradients.

        It imports the engine's own class (``engine`` as for :func:`resolve_engine`) and uses
        its names for the data, gradient and backward pass.  With ``expected`` (Python source
        of the expected gradients) it prints ``expected:`` first, so that a crash still shows
        it, and then ``actual:``.
        """
        eng = resolve_engine(engine)
        names = self.names()
        used = {n.op for n in self.nodes if OPS[n.op].call.fused}
        fractions = any(isinstance(x, Fraction) for x in self.leaves) or any(
            isinstance(n.const, Fraction) for n in self.nodes
        )
        lines = ["from fractions import Fraction"] if fractions else []
        lines.append(eng.import_line(used))
        if expected is not None:
            lines.append(f"print('expected:', {expected})")
        lines += [f"{names[i]} = {eng.class_name}({x!r})" for i, x in enumerate(self.leaves)]
        for i, node in enumerate(self.nodes):
            args = [names[a] for a in node.args]
            lines.append(f"{names[len(self.leaves) + i]} = {OPS[node.op].source(args, node.const)}")
        lines.append(f"{names[self.out]}.{eng.backward_method}()")
        grads = ", ".join(f"{n}.{eng.grad_attr}" for n in names[: len(self.leaves)])
        lines.append(f"print({'' if expected is None else repr('actual:  ') + ', '}[{grads}])")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.snippet()

    def code(self) -> str:
        """The constructor call rebuilding this description: ``Graph(leaves=..., nodes=...)``."""
        output = "" if self.output is None else f", output={self.output}"
        return f"Graph(leaves={self.leaves!r}, nodes={self.nodes!r}{output})"


_mpf = to_mpf  # an exact number as an mpmath one (the reference's conversion)


@by_op_name
@functools.lru_cache(maxsize=4096)
def _sympy_slots(structure: tuple[Any, ...]) -> tuple[tuple[sympy.Symbol, ...], tuple[sympy.Expr, ...]]:
    n_leaves, nodes, _ = structure
    symbols = tuple(sympy.symbols(f"x0:{n_leaves}", real=True)) if n_leaves else ()
    exprs: list[sympy.Expr] = list(symbols)
    for node in nodes:
        exprs.append(OPS[node.op].sym([exprs[a] for a in node.args], node.const))
    return symbols, tuple(exprs)


@by_op_name
@functools.lru_cache(maxsize=4096)
def _sympy_gradient(structure: tuple[Any, ...]) -> tuple[sympy.Expr, ...]:
    symbols, exprs = _sympy_slots(structure)
    out = exprs[structure[2]]
    return tuple(sympy.diff(out, s) for s in symbols)


@functools.lru_cache(maxsize=4096)
def _reaching(structure: tuple[Any, ...]) -> frozenset[int]:
    n_leaves, nodes, out = structure
    seen, stack = {out}, [out]
    while stack:
        slot = stack.pop()
        for a in nodes[slot - n_leaves].args if slot >= n_leaves else ():
            if a not in seen:
                seen.add(a)
                stack.append(a)
    return frozenset(seen)


def _kink_slots(structure: tuple[Any, ...]) -> list[int]:
    """The relu (kinked) nodes that reach the output."""
    n_leaves, nodes, _ = structure
    reaching = _reaching(structure)
    return [n_leaves + i for i, n in enumerate(nodes) if OPS[n.op].kinks and n_leaves + i in reaching]


def _certified(structure: tuple[Any, ...], leaves: list[Any]) -> Reference:
    """Output, gradient and relu inputs by :func:`autograd.testing.oracles.reference.certify`."""
    symbols, exprs = _sympy_slots(structure)
    n_leaves, nodes, out = structure
    kink_slots = _kink_slots(structure)
    kink_inputs = [exprs[nodes[s - n_leaves].args[0]] for s in kink_slots]
    outputs = [exprs[out], *_sympy_gradient(structure), *kink_inputs]
    if any(o.has(sympy.zoo, sympy.nan) for o in outputs):  # log(x - x) is zoo, log(x - x) * 0 is nan
        raise OracleInconclusive(f"no reference: {exprs[out]} or its gradient is undefined everywhere")
    try:
        rational = all(OPS[n.op].rational(n.const) for n in nodes)  # an engine computes it exactly
        found = certify(symbols, outputs, leaves, signs=len(kink_inputs), exact=rational)
    except ReferenceUnresolved as exc:
        raise OracleInconclusive(exc.reason) from exc
    if not all(c.defined for c in found):
        raise OracleInconclusive("no reference: the output or its gradient is not a finite real number here")
    value, *grad = found[: n_leaves + 1]
    kinks = {slot: c.value for slot, c in zip(kink_slots, found[n_leaves + 1 :], strict=True)}
    if all(c.exact for c in found):
        return Reference(value.value, tuple(g.value for g in grad), kinks)
    radii = tuple(g.radius for g in grad)
    return Reference(value.value, tuple(g.value for g in grad), kinks, value.radius, radii, exact=False)


def sym_value(x: Any) -> sympy.Expr:
    """A leaf value as an exact sympy number."""
    return sym_const(x)
