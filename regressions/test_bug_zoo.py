"""The bug zoo's meta-test: every known bug must make some check fail, the real engine none.

For each broken variant in ``bug_zoo.BUGS`` it runs the relevant checks (the
regression tests of this directory, through their ``engine=``/``nn=``
parameters, and the ``autograd.testing`` harness properties) and asserts that
at least one fails; on the real engine and network all must pass.  Which check
caught which bug is printed as a table at the end of the pytest run (and by
``python -m regressions.bug_zoo``).
"""

from __future__ import annotations

import pytest

from regressions.bug_zoo import BUGS, outcomes

CAUGHT: dict[str, list[str]] = {}  # bug -> the checks that failed on it, for the end-of-run table
CAUGHT_PROPERTY = "bug_zoo_caught"  # how each test hands its row to the table (regressions/conftest.py)


@pytest.mark.slow
def test_every_check_passes_on_the_real_engine():
    failed = {check: failure for check, failure in outcomes(None).items() if failure}
    assert not failed, f"checks that fail on the REAL engine: {failed}"


@pytest.mark.slow
@pytest.mark.parametrize("bug", list(BUGS))
def test_bug_is_caught(bug, record_property):
    results = outcomes(BUGS[bug])
    caught = [check for check, failure in results.items() if failure]
    record_property(CAUGHT_PROPERTY, (bug, caught))  # a report's property reaches xdist's controller
    assert caught, f"no check caught the bug '{bug}' ({BUGS[bug].what}); checks run: {sorted(results)}"
