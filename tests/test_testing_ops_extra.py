"""Every operator form in the table; an engine's extra ops identified by behaviour and checked.

Fixture engines (tests/engines/extra_*.py) are ``extra_ops`` (correct ops beyond the table,
some renamed table ops) changed in one place: an extra op off by a factor, detached, or
losing a share when used twice, each once in an op the catalogue knows (``sin``) and once in
one it does not (``bump``: x * exp(-x * x)).
"""

import contextlib
import io
import math
from fractions import Fraction

import pytest
from hypothesis import strategies as st

import autograd
import autograd.testing.identify as identify_module
from autograd.testing import audit, resolve_engine, run_checks
from autograd.testing import strategies as gs
from autograd.testing.checks import extra_ops as extra_checks
from autograd.testing.checks.extra_ops import extra_op_outcomes, taylor_order
from autograd.testing.findings import DEFECT_KINDS, Finding
from autograd.testing.graph import Graph, Node
from autograd.testing.identify import extra_capabilities, extra_ops, identify, unjudged_methods
from autograd.testing.ops import OPS, display
from autograd.testing.probes.edges import probe_edge_points, probe_out_of_domain
from tests.engines import (
    extra_clamped_ln,
    extra_detached,
    extra_exact_abs,
    extra_factor,
    extra_labelled,
    extra_shared,
    missing_ops,
    sound,
)
from tests.engines import extra_ops as extra_fixture

FORMS = ("v + c", "c + v", "v - c", "c - v", "v * c", "c * v", "v / c", "c / v", "v ** c", "c ** v")


pytestmark = pytest.mark.usefixtures("discovery_afresh")


def defects(outcomes):
    return {(f.kind, f.op) for o in outcomes for f in o.findings if f.kind in {*DEFECT_KINDS, "inconclusive"}}


# ---------------------------------------------------------------------- operator forms
def test_every_operator_form_is_its_own_row_with_its_own_code_path():
    by_form = {spec.label: spec for spec in OPS.values()}
    assert set(FORMS) <= set(by_form)
    for form in FORMS:
        source = by_form[form].source(["x"], 2)
        assert source == form.replace("v", "x").replace("c", "2"), (form, source)
    assert display("mulc") == "c * v" and display("vmulc") == "v * c" and display(None) is None


@pytest.mark.slow
def test_an_engine_without_a_reflected_form_lacks_exactly_that_row():
    eng = resolve_engine(missing_ops.Value)  # no __radd__, __rsub__, __rmul__, __rtruediv__
    assert not eng.supports("radd") and not eng.supports("mulc") and not eng.supports("rdiv")
    assert eng.supports("addc") and eng.supports("vmulc") and eng.supports("divc") and eng.supports("subc")
    report = audit(missing_ops.Value, examples=5)
    assert "c + v" in str(report).split("missing: ")[1].splitlines()[0]


# ---------------------------------------------------------------------- identification
def test_extra_ops_are_identified_by_their_values_whatever_their_names():
    eng = resolve_engine(extra_fixture.Value)
    caps = extra_capabilities(eng)
    assert caps["aliases"] == {"ln": "log", "sigmod": "sigmoid", "reLU": "relu"}
    assert caps["extra_ops"] == {
        "v.bump()": None, "v.hypot(w)": "hypot", "v.ln()": "log", "v.lrelu()": "leaky_relu",
        "v.reLU()": "relu", "v.sigmod()": "sigmoid", "v.sin()": "sin", "v.softsign()": "softsign",
        "abs(v)": "abs", "+v": "pos",
    }  # fmt: skip
    (lrelu,) = [e for e in extra_ops(eng) if e.method == "lrelu"]
    assert lrelu.spec.consts == (0.01,)  # the slope, read from the values


def test_identification_needs_agreement_at_every_point_not_a_name():
    xs = (-1.3, -0.6, 0.3, 0.7, 1.1, 1.9)
    assert identify({x: math.sin(x) for x in xs}, 1)[0].name == "sin"
    assert identify({x: math.sin(x) * (1 + 1e-6) for x in xs}, 1) is None  # close is not the same
    assert identify({x: math.sin(x) for x in xs[:3]}, 1) is None  # too few points to say
    assert identify({x: x * math.exp(-x * x) for x in xs}, 1) is None
    spec, slope = identify({x: x if x > 0 else 0.2 * x for x in xs}, 1)
    assert (spec.name, slope) == ("leaky_relu", 0.2)
    assert (
        identify({(a, b): a**b for a, b in ((0.7, 1.3), (1.9, -0.4), (2.3, 0.6), (0.4, 2.2))}, 2)[0].name
        == "vpow"
    )


@pytest.mark.parametrize(
    "engine", [autograd, "micrograd.engine", sound.Value], ids=["ours", "micrograd", "sound"]
)
def test_engines_without_extra_ops_get_none_and_no_check(engine):
    eng = resolve_engine(engine)
    assert extra_ops(eng) == ()
    assert extra_capabilities(eng) == {"aliases": {}, "extra_ops": {}}
    assert [o.status for o in extra_op_outcomes(eng, examples=5)] == ["not_applicable", "not_applicable"]


# ---------------------------------------------------------------------- checks of extra ops
@pytest.mark.slow
def test_correct_extra_ops_have_no_finding_known_or_not():
    outcomes = extra_op_outcomes(extra_fixture.Value, examples=15)
    assert defects(outcomes) == set()
    assert all(o.status == "passed" and o.judged > 20 for o in outcomes), outcomes


