"""Drawing the nodes of a graph one at a time, each inside its op's domain.

Every slot's value is tracked, and an op is only ever offered the operands (and
constant) that keep it inside its domain, away from kinks and within a bound
(``ops.BOUND`` unless told): inputs are valid by construction, nothing is filtered
or rejected.  Operands are drawn from all earlier slots, so fan-out, reuse (``a + a``,
``h * h``) and shared subexpressions arise naturally; a coin flip prefers the newest
node, which makes long chains.  Everything shrinks towards fewer nodes, the first op
of the table and the first slot.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hypothesis import event
from hypothesis import strategies as st

from autograd.testing.engines import Engine
from autograd.testing.engines.support import usable_consts
from autograd.testing.graph import Graph, Node
from autograd.testing.ops import BOUND, OPS, OpSpec

__all__ = ["draw_node", "draw_nodes", "join_sinks", "op_choices", "pick", "record_events", "root_node"]


def op_choices(
    engine: Engine, exact: bool, ops: Sequence[str] | None
) -> list[tuple[OpSpec, tuple[Any, ...]]]:
    """The engine's ops (each with its usable constants), simplest first."""
    chosen = []
    for name in ops if ops is not None else OPS:
        spec = OPS[name]
        if not engine.supports(name):
            continue
        consts = tuple(c for c in usable_consts(engine, spec) if not exact or spec.rational(c))
        if spec.consts and not consts:
            continue
        if exact and not spec.consts and not spec.rational(None):
            continue
        chosen.append((spec, consts))
    if not chosen:
        raise ValueError(f"graphs: the engine {engine.name} supports none of the ops {ops}")
    return chosen


def _fits(spec: OpSpec, vals: list[Any], c: Any, bound: float = BOUND) -> bool:
    """Inside the op's domain and the result within ``bound`` (all judged on the tracked values)."""
    floats = [float(v) for v in vals]
    if not spec.domain(floats, c):
        return False
    try:
        out = spec.num(vals, c)
    except (ValueError, ZeroDivisionError, OverflowError):
        return False
    return bool(abs(out) <= bound)


def pick(draw: Any, candidates: list[int], newest: int) -> int:
    """One of the candidate slots; a coin flip prefers the newest slot (long chains)."""
    if newest in candidates and draw(st.booleans()):
        return newest
    return int(draw(st.sampled_from(candidates)))


def _operands(
    draw: Any, spec: OpSpec, c: Any, values: list[Any], bound: float = BOUND, first: int | None = None
) -> tuple[int, ...] | None:
    """Operand slots that keep ``spec`` valid, or None when there are none.

    ``first``, when given, is the slot the first operand must be (the root op, see ``root_node``).
    """
    slots = range(len(values))
    newest = len(values) - 1
    firsts = list(slots) if first is None else [first]
    if spec.arity == 1:
        ok = [i for i in firsts if _fits(spec, [values[i]], c, bound)]
        return (pick(draw, ok, newest),) if ok else None
    if spec.arity == 2:
        a = pick(draw, firsts, newest)
        seconds = [j for j in slots if _fits(spec, [values[a], values[j]], c, bound)]
        if not seconds and first is not None:
            return None
        if not seconds:  # rare: look for a first operand that has a partner
            firsts = [i for i in slots if any(_fits(spec, [values[i], values[j]], c, bound) for j in slots)]
            if not firsts:
                return None
            a = draw(st.sampled_from(firsts))
            seconds = [j for j in slots if _fits(spec, [values[a], values[j]], c, bound)]
        if a in seconds and draw(st.integers(0, 2)) == 1:  # reuse (a + a, h * h): about one in three
            return (a, a)
        return (a, draw(st.sampled_from(seconds)))
    if spec.name == "vsum":
        terms = [pick(draw, firsts, newest)]
        for _ in range(draw(st.integers(0, 3))):
            more = [j for j in slots if _fits(spec, [values[t] for t in terms] + [values[j]], c, bound)]
            if not more:
                break
            terms.append(draw(st.sampled_from(more)))
        return tuple(terms)
    # dot: start, then weight/input pairs that keep the partial sum within BOUND
    start = pick(draw, firsts, newest)
    ws: list[int] = []
    xs: list[int] = []
    for _ in range(draw(st.integers(1, 3))):
        w = draw(st.sampled_from(slots))
        fitting = [x for x in slots if _fits(spec, [values[i] for i in [*ws, w, *xs, x, start]], c, bound)]
        if not fitting:
            break
        ws.append(w)
        xs.append(draw(st.sampled_from(fitting)))
    return (*ws, *xs, start) if ws else None


def _try_node(
    draw: Any,
    choices: list[tuple[OpSpec, tuple[Any, ...]]],
    values: list[Any],
    bound: float = BOUND,
    first: int | None = None,
) -> Node | None:
    """One node of an op (and constant) that fits some operands (the first one ``first``, if
    given); appends its value to ``values``.  None when no op fits.

    The constant is drawn once, among those that some slot fits, so that each of them has its
    share of the op's nodes whenever it fits."""
    available = list(choices)
    while available:
        spec, consts = draw(st.sampled_from(available))
        options = _fitting_consts(spec, consts, values, bound, first) if consts else [None]
        if options:
            c = draw(st.sampled_from(options))
            args = _operands(draw, spec, c, values, bound, first)
            if args is not None:
                values.append(spec.num([values[a] for a in args], c))
                return Node(spec.name, args, c)
        available.remove((spec, consts))
    return None


def _fitting_consts(
    spec: OpSpec, consts: tuple[Any, ...], values: list[Any], bound: float, first: int | None
) -> list[Any]:
    """The constants with which some slot (``first``, if given) fits ``spec``: the ops of the
    table that take a constant are unary, so such a slot is an operand that fits."""
    slots = range(len(values)) if first is None else [first]
    return [c for c in consts if any(_fits(spec, [values[i]], c, bound) for i in slots)]


def draw_node(
    draw: Any, choices: list[tuple[OpSpec, tuple[Any, ...]]], values: list[Any], bound: float = BOUND
) -> Node:
    node = _try_node(draw, choices, values, bound)
    if node is None:  # neg and mulc fit any slot, so not with either of them
        raise ValueError(f"graphs: none of the ops {[spec.name for spec, _ in choices]} fits any slot")
    return node


def root_node(
    draw: Any,
    choices: list[tuple[OpSpec, tuple[Any, ...]]],
    values: list[Any],
    root: tuple[OpSpec, tuple[Any, ...]],
) -> list[Node]:
    """One more node, of the op ``root``, on top of the output (its first operand), so that every
    op is drawn as the root too: joining the sinks makes the root an ``add`` in most graphs.
    Another op when ``root`` does not fit the output."""
    top = len(values) - 1  # the output so far
    node = _try_node(draw, [root], values, first=top)
    if node is None:
        node = _try_node(draw, choices, values, first=top)
    return [node] if node is not None else [draw_node(draw, choices, values)]


def draw_nodes(
    draw: Any,
    choices: list[tuple[OpSpec, tuple[Any, ...]]],
    values: list[Any],
    max_nodes: int,
    at_least_one: bool = True,
) -> list[Node]:
    nodes: list[Node] = []
    # "another node?" is asked before each node (0 means stop), so that the shrinker can drop a
    # node by deleting its own choices, as it does for the elements of st.lists
    while len(nodes) < max_nodes and ((not nodes and at_least_one) or draw(st.integers(0, max_nodes)) != 0):
        nodes.append(draw_node(draw, choices, values))
    return nodes


def join_sinks(nodes: list[Node], values: list[Any]) -> list[Node]:
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
