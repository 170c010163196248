"""The oracles on graphs built to trip them up, run on our (correct) engine: no false alarms.

``stress_graphs`` provokes what once gave false MISMATCHes: zero partials, catastrophic
cancellation, underflow into subnormals, magnitudes near both ends of the float range
and relu inputs just off the kink.  A correct engine must pass every check; a point
the oracle cannot judge raises ``OracleInconclusive``, which is counted as a
``hypothesis.event`` (``--hypothesis-show-statistics``) and rejected.  They run the loaded
profile's examples, as every property does (under ``thorough`` they once ran 10-20 times
more: 40,000 sympy checks, hours on this machine, so ``tox -e thorough`` never ended).
"""

from hypothesis import given

from autograd.testing import checks
from autograd.testing import strategies as gs
from autograd.testing.ops import KINK_MARGIN

ENGINE = None  # our engine, autograd itself


@given(gs.stress_graphs())
def test_symbolic_oracle_has_no_false_alarm_on_stress_graphs(graph):
    gs.reject_inconclusive(checks.check_symbolic, ENGINE, graph)


@given(gs.stress_graphs())
def test_finite_differences_have_no_false_alarm_on_stress_graphs(graph):
    gs.reject_inconclusive(checks.check_fd, ENGINE, graph)


@given(gs.stress_graphs())
def test_forward_check_has_no_false_alarm_on_stress_graphs(graph):
    gs.reject_inconclusive(checks.check_forward, ENGINE, graph)


@given(gs.mlp_graphs())
def test_mlp_graphs_keep_every_relu_input_away_from_its_kink(graph):
    values = graph.evaluate()
    relu_inputs = [values[node.args[0]] for node in graph.nodes if node.op == "relu"]
    assert relu_inputs  # the hinge is a relu
    for x in relu_inputs:
        assert abs(x) >= KINK_MARGIN * (1 - 1e-9), f"relu input {x!r} within {KINK_MARGIN} of 0\n{graph!r}"
