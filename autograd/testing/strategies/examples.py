"""The examples property tests draw: random graphs, and what the properties that compare
graphs draw with them.

:func:`graphs` builds a :class:`~autograd.testing.graph.Graph` node by node
(:mod:`~autograd.testing.strategies.nodes`), with a root op on top in three graphs out of
four, so that every op is drawn as the root too; :func:`graph_pairs`, :func:`build_orders`
and :func:`chain_sweeps` are the examples of linearity, build order and chain sweeps;
:func:`reject_inconclusive` turns an inconclusive oracle into a rejected example.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from hypothesis import event
from hypothesis import strategies as st

from autograd.testing.engines import resolve_engine
from autograd.testing.graph import Graph
from autograd.testing.strategies.nodes import draw_nodes, join_sinks, op_choices, record_events, root_node

__all__ = [
    "build_orders",
    "chain_sweeps",
    "float_leaves",
    "graph_pairs",
    "graphs",
    "rational_leaves",
    "reject_inconclusive",
]

#: Leaf values of float graphs: small enough that every op has valid operands.
float_leaves = st.floats(-3.0, 3.0, allow_nan=False, allow_infinity=False)
#: Leaf values of rational graphs: small Fractions with small denominators.
rational_leaves = st.builds(Fraction, st.integers(-8, 8), st.sampled_from([1, 2, 3, 4]))


def graphs(
    engine: Any = None,
    *,
    exact: bool = False,
    ops: Sequence[str] | None = None,
    max_leaves: int = 4,
    max_nodes: int = 8,
    leaves: st.SearchStrategy[Any] | None = None,
) -> st.SearchStrategy[Graph]:
    """Random graphs using every op the engine has (or ``ops``).

    ``exact=True`` gives rational graphs on Fraction leaves (for the exact
    oracle); otherwise leaves are floats in [-3, 3].
    """
    eng = resolve_engine(engine)
    choices = op_choices(eng, exact, ops)
    leaf = leaves if leaves is not None else (rational_leaves if exact else float_leaves)

    @st.composite
    def build(draw: Any) -> Graph:
        # in three graphs out of four a root op goes on top; it is drawn before the nodes below
        # it, so that the shrinker deletes those and keeps the op: a graph that is only a root op,
        # on a leaf, is where a failure of one op shrinks to
        rooted = draw(st.integers(0, 3)) != 0
        values = draw(st.lists(leaf, min_size=1, max_size=max_leaves))
        n_leaves = len(values)
        root = draw(st.sampled_from(choices)) if rooted else None
        nodes = join_sinks(draw_nodes(draw, choices, values, max_nodes, not rooted), values)
        if root is not None:
            nodes += root_node(draw, choices, values, root)
        graph = Graph(tuple(values[:n_leaves]), tuple(nodes))
        record_events(graph)
        return graph

    return build()


def graph_pairs(
    engine: Any = None, *, max_nodes: int = 6
) -> st.SearchStrategy[tuple[Graph, Graph, Fraction, Fraction]]:
    """``(f, g, a, b)``: two rational graphs on the same leaves and two rational coefficients."""
    eng = resolve_engine(engine)
    choices = op_choices(eng, True, None)

    @st.composite
    def build(draw: Any) -> tuple[Graph, Graph, Fraction, Fraction]:
        leaves = tuple(draw(st.lists(rational_leaves, min_size=1, max_size=3)))
        f, g = (
            Graph(
                leaves,
                tuple(join_sinks(draw_nodes(draw, choices, values, max_nodes), values)),
            )
            for values in (list(leaves), list(leaves))
        )
        record_events(f)
        return f, g, draw(rational_leaves), draw(rational_leaves)

    return build()


def build_orders(engine: Any = None) -> st.SearchStrategy[tuple[Graph, tuple[int, ...]]]:
    """``(graph, order)``: a rational graph and another valid order in which to create its slots."""

    @st.composite
    def build(draw: Any) -> tuple[Graph, tuple[int, ...]]:
        graph = draw(graphs(engine, exact=True))
        n_leaves = len(graph.leaves)
        done: set[int] = set()
        order: list[int] = []
        todo = list(range(n_leaves + len(graph.nodes)))
        while todo:
            ready = [
                s for s in todo if s < n_leaves or all(a in done for a in graph.nodes[s - n_leaves].args)
            ]
            s = draw(st.sampled_from(ready))
            todo.remove(s)
            done.add(s)
            order.append(s)
        return graph, tuple(order)

    return build()


def chain_sweeps() -> st.SearchStrategy[tuple[Fraction, Fraction, int]]:
    """``(w, x, n)`` for the chain ``y = w * (w * (... (w * x)))`` with n multiplications."""
    return st.tuples(rational_leaves, rational_leaves, st.integers(1, 60))


def reject_inconclusive(check: Any, *args: Any) -> None:
    """Run ``check(*args)`` in a property test; an ``OracleInconclusive`` is no verdict.

    It is counted with ``hypothesis.event`` (``--hypothesis-show-statistics``) and the
    example is rejected, so hypothesis draws another; any other outcome passes through.
    """
    from hypothesis import reject

    from autograd.testing.oracles import OracleInconclusive

    try:
        check(*args)
    except OracleInconclusive as exc:
        event(f"inconclusive: {exc.reason.split(':')[0]}")
        reject()
