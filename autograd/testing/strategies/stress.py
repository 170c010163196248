"""Graphs built to provoke the oracles' hazards, on leaves anywhere in the float range."""

from __future__ import annotations

import math
from typing import Any

from hypothesis import strategies as st

from autograd.testing.engines import resolve_engine
from autograd.testing.engines.support import supported
from autograd.testing.graph import Graph, Node
from autograd.testing.ops import OPS, OpSpec
from autograd.testing.strategies.examples import float_leaves
from autograd.testing.strategies.nodes import draw_node, join_sinks, op_choices, pick, record_events

__all__ = ["STRESS_BOUND", "stress_graphs", "stress_leaves"]

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
    x = pick(draw, tiny or list(range(len(values))), len(values) - 1)
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
    choices = op_choices(eng, False, None)
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
                [draw_node(draw, choices, values, STRESS_BOUND)]
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
        nodes = join_sinks(nodes, values)
        graph = Graph(tuple(values[:n_leaves]), tuple(nodes))
        record_events(graph)
        return graph

    return build()