@pytest.mark.parametrize("fixture", [extra_factor, extra_detached, extra_shared], ids=lambda m: m.__name__)
def test_a_planted_bug_in_an_extra_op_is_a_wrong_gradient_known_or_not(fixture):
    outcomes = {o.name: o for o in extra_op_outcomes(fixture.Value, examples=10)}
    found = defects(outcomes.values())
    assert {d for d in found if d[0] != "inconclusive"} == {
        ("wrong_gradient", "sin~sin"),
        ("wrong_gradient", "bump~?"),
    }
    # a disagreement the second vote cannot settle (a graph drawn otherwise in a full run) only
    # where the bugs are planted: never "not a defect", never on another op
    assert {op for kind, op in found if kind == "inconclusive"} <= {"sin~sin", "bump~?"}
    assert outcomes["extra_ops"].status == outcomes["self_consistency"].status == "failed"
    (unknown,) = outcomes["self_consistency"].findings
    assert "shrinks like h, not h^2" in unknown.summary and "bump()" in unknown.summary
    assert f"from {fixture.__name__} import Value" in unknown.reproducer
    assert display("bump~?") == "v.bump()" and display("sin~sin") == "v.sin()"
    # the reproducer runs as pasted and prints the two numbers the finding states
    expected, actual = _run_reproducer(unknown)
    assert (expected, actual) == (float(unknown.expected), float(unknown.actual)) and expected != actual
    if unknown.summary.startswith("d/dx0 of x0.bump() at x0 = "):  # alone: the hand derivative
        x = float(unknown.summary.split(" at x0 = ")[1].split(":")[0])
        assert math.isclose(expected, (1 - 2 * x * x) * math.exp(-x * x), rel_tol=1e-7), (x, expected)


def test_an_exact_engines_rational_extra_op_is_judged_exactly():
    # abs'(x) = 1 + 2**-60: 1.0 as a float, so only graphs of Fractions, compared exactly, see it
    outcomes = {o.name: o for o in extra_op_outcomes(extra_exact_abs.Value, examples=10)}
    assert (outcomes["extra_ops"].status, outcomes["self_consistency"].status) == ("failed", "not_applicable")
    (wrong,) = [f for f in outcomes["extra_ops"].findings if f.kind in DEFECT_KINDS]
    assert (wrong.kind, wrong.op) == ("wrong_gradient", "__abs__~abs")
    assert wrong.summary.endswith("(confirmed by exact rationals)")
    assert wrong.point and all(type(x) is Fraction for x in wrong.point)  # on a graph of Fractions
    assert any(f"Fraction({sign * (2**60 + 1)}, {2**60})" in wrong.actual for sign in (1, -1)), wrong.actual


def test_a_renamed_table_op_is_checked_as_that_op_at_its_edges():
    edges, outside = probe_edge_points(extra_clamped_ln.Value), probe_out_of_domain(extra_clamped_ln.Value)
    assert ("wrong_value", "ln~log") in {(f.kind, f.op) for f in edges.findings}
    assert ("accepts_invalid", "ln~log") in {(f.kind, f.op) for f in outside.findings}
    assert "x.ln() at x = 0.0" in " ".join(f.summary for f in outside.findings)
    assert "ln~log" not in OPS  # registered only while probed
    assert {
        (f.kind, f.op) for f in probe_edge_points(extra_fixture.Value).findings if f.kind in DEFECT_KINDS
    } == set()


def test_the_taylor_order_test_needs_no_tolerance():
    x = 0.8
    right = taylor_order(lambda t: math.exp(x + t), math.exp(x), 1e-3)
    wrong = taylor_order(lambda t: math.exp(x + t), 1.02 * math.exp(x), 1e-3)
    linear = taylor_order(lambda t: 3 * (x + t), 3.0, 1e-3)  # the remainder is rounding only
    assert right.verdict == "right" and all(abs(o - 2) < 0.2 for o in right.orders)
    assert wrong.verdict == "wrong" and all(abs(o - 1) < 0.1 for o in wrong.orders)
    assert linear.verdict == "right"
    kink = taylor_order(lambda t: abs(x - 0.8 + t), 1.0, 1e-3)  # at a kink, one side is right
    assert taylor_order(lambda t: abs(t), 1.0, 1e-3).verdict == "right" and kink.verdict == "right"
    # f(t) = t with g = 0: every remainder is h itself (powers of 2, exact), so every order is 1.0
    linear_only = taylor_order(lambda t: t, 0.0, 2.0**-10)
    assert repr(linear_only) == "TaylorVerdict('wrong', orders=[1.0, 1.0, 1.0, 1.0])"
    # remainder h**1.4372: neither order 1 nor 2, printed to two decimals
    between = taylor_order(lambda t: abs(t) ** 1.4372, 0.0, 2.0**-10)
    assert repr(between) == "TaylorVerdict('unclear', orders=[1.44, 1.44, 1.44, 1.44])"


@pytest.mark.slow
def test_the_audit_reports_extra_ops_by_their_form():
    report = audit(extra_factor.Value, examples=10)
    assert {(f.kind, f.op) for f in report.defects} >= {
        ("wrong_gradient", "sin~sin"),
        ("wrong_gradient", "bump~?"),
    }
    assert report.capabilities["aliases"] == {"ln": "log", "sigmod": "sigmoid", "reLU": "relu"}
    text = str(report)
    # bump's backward is twice its forward's slope: wrong by 1 relative at x0 = 0.3, an ordinary point
    bump = "[self_consistency] v.bump(): wrong: relative error 1 at an ordinary point: d/dx0"
    assert bump in text and "[extra_ops] v.sin(): wrong: " in text
    assert "ops beyond the table: v.bump() (not identified" in text
    assert report.to_dict()["findings"][0]["form"] == display(report.to_dict()["findings"][0]["op"])


# ---------------------------------------------------------------------- methods that are no op
def test_a_method_that_ignores_its_value_argument_is_listed_not_judged():
    # lilgrad 0.6.0's named(label) was called as v.named(w) and reported as a detached op
    eng = resolve_engine(extra_labelled.Value)
    assert unjudged_methods(eng) == {
        "v.labelled(w)": "its value does not depend on its argument's: not an op of Values",
        "v.named(w)": "its value does not depend on its argument's: not an op of Values",
    }
    caps = extra_capabilities(eng)
    assert caps["not_judged"] == unjudged_methods(eng)
    assert caps["extra_ops"]["v.hypot(w)"] == "hypot"  # a binary op of Values still is one
    assert "named" not in {e.method for e in extra_ops(eng)}
    outcomes = extra_op_outcomes(eng, examples=10)
    assert defects(outcomes) == set()
    facts = [f.summary for f in outcomes[0].findings if f.kind == "convention"]
    assert "v.named(w) is not judged: its value does not depend on its argument's" in " ".join(facts)
    assert all(o.status == "passed" for o in outcomes), outcomes
    assert "not_judged" not in extra_capabilities(resolve_engine(extra_fixture.Value))


