"""Severity of a wrong value or gradient (wrong, or inaccurate at the extremes): the verdict
function, the outcome rule, the report and the matrix of docs/audits/index.md, with no engine run
(the checks and probes on fixture engines: tests/test_testing_severity_checks.py)."""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest

from autograd.testing import verdicts
from autograd.testing.findings import Finding, Severity, outcome
from autograd.testing.report import AuditReport

#: the float just above 1e-300: 1e-300 with its last digit off by one
NEXT_AFTER_1E_300 = math.nextafter(1e-300, 1.0)


def test_a_sign_error_at_an_ordinary_point_is_wrong_with_its_relative_error():
    # d tanh(x)/dx at x = 1 is 0.41997434161402614; the engine gives its negative
    found = verdicts.severity([0.41997434161402614, 1.0], [-0.41997434161402614, 1.0], point=(1.0, 2.5))
    assert (found.label, found.point, found.relative_error) == ("wrong", "ordinary", 2.0)
    assert found.describe() == "wrong: relative error 2 at an ordinary point"


def test_a_missing_share_at_an_ordinary_point_is_wrong():
    # d(x * x)/dx at 3 is 6; a rule that adds one share of the two gives 3
    found = verdicts.severity(6.0, 3.0, point=(3.0,))
    assert (found.label, found.point, found.relative_error) == ("wrong", "ordinary", 0.5)


def test_a_last_digit_error_at_1e_300_is_inaccurate_at_the_extremes_in_ulps():
    found = verdicts.severity(1e-300, NEXT_AFTER_1E_300, point=(1e-300,))
    assert (found.label, found.point, found.ulps) == ("inaccurate at the extremes", "extreme", 1.0)
    # 1e-300 is 1.336 * 2**-997: its last place is 2**-1049
    assert found.relative_error == pytest.approx(2.0**-1049 / 1e-300, rel=1e-12)
    assert (
        found.describe() == "inaccurate at the extremes: 1 ulp (relative error 1.7e-16) at an extreme point"
    )


@pytest.mark.parametrize(
    ("expected", "actual", "point"),
    [(1.0, 1.0 + 2**-40, (5e-324,)),  # a subnormal operand
     (1e-200, 1e-200 * (1 + 1e-9), (1.0,)),  # a tiny exact result
     (1e200, 1e200 * (1 + 1e-9), (1e-100,)),  # near the pole of 1/x**2: a huge exact result
     (3.0, 3.0 * (1 + 1e-4), (1e300, 3.0))],  # a huge operand (d(x*y)/dx at x = 1e300, y = 3)
)  # fmt: skip
def test_a_small_error_where_an_operand_or_the_exact_result_is_extreme_is_inaccurate(expected, actual, point):
    found = verdicts.severity(expected, actual, point)
    assert (found.label, found.point) == ("inaccurate at the extremes", "extreme")


def test_a_large_error_at_an_extreme_point_is_still_wrong():
    assert verdicts.severity(1e-300, -1e-300, point=(1e-300,)).label == "wrong"  # a sign
    assert verdicts.severity(1e-300, 1.01e-300, point=(1e-300,)).label == "wrong"  # one part in 100


def test_a_wrong_value_where_zero_is_exact_has_an_infinite_relative_error():
    found = verdicts.severity(0.0, 1e-17, point=(1.0,))
    assert (found.label, found.relative_error) == ("wrong", math.inf)


def test_numbers_that_cannot_be_paired_have_no_severity():
    assert verdicts.severity([1.0, 2.0], [1.0], point=()) is None
    assert verdicts.severity(1.0, "abc", point=()) is None


def finding(kind: str, expected: str, actual: str, point: tuple[float, ...], op: str) -> Finding:
    return Finding(
        kind, "edge_points", f"{op} somewhere", op, "print('repro')", expected, actual, point=point
    )


