"""``Graph``: a computation as plain data, compiled to engine Values, sympy or floats.

Slots ``0 .. len(leaves) - 1`` are the leaves (inputs); slot ``len(leaves) + i``
is ``nodes[i]``, whose ``args`` name earlier slots.  ``output`` is a slot (the
last one by default).  ``repr(graph)`` is a short runnable Python snippet that
rebuilds the graph with the engine and prints the leaf gradients;
``graph.code()`` is the constructor call that rebuilds the description itself.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath  # type: ignore[import-untyped]
import sympy  # type: ignore[import-untyped]

from autograd.testing.engines import resolve_engine
from autograd.testing.ops import MP_MODULES, OPS, const_source, sym_const

__all__ = ["Graph", "Node"]

#: mpmath working precision (decimal digits) for everything the oracles evaluate.
MP_DPS = 50


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
            n = len(node.args)
            if (
                (spec.arity and n != spec.arity)
                or (node.op == "vsum" and n < 1)
                or (node.op == "dot" and (n < 3 or n % 2 == 0))
            ):
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
        return [f"x{i}" for i in range(len(self.leaves))] + [
            f"n{len(self.leaves) + i}" for i in range(len(self.nodes))
        ]

    def with_leaves(self, leaves: Sequence[Any]) -> Graph:
        return Graph(tuple(leaves), self.nodes, self.output)

    # ------------------------------------------------------------------ backends
    def build(self, engine: Any = None, leaves: Sequence[Any] | None = None) -> list[Any]:
        """Engine Values for every slot (fresh leaves each call); the output is ``[graph.out]``."""
        eng = resolve_engine(engine)
        values = [eng.make(x) for x in (self.leaves if leaves is None else leaves)]
        for node in self.nodes:
            values.append(OPS[node.op].apply(eng, [values[a] for a in node.args], node.const))
        return values

    def evaluate(self, point: Sequence[Any] | None = None) -> list[Any]:
        """Plain numbers for every slot (exact for rational graphs on Fractions)."""
        values = list(self.leaves if point is None else point)
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

    def mp_value_and_gradient(self, point: Sequence[Any] | None = None) -> tuple[Any, list[Any]]:
        """Output and sympy gradient evaluated by mpmath at ``MP_DPS`` digits."""
        f = _mp_function(self.structure)
        with mpmath.workdps(MP_DPS):
            args = [_mpf(x) for x in (self.leaves if point is None else point)]
            value, *grad = f(*args)
            return mpmath.mpf(value), [mpmath.mpf(g) for g in grad]

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
        used = {n.op for n in self.nodes} & {"vsum", "dot"}
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


def _mpf(x: Any) -> Any:
    if isinstance(x, Fraction):
        return mpmath.mpf(x.numerator) / x.denominator
    return mpmath.mpf(x)


@functools.lru_cache(maxsize=4096)
def _sympy_slots(structure: tuple[Any, ...]) -> tuple[tuple[sympy.Symbol, ...], tuple[sympy.Expr, ...]]:
    n_leaves, nodes, _ = structure
    symbols = tuple(sympy.symbols(f"x0:{n_leaves}", real=True)) if n_leaves else ()
    exprs: list[sympy.Expr] = list(symbols)
    for node in nodes:
        exprs.append(OPS[node.op].sym([exprs[a] for a in node.args], node.const))
    return symbols, tuple(exprs)


@functools.lru_cache(maxsize=4096)
def _sympy_gradient(structure: tuple[Any, ...]) -> tuple[sympy.Expr, ...]:
    symbols, exprs = _sympy_slots(structure)
    out = exprs[structure[2]]
    return tuple(sympy.diff(out, s) for s in symbols)


@functools.lru_cache(maxsize=4096)
def _mp_function(structure: tuple[Any, ...]) -> Any:
    symbols, exprs = _sympy_slots(structure)
    outputs = [exprs[structure[2]], *_sympy_gradient(structure)]
    return sympy.lambdify(symbols, outputs, modules=MP_MODULES, cse=True)


def sym_value(x: Any) -> sympy.Expr:
    """A leaf value as an exact sympy number."""
    return sym_const(x)