def test_our_own_error_in_identification_propagates_instead_of_reading_as_a_refusal(monkeypatch):
    # issue 13: only what the engine raises means "no value here"; a KeyError of ours is our bug
    def broken(method, arity, number=None):
        raise KeyError("planted in the harness")

    eng = resolve_engine(extra_fixture.Value)
    monkeypatch.setattr(identify_module, "_call", broken)
    identify_module._discover.cache_clear()
    try:
        with pytest.raises(KeyError, match="planted in the harness"):
            extra_ops(eng)
    finally:
        identify_module._discover.cache_clear()


def test_our_own_error_in_a_self_check_propagates_instead_of_reading_as_no_finding(monkeypatch):
    def broken(graph):
        raise KeyError("planted in the harness")

    monkeypatch.setattr(extra_checks, "where", broken)
    with pytest.raises(KeyError, match="planted in the harness"):
        extra_op_outcomes(extra_factor.Value, examples=5)


def _run_reproducer(finding):
    """The reproducer run as pasted: the (expected, actual) numbers it prints."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(finding.reproducer, "<reproducer>", "exec"), {})
    lines = printed.getvalue().splitlines()
    assert [line.split(" d/dx")[0].split(" (")[0] for line in lines] == ["expected", "actual"], lines
    return tuple(float(line.rsplit("=", 1)[1]) for line in lines)


def _lifted_hypot(x, y):
    """sqrt(x*x + y*y + 1): no function of the catalogue (hypot is one)."""
    return math.sqrt(x * x + y * y + 1)


class _SwappedPartials(sound.Value):
    def hyp(self, other):  # sqrt(x*x + y*y + 1), its two partials swapped: right only where x = y
        r = _lifted_hypot(self.data, other.data)
        return self._with_partials(r, (self, other), (other.data / r, self.data / r))


def test_a_binary_unknown_op_with_swapped_partials_is_reproduced_with_both_leaves():
    outcomes = extra_op_outcomes(_SwappedPartials, examples=5)
    (finding,) = [f for o in outcomes if o.name == "self_consistency" for f in o.findings]
    assert finding.kind == "wrong_gradient" and " of x0.hyp(x1) at x0 = " in finding.summary, finding.summary
    i = int(finding.summary[len("d/dx")])
    x, y = (float(t.split(" = ")[1]) for t in finding.summary.split(":")[0].split(" at ")[1].split(", "))
    expected, actual = _run_reproducer(finding)
    assert (expected, actual) == (float(finding.expected), float(finding.actual))
    right, swapped = ((x, y), (y, x))[i]
    r = _lifted_hypot(x, y)
    assert math.isclose(expected, right / r, rel_tol=1e-7) and actual == swapped / r


def _broken_backward(out, name):
    def fail():
        raise RuntimeError(f"{name}: backward broken")

    out._backward = fail
    return out


def test_an_extra_op_that_raises_in_its_backward_is_a_crash_known_or_not():
    class Raises(extra_fixture.Value):
        def bump(self):
            return _broken_backward(super().bump(), "bump")

        def sin(self):
            return _broken_backward(super().sin(), "sin")

    outcomes = {o.name: o for o in extra_op_outcomes(Raises, examples=5)}
    # a graph that crashes is judged (the crash is the verdict), never counted as inconclusive
    assert outcomes["extra_ops"].inconclusive == outcomes["self_consistency"].inconclusive == 0
    cases = (("self_consistency", "bump~?", "x0.bump()"), ("extra_ops", "sin~sin", "x0.sin()"))
    for check, op, form in cases:
        crash = next(f for f in outcomes[check].findings if f.kind == "crash")
        assert crash.op == op and crash.actual == f"RuntimeError: {op.split('~')[0]}: backward broken"
        assert (crash.check, crash.expected) == (check, "no exception")
        assert crash.reproducer.startswith(resolve_engine(Raises).import_line())  # the engine's own class
        assert f"= {form}" in crash.reproducer  # the graph that raised, as code
        assert f"backward() of {form} at x0 = " in crash.summary and "raises RuntimeError" in crash.summary


def test_identification_skips_the_points_an_engine_refuses_or_gives_no_number_at():
    class Partial(sound.Value):
        def above_one(self):  # refuses x <= 1 (not a TypeError): its arity is found at x = 1.5
            if self.data <= 1:
                raise ValueError("above_one: x must exceed 1")
            return self._with_partials(self.data - 1, (self,), (1,))

        def shadow(self):  # a Value whose number is no number
            out = type(self)(self.data)
            out.data = "not a number"
            return out

    eng = resolve_engine(Partial)
    arity = {e.method: e.arity for e in extra_ops(eng)}
    assert arity == {"above_one": 1, "shadow": 1}
    assert sorted(identify_module.engine_values(eng, "above_one", 1)) == [1.1, 1.9, 2.7, 7.5]
    assert identify_module.engine_values(eng, "shadow", 1) == {}


def test_a_binary_method_is_an_op_unless_its_value_ignores_the_argument_at_enough_pairs():
    class Methods(sound.Value):
        def lower(self, other):  # min(v, w): ignores w at some pairs only, an op of two Values
            return self if self.data <= other.data else other

        def tag(self, label):  # ignores its label, but refuses those below 0.7: too few pairs to say
            if label.data < 0.7:
                raise ValueError("tag: a label of at least 0.7")
            return type(self)(self.data)

        def mark(self, label):  # ignores its label, refuses negative ones: four pairs (MIN_AGREE) say so
            if label.data < 0:
                raise ValueError("mark: a label of at least 0")
            return type(self)(self.data)

    eng = resolve_engine(Methods)
    assert {e.method: e.arity for e in extra_ops(eng)} == {"lower": 2, "tag": 2}
    why = "its value does not depend on its argument's: not an op of Values"
    assert unjudged_methods(eng) == {"v.mark(w)": why}


# ---------------------------------------------------------------------- what an extra op is, as a table row
def test_each_extra_ops_source_is_code_that_applies_its_method():
    # the reproducers are built from spec.source: run, it must give what Engine.apply gives
    eng = resolve_engine(extra_fixture.Value)
    for extra in extra_ops(eng):
        names, c = ["a", "b"][: extra.arity], (extra.spec.consts or (None,))[0]
        for point in ((0.7, 1.3), (2.4, -0.6)):
            args = [eng.make(x) for x in point[: extra.arity]]
            by_source = eval(extra.spec.source(names, c), dict(zip(names, args, strict=True)))
            assert eng.data(by_source) == eng.data(eng.apply(extra.spec, args, c)), extra.method
    forms = {e.method: e.spec.source(["x", "y"], None) for e in extra_ops(eng)}
    assert (forms["__abs__"], forms["__pos__"], forms["sin"], forms["hypot"]) == (
        "abs(x)", "+x", "x.sin()", "x.hypot(y)",
    )  # fmt: skip


class _Family(sound.Value):
    def leaky(self):  # leaky relu of slope 0.2 (not the row's default 0.01)
        slope = 1 if self.data > 0 else 0.2
        return self._with_partials(self.data * slope, (self,), (slope,))

    def power(self, other):  # v ** w: the table's vpow under another name
        a, b = self.data, other.data
        return self._with_partials(a**b, (self, other), (b * a ** (b - 1), a**b * math.log(a)))


def test_an_identified_op_keeps_its_fitted_parameter_and_a_binary_one_the_tables_domain():
    ops = {e.method: e for e in extra_ops(resolve_engine(_Family))}
    assert (ops["leaky"].known, ops["leaky"].spec.consts) == ("leaky_relu", (0.2,))
    assert ops["leaky"].spec.num([-2.0], ops["leaky"].spec.consts[0]) == -0.4
    power = ops["power"].spec
    assert ops["power"].known == "vpow" and power.form == "v.power(w)"
    # as vpow's: a base from AWAY_FROM_ZERO = 0.1 on (a unary row would also keep 0.1 inside its region)
    assert [power.domain([a, 1.5], None) for a in (0.05, 0.1, 2.0)] == [False, True, True]


class _Partial(sound.Value):
    def root(self):  # sqrt, refused below 0: known to the catalogue, defined on [0, oo)
        r = math.sqrt(self.data)
        return self._with_partials(r, (self,), (0.5 / r if r else math.inf,))

    def hollow(self):  # a Value whose number cannot be read
        out = type(self)(self.data)
        out.data = "not a number"
        return out

    def spike(self):  # unknown to the catalogue, refused outside [-1, 1]
        if abs(self.data) > 1:
            raise ValueError("spike: x in [-1, 1]")
        return self._with_partials(self.data**3 - self.data, (self,), (3 * self.data**2 - 1,))


def test_a_known_op_is_drawn_inside_its_region_by_a_margin_and_off_its_kinks():
    eng = resolve_engine(_Partial)
    ops = {e.method: e for e in extra_ops(eng)}
    assert ops["root"].known == "sqrt" and ops["spike"].known is None and ops["hollow"].known is None
    root = ops["root"].spec
    # [0, oo): a point within AWAY_FROM_ZERO = 0.1 of 0 is no operand (x - 0.1 must be inside too)
    assert [root.domain([x], None) for x in (-0.5, 0.05, 0.099, 0.1, 0.15, 2.0)] == [
        False, False, False, True, True, True,
    ]  # fmt: skip
    absolute = {e.method: e for e in extra_ops(resolve_engine(extra_fixture.Value))}["__abs__"].spec
    # a kink at 0: KINK_MARGIN = 0.01 either side is no operand
    assert [absolute.domain([x], None) for x in (-0.5, -0.011, -0.009, 0.0, 0.009, 0.01, 0.011)] == [
        True, True, False, False, False, True, True,
    ]  # fmt: skip


def test_an_unknown_op_is_drawn_where_the_engine_evaluates_it_around_the_point_up_to_3():
    spike = {e.method: e for e in extra_ops(resolve_engine(_Partial))}["spike"].spec
    # evaluable at x - 0.1, x and x + 0.1
    assert [spike.domain([x], None) for x in (-0.95, -0.9, 0.0, 0.85, 0.9, 0.95)] == [
        False, True, True, True, True, False,
    ]  # fmt: skip
    # ... and |x| <= 3 (bump is evaluable everywhere)
    bump = {e.method: e for e in extra_ops(resolve_engine(extra_fixture.Value))}["bump"].spec
    assert [bump.domain([x], None) for x in (-3.05, -3.0, 3.0, 3.05)] == [False, True, True, False]
    assert spike.num([0.5], None) == 0.5**3 - 0.5
    with pytest.raises(ValueError, match=r"^v\.spike\(\) at \[1\.5\]: ValueError$"):
        spike.num([1.5], None)
    hollow = {e.method: e for e in extra_ops(resolve_engine(_Partial))}["hollow"].spec
    with pytest.raises(ValueError, match=r"^v\.hollow\(\) at \[0\.5\]: no finite number$"):
        hollow.num([0.5], None)
    assert not hollow.domain([0.5], None)


class _CubicOfALeafOnly(sound.Value):
    """cubic: x^3 - x, whose result holds no number when its operand is not a leaf."""

    def cubic(self):
        out = self._with_partials(self.data**3 - self.data, (self,), (3 * self.data**2 - 1,))
        if self._prev:
            out.data = "no number"
        return out


@pytest.mark.parametrize(
    ("k", "where"),
    [
        (1, "(x0 + x1).cubic() at x0 = 0.0, x1 = 0.1"),
        (20, "a graph of 21 nodes on 21 leaves (see the reproducer)"),  # with its point, over 160 characters
    ],
)
def test_a_self_check_summary_names_a_graph_as_every_check_does(monkeypatch, k, where):
    # the search draws one graph: x0 + x1 + ... + x<k>, then cubic (alone at the identification
    # points its operand is a leaf: no crash there)
    def chain(*args, **kwargs):
        leaves = tuple(i / 10 for i in range(k + 1))
        adds = [Node("add", (0, 1)), *(Node("add", (k + i, i + 1)) for i in range(1, k))]
        return st.just(Graph(leaves, (*adds, Node("cubic~?", (2 * k,)))))

    monkeypatch.setattr(gs, "graphs", chain)
    _, outcome = extra_op_outcomes(_CubicOfALeafOnly, examples=2)
    (crash,) = outcome.findings
    said = "TypeError: the output's data is 'no number', not a number"
    assert crash.summary == f"forward of {where} raises {said}"


def test_the_taylor_order_verdicts_and_the_remainders_they_rest_on():
    x, e = 0.8, math.exp(0.8)
    hs = [1e-3 / 2**k for k in range(5)]
    # right: the remainder is e^x h^2 / 2 (to O(h^3)), order 2 at each halving
    right = taylor_order(lambda t: math.exp(x + t), e, 1e-3)
    assert right.verdict == "right" and [round(o, 2) for o in right.orders] == [2.0] * 4
    expected = [e * h * h / 2 for h in hs]
    assert all(math.isclose(r, w, rel_tol=1e-3) for r, w in zip(right.remainders, expected, strict=True))
    # wrong by 2 %: the remainder is e^x h (0.02 - h / 2), order 1
    wrong = taylor_order(lambda t: math.exp(x + t), 1.02 * e, 1e-3)
    assert wrong.verdict == "wrong" and [round(o, 1) for o in wrong.orders] == [1.0] * 4
    expected = [e * h * (0.02 - h / 2) for h in hs]
    assert all(math.isclose(r, w, rel_tol=1e-3) for r, w in zip(wrong.remainders, expected, strict=True))
    # rounding only (a linear forward of size 1e6: remainders up to 1e-10): right, no order computed
    for scale in (3.0, 1e6):
        linear = taylor_order(lambda t, s=scale: s * (x + t), scale, 1e-3)
        assert (linear.verdict, linear.orders, len(linear.remainders)) == ("right", [], 5), scale
    # neither order 1 nor 2 (remainder h**1.4372): unclear, its orders measured
    between = taylor_order(lambda t: abs(t) ** 1.4372, 0.0, 2.0**-10)
    assert between.verdict == "unclear" and [round(o, 3) for o in between.orders] == [1.437] * 4
    assert len(between.remainders) == 5 and between.remainders[0] == (2.0**-10) ** 1.4372
    # a forward that is exactly linear below some step: the remainders there are 0, no order, still right
    flat = taylor_order(lambda t: t * t if t > 2.0**-12 else 0.0, 0.0, 2.0**-10)
    assert flat.verdict == "right" and flat.orders[0] == 2.0 and all(math.isnan(o) for o in flat.orders[1:])
    assert flat.remainders == [2.0**-20, 2.0**-22, 0.0, 0.0, 0.0]


class _Kinked(sound.Value):
    def vee(self):  # |x - 0.3|, unknown to the catalogue; at its kink (0.3, an identification point) it
        # reports 5: no derivative exists there, so no value is wrong
        d = self.data - 0.3
        return self._with_partials(abs(d), (self,), (1 if d > 0 else -1 if d < 0 else 5,))


def test_no_gradient_is_judged_at_a_kink_of_an_unknown_op():
    known, outcome = extra_op_outcomes(_Kinked, examples=10)
    # the graph alone at 0.3 is the one not judged (its one derivative sits on the kink), and says
    # so; the rest are judged
    summary = "x0.vee() at x0 = 0.3: every derivative sits on a kink"
    kink = Finding("inconclusive", "self_consistency", summary, "vee~?")
    assert outcome.status == "passed" and outcome.findings == [kink]
    assert outcome.inconclusive == 1 and outcome.judged >= 10, outcome
    assert (outcome.name, outcome.unit) == ("self_consistency", "graphs")
    assert outcome.reason == "1 extra ops nothing identifies: backward vs their own forward"
    # nothing identified: extra_ops judged nothing, and says so; the op found is listed as a fact
    assert (known.name, known.status, known.judged, known.inconclusive, known.unit) == (
        "extra_ops", "not_applicable", 0, 0, "graphs",
    )  # fmt: skip
    assert known.reason == "0 extra ops identified by their values, checked as the catalogue's"
    (fact,) = known.findings
    listed = "ops beyond the table: v.vee() (not identified: checked by self-consistency)"
    assert (fact.kind, fact.check, fact.summary) == ("convention", "extra_ops", listed)


def test_identification_is_by_agreement_wherever_both_are_defined_to_1e_9():
    xs = (-1.3, -0.6, 0.3, 0.7, 1.1, 1.9)
    assert identify({x: math.sin(x) for x in xs[:4]}, 1)[0].name == "sin"  # MIN_AGREE = 4 points suffice
    assert identify({x: math.sin(x) * (1 + 1e-12) for x in xs}, 1)[0].name == "sin"  # rounding agrees
    assert identify({x: math.sin(x) * (1 + 1e-8) for x in xs}, 1) is None
    # log|1 + x|: log1p where log1p is defined (the points left of -1 are no evidence either way)
    points = (-2.5, -1.3, -0.6, -0.2, 0.3, 0.7, 1.1)
    assert identify({x: math.log(abs(1 + x)) for x in points}, 1)[0].name == "log1p"
    # a slope of 1e-11 is no relu: where relu is 0, agreement is to 1e-9 of 1e-12, not of 1
    spec, slope = identify({x: x if x > 0 else 1e-11 * x for x in xs}, 1)
    assert (spec.name, slope) == ("leaky_relu", 1e-11)


class _SwappedTimes(sound.Value):
    def times(self, other):  # x * y, identified as mul by its values; its two partials swapped
        return self._with_partials(self.data * other.data, (self, other), (self.data, other.data))


def test_a_known_binary_op_with_swapped_partials_is_reported_with_both_gradients():
    known, _ = extra_op_outcomes(_SwappedTimes, examples=5)
    (wrong,) = [f for f in known.findings if f.kind in DEFECT_KINDS]
    assert (wrong.kind, wrong.check, wrong.op) == ("wrong_gradient", "extra_ops", "times~mul")
    assert known.inconclusive == 0  # the graph with the defect was judged
    where, _, rest = wrong.summary.partition(": ")
    assert where.startswith("x0.times(x1) at x0 = ")
    assert " differs, confirmed by central differences [" in rest
    x, y = (float(t.split(" = ")[1]) for t in where.split(" at ")[1].split(", "))
    assert eval(wrong.expected) == [y, x] and eval(wrong.actual) == [x, y]  # d(xy)/dx = y: by hand
    confirmed = "differs, confirmed by central differences"
    assert rest.startswith(f"engine {wrong.actual}; sympy {wrong.expected} {confirmed}")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(wrong.reproducer, "<reproducer>", "exec"), {})
    assert printed.getvalue().splitlines() == [f"expected: {[y, x]}", f"actual:   {[x, y]}"]


class _SinOffBy1e11(sound.Value):
    def sin(self):  # sin'(x) = cos(x) * (1 + 1e-11): below what central differences can confirm
        return self._with_partials(math.sin(self.data), (self,), (math.cos(self.data) * (1 + 1e-11),))


def test_a_disagreement_central_differences_cannot_confirm_is_inconclusive_not_a_defect():
    known, _ = extra_op_outcomes(_SinOffBy1e11, examples=5)
    assert (known.status, known.judged) == ("not_applicable", 0) and known.inconclusive > 0, known
    assert not [f for f in known.findings if f.kind in DEFECT_KINDS]
    doubts = [f for f in known.findings if f.kind == "inconclusive"]
    assert doubts and all((f.check, f.op) == ("extra_ops", "sin~sin") for f in doubts)
    at_03 = next(f.summary for f in doubts if f.summary.startswith("x0.sin() at x0 = 0.3: "))
    sympy_side, engine_side = repr(math.cos(0.3)), repr(math.cos(0.3) * (1 + 1e-11))
    assert at_03.startswith(
        f"x0.sin() at x0 = 0.3: engine [{engine_side}]; sympy [{sympy_side}] differs, central differences ["
    ), at_03
    assert at_03.endswith("]: not confirmed, unresolved") and "not a defect" not in at_03


class _NearKink(sound.Value):
    def vee(self):  # |x - 0.30001|, right everywhere: its kink lies within every step ahead of 0.3
        d = self.data - 0.30001
        return self._with_partials(abs(d), (self,), (1 if d > 0 else -1,))


def test_a_kink_on_one_side_of_the_point_is_no_evidence_of_a_wrong_gradient():
    # at 0.3 the step ahead crosses the kink (the remainder bends, order 1); behind it is order 2:
    # only a remainder of order 1 both ways is evidence, so there is no finding, not even a doubt
    _, outcome = extra_op_outcomes(_NearKink, examples=10)
    assert (outcome.status, outcome.findings, outcome.inconclusive) == ("passed", [], 0)


class _FlippedBump(sound.Value):
    def bump(self):  # x * exp(-x * x), its derivative with the wrong sign
        x, e = self.data, math.exp(-self.data * self.data)
        return self._with_partials(x * e, (self,), (-e * (1 - 2 * x * x),))


def test_a_derivative_of_the_wrong_sign_is_a_wrong_gradient_of_an_unknown_op():
    # behind the point the remainder is |f(x - h) - f(x) + h g| = 2 h |f'|: order 1 both ways
    _, outcome = extra_op_outcomes(_FlippedBump, examples=5)
    assert {(f.kind, f.op) for f in outcome.findings} == {("wrong_gradient", "bump~?")}
    # found alone at 0.3 (the shortest graph): the one-sided slopes there agree with each other
    # and are -g, not g, so no kink is seen and no graph is left unjudged
    (wrong,) = outcome.findings
    assert wrong.summary.startswith("d/dx0 of x0.bump() at x0 = 0.3: engine "), wrong.summary
    assert outcome.inconclusive == 0, outcome
    slope = (1 - 2 * 0.3 * 0.3) * math.exp(-0.3 * 0.3)  # bump'(x) = (1 - 2 x^2) exp(-x^2), by hand
    assert math.isclose(float(wrong.expected), slope, rel_tol=1e-7)
    assert math.isclose(float(wrong.actual), -slope, rel_tol=1e-15)


class _SinOffBy1e9(sound.Value):
    def sin(self):  # sin'(x) = cos(x) * (1 + 1e-9): at 0.3, central differences cannot settle it
        return self._with_partials(math.sin(self.data), (self,), (math.cos(self.data) * (1 + 1e-9),))


def test_a_disagreement_central_differences_cannot_settle_is_inconclusive_and_says_why():
    # at 0.3 the second vote (rtol = atol = 0, verdicts.SECOND_VOTE_FD) rejects the engine at its
    # step h but its estimates at h and h / 8 do not agree: it cannot judge, so sympy's
    # disagreement is no defect there (with gradcheck's rtol = 1e-7 it would "agree" instead)
    known, _ = extra_op_outcomes(_SinOffBy1e9, examples=5)
    (doubt,) = [f for f in known.findings if f.kind == "inconclusive"]
    assert (doubt.check, doubt.op) == ("extra_ops", "sin~sin") and known.inconclusive > 0, known
    sympy_side, engine_side = repr(math.cos(0.3)), repr(math.cos(0.3) * (1 + 1e-9))
    assert doubt.summary.startswith(
        f"x0.sin() at x0 = 0.3: engine [{engine_side}]; sympy [{sympy_side}] differs, central differences "
        "cannot judge (finite differences along x0 did not converge: "
    ), doubt.summary
    assert doubt.summary.endswith(f"the engine says {engine_side}): unresolved"), doubt.summary


class _HugeSlope(sound.Value):
    def leaky(self):  # leaky relu of slope 1e308 (at -2.5 its value overflows: the engine refuses it)
        slope = 1 if self.data > 0 else 1e308
        return self._with_partials(self.data * slope, (self,), (slope,))


def test_an_identified_op_the_symbolic_oracle_cannot_judge_is_inconclusive_where_it_cannot():
    # identified as leaky_relu with its slope fitted (1e308); at -1.3, -0.6 and -0.2 the derived
    # tolerance (the partial 1e308 times a few ulps) leaves the float range: sympy cannot judge there,
    # and those three graphs are counted as not judged; right of 0 and in the random graphs it judges
    known, _ = extra_op_outcomes(_HugeSlope, examples=5)
    assert not [f for f in known.findings if f.kind in DEFECT_KINDS]
    (doubt,) = [f for f in known.findings if f.kind != "convention"]
    assert (doubt.kind, doubt.check, doubt.op) == ("inconclusive", "extra_ops", "leaky~leaky_relu")
    assert doubt.summary == (
        "x0.leaky() at x0 = -1.3: symbolic oracle: a derived tolerance leaves the float range: [inf]"
    )
    assert (known.status, known.inconclusive) == ("passed", 3) and known.judged > 0, known


class _Gap(sound.Value):
    def gap(self):  # x**3 - x, right wherever it is defined; refused on (0.3, 0.35), just ahead of 0.3
        x = self.data
        if 0.3 < x < 0.35:
            raise ValueError("gap: undefined on (0.3, 0.35)")
        return self._with_partials(x**3 - x, (self,), (3 * x * x - 1,))


def test_an_unknown_op_refused_just_beside_the_point_is_inconclusive_there_not_a_crash():
    # 0.2, 0.3 and 0.4 evaluate (room for an operand), but the Taylor steps ahead of the
    # identification point 0.3 (0.3 + 1e-3 / 2**k) fall in the gap: that graph is not judged
    _, outcome = extra_op_outcomes(_Gap, examples=5)
    (doubt,) = outcome.findings
    assert (doubt.kind, doubt.check, doubt.op) == ("inconclusive", "self_consistency", "gap~?")
    assert doubt.summary == (
        "x0.gap() at x0 = 0.3: the forward raises ValueError: gap: undefined on (0.3, 0.35) near the point"
    )
    assert (outcome.status, outcome.inconclusive >= 1, outcome.judged > 0) == ("passed", True, True), outcome


class _SecondFromFirst(sound.Value):
    def scaled(self, other):  # x * exp(y), its d/dy computed from the wrong operand: y * exp(y)
        x, y = self.data, other.data
        return self._with_partials(x * math.exp(y), (self, other), (math.exp(y), y * math.exp(y)))


def test_a_binary_unknown_op_wrong_only_in_its_second_operand_is_judged_at_that_leaf():
    # d/dx0 is right, and so is x0.scaled(x0) (x = y there): only d/dx1 shows the defect.  At the
    # first pair, x1 = 1.3 > 1, where the difference step is relative (1e-6 * 1.3), as in the reproducer
    _, outcome = extra_op_outcomes(_SecondFromFirst, examples=5)
    (wrong,) = outcome.findings
    assert (wrong.kind, wrong.check, wrong.op) == ("wrong_gradient", "self_consistency", "scaled~?")
    assert wrong.summary.startswith("d/dx1 of x0.scaled(x1) at x0 = 0.7, x1 = 1.3: engine "), wrong.summary
    expected, actual = _run_reproducer(wrong)
    assert (expected, actual) == (float(wrong.expected), float(wrong.actual))
    assert math.isclose(expected, 0.7 * math.exp(1.3), rel_tol=1e-7) and actual == 1.3 * math.exp(1.3)


# ---------------------------------------------------------------------- kinks and the second scale
class _DeadZone(sound.Value):
    def dead(self):  # 0 within 2e-6 of 0.3, slope 1 beyond: right everywhere but at its two kinks
        d = self.data - 0.3
        if abs(d) <= 2e-6:
            return self._with_partials(0.0, (self,), (0.0,))
        return self._with_partials(d - math.copysign(2e-6, d), (self,), (1.0,))


def test_a_gradient_equal_to_both_one_sided_slopes_is_no_doubt_though_a_kink_bends_the_first_step():
    # alone at 0.3 the engine says 0: the Taylor remainder is h - 2e-6 both ways (order 1 at the
    # steps 1e-3 .. 6.25e-5, across the kinks), but at 1e-6 the forward is flat: both one-sided
    # slopes are exactly 0, the engine's gradient. That graph is left unjudged, and says why
    _, outcome = extra_op_outcomes(_DeadZone, examples=10)
    summary = "x0.dead() at x0 = 0.3: every derivative sits on a kink"
    kink = Finding("inconclusive", "self_consistency", summary, "dead~?")
    assert (outcome.status, outcome.findings) == ("passed", [kink]), outcome.findings
    assert outcome.inconclusive == 1 and outcome.judged >= 10, outcome


class _Tilted(sound.Value):
    def tilt(self):  # 2x + 1, its derivative 2 + 1e-6: an error rounding hides at a step of 1e-6
        return self._with_partials(2 * self.data + 1, (self,), (2 + 1e-6,))


def test_an_order_1_remainder_the_smaller_step_does_not_confirm_is_inconclusive_and_says_so():
    # the remainder is 1e-6 h (the forward is linear): at the first steps (1e-3 .. 6.25e-5) it is
    # 1e-9 .. 6.25e-11, order 1 both ways; at the steps 1000 times smaller, 1e-12 .. 6.25e-14, it
    # is under 100 times the forward's rounding (64 * 2**-52 * 1.6, at 0.3): no order 1 there.
    # The one-sided slopes agree (2, to rounding) and are 1e-6 from the engine's: no kink
    _, outcome = extra_op_outcomes(_Tilted, examples=5)
    (doubt,) = outcome.findings
    assert (doubt.kind, doubt.check, doubt.op) == ("inconclusive", "self_consistency", "tilt~?")
    assert doubt.summary == (
        "d/dx0 of x0.tilt() at x0 = 0.3: the Taylor remainder shrinks like h "
        "(orders 1.00, 1.00, 1.00, 1.00), but not at a 1000 times smaller step: not confirmed, unresolved"
    )
    assert (outcome.status, outcome.inconclusive >= 1) == ("passed", True), outcome


class _Vees(sound.Value):
    def vees(self, other):  # |x - 0.7| + |x - 2.3| + |y - 1.3|; at a kink each derivative says 5
        def slope(d):
            return 1 if d > 0 else -1 if d < 0 else 5

        x, y = self.data, other.data
        partials = (slope(x - 0.7) + slope(x - 2.3), slope(y - 1.3))
        return self._with_partials(abs(x - 0.7) + abs(x - 2.3) + abs(y - 1.3), (self, other), partials)


def test_a_graph_is_left_unjudged_only_when_every_derivative_sits_on_a_kink():
    # alone at the pair (0.7, 1.3) both derivatives sit on kinks: not judged. At (2.3, 0.6) only
    # d/dx0 does, and d/dx1 (= -1) is judged right, so the graph is judged; the other pairs and the
    # random graphs are off the kinks
    _, outcome = extra_op_outcomes(_Vees, examples=10)
    summary = "x0.vees(x1) at x0 = 0.7, x1 = 1.3: every derivative sits on a kink"
    kink = Finding("inconclusive", "self_consistency", summary, "vees~?")
    assert (outcome.status, outcome.findings) == ("passed", [kink]), outcome.findings
    assert outcome.inconclusive == 1 and outcome.judged >= 10, outcome


class _TiltedBeyond2(sound.Value):
    error = 1e-4

    def tilt(self):  # 2x + 1, its derivative off by `error` beyond x = 2 only (at 2.7 of the points)
        return self._with_partials(2 * self.data + 1, (self,), (2 + (self.error if self.data > 2 else 0),))


class _SlightlyTiltedBeyond2(_TiltedBeyond2):
    error = 1e-7


def test_the_taylor_steps_are_relative_to_the_point_beyond_1():
    # at 2.7 the steps are 2.7 times those at |x| <= 1 (max(1, |x|)), as the forward's rounding is
    # (100 times it: 100 * 64 * 2**-52 * 6.4 = 9.1e-12). An error e leaves the remainder e h:
    # e = 1e-4 at the confirming steps 2.7e-6 .. 1.7e-7 is 2.7e-10 .. 1.7e-11, above it: confirmed
    _, outcome = extra_op_outcomes(_TiltedBeyond2, examples=10)
    (wrong,) = outcome.findings
    assert (wrong.kind, wrong.op, outcome.inconclusive) == ("wrong_gradient", "tilt~?", 0), outcome
    assert wrong.summary.startswith("d/dx0 of x0.tilt() at x0 = 2.7: engine 2.0001, central differences of")
    assert float(wrong.actual) == 2 + 1e-4 and math.isclose(float(wrong.expected), 2, rel_tol=1e-9)
    assert _run_reproducer(wrong) == (float(wrong.expected), float(wrong.actual))
    # e = 1e-7 at the first steps 2.7e-3 .. 1.7e-4 is 2.7e-10 .. 1.7e-11, order 1 there (not at
    # the confirming ones): the doubt is stated, at 2.7 (the graphs drawn may meet the slope beyond
    # 2 again, as (x0.tilt()).tilt() at x0 = 0.85 does: one finding, more than one inconclusive)
    _, outcome = extra_op_outcomes(_SlightlyTiltedBeyond2, examples=10)
    (doubt,) = outcome.findings
    assert (doubt.kind, doubt.op) == ("inconclusive", "tilt~?") and outcome.inconclusive >= 1, outcome
    assert doubt.summary == (
        "d/dx0 of x0.tilt() at x0 = 2.7: the Taylor remainder shrinks like h "
        "(orders 1.00, 1.00, 1.00, 1.00), but not at a 1000 times smaller step: not confirmed, unresolved"
    )


@pytest.mark.slow
def test_a_method_that_takes_a_plain_number_is_called_with_one_and_judged():
    # v.scaled(k) gives no number when k is a Value: called with 0.7 it is judged, its gradient
    # 2k (not k, by hand) found wrong; v.smudge() gives no number at all and is never "checked"
    outcomes = run_checks(["extra_ops", "self_consistency"], "tests.engines.extra_takes_number", examples=10)
    found = outcomes["self_consistency"]
    assert found.judged > 0 and found.status == "failed", found
    (wrong,) = [f for f in found.findings if f.kind in DEFECT_KINDS]
    assert (wrong.kind, wrong.op) == ("wrong_gradient", "scaled~?")
    assert wrong.summary.startswith("d/dx0 of x0.scaled(0.7) at x0 = ")
    assert float(wrong.actual) == 1.4 and math.isclose(float(wrong.expected), 0.7, rel_tol=1e-6)
    (listed,) = [f.summary for f in outcomes["extra_ops"].findings if "beyond the table" in f.summary]
    assert "v.scaled(0.7) (not identified: checked by self-consistency)" in listed
    assert "v.smudge() (not identified: not judged (0 cases judged, " in listed
    assert "v.smudge() (not identified: checked" not in listed


# ---------------------------------------------------------------------- identified by its name
class _RoughErf(sound.Value):
    """``erf`` whose values are 2e-7 too large (a float32-grade kernel), its slope right: the
    catalogue's erf by its name, not by its values."""

    def erf(self):
        x = self.data
        slope = 2 / math.sqrt(math.pi) * math.exp(-x * x)
        return self._with_partials(math.erf(x) * (1 + 2e-7), (self,), (slope,))


