"""The backward() conventions (autograd.testing.checks.conventions) and the state machine that models
them, judged by behaviour: backward_convention on fixture engines, the reproducers a convention
finding carries run as pasted, and the machine driven step by step (tests/picks.py).

Every expected number is worked out by hand from the steps: ``y = (x*x)*c`` at x = 2, c = 3 has
dy/dx = 2*x*c = 12, dy/dc = x*x = 4, dy/dh = c = 3 (h = x*x), and the output's own gradient 1.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from autograd.testing import verify_engine
from autograd.testing.boundary import child_path

#: What our convention predicts at the reads of the steps on a graph kept after backward(): passes
#: from y twice (leaves accumulate: 24, 8; interior h and the seed as after one pass), from the
#: leaf z twice (1, then 2), then w = x * c built (0; x and c keep theirs).
OURS_ON_KEPT_STEPS = [
    ["12", "4", "3", "1", "0"],
    ["24", "8", "3", "1", "0"],
    ["24", "8", "3", "1", "1"],
    ["24", "8", "3", "1", "2"],
    ["24", "8", "3", "1", "2", "0"],
]
FREED = "RuntimeError: backward through a graph that a previous backward() freed"


def _convention_failure(engine):
    """verify_engine's stateful message on ``engine`` (our conventions declared): its expected and
    actual lines and its reproducer."""
    message = verify_engine(engine, checks=["stateful"], max_examples=2)["stateful"].message
    assert message.startswith("wrong_gradient: backward() does not follow the declared convention"), message
    lines = message.splitlines()
    expected = next(line for line in lines if line.startswith("expected: ")).removeprefix("expected: ")
    actual = next(line for line in lines if line.startswith("actual: ")).removeprefix("actual: ")
    script = message.split("reproducer:\n", 1)[1].split("\n\n", 1)[0]
    return expected, actual, script


def _run(script):
    env = dict(os.environ, PYTHONPATH=child_path())
    return subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)


# ---------------------------------------------------------------------- a declared convention not followed
def test_an_engine_refusing_a_pass_over_a_freed_graph_is_shown_with_the_pass_it_refused():
    # frees_graph raises at the second pass from y (our convention keeps graphs): the finding's actual
    # is what the engine gave before it and what it raised, and the reproducer prints just that
    expected, actual, script = _convention_failure("tests.engines.frees_graph")
    assert expected == repr(OURS_ON_KEPT_STEPS)
    assert actual == f"[['12', '4', '3', '1', '0']], then raises {FREED}"
    done = _run(script)
    assert done.returncode == 1 and done.stderr.splitlines()[-1] == FREED
    assert done.stdout.splitlines() == [f"expected: {expected}", "actual:   [['12', '4', '3', '1', '0']]"]


def test_an_engine_ignoring_a_pass_over_a_freed_graph_is_shown_with_what_it_gave():
    # frees_graph_quietly: the second pass from y sets y's gradient to 1 and h's (interior) to 0, and
    # sends nothing on; from the leaf z the gradient is set to 1 twice; x and c keep 12 and 4
    expected, actual, script = _convention_failure("tests.engines.frees_graph_quietly")
    assert expected == repr(OURS_ON_KEPT_STEPS)
    # each read: x, c, h, y, z (and w): x, c and y as after the first pass; h and z as said above
    gave = [
        ["12", "4", h, "1", *z] for h, *z in [("3", "0"), ("0", "0"), ("0", "1"), ("0", "1"), ("0", "1", "0")]
    ]
    assert actual == repr(gave)
    done = _run(script)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [f"expected: {expected}", f"actual:   {actual}"]


@pytest.mark.parametrize("engine", ["tests.engines.frees_graph", "tests.engines.frees_graph_quietly"])
def test_a_graph_freeing_engine_is_observed_as_such(engine):
    from autograd.testing.checks import backward_convention

    observed = backward_convention(engine)
    assert (observed.graph, observed.operands, observed.leaf_output) == ("freed", "keep", "assign")
