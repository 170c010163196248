"""Second and third derivatives of random graphs (fan-out, reuse, every op) against sympy.

Whole Hessians (all n*n entries) are compared: exactly with sympy on rational
graphs, within the derived tolerance of :mod:`autograd.testing.oracles.higher` on float
graphs, and with central differences of the engine's own first-order gradient.
Third derivatives are checked exactly on a sample (fewer examples).  The last
property is how the harness proves the engine's two rule forms agree: the
values ``backward(create_graph=True)`` leaves in the leaves' ``.grad`` equal a
plain ``backward()``'s gradients (exactly on rational graphs).

A point an oracle cannot judge (``OracleInconclusive``) is counted as an event and
rejected.  Reproduce a failure with the same profile
(``HYPOTHESIS_PROFILE=ci pytest properties/test_higher_derivatives.py::NAME``); the
falsifying graph prints as a runnable snippet.
"""

from hypothesis import given, settings
from hypothesis import strategies as st

from autograd.testing import strategies as gs
from autograd.testing.oracles import higher

ENGINE = None  # our engine, autograd itself
#: Third derivatives cost n**2 passes and sympy's third diff: a quarter of the profile's examples.
SAMPLE = settings(max_examples=max(1, settings.default.max_examples // 4))


@given(gs.graphs(exact=True))
def test_hessians_equal_sympy_exactly_on_rational_graphs(graph):
    higher.assert_hessian_exact(graph, ENGINE)


@given(gs.graphs())
def test_hessians_match_sympy_within_the_derived_tolerance(graph):
    gs.reject_inconclusive(higher.assert_hessian_symbolic, graph, ENGINE)


@given(gs.graphs())
def test_hessians_match_central_differences_of_the_gradient(graph):
    gs.reject_inconclusive(higher.assert_hessian_fd, graph, ENGINE)


@SAMPLE
@given(gs.graphs(exact=True, max_leaves=3, max_nodes=6))
def test_third_derivatives_equal_sympy_exactly_on_rational_graphs(graph):
    higher.assert_third_exact(graph, ENGINE)


@given(st.one_of(gs.graphs(exact=True), gs.graphs()))
def test_graph_mode_gradients_equal_the_fast_paths(graph):
    higher.assert_graph_mode_gradient(graph, ENGINE)
