"""Generation statistics that cannot drift: every shape the graph strategies must draw, counted.

Each test draws one fixed, derandomized sample of graphs (its own settings, so the sample does
not depend on the hypothesis profile) and counts, per op of the table the engine supports (new
rows are covered as they are added): how often it is drawn, drawn as the root, drawn as an operand
of another node, drawn with one node as both operands (``a + a``, ``h * h``: the double-counting
bug this project started from), and with its constant on each side.  Across ops: fan-out of leaves
and of interior nodes, depth and the number of leaves.  Each shape has a lower bound, so a
strategy that stops drawing it (or draws it a fraction as often) fails here by name.

The bounds are rates of the sample rather than counts where the sample grows with the table
(one op's share of the nodes is smaller when there are more ops); ``shape_counts`` is a pure
function of the graphs, tested on a hand-written graph below.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, given, settings

from autograd.testing import Graph, Node, resolve_engine
from autograd.testing import strategies as gs
from autograd.testing.ops import OPS, const_source

SAMPLE = 600  # graphs per sample; about 6 s for the float sample
SAMPLE_SETTINGS = settings(
    max_examples=SAMPLE,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)


@dataclass
class Shapes:
    graphs: int = 0
    nodes: Counter = field(default_factory=Counter)  # op -> nodes of that op
    roots: Counter = field(default_factory=Counter)  # op -> graphs whose output is that op
    operands: Counter = field(default_factory=Counter)  # op -> nodes of that op feeding a later node
    reuse: Counter = field(default_factory=Counter)  # binary op -> nodes with one slot as both operands
    const_side: Counter = field(default_factory=Counter)  # (op, "left" | "right") -> nodes
    consts: Counter = field(default_factory=Counter)  # (op, repr(const)) -> nodes
    leaf_fan_out: int = 0  # graphs in which some leaf feeds two or more nodes
    interior_fan_out: int = 0  # graphs in which some interior node feeds two or more nodes
    depth: Counter = field(default_factory=Counter)  # output depth -> graphs
    leaves: Counter = field(default_factory=Counter)  # number of leaves -> graphs


def const_side(op: str, c: object) -> str:
    """Which side of the op's source its constant is written on (``c - x``: left; ``x ** c``: right)."""
    return "left" if OPS[op].source(["x"], c).startswith(const_source(c)) else "right"


def shape_counts(graphs: list[Graph]) -> Shapes:
    s = Shapes()
    for graph in graphs:
        s.graphs += 1
        n_leaves = len(graph.leaves)
        s.leaves[n_leaves] += 1
        consumers: dict[int, set[int]] = {}
        depth = [0] * (n_leaves + len(graph.nodes))
        for i, node in enumerate(graph.nodes):
            slot = n_leaves + i
            s.nodes[node.op] += 1
            if OPS[node.op].arity == 2 and node.args[0] == node.args[1]:
                s.reuse[node.op] += 1
            if node.const is not None:
                s.const_side[node.op, const_side(node.op, node.const)] += 1
                s.consts[node.op, repr(node.const)] += 1
            for a in node.args:
                consumers.setdefault(a, set()).add(slot)
            depth[slot] = 1 + max(depth[a] for a in node.args)
        for slot in consumers:
            if slot >= n_leaves:
                s.operands[graph.nodes[slot - n_leaves].op] += 1
        s.roots[graph.nodes[-1].op] += 1
        s.leaf_fan_out += any(len(c) > 1 for a, c in consumers.items() if a < n_leaves)
        s.interior_fan_out += any(len(c) > 1 for a, c in consumers.items() if a >= n_leaves)
        s.depth[depth[graph.out]] += 1
    return s


def sample(strategy) -> Shapes:
    drawn: list[Graph] = []

    @SAMPLE_SETTINGS
    @given(strategy)
    def collect(graph):
        drawn.append(graph)

    collect()
    assert len(drawn) == SAMPLE
    return shape_counts(drawn)


