"""The engine's side of every oracle: its derivatives, read through the Engine adapter only (so
foreign engines are checked the same way).

First order: build the graph, one ``backward()`` from the output, each leaf's gradient.

Higher order: for any engine with ``backward(create_graph=True)``, row i of the Hessian is
obtained by building the graph afresh, running ``backward(create_graph=True)`` from the output,
taking leaf i's gradient ``g_i`` (a Value), zeroing the gradient of every Value we built, and
running a plain ``backward()`` from ``g_i``: leaf j's gradient is then d2 out / dxi dxj.  A
``g_i`` that is a plain number (the output does not depend on x_i, or only linearly through
constants) gives a zero row.  Third derivatives take one more ``create_graph`` pass.  A fresh
build per row means an engine whose interior gradients accumulate across passes is judged fairly
at second order.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from autograd.testing.engines import resolve_engine

if TYPE_CHECKING:
    from autograd.testing.graph import Graph

__all__ = [
    "derivatives_of", "engine_derivatives", "engine_gradient", "graph_mode_gradient", "supports_higher_order",
]  # fmt: skip

Build = Callable[[], tuple[list[Any], list[Any], Any]]  # () -> (leaves, every Value built, output)


def engine_gradient(graph: Graph, engine: Any) -> list[Any]:
    """The leaves' gradients after one ``backward()`` from the graph's output."""
    eng = resolve_engine(engine)
    values = graph.build(eng)
    eng.backward(values[graph.out])
    return [eng.grad(v) for v in values[: len(graph.leaves)]]


def supports_higher_order(engine: Any = None) -> bool:
    """Whether ``backward(create_graph=True)`` is accepted and leaves a leaf gradient that is a
    Value of the engine (differentiable again); probed once per engine by the Engine adapter."""
    return bool(resolve_engine(engine).higher_order)


def derivatives_of(build: Build, eng: Any, n: int, order: int) -> dict[tuple[int, ...], Any]:
    """``{(i, j, ...): d^order out / dxi dxj ...}`` for all n**order multi-indices (see module doc)."""
    found: dict[tuple[int, ...], Any] = {}
    for prefix in itertools.product(range(n), repeat=order - 1):
        leaves, built, y = build()
        for i in prefix:
            eng.backward(y, create_graph=True)
            y = eng.grad(leaves[i])
            for v in built:
                eng.set_grad(v, 0)
            if not isinstance(y, eng.Value):  # a constant gradient: every further derivative is 0
                break
        if isinstance(y, eng.Value):
            eng.backward(y)
            row = [eng.grad(leaf) for leaf in leaves]
        else:
            row = [0] * n
        for j in range(n):
            found[(*prefix, j)] = row[j]
    return found


def engine_derivatives(graph: Graph, engine: Any = None, order: int = 2) -> dict[tuple[int, ...], Any]:
    """The engine's ``d^order out / dxi dxj ...`` of a graph, for every multi-index of leaves."""
    eng = resolve_engine(engine)
    n = len(graph.leaves)

    def build() -> tuple[list[Any], list[Any], Any]:
        values = graph.build(eng)
        return values[:n], values, values[graph.out]

    return derivatives_of(build, eng, n, order)


def graph_mode_gradient(graph: Graph, eng: Any) -> list[Any]:
    """The leaf gradients' values after ``backward(create_graph=True)`` (numbers)."""
    values = graph.build(eng)
    eng.backward(values[graph.out], create_graph=True)
    grads = [eng.grad(v) for v in values[: len(graph.leaves)]]
    return [eng.data(g) if isinstance(g, eng.Value) else g for g in grads]
