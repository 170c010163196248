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

Where each lives: :mod:`~autograd.testing.strategies.nodes` (one node that fits, the
events a graph reports), :mod:`~autograd.testing.strategies.examples` (graphs and the
examples of the properties), :mod:`~autograd.testing.strategies.mlp` and
:mod:`~autograd.testing.strategies.stress`.
"""

from autograd.testing.strategies.examples import (
    build_orders,
    chain_sweeps,
    float_leaves,
    graph_pairs,
    graphs,
    rational_leaves,
    reject_inconclusive,
)
from autograd.testing.strategies.mlp import mlp_graphs
from autograd.testing.strategies.nodes import record_events
from autograd.testing.strategies.stress import STRESS_BOUND, stress_graphs, stress_leaves

__all__ = [
    "STRESS_BOUND",
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
