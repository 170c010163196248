"""The mutation gate's own blind spots (.ci/mutation_gate.py and the root conftest.py).

mutmut 3 forks each mutant's test process from a clean run ("stats") whose caches are full,
and records in that run which tests reach each function; it then runs a mutant only against
the tests recorded for its function.  A cached function looked reached by one test only, and a
mutant inside it never ran: it survived whatever the tests asserted.
"""


def test_mutation_runs_empty_the_caches_that_would_hide_a_mutant():
    import conftest
    from autograd.testing import graph
    from autograd.testing.graph import Graph, Node

    def fill() -> None:
        Graph((0.5,), (Node("exp", (0,)),)).reference()
        graph._sympy_gradient(Graph((0.5, 2.0), (Node("mul", (0, 1)),)).structure)

    def cached() -> int:
        return graph._sympy_gradient.cache_info().currsize + graph._interval_function.cache_info().currsize

    fill()
    conftest.empty_caches("")  # not under mutmut: nothing
    assert cached() > 0
    conftest.empty_caches("autograd.testing.probes.edges.x__edge_points__mutmut_3")  # another module's mutant
    assert cached() > 0
    conftest.empty_caches("autograd.testing.graph.x__settled__mutmut_3")  # a mutant of graph.py
    assert cached() == 0
    fill()
    conftest.empty_caches("stats")  # the clean run: every cache of the package
    assert cached() == 0

