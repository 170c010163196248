"""autograd.compile on random DAGs (fan-out, reuse, shared subexpressions, every op).

Each graph is compiled where it was drawn and called there and at a second random point:
the compiled output and gradient must be the interpreter's, float bits and number types
included (or the same error, where the second point leaves an op's domain); on rational
graphs they must also equal sympy's derivative evaluated exactly.  The comparison lives in
``regressions/codegen_zoo.py``, whose broken compilers it must catch.
"""

from autograd import compiler
from regressions import codegen_zoo as zoo


def test_compiled_random_graphs_equal_the_interpreter_and_sympy():
    zoo.check_random_graphs(compiler)
