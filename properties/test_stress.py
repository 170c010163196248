"""The oracles on graphs built to trip them up, run on our (correct) engine: no false alarms.

``stress_graphs`` provokes what once gave false MISMATCHes: zero partials, catastrophic
cancellation, underflow into subnormals, magnitudes near both ends of the float range
and relu inputs just off the kink.  A correct engine must pass every check; a point
the oracle cannot judge raises ``OracleInconclusive``, which is counted as a
``hypothesis.event`` (``--hypothesis-show-statistics``) and rejected.  Under the
``thorough`` profile these tests run 10-20 times the profile's examples.
"""

from hypothesis import given, settings

from autograd.testing import checks
from autograd.testing import strategies as gs

ENGINE = None  # our engine, autograd itself


def _examples(factor: int) -> settings:
    """The loaded profile's example count, times ``factor`` under ``thorough``."""
    n = settings().max_examples
    return settings(max_examples=factor * n if settings.get_current_profile_name() == "thorough" else n)


@_examples(20)
@given(gs.stress_graphs())
def test_symbolic_oracle_has_no_false_alarm_on_stress_graphs(graph):
    gs.reject_inconclusive(checks.check_symbolic, ENGINE, graph)


@_examples(10)
@given(gs.stress_graphs())
def test_finite_differences_have_no_false_alarm_on_stress_graphs(graph):
    gs.reject_inconclusive(checks.check_fd, ENGINE, graph)


@_examples(10)
@given(gs.stress_graphs())
def test_forward_check_has_no_false_alarm_on_stress_graphs(graph):
    gs.reject_inconclusive(checks.check_forward, ENGINE, graph)
