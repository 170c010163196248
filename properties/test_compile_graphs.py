"""autograd.compile on random DAGs (fan-out, reuse, shared subexpressions, every op).

Two ways.  Against the interpreter: each graph is compiled where it was drawn and called there
and at a second random point; the compiled output and gradient must be the interpreter's, float
bits and number types included (or the same error, where the second point leaves an op's
domain), and on rational graphs equal to sympy's derivative evaluated exactly.  And as one more
engine for the harness (``codegen_zoo.compiled_engine``: its ``backward()`` runs the compiled
code): sympy's exact derivative on rational graphs, sympy at 50 digits within the derived
tolerance and central differences on float graphs, and the forward value.  The comparisons live
in ``regressions/codegen_zoo.py``, whose broken compilers they must catch.
"""

from hypothesis import given
from hypothesis import strategies as st

from autograd import compiler
from autograd.testing import checks
from autograd.testing import strategies as gs
from regressions import codegen_zoo as zoo

COMPILED = zoo.compiled_engine(compiler)


def test_compiled_random_graphs_equal_the_interpreter_and_sympy():
    zoo.check_random_graphs(compiler)


def test_compiled_gradients_equal_sympy_exactly_on_rational_graphs():
    zoo.check_harness_exact(compiler)


@given(gs.graphs(COMPILED))
def test_compiled_gradients_match_sympy_at_50_digits(graph):
    gs.reject_inconclusive(checks.check_symbolic, COMPILED, graph)


@given(gs.graphs(COMPILED, max_leaves=2))
def test_compiled_gradients_match_central_differences(graph):
    gs.reject_inconclusive(checks.check_fd, COMPILED, graph)


@given(st.one_of(gs.graphs(COMPILED, exact=True), gs.graphs(COMPILED)))
def test_compiled_forward_values_match_sympy(graph):
    gs.reject_inconclusive(checks.check_forward, COMPILED, graph)