def test_the_outcome_gives_each_wrong_value_and_gradient_its_severity_from_its_numbers():
    sign = finding("wrong_gradient", "[1.0, 2.0]", "[1.0, -2.0]", (2.0, 1.0), "mul")
    digit = finding("wrong_value", "1e-300", repr(NEXT_AFTER_1E_300), (1e-300,), "tanh")
    fact = Finding("convention", "edge_points", "relu'(0) is taken as 0", "relu")
    result = outcome("edge_points", [sign, digit, fact], judged=3, unit="points")
    graded = {f.op: f.severity for f in result.findings}
    assert (graded["mul"].label, graded["mul"].relative_error) == ("wrong", 2.0)
    assert (graded["tanh"].label, graded["tanh"].ulps) == ("inaccurate at the extremes", 1.0)
    assert graded["relu"] is None
    assert result.status == "failed"  # an inaccuracy is a defect all the same


def two_severities() -> AuditReport:
    found = [
        finding("wrong_gradient", "1e-300", repr(NEXT_AFTER_1E_300), (1e-300,), "tanh"),
        finding("wrong_gradient", "[0.41997434161402614]", "[-0.41997434161402614]", (1.0,), "exp"),
    ]
    caps = {
        "ops": ["exp", "tanh"],
        "missing_ops": [],
        "int": "exact",
        "fraction": "refused",
        "higher_order": False,
    }
    checks = {"edge_points": outcome("edge_points", found, judged=2, unit="points")}
    return AuditReport("some.engine", "Value", caps, checks)


def test_the_report_text_says_wrong_first_then_inaccurate_at_the_extremes():
    text = two_severities().render(timing=False)
    wrong = "  [edge_points] v.exp(): wrong: relative error 2 at an ordinary point: exp somewhere"
    mild = (
        "  [edge_points] v.tanh(): inaccurate at the extremes: 1 ulp (relative error 1.7e-16) "
        "at an extreme point: tanh somewhere"
    )
    assert wrong in text and mild in text
    assert text.index(wrong) < text.index(mild)  # what to fix first comes first
    assert text.endswith(
        "verdict: 2 defects in some.engine (wrong_gradient 2; 1 of them inaccurate at the extremes only)"
    )


def test_of_two_checks_findings_on_one_op_the_report_keeps_the_wrong_one():
    mild = finding("wrong_gradient", "1e-300", repr(NEXT_AFTER_1E_300), (1e-300,), "tanh")
    sign = replace(finding("wrong_gradient", "[1.0]", "[-1.0]", (0.0,), "tanh"), check="symbolic")
    report = two_severities()
    report.outcomes = {
        "edge_points": outcome("edge_points", [mild], judged=1, unit="points"),
        "symbolic": outcome("symbolic", [sign], judged=1, unit="graphs"),
    }
    (kept,) = report.findings
    assert (kept.check, kept.severity.label) == ("symbolic", "wrong")


def test_the_json_carries_each_severity():
    report = json.loads(two_severities().to_json())
    assert report["schema_version"] == 2
    severities_ = {f["op"]: f["severity"] for f in report["findings"]}
    assert severities_["exp"] == {
        "label": "wrong",
        "point": "ordinary",
        "relative_error": 2.0,
        "ulps": pytest.approx(2 * 0.41997434161402614 / 2**-54, rel=1e-12),  # its last place: 2**-54
    }
    assert severities_["tanh"]["label"] == "inaccurate at the extremes"
    assert (severities_["tanh"]["point"], severities_["tanh"]["ulps"]) == ("extreme", 1.0)
    assert report["defects"] == 2