def drawable_ops(engine, exact: bool) -> dict[str, tuple]:
    """The ops of the table the strategy may draw for this engine (all that it supports, rational
    ones for exact graphs), each with the constants it may draw."""
    return {spec.name: consts for spec, consts in gs._choices(resolve_engine(engine), exact, None)}


def assert_every_shape(s: Shapes, ops: dict[str, tuple]) -> None:
    total = sum(s.nodes.values())
    missing = []

    def need(shape: str, count: int, bound: float) -> None:
        if count < bound:
            missing.append(f"{shape}: {count} < {bound:g}")

    for op in ops:
        spec = OPS[op]
        # each op at least a quarter of its fair share of the nodes
        need(f"{op} drawn", s.nodes[op], total / len(ops) / 4)
        need(f"{op} as the root", s.roots[op], 1)
        need(f"{op} as an operand", s.operands[op], s.nodes[op] / 4)
        if spec.arity == 2:  # one node as both operands, about one in three draws when it fits
            need(f"{op}(a, a) (binary reuse)", s.reuse[op], max(3, s.nodes[op] / 8))
        for c in ops[op]:
            need(f"{op} with the constant {c!r}", s.consts[op, repr(c)], 1)
    # joining unused nodes into the output makes most roots one op (add): the root op on top spreads them
    need("graphs whose root is not the most common root op", s.graphs - max(s.roots.values()), 0.4 * s.graphs)
    sides = Counter()
    for (_op, side), n in s.const_side.items():
        sides[side] += n
    for side in {const_side(op, OPS[op].consts[0]) for op in ops if OPS[op].consts}:
        need(f"a constant on the {side}", sides[side], total / len(ops) / 2)
    assert not missing, "shapes the strategy no longer draws enough of:\n  " + "\n  ".join(missing)


def test_shape_counts_of_a_hand_written_graph():
    # x0 + x0 (reuse, leaf fan-out), 2 - n2, n3 * n2 (interior fan-out), n4 ** 2: depth 4
    graph = Graph(
        (0.5, 1.0),
        (Node("add", (0, 0)), Node("rsub", (2,), 2), Node("mul", (3, 2)), Node("powc", (4,), 2)),
    )
    s = shape_counts([graph])
    assert s.nodes == Counter({"add": 1, "rsub": 1, "mul": 1, "powc": 1})
    assert s.reuse == Counter({"add": 1})
    assert s.roots == Counter({"powc": 1})
    assert s.operands == Counter({"add": 1, "rsub": 1, "mul": 1})
    assert s.const_side == Counter({("rsub", "left"): 1, ("powc", "right"): 1})
    assert (s.leaf_fan_out, s.interior_fan_out) == (0, 1)  # x0 feeds one node, twice
    assert s.depth == Counter({4: 1}) and s.leaves == Counter({2: 1})


@pytest.mark.parametrize("engine", ["autograd", "micrograd"])
def test_float_graphs_draw_every_shape_of_every_op(engine):
    ops = drawable_ops(engine, exact=False)
    s = sample(gs.graphs(engine, max_nodes=12))
    assert_every_shape(s, ops)
    assert set(s.nodes) <= set(ops)  # and nothing else
    assert s.leaf_fan_out >= SAMPLE / 10 and s.interior_fan_out >= SAMPLE / 10
    assert sum(n for d, n in s.depth.items() if d >= 8) >= SAMPLE / 20  # long chains
    assert sum(n for d, n in s.depth.items() if d <= 2) >= SAMPLE / 20  # and tiny graphs
    assert all(s.leaves[k] >= SAMPLE / 20 for k in (1, 2, 3, 4))


def test_rational_graphs_draw_every_shape_of_every_closed_op():
    ops = drawable_ops("autograd", exact=True)
    s = sample(gs.graphs(exact=True))
    assert_every_shape(s, ops)
    assert set(s.nodes) <= set(ops)
    assert s.leaf_fan_out >= SAMPLE / 10 and s.interior_fan_out >= SAMPLE / 20
