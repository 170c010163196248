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

``stress_graphs()`` does the opposite on purpose: leaves anywhere in the float
range and gadgets that provoke the oracles' hazards (cancellation, zero partials,
underflow, magnitudes near the float range, relu just off its kink), still inside
every op's domain and with finite gradients by construction.  ``mlp_graphs()``
places each bias so that no relu input lies near its kink.  In property tests,
``reject_inconclusive(check, ...)`` turns an ``OracleInconclusive`` into an event
and a rejected example.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from hypothesis import event
from hypothesis import strategies as st

from autograd.testing.engines import Engine, resolve_engine
from autograd.testing.engines.support import supported, usable_consts
from autograd.testing.graph import Graph, Node
from autograd.testing.mlp import mlp_loss_graph
from autograd.testing.ops import BOUND, KINK_MARGIN, OPS, OpSpec

__all__ = [
    "build_orders",
    "chain_sweeps",
    "float_leaves",
    "graph_pairs",
    "graphs",
    "mlp_graphs",
    "rational_leaves",
    "record_events",
    "reject_inconclusive",
    "stress_graphs",
    "stress_leaves",
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


def _pick(draw: Any, candidates: list[int], newest: int) -> int:
    """One of the candidate slots; a coin flip prefers the newest slot (long chains)."""
    if newest in candidates and draw(st.booleans()):
        return newest
    return int(draw(st.sampled_from(candidates)))


def _operands(
    draw: Any, spec: OpSpec, c: Any, values: list[Any], bound: float = BOUND, first: int | None = None
) -> tuple[int, ...] | None:
    """Operand slots that keep ``spec`` valid, or None when there are none.

    ``first``, when given, is the slot the first operand must be (the root op, see ``_root_node``).
    """
    slots = range(len(values))
    newest = len(values) - 1
    firsts = list(slots) if first is None else [first]
    if spec.arity == 1:
        ok = [i for i in firsts if _fits(spec, [values[i]], c, bound)]
        return (_pick(draw, ok, newest),) if ok else None
    if spec.arity == 2:
        a = _pick(draw, firsts, newest)
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
        terms = [_pick(draw, firsts, newest)]
        for _ in range(draw(st.integers(0, 3))):
            more = [j for j in slots if _fits(spec, [values[t] for t in terms] + [values[j]], c, bound)]
            if not more:
                break
            terms.append(draw(st.sampled_from(more)))
        return tuple(terms)
    # dot: start, then weight/input pairs that keep the partial sum within BOUND
    start = _pick(draw, firsts, newest)
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
    given); appends its value to ``values``.  None when no op fits."""
    available = list(choices)
    while available:
        spec, consts = draw(st.sampled_from(available))
        options = list(consts) if consts else [None]
        args = None
        while options and args is None:
            c = draw(st.sampled_from(options))
            args = _operands(draw, spec, c, values, bound, first)
            if args is None:
                options.remove(c)
        if args is not None:
            values.append(spec.num([values[a] for a in args], c))
            return Node(spec.name, args, c)
        available.remove((spec, consts))
    return None


def _draw_node(
    draw: Any, choices: list[tuple[OpSpec, tuple[Any, ...]]], values: list[Any], bound: float = BOUND
) -> Node:
    node = _try_node(draw, choices, values, bound)
    if node is None:  # neg and mulc fit any slot, so not with either of them
        raise ValueError(f"graphs: none of the ops {[spec.name for spec, _ in choices]} fits any slot")
    return node


def _root_node(
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
    return [node] if node is not None else [_draw_node(draw, choices, values)]


def _draw_nodes(
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
        nodes.append(_draw_node(draw, choices, values))
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
        # in three graphs out of four a root op goes on top; it is drawn before the nodes below
        # it, so that the shrinker deletes those and keeps the op: a graph that is only a root op,
        # on a leaf, is where a failure of one op shrinks to
        rooted = draw(st.integers(0, 3)) != 0
        values = draw(st.lists(leaf, min_size=1, max_size=max_leaves))
        n_leaves = len(values)
        root = draw(st.sampled_from(choices)) if rooted else None
        nodes = _join_sinks(_draw_nodes(draw, choices, values, max_nodes, not rooted), values)
        if root is not None:
            nodes += _root_node(draw, choices, values, root)
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


def _away_from(b: float, centres: Sequence[float], margin: float) -> float:
    """``b`` moved past every interval ``(centre - margin, centre + margin)`` it falls in.

    The intervals are merged and visited in increasing order; a ``b`` inside one moves to
    its upper end: a deterministic map onto the allowed set (no rejection).
    """
    merged: list[list[float]] = []
    for lo, hi in sorted((c - margin, c + margin) for c in centres):
        if merged and lo <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    for lo, hi in merged:
        if lo < b < hi:
            b = hi
    return b


def mlp_graphs(engine: Any = None) -> st.SearchStrategy[Graph]:
    """The hinge loss of a small random MLP (see :func:`autograd.testing.mlp.mlp_loss_graph`).

    Every relu input (hidden relu neurons and the hinge ``1 - y * score``) stays at
    least ``KINK_MARGIN`` away from its kink by construction: each neuron's bias is
    drawn last and moved out of the intervals that would put some sample's
    pre-activation within the margin (see :func:`_away_from`).
    """
    eng = resolve_engine(engine)
    weight = st.floats(-1.0, 1.0, allow_nan=False)
    nonlins = [n for n in ("tanh", "relu") if eng.supports(n)]

    @st.composite
    def build(draw: Any) -> Graph:
        nin = 2
        sizes = draw(st.sampled_from([[2, 1], [3, 1], [2, 2, 1]]))
        n = draw(st.integers(1, 3))
        xs = [draw(st.lists(float_leaves, min_size=nin, max_size=nin)) for _ in range(n)]
        ys = [draw(st.sampled_from([-1.0, 1.0])) for _ in range(n)]
        nonlin = draw(st.sampled_from(nonlins)) if nonlins else "linear"
        layers = []
        acts = [list(x) for x in xs]  # each sample's activations, tracked to place the biases
        for li, size in enumerate(sizes):
            last = li == len(sizes) - 1
            layer = []
            new_acts: list[list[float]] = [[] for _ in xs]
            for _ in range(size):
                ws = draw(st.lists(weight, min_size=len(acts[0]), max_size=len(acts[0])))
                sums = [sum(w * a for w, a in zip(ws, act, strict=True)) for act in acts]
                if last:  # the hinge relu(1 - y * (s + b)) has its kink at b = y - s
                    kinks = [y - t for y, t in zip(ys, sums, strict=True)]
                else:
                    kinks = [-t for t in sums] if nonlin == "relu" else []
                b = _away_from(draw(weight), kinks, 2 * KINK_MARGIN)
                layer.append((ws, b))
                for i, t in enumerate(sums):
                    pre = t + b
                    new_acts[i].append(
                        pre if last or nonlin == "linear" else float(OPS[nonlin].num([pre], None))
                    )
            layers.append(layer)
            acts = new_acts
        return mlp_loss_graph(layers, xs, ys, nonlin, engine=eng)

    return build()


# ---------------------------------------------------------------------- stress
#: Leaves of stress graphs: ordinary values (zeros among them), tiny ones (down to subnormals, whose
#: squares underflow) and huge ones (whose products approach the float range).
stress_leaves = st.one_of(
    float_leaves,
    st.floats(1e-320, 1e-100).flatmap(lambda x: st.sampled_from([x, -x])),
    st.floats(1e100, 1e150).flatmap(lambda x: st.sampled_from([x, -x])),
)
#: The largest |value| and |product of partials along a path| a stress graph may reach: gradients
#: and interior adjoints (at most 2**depth such paths) stay finite.
STRESS_BOUND = 1e280
_NORMAL_MIN = 2.0**-1022


def _gain(spec: OpSpec, values: list[Any], gains: list[float], args: tuple[int, ...], c: Any) -> float:
    """The largest |product of local partials| along a path ending at a new node ``spec(args)``."""
    try:
        partials = spec.rule(len(args), c)(*[float(values[a]) for a in args])[1:]
    except (OverflowError, ValueError, ZeroDivisionError):  # a partial beyond floats
        return math.inf
    return max([1.0, *(abs(p) * gains[a] for a, p in zip(args, partials, strict=True))])


def _cancellation(draw: Any, values: list[Any]) -> list[Node]:
    """``c - (c - x)``: exactly x, but 0 or x rounded in floats when x is tiny next to c."""
    tiny = [i for i, v in enumerate(values) if 0 < abs(v) < 1e-12]
    x = _pick(draw, tiny or list(range(len(values))), len(values) - 1)
    c = draw(st.sampled_from(OPS["rsub"].consts))
    inner = len(values)
    values.append(c - values[x])
    values.append(c - values[inner])
    return [Node("rsub", (x,), c), Node("rsub", (inner,), c)]


def _square(draw: Any, values: list[Any]) -> list[Node]:
    """``n * n`` of the newest slot: a zero partial when n is 0 in floats (after a cancellation)."""
    n = len(values) - 1
    values.append(values[n] * values[n])
    return [Node("mul", (n, n))]


def _product_in(low: float, high: float) -> Any:
    """A product of two slots whose magnitude lies in ``(low, high]`` (None when no pair does)."""

    def make(draw: Any, values: list[Any]) -> list[Node]:
        pairs = [
            (a, b) for a in range(len(values)) for b in range(a, len(values))
            if low < abs(values[a] * values[b]) <= high
        ]  # fmt: skip
        if not pairs:
            return []
        a, b = draw(st.sampled_from(pairs))
        values.append(values[a] * values[b])
        return [Node("mul", (a, b))]

    return make


def _relu_near_kink(n_leaves: int) -> Any:
    """relu of a leaf or of a product of two leaves that is tiny but not 0: just off the kink."""

    def make(draw: Any, values: list[Any]) -> list[Node]:
        near = [i for i in range(n_leaves) if 0 < abs(values[i]) < 1e-100]
        if not near:
            return []
        a, b = draw(st.sampled_from(near)), draw(st.sampled_from([*near, None]))
        if b is None or abs(values[a] * values[b]) < _NORMAL_MIN:
            values.append(_relu_value(values[a]))
            return [Node("relu", (a,))]
        values.append(values[a] * values[b])
        values.append(_relu_value(values[-1]))
        return [Node("mul", (a, b)), Node("relu", (len(values) - 2,))]

    return make


def _relu_value(x: float) -> float:
    return x if x > 0 else 0.0


def stress_graphs(
    engine: Any = None, *, max_leaves: int = 4, max_nodes: int = 10
) -> st.SearchStrategy[Graph]:
    """Graphs built to provoke the oracles' hazards, on leaves anywhere in the float range.

    Between ordinary nodes (every op the engine has, inside its domain, with values up to
    ``STRESS_BOUND`` instead of ``ops.BOUND``) come hazard gadgets: catastrophic
    cancellation ``c - (c - x)``, the square ``n * n`` (a zero partial at ``n = 0``),
    products that underflow into the subnormal range or to 0, products near the top of the
    float range, and relu of tiny nonzero values (just off the kink).  Leaves come from
    ``stress_leaves``.  A node whose value or path gain (product of local partials, from
    sympy's rules) would pass ``STRESS_BOUND`` is left out, so values and gradients stay
    finite by construction.
    """
    eng = resolve_engine(engine)
    choices = _choices(eng, False, None)
    relu = supported(eng, OPS["relu"])

    @st.composite
    def build(draw: Any) -> Graph:
        values = draw(st.lists(stress_leaves, min_size=1, max_size=max_leaves))
        n_leaves = len(values)
        gadgets = [
            _cancellation, _square, _product_in(0.0, _NORMAL_MIN), _product_in(1e200, STRESS_BOUND),
            *([_relu_near_kink(n_leaves)] if relu else []),
        ]  # fmt: skip
        nodes: list[Node] = []
        gains = [1.0] * n_leaves
        while len(nodes) < max_nodes and (not nodes or draw(st.integers(0, max_nodes)) != 0):
            kind = draw(st.integers(0, len(gadgets)))  # 0: an ordinary node, shrinks first
            before = len(values)
            new = (
                [_draw_node(draw, choices, values, STRESS_BOUND)]
                if kind == 0
                else gadgets[kind - 1](draw, values)
            )
            for node in new:
                gains.append(_gain(OPS[node.op], values, gains, node.args, node.const))
            if any(
                g > STRESS_BOUND or not abs(v) <= STRESS_BOUND
                for g, v in zip(gains[before:], values[before:])
            ):
                del values[before:], gains[before:]  # would overflow a gradient: leave it out
                continue
            nodes += new
        if not nodes:
            nodes.append(Node("neg", (0,)))
            values.append(-values[0])
        nodes = _join_sinks(nodes, values)
        graph = Graph(tuple(values[:n_leaves]), tuple(nodes))
        record_events(graph)
        return graph

    return build()


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
