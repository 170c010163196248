"""Engine semantics on random graphs: accumulation, linearity, build order, the chain sweep."""

from hypothesis import given

from autograd.testing import checks
from autograd.testing import strategies as gs

ENGINE = None  # our engine, autograd itself


@given(gs.graphs(exact=True))
def test_backward_twice_doubles_leaf_gradients_and_keeps_interior_ones(graph):
    checks.check_backward_twice(ENGINE, graph)


@given(gs.graph_pairs())
def test_gradient_of_a_linear_combination_is_the_combination_of_gradients(example):
    checks.check_linearity(ENGINE, example)


@given(gs.build_orders())
def test_results_do_not_depend_on_the_order_the_graph_was_built_in(example):
    checks.check_build_order(ENGINE, example)


@given(gs.chain_sweeps())
def test_chain_of_n_multiplications_has_gradient_w_to_the_n(example):
    checks.check_chain_sweep(ENGINE, example)
