"""The catalogue's rows judged through the audit's own checks, on fixture engines:
tests/engines/catalogue_functions.py has every function beyond the table, correct (mpmath's
values and slopes, rounded): each method must be identified as its row, and neither the extra-op
check nor the edge probe may find a defect in it.  catalogue_wrong_slope.py gives acosh asinh's
slope; catalogue_edge_nan.py gives atanh a NaN at one edge point: each must be found, as what it is.
"""

from __future__ import annotations

import math

import pytest

from autograd.testing import resolve_engine, run_check
from autograd.testing.findings import DEFECT_KINDS
from autograd.testing.identify import extra_capabilities, extra_ops
from tests.engines import catalogue_edge_nan, catalogue_functions, catalogue_wrong_slope

pytestmark = pytest.mark.usefixtures("discovery_afresh")

FUNCTIONS = [*catalogue_functions.RATIONAL, *catalogue_functions.UNARY, *catalogue_functions.RATIONAL_BINARY,
             *catalogue_functions.BINARY]  # fmt: skip


def test_every_method_of_the_fixture_is_identified_as_the_row_of_its_name():
    eng = resolve_engine(catalogue_functions.Value)
    assert sorted(FUNCTIONS) == sorted(set(FUNCTIONS)) and len(FUNCTIONS) == 34
    arity = {name: 2 for name in (*catalogue_functions.BINARY, *catalogue_functions.RATIONAL_BINARY)}
    forms = {f"v.{name}({'w' if arity.get(name) else ''})": name for name in FUNCTIONS}
    assert extra_capabilities(eng)["extra_ops"] == forms
    # celu's alpha is fitted from its values: the fixture's 0.5, not the row's default 1
    assert {e.method: e.spec.consts for e in extra_ops(eng) if e.spec.consts} == {"celu": (0.5,)}


@pytest.mark.slow
def test_the_extra_op_check_finds_no_defect_in_correct_functions():
    outcome = run_check("extra_ops", catalogue_functions.Value, examples=10)
    assert outcome.status == "passed" and outcome.judged > 400, outcome
    assert not [f for f in outcome.findings if f.kind in DEFECT_KINDS]
    # what it cannot judge is where a graph meets a relu-like op's first operand at 0 (the graph
    # oracles take a kinked op's kink there; hardtanh's are at -1 and 1): never a defect
    doubts = [f for f in outcome.findings if f.kind == "inconclusive"]
    assert all("too close to the kink to judge" in f.summary for f in doubts), doubts


@pytest.mark.slow
def test_the_edge_probe_finds_no_defect_and_nothing_it_cannot_judge_in_correct_functions():
    outcome = run_check("edge_points", catalogue_functions.Value)
    assert (outcome.status, outcome.inconclusive) == ("passed", 0), outcome
    ops = {f.op for f in outcome.findings}
    assert ops <= {"powc"}, outcome.findings  # (sound.Value's x ** -1 at 1e-300: a range limit, a fact)
    assert outcome.judged > 1000  # the table's and the 34 functions' points, from their regions
    outside = run_check("out_of_domain", catalogue_functions.Value)
    assert outside.status == "passed" and all(f.kind == "convention" for f in outside.findings)
    refused = {f.op.split("~")[0] for f in outside.findings}
    poles = {"asin", "acos", "acosh", "atanh", "log2", "log10", "logit", "lgamma", "digamma", "xlogy"}
    assert poles <= refused  # each, where it is no real number, says so (here: raises ValueError)


@pytest.mark.slow
def test_a_wrong_slope_of_a_catalogue_function_is_a_wrong_gradient_at_an_ordinary_point():
    outcome = run_check("extra_ops", catalogue_wrong_slope.Value, examples=10)
    assert outcome.status == "failed"
    (wrong,) = [f for f in outcome.findings if f.kind in DEFECT_KINDS]
    assert (wrong.kind, wrong.op) == ("wrong_gradient", "acosh~acosh")
    assert (wrong.severity.label, wrong.severity.point) == ("wrong", "ordinary")
    (x,) = wrong.point
    engine, expected = (float(n) for n in (wrong.actual.strip("[]"), wrong.expected.strip("[]")))
    assert engine == 1 / math.sqrt(x * x + 1)  # asinh's slope, as planted
    assert math.isclose(expected, 1 / math.sqrt(x * x - 1), rel_tol=1e-12)  # acosh's, by hand


@pytest.mark.slow
def test_a_nan_at_one_edge_point_is_a_wrong_value_there_and_nowhere_else():
    outcome = run_check("edge_points", catalogue_edge_nan.Value)
    assert outcome.status == "failed"
    (wrong,) = [f for f in outcome.findings if f.kind in DEFECT_KINDS]
    assert (wrong.kind, wrong.op, wrong.point) == (
        "wrong_value",
        "atanh~atanh",
        (catalogue_edge_nan.JUST_BELOW_ONE,),
    )
    assert wrong.actual == "nan" and float(wrong.expected) == math.atanh(catalogue_edge_nan.JUST_BELOW_ONE)
    assert "x.atanh() at x = 0.9999999999999999: value nan" in wrong.summary
