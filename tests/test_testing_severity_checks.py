"""Severity and bad inputs on fixture engines, through the checks and probes that find them
(the pure verdict rules are tests/test_testing_severity.py's)."""

from __future__ import annotations

import pytest

from autograd.testing import run_check
from tests.engines import accepts_infinities, severities


def test_the_edge_probe_tells_a_wrong_sign_from_an_inaccuracy_at_the_extremes():
    result = run_check("edge_points", severities.Value)
    assert result.status == "failed"
    wrong = {f.op: f for f in result.findings if f.kind == "wrong_gradient"}
    # tanh: -(1 - t*t) everywhere, first met at x = 0 where the derivative is 1
    tanh = wrong["tanh"].severity
    assert (tanh.label, tanh.point, tanh.relative_error) == ("wrong", "ordinary", 2.0)
    # log: 1/x times (1 + 1e-6) above 1e200, first met at 1e300
    log = wrong["log"].severity
    assert (log.label, log.point) == ("inaccurate at the extremes", "extreme")
    assert log.relative_error == pytest.approx(1e-6, rel=1e-3)
    assert wrong["log"].point == (1e300,)


def test_bad_inputs_name_the_infinities_an_engine_accepts():
    (invalid,) = run_check("bad_inputs", accepts_infinities.Value).findings
    assert invalid.kind == "accepts_invalid"  # information, not a defect
    # inf * inf + inf is inf; -inf * -inf + -inf is inf - inf, a NaN this engine refuses then
    said = "float('inf') (never fails), float('-inf') (fails later, in v * v + v)"
    assert invalid.summary == f"accepts 2 of 8 invalid data values without an error: {said}"
    assert "float('nan')" not in invalid.summary  # refused at once


def test_our_engine_refuses_the_infinities():
    result = run_check("bad_inputs", "autograd")
    assert result.findings == [] and result.status == "passed"
    assert "float('inf'), float('-inf')" in result.reason


@pytest.mark.slow
@pytest.mark.parametrize(
    ("check", "engine", "ops"),
    [("stateful", "tests.engines.planted_stateful", None),
     ("nested", "tests.engines.perturbation_confusion", None),
     ("second_order", "tests.engines.planted_second_order", ["add", "mul"]),
     ("build_order", "tests.engines.planted_build_order", None)],
)  # fmt: skip
def test_each_check_grades_its_wrong_gradients(check, engine, ops):
    # each fixture's planted rule is wrong at ordinary points: off by a whole share or more
    found = [f for f in run_check(check, engine, examples=10, ops=ops).findings if f.kind == "wrong_gradient"]
    assert found
    for f in found:
        assert (f.severity.label, f.severity.point) == ("wrong", "ordinary")
        assert f.severity.relative_error >= 0.5
