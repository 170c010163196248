"""Where a framework's defect occurs: the frameworks script's judge (.ci/frameworks.py) says whether
a point shows the defect a finding reports, on the framework's own numbers against the certified
reference, to first or second order, and bisects the interval of such points.

PyTorch 2.13 is the framework here (its defects below are on docs/frameworks/pytorch.md, and are
worked by hand): ``0 / x`` is nan below 5.6e-309 (1 / x overflows, 0 * inf), and the mixed
second derivative of ``x ** y`` is 0 at y = 0, where it is x ** -1.
"""

from __future__ import annotations

import pytest

from tests.ci_scripts import load

torch = pytest.importorskip("torch")


#: The finding of PyTorch's pow at y = 0, as the audit's JSON has it.
POW_MIXED = {
    "kind": "wrong_gradient",
    "check": "edge_second_order",
    "op": "vpow",
    "actual": "0.0",
    "severity": None,
}


def judge(finding, expr, names):
    frameworks = load("frameworks")
    adapter = frameworks.load_adapter("autograd.testing.adapters:torch_float64")
    return frameworks, frameworks.Judge(adapter, finding, expr, names)


def test_a_first_order_defect_shows_where_the_framework_is_wrong_and_not_elsewhere():
    finding = {"kind": "wrong_value", "check": "edge_points", "op": "rdiv", "actual": "nan", "severity": None}
    _, rdiv = judge(finding, "0 / x", ["x"])
    assert rdiv.shows([5e-324]) and rdiv.shows([1e-310])
    assert not rdiv.shows([1e-300]) and not rdiv.shows([1.0])  # 1 / x is finite there: 0 * it is 0


def test_a_second_order_defect_is_judged_on_the_hessian():
    finding = POW_MIXED
    frameworks, pow_ = judge(finding, "x ** y", ["x", "y"])
    assert frameworks.order_of(finding) == 2
    assert pow_.shows([1.5, 0.0])  # d2/dx dy = 1 / 1.5, PyTorch's is 0
    assert not pow_.shows([1.5, 2.0])  # 2.0 ** ... every entry right at an ordinary exponent
    # the first derivatives at y = 0 are right: a first-order judge does not see it
    first = dict(finding, check="edge_points")
    _, pow1 = judge(first, "x ** y", ["x", "y"])
    assert not pow1.shows([1.5, 0.0])


def test_the_interval_of_a_second_order_defect_holds_its_point():
    finding = POW_MIXED
    frameworks, pow_ = judge(finding, "x ** y", ["x", "y"])
    found = frameworks.interval(pow_, [("x", 1.5), ("y", 0.0)])
    # y = 0 alone shows it (the where-mask is `exponent == 0`): the interval is that one point
    assert found["shown"] and found["operand"] == "y" and found["low"] == found["high"] == 0.0
