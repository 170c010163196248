"""The code-generation bug zoo: every broken compiler in ``codegen_zoo.BUGS`` must fail a check.

Each bug is one text substitution of ``autograd/compiler.py``: a rule emitted with the wrong
operand, the shares of a reused node emitted once, the backward pass in the wrong order (two
ways), a ``dot`` summed in another order, ``dot``'s zero-gradient skip dropped, the finiteness
check dropped, gradients starting at 0.0.  The real compiler must pass every check.
"""

import pytest

from autograd import compiler
from regressions.codegen_zoo import BUGS, failures, variant


@pytest.mark.slow
def test_every_check_passes_on_the_real_compiler():
    assert failures(compiler) == {}


@pytest.mark.slow
@pytest.mark.parametrize("bug", list(BUGS))
def test_codegen_bug_is_caught(bug):
    caught = failures(variant(BUGS[bug]))
    print(f"{bug}: caught by {sorted(caught)}")
    assert caught, f"no check caught the code-generation bug '{bug}' ({BUGS[bug].what})"
