"""The reference sweep: a graph's values, local partials (from sympy) and adjoints in floats.

Only magnitudes matter where the oracles use it (the size of a tolerance, the side of a kink), so
it runs in double precision; moving one node's value (``bump``) measures how that node's rounding
reaches the output and the gradient.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from autograd.testing.ops import OPS
from autograd.testing.oracles.mismatch import OracleInconclusive

if TYPE_CHECKING:
    from autograd.testing.graph import Graph

__all__ = [
    "backward_path_sums",
    "leaf_sweep_or_inconclusive",
    "reference_sweep",
    "sweep_or_inconclusive",
    "tangents",
]


def reference_sweep(
    graph: Graph,
    point: list[float],
    bump: tuple[int, float] | None = None,
    base: tuple[list[Any], list[Any]] | None = None,
) -> tuple[list[Any], list[Any], list[Any]]:
    """Values, local partials (from sympy) and adjoints d out / d slot, in floats.

    Values come from the table's float functions (``num``), in the order the graph
    states them (sympy would reorder a sum: a cancelling ``dot`` then differs by
    orders of magnitude).  ``bump = (slot, h)`` adds h to one slot's value; ``base``
    (an unbumped sweep's values and partials) lets the slots before the bumped one
    be reused.
    """
    n_leaves = len(graph.leaves)
    values: list[Any] = list(point)
    partials: list[Any] = []
    if bump is not None and base is not None:  # the slots before the bumped one are unchanged
        values, partials = base[0][: bump[0]], base[1][: bump[0] - n_leaves]
    start = len(values)
    for node in graph.nodes[start - n_leaves :]:
        args = [values[a] for a in node.args]
        _, *ps = OPS[node.op].rule(len(node.args), node.const)(*args)
        v = float(OPS[node.op].num(args, node.const))
        if bump is not None and bump[0] == len(values):
            v += bump[1]
        values.append(v)
        partials.append(ps)
    adjoint = [0.0] * len(values)
    adjoint[graph.out] = 1.0
    for i in reversed(range(len(graph.nodes))):
        g = adjoint[n_leaves + i]
        if g:
            for a, p in zip(graph.nodes[i].args, partials[i], strict=True):
                adjoint[a] += g * p
    return values, partials, adjoint


def sweep_or_inconclusive(
    graph: Graph, point: list[float], bump: tuple[int, float], base: tuple[list[Any], list[Any]]
) -> tuple[list[Any], list[Any], list[Any]]:
    """A bumped sweep; a bump that leaves the float range cannot size a tolerance."""
    try:
        return reference_sweep(graph, point, bump, base)
    except (OverflowError, ValueError, ZeroDivisionError) as exc:
        raise OracleInconclusive(
            f"symbolic oracle: moving node {bump[0]} by {bump[1]:.3g} to size the tolerance fails ({exc})"
        ) from exc


def leaf_sweep_or_inconclusive(graph: Graph, point: list[float]) -> tuple[list[Any], list[Any], list[Any]]:
    """A sweep at a moved point (a rounded leaf); one that leaves the float range cannot size a tolerance."""
    try:
        return reference_sweep(graph, point)
    except (OverflowError, ValueError, ZeroDivisionError) as exc:
        raise OracleInconclusive(
            f"symbolic oracle: moving a leaf to size the tolerance fails ({exc})"
        ) from exc


def tangents(graph: Graph, partials: list[Any]) -> list[list[float]]:
    """``|d v_slot / d x_j|`` summed over paths with |partials|: how an error in a slot reaches leaf j."""
    n_leaves = len(graph.leaves)
    tangent = [[float(i == j) for j in range(n_leaves)] for i in range(n_leaves)]
    for node, ps in zip(graph.nodes, partials, strict=True):
        row = [0.0] * n_leaves
        for a, p in zip(node.args, ps, strict=True):
            for j in range(n_leaves):
                row[j] += abs(p) * tangent[a][j]
        tangent.append(row)
    return tangent


def backward_path_sums(
    graph: Graph, values: list[Any], partials: list[Any]
) -> tuple[list[float], list[float]]:
    """Per slot, the sum over its paths to the output of the products of |partials| (``paths``),
    and the same sum with each path weighted by the ulps its products and accumulations may lose
    (``weighted``: ``2 + partial_err`` per edge): the backward rounding of the oracles' bounds."""
    n_leaves = len(graph.leaves)
    paths = [0.0] * len(values)
    weighted = [0.0] * len(values)
    paths[graph.out] = 1.0
    for i in reversed(range(len(graph.nodes))):
        slot, node = n_leaves + i, graph.nodes[i]
        if not paths[slot]:  # no path weight: nothing to pass on (forward rounding still counts it)
            continue
        w = 2 + OPS[node.op].partial_err([values[a] for a in node.args], node.const, values[slot])
        for a, p in zip(node.args, partials[i], strict=True):
            paths[a] += abs(p) * paths[slot]
            weighted[a] += abs(p) * (weighted[slot] + w * paths[slot])
    return paths, weighted
