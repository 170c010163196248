"""gradcheck: finite differences of any function of Values, with a per-input report."""

import math

import pytest

import autograd
from autograd.testing import GradientMismatch, gradcheck
from tests.wrong_engines import wrong_engine


def softplus_mix(x, y):
    return (x * y + x.exp()).log() + y.tanh() / (x * x + 1)


def test_a_correct_function_passes_and_the_report_has_one_row_per_input():
    report = gradcheck(softplus_mix, [0.3, -1.2])
    assert report.ok
    assert [r.name for r in report.rows] == ["x0", "x1"]
    # d/dx0 at (0.3, -1.2), by hand: (y + e^x)/(x*y + e^x) - 2x*tanh(y)/(x^2+1)^2
    x, y = 0.3, -1.2
    want = (y + math.exp(x)) / (x * y + math.exp(x)) - 2 * x * math.tanh(y) / (x * x + 1) ** 2
    assert report.rows[0].engine == pytest.approx(want, rel=1e-12)
    assert report.rows[0].oracle == pytest.approx(want, rel=1e-8)
    assert "x0" in str(report) and "engine" in str(report) and ": ok" in str(report)


def test_a_rule_off_by_1e_4_is_caught_and_reported_per_input():
    engine = wrong_engine("tanh", 1 + 1e-4)
    with pytest.raises(GradientMismatch) as info:
        gradcheck(softplus_mix, [0.3, -1.2], engine=engine)
    rows = info.value.report.rows
    assert [r.ok for r in rows] == [True, False]  # only y goes through tanh's rule
    assert "<-- differs" in str(info.value) and "MISMATCH" in str(info.value)


def test_raise_exception_false_returns_the_failing_report():
    engine = wrong_engine("sigmoid", 1 + 1e-3)
    report = gradcheck(lambda x: x.sigmoid(), [0.5], engine=engine, raise_exception=False)
    assert not report.ok
    assert report.rows[0].rel_err == pytest.approx(1e-3, rel=1e-3)


def test_tolerances_are_those_documented():
    report = gradcheck(lambda x: x * x * x, [2.0])
    (row,) = report.rows
    # numeric 12 within |D(h) - D(2h)| + 4 eps F / h + 1e-7 * 12 + 1e-10, F = 8 and h = eps**(1/3) * 2
    h = (2.0**-52) ** (1 / 3) * 2  # for x**3, D(h) = 12 + h**2 exactly, D(2h) = 12 + 4 h**2
    want = 3 * h * h + 4 * 2.0**-52 * (2 + 2 * h) ** 3 / h + 1.2e-6 + 1e-10
    assert row.tol == pytest.approx(want, rel=1e-3)
    assert row.ok and row.engine == 12


def test_works_with_a_bare_value_class():
    report = gradcheck(lambda a, b: a * b + a, [1.5, 2.0], engine=autograd.Value)
    assert [r.engine for r in report.rows] == [3.0, 1.5]
