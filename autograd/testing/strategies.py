"""Hypothesis strategies for random computation graphs.

``graphs()`` builds a :class:`~autograd.testing.graph.Graph` one node at a time,
tracking every slot's value, and only ever offers an op the operands (and
constant) that keep it inside its domain, away from kinks and within
``ops.BOUND``: inputs are valid by construction, nothing is filtered or
rejected.  Operands are drawn from all earlier slots, so fan-out (one node
feeding several later ones), reuse (``a + a``, ``h * h``) and shared
subexpressions arise naturally; a coin flip prefers the newest node, which makes
long chains.  Everything shrinks towards fewer leaves, fewer nodes, the first op
of the table (``add``) and the first slot, so a failure shrinks to a small
graph.  Each generated graph reports ``hypothesis.event``\\ s (ops, fan-out,
reuse, depth) for ``pytest --hypothesis-show-statistics``.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from hypothesis import event
from hypothesis import strategies as st

from autograd.testing.engines import Engine, resolve_engine
from autograd.testing.graph import Graph, Node
from autograd.testing.mlp import mlp_loss_graph
from autograd.testing.ops import BOUND, OPS, OpSpec

__all__ = [
    "build_orders",
    "chain_sweeps",
    "float_leaves",
    "graph_pairs",
    "graphs",
    "mlp_graphs",
    "rational_leaves",
    "record_events",
]

#: Leaf values of float graphs: small enough that every op has valid operands.
float_leaves = st.floats(-3.0, 3.0, allow_nan=False, allow_infinity=False)
#: Leaf values of rational graphs: small Fractions with small denominators.
rational_leaves = st.builds(Fraction, st.integers(-8, 8), st.sampled_from([1, 2, 3, 4]))


def _choices(engine: Engine, exact: bool, ops: Sequence[str] | None) -> list[tuple[OpSpec, tuple[Any, ...]]]:
    """The engine's ops (each with its usable constants), simplest first."""
    chosen = []
    for name in ops if ops is not None else OPS:
        spec = OPS[name]
        if not engine.supports(name):
            continue
        consts = tuple(c for c in spec.usable_consts(engine) if not exact or spec.rational(c))
        if spec.consts and not consts:
            continue
        if exact and not spec.consts and not spec.rational(None):
            continue
        chosen.append((spec, consts))
    if not chosen:
        raise ValueError(f"graphs: the engine {engine.name} supports none of the ops {ops}")
    return chosen


def _fits(spec: OpSpec, vals: list[Any], c: Any) -> bool:
    """Inside the op's domain and the result within BOUND (all judged on the tracked values)."""
    floats = [float(v) for v in vals]
    if not spec.domain(floats, c):
        return False
    try:
        out = spec.num(vals, c)
    except (ValueError, ZeroDivisionError, OverflowError):
        return False
    return bool(abs(out) <= BOUND)


def _pick(draw: Any, candidates: list[int], newest: int) -> int:
    """One of the candidate slots; a coin flip prefers the newest slot (long chains)."""
    if newest in candidates and draw(st.booleans()):
        return newest
    return int(draw(st.sampled_from(candidates)))


def _operands(draw: Any, spec: OpSpec, c: Any, values: list[Any]) -> tuple[int, ...] | None:
    """Operand slots that keep ``spec`` valid, or None when there are none."""
    slots = range(len(values))
    newest = len(values) - 1
    if spec.arity == 1:
        ok = [i for i in slots if _fits(spec, [values[i]], c)]
        return (_pick(draw, ok, newest),) if ok else None
    if spec.arity == 2:
        a = _pick(draw, list(slots), newest)
        seconds = [j for j in slots if _fits(spec, [values[a], values[j]], c)]
        if not seconds:  # rare: look for a first operand that has a partner
            firsts = [i for i in slots if any(_fits(spec, [values[i], values[j]], c) for j in slots)]
            if not firsts:
                return None
            a = draw(st.sampled_from(firsts))
            seconds = [j for j in slots if _fits(spec, [values[a], values[j]], c)]
        if a in seconds and draw(st.booleans()):  # reuse: a + a, h * h
            return (a, a)
        return (a, draw(st.sampled_from(seconds)))
    if spec.name == "vsum":
        terms = [_pick(draw, list(slots), newest)]
        for _ in range(draw(st.integers(0, 3))):
            more = [j for j in slots if _fits(spec, [values[t] for t in terms] + [values[j]], c)]
            if not more:
                break
            terms.append(draw(st.sampled_from(more)))
        return tuple(terms)
    # dot: start, then weight/input pairs that keep the partial sum within BOUND
    start = _pick(draw, list(slots), newest)
    ws: list[int] = []
    xs: list[int] = []
    for _ in range(draw(st.integers(1, 3))):
        w = draw(st.sampled_from(slots))
        fitting = [x for x in slots if _fits(spec, [values[i] for i in [*ws, w, *xs, x, start]], c)]
        if not fitting:
            break
        ws.append(w)
        xs.append(draw(st.sampled_from(fitting)))
    return (*ws, *xs, start) if ws else None


