"""The harness zoo's meta-test: every bug planted in the verdict logic fails its catching tests.

For each plant of ``harness_zoo.PLANTS`` it runs the named catching tests in a fresh interpreter
with the plant in place and asserts that the plant was imported and that every named test
failed (and nothing errored).  Unplanted, the same tests pass in the ordinary run of the suite.
"""

from __future__ import annotations

import re

import pytest

from regressions.harness_zoo import MARKER, PLANTS, run_planted


@pytest.mark.parametrize("name", list(PLANTS))
def test_each_plant_applies_to_the_code_as_it_is(name):
    plant = PLANTS[name]
    source = plant.path.read_text(encoding="utf-8")
    assert plant.planted(source) != source


@pytest.mark.slow
@pytest.mark.parametrize("name", list(PLANTS))
def test_planted_bug_is_caught_by_its_named_tests(name):
    plant = PLANTS[name]
    result = run_planted(name, ["-rf"])
    output = result.stdout + result.stderr
    assert f"{MARKER} {name}" in output, f"{name} was never imported by its catching tests:\n{output}"
    assert result.returncode == 1, (
        f"{name}: pytest exited {result.returncode}, not 1 (tests failed):\n{output}"
    )
    failed = set(re.findall(r"^FAILED (\S+)", result.stdout, re.M))
    missed = [test for test in plant.caught_by if test not in failed]
    assert not missed, f"{name} ({plant.what}) is not caught by {missed}:\n{output}"
