"""The stateful check's machine (autograd.testing.checks.stateful_machine), driven step by step:
its reproducer runs what the harness ran, and an exact machine judges only exact gradients."""

import os
import subprocess
import sys
from fractions import Fraction

import pytest

from autograd.testing import resolve_engine
from autograd.testing.boundary import child_path
from autograd.testing.checks import backward_convention, stateful_machine


class Picks:
    """A stateful rule's ``data``: draws these values in order, whatever the strategy."""

    def __init__(self, *values):
        self.values = list(values)

    def draw(self, strategy):
        return self.values.pop(0)


def test_a_stateful_reproducer_runs_what_the_harness_ran_on_zero_d_array_gradients():
    # zero_d_arrays_wrong: d(a*b)/da is b + 1, and backward() adds into each gradient in place: a
    # reproducer that zeroed a leaf with `v0.grad = 0` (an int, no __iadd__) crashed in backward()
    # where the harness, which writes a 0-d array, saw the wrong gradient
    eng = resolve_engine("tests.engines.zero_d_arrays_wrong")
    machine = stateful_machine(eng, backward_convention("tests.engines.zero_d_arrays"))()
    machine.first_leaf(Fraction(3))
    machine.leaf(Fraction(2))
    machine.zero_grad(Picks(0))
    machine.binary(Picks(0, 1), "mul")  # v2 = v0 * v1
    machine.backward(Picks(2))
    with pytest.raises(AssertionError, match=r"stateful: leaf v0 has grad 3\.0") as failed:
        machine.gradients_match_model()
    reproducer = str(failed.value).split("\n", 1)[1]
    assert "kept = v0.grad.copy(); kept[()] = 0; v0.grad = kept" in reproducer
    env = dict(os.environ, PYTHONPATH=child_path())
    done = subprocess.run(
        [sys.executable, "-c", reproducer], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["expected: ['2.0', '3.0', '?']", "actual:   ['3.0', '3.0', '1.0']"]


def test_an_exact_machine_leaves_out_the_ops_whose_gradients_come_back_as_floats():
    # exact_but_float_pow is exact through + - * / but x ** c sends back a float: equality would
    # call 2/3 rounded a wrong gradient (v0 = 1/3, v1 = v0 ** 2), so powc is left out, and said
    machine = stateful_machine("tests.engines.exact_but_float_pow", exact=True)
    assert machine.not_judged == (
        "x ** 2, x ** -1 (gradients not exact numbers: equality cannot judge them)",
    )
    assert stateful_machine("tests.engines.sound", exact=True).not_judged == ()
