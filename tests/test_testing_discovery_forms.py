"""Discovery by behaviour of the API forms beyond "a backward fills an attribute", with no flag:
a number and gradient behind zero-argument methods (``v.data()``, ``v.grad()``), a gradient that
is a method of the output (``y.der(x)``), a gradient read through a property of another name
(``x.derivative``); engines that compute in float32; an adapter without ``set_grad``.

Each correct fixture must be judged clean, and each planted one (tests/engines/*_wrong.py) must be
reported as ``wrong_gradient``: a form that is discovered but never judged would be a silent pass.
Expected gradients are worked out by hand.
"""

import math

import pytest

from autograd.testing import EngineNotFound, audit, resolve_engine
from autograd.testing.auditor import capabilities, run_check
from autograd.testing.engines.apis import read_convention
from tests.engines import property_read

DEFECTS = {"wrong_gradient", "wrong_value", "crash", "nondeterministic"}

FORMS = [
    (
        "tests.engines.method_accessors",
        "backward: Node.backward(); number Node.data(), gradient Node.grad()",
        "the output backward() is called on",
    ),
    ("tests.engines.output_read", "read: Var.der", "the output whose method is called with the leaf: y.der"),
    (
        "tests.engines.property_read",
        "read: Scalar.derivative",
        "every output built from the leaf, one entry each: x.derivative",
    ),
]


@pytest.mark.parametrize(("module", "api", "convention"), FORMS)
def test_each_form_is_discovered_with_no_flag(module, api, convention):
    eng = resolve_engine(module)
    assert eng.gradient_api == api
    assert eng.gradient_convention.startswith(convention)
    x, w = eng.make(2.0), eng.make(1.25)
    y = x * x + x * w * 3
    dead = x * w  # built after y from the same leaves: the engine must still differentiate y
    eng.backward(y)
    assert (eng.data(y), eng.data(dead)) == (11.5, 2.5)
    assert (eng.grad(x), eng.grad(w)) == (7.75, 6.0)  # 2x + 3w, 3x
    eng.backward(y)  # leaves accumulate across passes, as micrograd's
    assert (eng.grad(x), eng.grad(w)) == (15.5, 12.0)


@pytest.mark.slow
@pytest.mark.parametrize(
    "module",
    [
        "tests.engines.method_accessors",
        "tests.engines.output_read",
        "tests.engines.property_read",
        "tests.engines.float32",
    ],
)
def test_each_form_is_judged_and_a_correct_engine_comes_out_clean(module):
    eng = resolve_engine(module)
    for check in ("symbolic", "forward", "linearity", "chain_sweep", "stateful"):
        outcome = run_check(check, eng, examples=5)
        defects = [f.summary for f in outcome.findings if f.kind in DEFECTS]
        assert defects == [], (check, defects)
        if check in ("symbolic", "forward"):  # judged, not skipped
            assert outcome.status == "passed" and outcome.judged > 0, (check, outcome)


@pytest.mark.parametrize(
    ("module", "op"),
    [
        ("tests.engines.method_accessors_wrong", "tanh"),  # 2 (1 - tanh^2)
        ("tests.engines.output_read_wrong", "mul"),  # d(a*b)/da = b + 1
        ("tests.engines.property_read_wrong", "mul"),  # d(a*b)/da = b + 1
        ("tests.engines.float32_wrong", "mul"),  # b * (1 + 2**-10): far beyond float32 rounding
    ],
)
def test_a_planted_wrong_gradient_behind_each_form_is_found(module, op):
    eng = resolve_engine(module)  # a wrong mul rule must not hide the gradient from discovery
    outcome = run_check("symbolic", eng, examples=10, ops=[op])
    wrong = [f for f in outcome.findings if f.kind == "wrong_gradient"]
    assert wrong and all(f.op == op or f.op in ("mulc", "vmulc") for f in wrong), outcome.findings


def test_the_each_convention_of_a_property_read_is_observed():
    found, seen = read_convention(property_read.Scalar, "value", "derivative")
    assert found == "each", seen  # x.derivative is [3, 5] once y1 = x*3 and y2 = x*5 are built


def test_explicit_names_reach_members_behind_methods():
    eng = resolve_engine("tests.engines.method_accessors", data="data", grad="grad", backward="backward")
    assert eng.gradient_api.startswith("backward: Node.backward()")
    with pytest.raises(EngineNotFound, match="no attribute or zero-argument method 'value'"):
        resolve_engine("tests.engines.method_accessors", data="value")


# ---------------------------------------------------------------------- float32
def test_the_working_precision_is_detected():
    assert resolve_engine("tests.engines.float32").precision == "float32"
    assert resolve_engine("tests.engines.sound").precision == "float64"
    assert resolve_engine().precision == "float64"  # ours: exact Fractions, double floats
    caps = capabilities(resolve_engine("tests.engines.float32"))
    assert caps["precision"] == "float32"


@pytest.mark.slow
def test_a_correct_float32_engine_audits_clean_and_reports_its_precision():
    report = audit("tests.engines.float32", examples=3)
    assert report.defects == [], [f.summary for f in report.defects]
    assert report.capabilities["precision"] == "float32"
    assert "; precision: float32" in str(report)
    assert report.outcomes["symbolic"].status == "passed"


