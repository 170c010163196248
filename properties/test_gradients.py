"""Gradients of random graphs against the three oracles, and forward values against sympy.

Each test runs one property of :mod:`autograd.testing.checks` on our engine, on the
oracles that the audit's per-op searches (and ``verify_engine``, the audit with our
conventions declared) use too: here as pytest properties, on whole random graphs.  To
reproduce a failure, rerun the test with the same profile
(``HYPOTHESIS_PROFILE=ci pytest properties/test_gradients.py::NAME``); the
falsifying graph is printed as a runnable snippet.  A point an oracle cannot judge
(``OracleInconclusive``) is counted as an event and rejected.
"""

from hypothesis import given
from hypothesis import strategies as st

from autograd.testing import checks
from autograd.testing import strategies as gs

ENGINE = None  # our engine, autograd itself


@given(gs.graphs(exact=True))
def test_gradients_equal_sympy_exactly_on_rational_graphs(graph):
    checks.check_exact(ENGINE, graph)


@given(gs.graphs())
def test_gradients_match_sympy_at_50_digits_within_the_derived_tolerance(graph):
    gs.reject_inconclusive(checks.check_symbolic, ENGINE, graph)


@given(gs.graphs())
def test_gradients_match_central_differences(graph):
    gs.reject_inconclusive(checks.check_fd, ENGINE, graph)


@given(gs.graphs(max_leaves=2, max_nodes=16))
def test_gradients_of_long_graphs_match_sympy(graph):
    gs.reject_inconclusive(checks.check_symbolic, ENGINE, graph)


@given(st.one_of(gs.graphs(exact=True), gs.graphs()))
def test_forward_values_match_sympy(graph):
    gs.reject_inconclusive(checks.check_forward, ENGINE, graph)
