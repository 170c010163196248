"""The limits the public strategies promise, searched for with hypothesis ``find``: what a strategy
must never draw is searched for (and not found), what it must reach is found.

A sample of examples (tests/test_testing_generation.py) rarely holds the one value just past a
strategy's limit; a search stops at the first example it finds, and hypothesis draws the ends of a
range more often than their share, so a limit moved by one is found here.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, find, settings
from hypothesis.errors import NoSuchExample

from autograd.testing import strategies as gs

SEARCH = settings(
    max_examples=300, derandomize=True, database=None, deadline=None, suppress_health_check=list(HealthCheck)
)


def test_chain_sweeps_run_from_one_to_sixty_multiplications():
    with pytest.raises(NoSuchExample):
        find(gs.chain_sweeps(), lambda sweep: not 1 <= sweep[2] <= 60, settings=SEARCH)
    assert find(gs.chain_sweeps(), lambda sweep: sweep[2] == 60, settings=SEARCH)[2] == 60