def _draw_nodes(
    draw: Any, choices: list[tuple[OpSpec, tuple[Any, ...]]], values: list[Any], max_nodes: int
) -> list[Node]:
    nodes: list[Node] = []
    # "another node?" is asked before each node (0 means stop), so that the shrinker can drop a
    # node by deleting its own choices, as it does for the elements of st.lists
    while len(nodes) < max_nodes and (not nodes or draw(st.integers(0, max_nodes)) != 0):
        available = list(choices)
        while True:  # neg and mulc fit any slot, so this ends
            spec, consts = draw(st.sampled_from(available))
            options = list(consts) if consts else [None]
            args = None
            while options and args is None:
                c = draw(st.sampled_from(options))
                args = _operands(draw, spec, c, values)
                if args is None:
                    options.remove(c)
            if args is not None:
                break
            available.remove((spec, consts))
        nodes.append(Node(spec.name, args, c))
        values.append(spec.num([values[a] for a in args], c))
    return nodes


def _join_sinks(nodes: list[Node], values: list[Any]) -> list[Node]:
    """Add every unused interior node into the output, so that every node's rule is checked."""
    n_leaves = len(values) - len(nodes)
    used = {a for node in nodes for a in node.args}
    out = len(values) - 1
    for slot in range(n_leaves, out):
        if slot not in used:
            nodes.append(Node("add", (out, slot)))
            values.append(values[out] + values[slot])
            out = len(values) - 1
    return nodes


def record_events(graph: Graph) -> None:
    """Report what this graph exercises (shown by ``--hypothesis-show-statistics``)."""
    n_leaves = len(graph.leaves)
    consumers: dict[int, set[int]] = {}
    depth = [0] * (n_leaves + len(graph.nodes))
    for i, node in enumerate(graph.nodes):
        event(f"op: {node.op}")
        slot = n_leaves + i
        if len(set(node.args)) < len(node.args):
            event("shape: reuse (one node twice in one op)")
        for a in node.args:
            consumers.setdefault(a, set()).add(slot)
        depth[slot] = 1 + max(depth[a] for a in node.args)
        if node.const is not None:
            event("shape: constant operand")
    if any(len(c) > 1 for a, c in consumers.items() if a < n_leaves):
        event("shape: leaf fan-out (a leaf feeds several nodes)")
    if any(len(c) > 1 for a, c in consumers.items() if a >= n_leaves):
        event("shape: shared subexpression (an interior node feeds several nodes)")
    d = depth[graph.out]
    event(f"depth: {'1' if d <= 1 else '2-3' if d <= 3 else '4-7' if d <= 7 else '8+'}")
    event(f"leaves: {n_leaves}")


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
    choices = _choices(eng, exact, ops)
    leaf = leaves if leaves is not None else (rational_leaves if exact else float_leaves)

    @st.composite
    def build(draw: Any) -> Graph:
        values = draw(st.lists(leaf, min_size=1, max_size=max_leaves))
        n_leaves = len(values)
        nodes = _join_sinks(_draw_nodes(draw, choices, values, max_nodes), values)
        graph = Graph(tuple(values[:n_leaves]), tuple(nodes))
        record_events(graph)
        return graph

    return build()


def graph_pairs(
    engine: Any = None, *, max_nodes: int = 6
) -> st.SearchStrategy[tuple[Graph, Graph, Fraction, Fraction]]:
    """``(f, g, a, b)``: two rational graphs on the same leaves and two rational coefficients."""
    eng = resolve_engine(engine)
    choices = _choices(eng, True, None)

    @st.composite
    def build(draw: Any) -> tuple[Graph, Graph, Fraction, Fraction]:
        leaves = tuple(draw(st.lists(rational_leaves, min_size=1, max_size=3)))
        f, g = (
            Graph(
                leaves,
                tuple(_join_sinks(_draw_nodes(draw, choices, values, max_nodes), values)),
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


def mlp_graphs(engine: Any = None) -> st.SearchStrategy[Graph]:
    """The hinge loss of a small random MLP (see :func:`autograd.testing.mlp.mlp_loss_graph`)."""
    eng = resolve_engine(engine)
    weight = st.floats(-1.0, 1.0, allow_nan=False)
    nonlins = [n for n in ("tanh", "relu") if eng.supports(n)]

    @st.composite
    def build(draw: Any) -> Graph:
        nin = 2
        sizes = draw(st.sampled_from([[2, 1], [3, 1], [2, 2, 1]]))
        layers = []
        fan_in = nin
        for size in sizes:
            layers.append([(draw(st.lists(weight, min_size=fan_in, max_size=fan_in)), draw(weight))
                           for _ in range(size)])  # fmt: skip
            fan_in = size
        n = draw(st.integers(1, 3))
        xs = [draw(st.lists(float_leaves, min_size=nin, max_size=nin)) for _ in range(n)]
        ys = [draw(st.sampled_from([-1.0, 1.0])) for _ in range(n)]
        nonlin = draw(st.sampled_from(nonlins)) if nonlins else "linear"
        return mlp_loss_graph(layers, xs, ys, nonlin, engine=eng)

    return build()