class _UnnormalisedSinc(sound.Value):
    """``sinc`` as sin(x) / x (numpy's is sin(pi x) / (pi x)): another function of the same name."""

    def sinc(self):
        x = self.data
        value = math.sin(x) / x if x else 1.0
        slope = (math.cos(x) - value) / x if x else 0.0
        return self._with_partials(value, (self,), (slope,))


def test_a_method_named_after_a_row_and_roughly_its_values_is_judged_as_that_row():
    # 2e-7 relative: beyond AGREE_RTOL, within NAMESAKE_RTOL; its wrong values are then found at the
    # edges (erf(1) is 0.8427007929497149; the engine's is 2e-7 of it larger)
    (erf,) = extra_ops(resolve_engine(_RoughErf))
    assert (erf.known, erf.by_name, erf.spec.name) == ("erf", True, "erf~erf")
    edges = probe_edge_points(_RoughErf)
    wrong = [f for f in edges.findings if (f.kind, f.op) == ("wrong_value", "erf~erf")]
    said = f"x.erf() at x = 1.0: value {math.erf(1.0) * (1 + 2e-7)!r}, expected 0.8427007929497149"
    assert wrong and said in wrong[0].summary
    (listed,) = [f for f in extra_op_outcomes(_RoughErf)[0].findings if f.summary.startswith("ops beyond")]
    said = "v.erf() (erf (by its name: its values differ from the catalogue's by more than 1e-09 relative))"
    assert said in listed.summary


def test_a_namesake_far_from_the_row_is_another_function_and_stays_unknown():
    # sin(1) / 1 = 0.841 where the catalogue's sinc(1) is 0: not a rough sinc, a sinc of its own
    (sinc,) = extra_ops(resolve_engine(_UnnormalisedSinc))
    assert (sinc.known, sinc.by_name) == (None, False)
    # and a value agreeing with no row but close to a row of another name is not named after it
    assert identify_module.namesake("erf", {x: math.sin(x) for x in (0.3, 0.7, 1.1, 1.9)}, 1) is None
    xs = (-1.3, -0.6, 0.3, 0.7, 1.1, 1.9)
    spec, _ = identify_module.namesake("sin", {x: math.sin(x) * (1 + 1e-6) for x in xs}, 1)
    assert spec.name == "sin"
    assert identify_module.namesake("sin", {x: math.sin(x) * (1 + 2e-3) for x in xs}, 1) is None
    assert identify_module.namesake("sin", {x: math.sin(x) * (1 + 1e-6) for x in xs[:3]}, 1) is None
