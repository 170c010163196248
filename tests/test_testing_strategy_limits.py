"""The limits the public strategies promise, searched for with hypothesis ``find``: what a strategy
must never draw is searched for (and not found), what it must reach is found.

A sample of examples (tests/test_testing_generation.py) rarely holds the one value just past a
strategy's limit; a search stops at the first example it finds, and hypothesis draws the ends of a
range more often than their share, so a limit moved by one is found here.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, find, settings
from hypothesis.errors import NoSuchExample

from autograd.testing import strategies as gs
from autograd.testing.ops import BOUND

SEARCH = settings(
    max_examples=300, derandomize=True, database=None, deadline=None, suppress_health_check=list(HealthCheck)
)
SEARCH_LONG = settings(SEARCH, max_examples=1000)  # for a shape drawn about once in a few hundred


def test_chain_sweeps_run_from_one_to_sixty_multiplications():
    with pytest.raises(NoSuchExample):
        find(gs.chain_sweeps(), lambda sweep: not 1 <= sweep[2] <= 60, settings=SEARCH)
    assert find(gs.chain_sweeps(), lambda sweep: sweep[2] == 60, settings=SEARCH)[2] == 60


@pytest.mark.slow
def test_graphs_leave_a_leaf_unused_but_join_every_unused_interior_node():
    # an input that feeds nothing has a zero gradient, a case of its own for an engine; an interior
    # node that feeds nothing is joined into the output so that its rule is checked
    def unused(graph) -> set[int]:
        used = {a for node in graph.nodes for a in node.args}
        return set(range(graph.out)) - used

    n_leaves = lambda graph: len(graph.leaves)  # noqa: E731
    graph = find(gs.graphs(), lambda g: any(s < n_leaves(g) for s in unused(g)), settings=SEARCH)
    assert len(graph.leaves) >= 2  # the output is a node on another leaf
    with pytest.raises(NoSuchExample):
        find(gs.graphs(), lambda g: any(s >= n_leaves(g) for s in unused(g)), settings=SEARCH)


@pytest.mark.slow
def test_a_stress_graph_puts_a_constant_op_on_a_huge_leaf_past_the_ordinary_bound():
    # stress graphs bound their values by STRESS_BOUND, not ops.BOUND: on a single huge leaf the
    # first node may be c * x, x - c, ... of a magnitude no ordinary graph reaches (not c - x: the
    # cancellation gadget draws that one itself)
    def huge_constant_node(graph) -> bool:
        first = graph.nodes[0]
        if len(graph.leaves) != 1 or first.const is None or first.op == "rsub":
            return False
        return abs(graph.evaluate()[1]) > BOUND

    graph = find(gs.stress_graphs(), huge_constant_node, settings=SEARCH_LONG)
    assert abs(graph.leaves[0]) > BOUND