# ---------------------------------------------------------------------- no set_grad
def test_an_adapter_without_set_grad_is_not_a_stateful_crash():
    eng = resolve_engine(adapter="tests.engines.no_set_grad:adapter")
    assert not eng.settable_grad
    outcome = run_check("stateful", eng, examples=10)
    assert outcome.status == "passed" and outcome.judged > 0, outcome
    assert "not judged: zero_grad" in outcome.reason
    assert resolve_engine("tests.engines.sound").settable_grad  # a plain attribute can be written


# ---------------------------------------------------------------------- the engine boundary
def test_a_target_that_cannot_be_imported_is_the_users_fact_but_a_harness_error_propagates():
    with pytest.raises(EngineNotFound, match=r"cannot import 'tests\.engines\.no_such_module'"):
        resolve_engine("tests.engines.no_such_module")
    with pytest.raises(AttributeError, match="no_such_member"):
        resolve_engine("tests.engines.harness_bug_at_import")


def test_an_adapted_class_shows_the_engine_classs_methods_to_the_extra_op_search():
    eng = resolve_engine("tests.engines.property_read")
    assert "tanh" in dir(eng.Value) and "derivative" not in dir(eng.Value)  # a property: no op
    x = eng.make(0.5)
    y = x.tanh()
    eng.backward(y)
    assert eng.grad(x) == pytest.approx(1 - math.tanh(0.5) ** 2, rel=1e-15)  # d tanh x/dx = 1 - tanh^2


# ---------------------------------------------------------------------- 0-d arrays
def test_a_number_and_gradient_held_as_0d_arrays_are_discovered_and_read_as_numbers():
    eng = resolve_engine("tests.engines.zero_d_arrays")  # no adapter, no flag
    assert (eng.data_attr, eng.grad_attr, eng.backward_method) == ("data", "grad", "backward")
    x, w = eng.make(2.0), eng.make(1.25)
    y = x * x + x * w * 3
    eng.backward(y)
    got = [eng.data(y), eng.grad(x), eng.grad(w)]
    assert got == [11.5, 7.75, 6.0]  # x^2 + 3xw; 2x + 3w, 3x
    assert all(type(n) is float for n in got), got  # numbers, not arrays


def test_a_gradient_written_to_a_0d_array_engine_stays_a_fresh_0d_array_it_adds_into():
    import numpy

    eng = resolve_engine("tests.engines.zero_d_arrays")
    x = eng.make(2.0)
    eng.backward(x * 3)
    old = x.grad
    eng.set_grad(x, 0)  # as zero_grad does
    assert type(x.grad) is numpy.ndarray and x.grad.shape == () and x.grad is not old
    assert old == 3.0  # a copy was written: an array another node may share is left alone
    eng.backward(x * 5)  # the engine adds into the gradient in place (grad.__iadd__)
    assert eng.grad(x) == 5.0
    eng.set_grad(x, 0.5)  # a value the array cannot hold exactly is written as it is, not coerced
    assert eng.grad(x) == 0.5
    ints = numpy.array(4)
    x.grad = ints
    eng.set_grad(x, 0.5)
    assert x.grad == 0.5 and ints == 4
    x.grad = ints
    eng.set_grad(x, 2**70)  # too large for the array: written as it is, not an error blamed on the engine
    assert x.grad == 2**70 and type(x.grad) is int


def test_an_engine_value_that_looks_like_a_0d_array_is_never_read_as_a_number():
    # a gradient that is a Value (under create_graph) must stay one, even when the Value has a
    # shape () and an item() (as a tensor library's scalars do)
    from autograd.testing.engines import Engine, as_number

    class Tensorish:
        shape = ()

        def __init__(self, x):
            self.data, self.grad = x, None

        def item(self):
            return self.data

    v = Tensorish(2.0)
    v.grad = Tensorish(3.0)
    eng = Engine(Value=Tensorish)
    assert eng.grad(v) is v.grad
    assert as_number(v.grad) == 3.0  # without keep= it would be read as its number


def test_as_number_reads_only_0d_arrays_of_real_numbers():
    import numpy

    from autograd.testing.engines import as_number

    assert as_number(numpy.array(0.75)) == 0.75 and type(as_number(numpy.array(0.75))) is float
    assert as_number(numpy.array(3)) == 3
    unchanged = [numpy.array([1.0]), numpy.array(True), numpy.array(1 + 2j), numpy.array("a"), None, "a"]
    assert all(as_number(x) is x for x in unchanged)
    assert as_number(numpy.float64(0.5)) is not None and type(as_number(numpy.float64(0.5))) is numpy.float64


@pytest.mark.slow
def test_a_0d_array_engine_audits_clean_with_its_stateful_check_judged():
    report = audit("tests.engines.zero_d_arrays", examples=10)
    assert report.defects == [], [f.summary for f in report.defects]
    stateful = report.outcomes["stateful"]
    assert stateful.status == "passed" and stateful.judged > 0, stateful  # zero_grad included
    assert "not judged: zero_grad" not in stateful.reason
    for check in ("symbolic", "forward"):
        assert report.outcomes[check].status == "passed" and report.outcomes[check].judged > 0


def test_a_planted_wrong_gradient_behind_0d_arrays_is_found_through_discovery():
    eng = resolve_engine("tests.engines.zero_d_arrays_wrong")  # d(a*b)/da = b + 1
    assert eng.gradient_api == "backward" and eng.adapter == ""
    outcome = run_check("symbolic", eng, examples=10, ops=["mul"])
    wrong = [f for f in outcome.findings if f.kind == "wrong_gradient"]
    assert wrong and all(f.op in ("mul", "mulc", "vmulc") for f in wrong), outcome.findings