def ci_audits():
    """.ci/audits.py (which writes docs/audits/), imported from its path (.ci is no package)."""
    path = Path(__file__).resolve().parent.parent / ".ci" / "audits.py"
    spec = importlib.util.spec_from_file_location("ci_audits", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["ci_audits"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_the_audits_matrix_tells_wrong_ops_from_ops_inaccurate_at_the_extremes():
    audits = ci_audits()
    result = {"status": "audited", "json": json.loads(two_severities().to_json()), "seconds": 1.0}
    columns = audits.matrix_columns({"some.engine": result})
    row = audits.matrix_row("some.engine", result, columns)
    assert row.startswith("| some.engine | **exp**; at the extremes: tanh | ")
    text = audits.text_report(result, audits.defect_kinds())
    assert "  [edge_points] exp: wrong: relative error 2 at an ordinary point: exp somewhere" in text
    # a report of schema version 1 (no severity): every op as wrong
    old = dict(result["json"], findings=[dict(f, severity=None) for f in result["json"]["findings"]])
    assert audits.matrix_row("old", dict(result, json=old), columns).startswith("| old | **exp, tanh** | ")


@pytest.mark.parametrize(
    ("source", "read"),
    [("[1.5, -2, +3]", [1.5, -2, 3]),
     ("(-inf, inf)", [-math.inf, math.inf]),
     ("float('-inf')", [-math.inf]),
     ("Fraction(1, 3)", [Fraction(1, 3)]),
     ("[Fraction(-7), 2]", [Fraction(-7), 2]),
     ("np.float64(0.5)", [0.5]),
     ("float32(-0.25)", [-0.25]),
     ("['3', '1/3', '-1.5e-300', '-inf']", [3, Fraction(1, 3), -1.5e-300, -math.inf]),
     ("  2.5\n", [2.5])],
)  # fmt: skip
def test_numbers_reads_the_numbers_findings_write(source, read):
    assert verdicts.numbers(source) == read


def test_numbers_reads_nan():
    (nan,) = verdicts.numbers("nan")
    assert math.isnan(nan)
    (nan,) = verdicts.numbers("float('nan')")
    assert math.isnan(nan)


@pytest.mark.parametrize(
    "source",
    ["", "no exception", "x0", "[1.0, x]", "'abc'", "'1/0'", "'[1]'", "'f(1)'", "True", "[1, None]",
     "Fraction(1, 2, 3)", "Fraction(1, x)", "f(1, 2)", "f(x=1)", "float('x')", "float(None)", "1/3", "1 +",
     "-'a'", "{1: 2}"],
)  # fmt: skip
def test_numbers_is_none_for_anything_else(source):
    assert verdicts.numbers(source) is None


def test_a_point_is_ordinary_from_2_to_the_minus_500_to_2_to_the_500_and_at_0():
    def where(x):
        return verdicts.severity(1.0, 2.0, point=(x,)).point

    assert [where(x) for x in (0.0, 2.0**-500, -(2.0**500), 1.0, Fraction(1, 3))] == ["ordinary"] * 5
    below, above = math.nextafter(2.0**-500, 0.0), math.nextafter(2.0**500, math.inf)
    extreme = [below, -above, 5e-324, math.inf, math.nan, 10**200]
    assert [where(x) for x in extreme] == ["extreme"] * 6


def test_an_exact_result_outside_the_moderate_range_makes_the_point_extreme():
    assert verdicts.severity([1.0, 1e-200], [-1.0, 1e-200], point=(1.0,)).point == "extreme"
    assert verdicts.severity([1.0, 0.0], [-1.0, 0.0], point=(1.0,)).point == "ordinary"


def test_the_boundary_between_inaccurate_and_wrong():
    at = (1e300,)  # an extreme point
    # off by exactly a thousandth: inaccurate; by a little more: wrong
    assert verdicts.severity(Fraction(1), Fraction(1001, 1000), at).label == "inaccurate at the extremes"
    assert verdicts.severity(Fraction(1), Fraction(1002, 1000), at).label == "wrong"
    # a subnormal result: 16 last places (of 2**-1074) are within, 17 are not, whatever the fraction
    tiny = 100 * 2.0**-1074
    assert verdicts.severity(tiny, tiny + 16 * 2.0**-1074, at).label == "inaccurate at the extremes"
    assert verdicts.severity(tiny, tiny + 17 * 2.0**-1074, at).label == "wrong"
    # at an ordinary point any error is wrong
    assert verdicts.severity(1.0, math.nextafter(1.0, 2.0), (1.0,)).label == "wrong"


def test_the_worst_number_is_reported():
    found = verdicts.severity([1.0, 4.0, 10.0], [1.0, 5.0, 10.5], point=())
    assert (found.relative_error, found.ulps) == (0.25, 2.0**50)  # 4 is 2**2: its last place 2**-50


@pytest.mark.parametrize(
    ("expected", "actual", "relative", "ulps"),
    [(1.0, 1.0, 0.0, 0.0),
     (math.inf, math.inf, 0.0, 0.0),
     (math.inf, 1.0, math.inf, math.inf),
     (1.0, math.nan, math.inf, math.inf),
     (1.0, -math.inf, math.inf, math.inf),
     (0.0, 5e-324, math.inf, 1.0),
     (10**400, 0, 1.0, 10**400 / 2**971)],  # beyond the floats: in last places of the largest, 2**971
)  # fmt: skip
def test_relative_error_and_ulps(expected, actual, relative, ulps):
    found = verdicts.severity(expected, actual, point=())
    assert found.relative_error == relative
    assert found.ulps == pytest.approx(ulps, rel=1e-12)


@pytest.mark.parametrize(
    ("expected", "actual"),
    [([], []), ([1.0], [1.0, 2.0]), ([1.0, 2.0], [1.0]), (True, 1.0), (1.0, False), (None, 1.0), ("1", "1")],
)
def test_no_severity_for_what_is_no_pair_of_numbers(expected, actual):
    assert verdicts.severity(expected, actual, point=()) is None


@pytest.mark.parametrize(
    ("ulps", "relative", "said"),
    [(0.25, 1e-17, "wrong: relative error 1e-17 at an ordinary point"),
     (0.5, 1e-16, "wrong: 0.5 ulps (relative error 1e-16) at an ordinary point"),
     (1.0, 2e-16, "wrong: 1 ulp (relative error 2e-16) at an ordinary point"),
     (2.0**20, 2e-10, "wrong: 1.05e+06 ulps (relative error 2e-10) at an ordinary point"),
     (2.0**20 + 1, 2e-10, "wrong: relative error 2e-10 at an ordinary point"),
     (math.inf, math.inf, "wrong: relative error inf at an ordinary point")],
)  # fmt: skip
def test_a_severity_says_ulps_only_where_they_are_few(ulps, relative, said):
    assert Severity("wrong", "ordinary", relative, ulps).describe() == said


def test_the_json_form_of_a_severity_gives_null_for_what_is_not_finite():
    assert Severity("wrong", "extreme", math.inf, math.nan).to_dict() == {
        "label": "wrong", "point": "extreme", "relative_error": None, "ulps": None,
    }  # fmt: skip
    assert Severity("wrong", "ordinary", 0.5, 3.0).to_dict()["relative_error"] == 0.5


def test_grading_leaves_other_findings_and_given_severities_alone():
    crash = Finding("crash", "c", "raises", "mul", "", "[1.0]", "[2.0]", point=(1.0,))
    assert verdicts.graded(crash).severity is None
    given = Severity("wrong", "ordinary", 1.0, 1.0)
    kept = Finding("wrong_value", "c", "v", "mul", "", "1.0", "2.0", point=(1.0,), severity=given)
    assert verdicts.graded(kept).severity is given
    unread = Finding("wrong_value", "c", "v", "mul", "", "", "2.0")
    assert verdicts.graded(unread) == unread and verdicts.graded(unread).severity is None
    value = verdicts.graded(Finding("wrong_value", "c", "v", "mul", "", "2.0", "1.0", point=(1.0,)))
    assert (value.severity.label, value.severity.relative_error) == ("wrong", 0.5)


def test_grading_reads_the_point_of_the_finding():
    # d(x * y)/dx = y = 3 is off by a millionth: extreme by the operand x = 1e300 alone
    wrong = repr([3.0 * (1 + 1e-6)])
    at = Finding("wrong_gradient", "c", "d/dx", "mul", "", "[3.0]", wrong, point=(1e300, 3.0))
    severity = verdicts.graded(at).severity
    assert (severity.point, severity.label) == ("extreme", "inaccurate at the extremes")
