"""Edge and out-of-domain points derived from the op table (autograd.testing.probes.edges).

The points are a function of each op's ``region`` column: these tests compare the generated
set with the table (every op, every constant, zero where the region has it), show that a new
op gets its points with no edit to the probe, and run the probes on fixture engines that are
``tests.engines.sound`` changed in one place.
"""

import dataclasses
import math
import os
import re
import subprocess
import sys
from fractions import Fraction

import pytest
import sympy

import autograd
from autograd.testing import resolve_engine, run_check
from autograd.testing.boundary import child_path
from autograd.testing.engines import Engine
from autograd.testing.engines.support import usable_consts
from autograd.testing.findings import DEFECT_KINDS
from autograd.testing.ops import OPS, Call, OpSpec, registered
from autograd.testing.oracles import definition_differences
from autograd.testing.probes import edges as probe_edges
from autograd.testing.probes.edges import (
    edge_consts,
    edge_points,
    out_of_domain_points,
    probe_edge_points,
    probe_out_of_domain,
    subnormals_flushed,
)
from tests.engines import (
    accepts_strings,
    clamped_log,
    div_square,
    exp_flushes,
    exp_partial_ulps,
    float32,
    float32_wrong,
    missing_ops,
    pow0_crash,
    pow0_tiny,
    rdiv_via_div,
    sigmoid_nan,
    sigmoid_overflow,
    sound,
    tanh_overflow,
    tanh_tiny,
    wrong_rule,
)

FACTS = {"convention", "unsupported", "depth_limit"}


def caused(*outcomes):
    return {(f.kind, f.op) for o in outcomes for f in o.findings if f.kind not in FACTS}


def points_of(op):
    return {(p.const, p.args) for c in edge_consts(OPS[op]) for p in edge_points(op, c)}


def outside_of(op):
    return {(p.const, p.args) for c in edge_consts(OPS[op]) for p in out_of_domain_points(op, c)}


def _exp_on(name, region):
    """A new op, exp on ``region`` only (a sympy interval): its points come from that region."""
    return OpSpec(
        name, 1, Call("exp"), lambda s, c: sympy.exp(s[0]),
        lambda x, c: math.exp(x[0]), lambda n, c: f"{n[0]}.exp()", form="v.exp()",
        region=lambda c: (region,),
    )  # fmt: skip


# ---------------------------------------------------------------------- the generated set vs the table
@pytest.mark.parametrize("op", list(OPS))
def test_every_op_of_the_table_gets_points_inside_its_region(op):
    spec = OPS[op]
    points = [p for c in edge_consts(spec) for p in edge_points(op, c)]
    assert points, op
    for p in points:
        region = spec.region(p.const)[p.moved] if p.moved < len(spec.region(p.const)) else sympy.S.Reals
        assert region.contains(sympy.Rational(p.args[p.moved])) is sympy.true, p
        value, partials = probe_edges.reference(op, p.args, p.const)
        assert abs(value) < 2**1024 - 2**970  # rounds to a finite float (max + 1.5 rounds to max)
        if p.check_gradient:
            assert all(g is not None for g in partials), p
    moved = {p.args[p.moved] for p in points}
    # the magnitudes of the list, each where the region has it
    for m in probe_edges.MAGNITUDES:
        for x in (m, -m):
            region = spec.region(spec.consts[0] if spec.consts else None)[0]
            value = probe_edges.reference(
                op, (x, *[1.5] * (probe_edges.arity(spec) - 1)), spec.consts[0] if spec.consts else None
            )
            if region.contains(sympy.Rational(x)) is sympy.true and value is not None:
                assert x in moved, (op, x)


def test_zero_is_probed_wherever_the_region_has_it():
    assert (0, (1.0,)) in points_of("rdiv") and (0, (-1e-300,)) in points_of("rdiv")  # 0 / v
    assert (0, (1e300,)) in points_of("mulc")  # 0 * v
    assert (0, (0.0,)) in points_of("powc") and (1, (0.0,)) in points_of("powc")  # v ** 0, v ** 1 at 0
    zero_pow = {args for c, args in points_of("rpow") if c == 0}  # 0 ** v, for v > 0 only
    assert (1e-300,) in zero_pow and all(x > 0 for (x,) in zero_pow)
    assert (0.0, 1.5) in {args for _, args in points_of("div")} and (0.0,) in {a for _, a in points_of("exp")}
    assert not any(args == (0.0,) for _, args in points_of("log"))  # log(0) is outside
    assert not any(c == 0 for c, _ in points_of("divc"))


def test_thresholds_are_found_by_bisection_not_listed():
    exp_points = {args[0] for _, args in points_of("exp")}
    top = max(exp_points)
    assert math.exp(top) < math.inf and top > 709.78 and math.nextafter(top, math.inf) > 709.782712893384
    low = [x for x in exp_points if -709 < x < -708]  # where exp leaves the normal floats
    assert low and math.exp(low[0]) >= sys.float_info.min
    squares = {args[0] for c, args in points_of("powc") if c == 2}
    top = max(squares)
    assert top * top < math.inf and math.nextafter(top, math.inf) * math.nextafter(top, math.inf) == math.inf


def test_thresholds_are_where_the_value_or_its_gradient_leaves_the_floats():
    big = sys.float_info.max
    # c + x, and dot([x], [y], z) = z + x*y along z, stay finite up to the largest float: their points
    # out there are +-max, and nothing just below
    assert sorted(p.args[0] for p in edge_points("radd", -2) if abs(p.args[0]) > 1e300) == [-big, big]
    assert sorted(p.args[2] for p in edge_points("dot") if abs(p.args[2]) > 1e300) == [-big, big]
    # 0.5 ** x is a normal float down to 2 ** -1022 exactly, at x = 1022
    assert 1022.0 in [p.args[0] for p in edge_points("rpow", 0.5)]
    # 3 ** x leaves the floats past log(max) / log(3); its gradient 3 ** x * log(3) before, past
    # log(max / log(3)) / log(3)
    xs = [p.args[0] for p in edge_points("rpow", 3.0)]
    for edge in (math.log(big) / math.log(3), math.log(big / math.log(3)) / math.log(3)):
        assert any(math.isclose(x, edge, rel_tol=1e-13) for x in xs), (edge, xs)


@pytest.mark.slow
def test_a_threshold_between_1_and_2_is_found_on_both_sides():
    spec = OpSpec(
        "test_pow1100", 1, Call(lambda v: v**1100), lambda s, c: s[0] ** 1100,
        lambda x, c: x[0] ** 1100, lambda n, c: f"{n[0]} ** 1100", form="v ** 1100",
    )  # fmt: skip
    with registered(spec):
        xs = [args[0] for _, args in points_of("test_pow1100")]
    big = sys.float_info.max
    # x ** 1100 leaves the floats past |x| = max ** (1 / 1100) = 1.9066; its gradient 1100 x ** 1099
    # before, past (max / 1100) ** (1 / 1099) = 1.8954: the bisection starts at 1, not at 2
    for edge in (math.exp(math.log(big) / 1100), math.exp((math.log(big) - math.log(1100)) / 1099)):
        for sign in (1.0, -1.0):
            assert any(math.isclose(x, sign * edge, rel_tol=1e-13) for x in xs), (sign * edge, xs)


def test_just_inside_a_finite_boundary_is_1e_9_times_its_magnitude_on_both_sides():
    # 1 / x has the boundary 0 (a pole): points at 1e-9 * max(1, |0|) on either side
    assert {1e-9, -1e-9} <= {p.args[0] for p in edge_points("rdiv", 1)}


def test_a_boundary_away_from_zero_is_neared_in_its_own_units_and_thresholds_are_still_found():
    with registered(_exp_on("test_exp_above_4", sympy.Interval.open(4, sympy.oo))):
        inside = {args[0] for _, args in points_of("test_exp_above_4")}
    assert 4 + 4e-9 in inside and min(inside) == math.nextafter(4.0, 5.0)  # 1e-9 of |4| inside 4
    # the region holds no negative number nor a tiny one, yet exp leaves the floats above 709.78
    assert abs(max(inside) - math.log(sys.float_info.max)) < 1e-12


def test_an_op_that_leaves_the_floats_inside_a_bounded_region_gets_its_threshold():
    with registered(_exp_on("test_exp_below_800", sympy.Interval.open(0, 800))):
        inside = {args[0] for _, args in points_of("test_exp_below_800")}
    # the region ends before the largest float, and exp leaves the floats inside it, above 709.78
    assert any(math.isclose(x, math.log(sys.float_info.max), rel_tol=1e-13) for x in inside), inside
    assert all(0 < x < 800 for x in inside)


def test_the_zero_added_to_an_ops_constants_takes_the_first_constants_type():
    # 2 ** x, 0.5 ** x, ...: the constant 0 is added as an int, as 2 is (an engine with ints has it)
    (zero,) = [c for c in edge_consts(OPS["rpow"]) if c == 0]
    assert type(zero) is type(OPS["rpow"].consts[0]) is int


def test_a_constant_the_op_has_already_is_not_added_again():
    assert edge_consts(OPS["powc"]) == OPS["powc"].consts  # x ** 0 is one of them: its points judged once
    assert 0 not in edge_consts(OPS["divc"])  # x / 0 is nowhere a real number: no 0 added


def test_a_familys_parameter_is_the_only_constant_of_its_points():
    from autograd.testing.ops.catalogue import known

    assert edge_consts(known("leaky_relu")) == (0.01,)  # no 0 added: the engine's slope is this one
    assert edge_consts(known("leaky_relu"), (0.2,)) == (0.2,)


def test_out_of_domain_points_are_where_the_op_is_not_a_real_number():
    assert {(None, (0.0,)), (None, (-1.0,))} <= outside_of("log")
    assert (1, (0.0,)) in outside_of("rdiv")  # 1 / 0
    assert (Fraction(1, 2), (-1.0,)) in outside_of("powc") and (0.5, (-1.0,)) in outside_of("powc")
    assert (-1, (0.0,)) in outside_of("powc")  # 0 ** -1, as x ** c
    assert (0, (-1.0,)) in outside_of("rpow")  # 0 ** -1, as c ** x
    assert (0, (0.0,)) not in outside_of("rpow")  # 0 ** 0 is 1 in Python floats: not claimed
    assert (None, (1.5, 0.0)) in outside_of("div")
    assert outside_of("exp") == outside_of("tanh") == outside_of("add") == set()


def test_a_new_op_gets_its_points_with_no_edit_to_the_probe():
    spec = OpSpec(
        "test_sqrt", 1, Call("sqrt"), lambda s, c: sympy.sqrt(s[0]),
        lambda x, c: math.sqrt(x[0]), lambda n, c: f"{n[0]}.sqrt()", form="v.sqrt()",
        region=lambda c: (sympy.Interval(0, sympy.oo),),
    )  # fmt: skip
    with registered(spec):
        inside = {args[0] for _, args in points_of("test_sqrt")}
        outside = {args[0] for _, args in outside_of("test_sqrt")}
        zero = next(p for p in edge_points("test_sqrt") if p.args == (0.0,))
    assert {0.0, 5e-324, 1e-300, 1e300, sys.float_info.max} <= inside and min(inside) >= 0
    assert not zero.check_gradient  # sqrt'(0) is not finite: its value only
    assert outside == {-1.0, -1e-300, -1e300}
    assert "test_sqrt" not in OPS


def test_a_closed_end_of_a_new_ops_region_is_an_edge_point_and_beyond_it_is_not():
    spec = OpSpec(
        "test_asin", 1, Call("asin"), lambda s, c: sympy.asin(s[0]),
        lambda x, c: math.asin(x[0]), lambda n, c: f"{n[0]}.asin()", form="v.asin()",
        region=lambda c: (sympy.Interval(-1, 1),),
    )  # fmt: skip
    with registered(spec):
        inside = {args[0] for _, args in points_of("test_asin")}
    assert {-1.0, 1.0, 0.0} <= inside and max(inside) == 1.0 and min(inside) == -1.0


def test_a_new_variadic_op_gets_points_of_two_operands():
    spec = OpSpec(
        "test_vprod", 0, Call(None), lambda s, c: sympy.Mul(*s),
        lambda x, c: math.prod(x), lambda n, c: " * ".join(n), form="vprod([v, ...])",
    )  # fmt: skip
    with registered(spec):
        operands = {len(p.args) for p in edge_points("test_vprod")}
    assert operands == {2}


# ---------------------------------------------------------------------- the probes on engines
@pytest.mark.parametrize(
    "engine", [autograd, sound.Value, "micrograd.engine"], ids=["ours", "sound", "micrograd"]
)
def test_correct_engines_have_no_edge_defect(engine):
    edges, outside = probe_edge_points(engine), probe_out_of_domain(engine)
    found = caused(edges, outside) - {("accepts_invalid", "powc")}  # micrograd: (-1) ** 0.5 is complex
    if engine == "micrograd.engine":
        # its known defects: x ** 0's derivative 0 * x ** -1 divides by zero at 0 and overflows at
        # 5e-324; 0 / x is 0 * x ** -1, whose derivative -x ** -2 overflows at 1e-300, although
        # d(0 / x)/dx is 0 there
        assert found == {("crash", "powc"), ("crash", "rdiv")}
        power, quotient = sorted((f for f in edges.findings if f.kind == "crash"), key=lambda f: f.op)
        assert power.summary.startswith(
            "x ** 0 at x = 0.0: backward() raises ZeroDivisionError: 0.0 cannot be raised to a negative power"
            " (also: x ** 0 at x = 5e-324: backward() raises OverflowError"
        )
        assert quotient.summary.startswith("0 / x at x = 1e-300: backward() raises OverflowError")
    else:
        assert found == set()
    assert edges.judged > 500 and outside.judged >= 15 and edges.unit == "points"


def test_our_engine_refuses_every_point_outside_the_domain():
    outcome = probe_out_of_domain(autograd)
    assert outcome.status == "passed" and {f.kind for f in outcome.findings} == {"convention"}
    text = " ".join(f.summary for f in outcome.findings)
    assert "x.log() at x = 0.0" in text and "1 / x at x = 0.0" in text


def test_a_clamped_log_is_found_at_the_edge_and_outside_the_domain():
    edges, outside = probe_edge_points(clamped_log.Value), probe_out_of_domain(clamped_log.Value)
    assert {("wrong_value", "log"), ("wrong_gradient", "log")} <= caused(edges)
    assert caused(edges) <= {("wrong_value", "log"), ("wrong_gradient", "log"), ("inconclusive", "log")}
    (invalid,) = [f for f in outside.findings if f.kind == "accepts_invalid"]
    assert invalid.op == "log" and "x.log() at x = 0.0" in invalid.summary and "-23.02" in invalid.actual
    assert "returns a finite number" in invalid.summary
    shows = run_reproducer(invalid.reproducer)
    assert "expected: an error, nan or inf (not a real number); actual: -23.02" in shows


def test_c_over_v_computed_as_one_over_v_over_c_crashes_on_zero_over_v():
    outcome = probe_edge_points(rdiv_via_div.Value)
    assert caused(outcome) == {("crash", "rdiv")} and outcome.status == "failed"
    (crash,) = [f for f in outcome.findings if f.kind not in FACTS]
    assert crash.summary.startswith("0 / x at x = 1.0: forward raises ZeroDivisionError")
    assert caused(probe_edge_points(sound.Value)) == set()


@pytest.mark.parametrize(
    ("fixture", "found"),
    [(pow0_crash, {("crash", "powc")}), (tanh_tiny, {("wrong_value", "tanh")}),
     (sigmoid_overflow, {("crash", "sigmoid")}), (wrong_rule, {("wrong_gradient", "exp")}),
     (exp_flushes, {("wrong_gradient", "exp")}), (exp_partial_ulps, {("wrong_gradient", "exp")}),
     (pow0_tiny, {("crash", "powc")}), (div_square, {("crash", "rdiv")}),
     # (e**2x - 1) / (e**2x + 1) also rounds tanh(1e-20) to 0; 1 - e / (1 + e) loses sigmoid near -708
     (tanh_overflow, {("crash", "tanh"), ("wrong_value", "tanh")}),
     (sigmoid_nan, {("wrong_value", "sigmoid"), ("wrong_gradient", "sigmoid")})],
)  # fmt: skip
def test_each_fixture_is_found_with_its_kind(fixture, found):
    outcome = probe_edge_points(fixture.Value)
    assert caused(outcome) == found
    assert outcome.status == ("failed" if any(k in DEFECT_KINDS for k, _ in found) else "passed")


@pytest.mark.parametrize(
    ("fixture", "kind", "op", "expected", "actual", "starts"),
    [(wrong_rule, "wrong_gradient", "exp", "1.0", "0.0",
      "x.exp() at x = 0.0: d/dx 0.0; sympy/mpmath 1.0 differs, confirmed by finite differences "),
     (tanh_tiny, "wrong_value", "tanh", "1e-20", "0.0", "x.tanh() at x = 1e-20: value 0.0, expected 1e-20"),
     (pow0_crash, "crash", "powc", "value 1.0, gradient [0.0]",
      "ZeroDivisionError: 0.0 cannot be raised to a negative power", "x ** 0 at x = 0.0: forward raises ")],
    ids=["wrong_gradient", "wrong_value", "crash"],
)  # fmt: skip
def test_a_finding_carries_its_check_op_expected_and_actual(fixture, kind, op, expected, actual, starts):
    # by hand: exp'(0) = 1 (the fixture's rule gives x = 0), tanh(1e-20) = 1e-20 in doubles, 0 ** 0 = 1
    # with gradient 0 (the fixture's 0 * 0.0 ** -1 raises)
    (finding,) = [f for f in probe_edge_points(fixture.Value).findings if f.kind not in FACTS]
    assert (finding.kind, finding.check, finding.op) == (kind, "edge_points", op)
    assert (finding.expected, finding.actual) == (expected, actual)
    assert finding.summary.startswith(starts)


def test_a_float32_engine_is_judged_at_its_rounded_operands_and_beyond_its_range_is_a_limit():
    sound32, wrong32 = probe_edge_points(float32.Value), probe_edge_points(float32_wrong.Value)
    assert caused(sound32) == set() and sound32.judged > 500
    # d(a*b)/da = b * (1 + 2**-10): far beyond float32's rounding, in every form of a product
    assert caused(wrong32) == {("wrong_gradient", op) for op in ("mul", "mulc", "vmulc")}
    limits = [f for f in sound32.findings if f.kind == "convention" and f.op == "exp"]
    # exp(709.78) is far above float32's largest number, 3.4e38
    assert limits and "x.exp() at x = 709.78271484375: beyond float32" in limits[0].summary
    assert {(f.check, f.summary[:13]) for f in limits} == {("edge_points", "range limit: ")}


@pytest.mark.parametrize(
    ("fixture", "op", "at"),
    [(tanh_overflow, "tanh", "x.tanh() at x = 1e+300: forward raises OverflowError"),
     (sigmoid_nan, "sigmoid", "x.sigmoid() at x = -1e+300: value nan, expected 0.0"),
     (pow0_tiny, "powc", "x ** 0 at x = 5e-324: forward raises OverflowError"),
     (div_square, "rdiv", "0 / x at x = 1e-300: forward raises ZeroDivisionError")],
)  # fmt: skip
def test_an_intermediate_beyond_the_floats_where_the_exact_result_is_finite_is_a_defect(fixture, op, at):
    # tanh(1e300) = 1, sigmoid(-1e300) = 0, x ** 0 = 1 and 0 / x = 0, each with derivative 0: ordinary
    # numbers, so an exception or a NaN there is the engine's defect, never a range limit
    findings = [f for f in probe_edge_points(fixture.Value).findings if f.op == op]
    assert any(f.kind in DEFECT_KINDS and at in f.summary for f in findings)
    point = at.split(": ")[0]
    assert not [f for f in findings if f.kind == "convention" and point in f.summary]


def test_a_gradient_beyond_the_floats_is_a_range_limit_not_a_defect():
    # d(x ** -1)/dx = -x ** -2 = -1e600 at 1e-300, and d(1 / x)/dx too: the exact gradient is no
    # float, so the engine's raising there (sound forms it in the forward pass) is a fact
    outcome = probe_edge_points(div_square.Value)
    (power,) = [f for f in outcome.findings if f.op == "powc"]
    (reciprocal,) = [f for f in outcome.findings if f.op == "rdiv" and f.kind == "convention"]
    assert power.kind == "convention"
    assert "range limit: x ** -1 at x = 1e-300: forward raises" in power.summary
    assert reciprocal.summary.startswith("range limit: 1 / x at x = 1e-300: forward raises ZeroDivisionError")
    assert "0 / x" not in reciprocal.summary  # that one is a crash (above)


def test_one_defect_does_not_hide_another():
    class Both(pow0_crash.Value, tanh_tiny.Value):
        pass

    assert caused(probe_edge_points(Both)) == {("crash", "powc"), ("wrong_value", "tanh")}


def _bounded_partial_off_by(op, slip):
    """sound's tanh or sigmoid, its partial off by ``slip`` absolutely (as ``1 - t*t`` is near |t| = 1)."""

    class Value(sound.Value):
        def tanh(self):
            t = self.tanh_value(self.data)
            return self._with_partials(t, (self,), (1 - t * t + (slip if op == "tanh" else 0),))

        def sigmoid(self):
            s = self.sigmoid_value(self.data)
            return self._with_partials(s, (self,), (s * (1 - s) + (slip if op == "sigmoid" else 0),))

    return Value


@pytest.mark.parametrize("op", ["tanh", "sigmoid"])
def test_a_bounded_partial_may_be_off_by_one_ulp_of_one_at_most(op):
    # a partial bounded by 1 and computed from numbers near 1 (1 - t*t) is off by up to 1 eps
    # absolutely wherever it is tiny: allowed (times the symbolic safety factor 16, as every
    # rounding bound), and no more
    eps = sys.float_info.epsilon
    inside = probe_edge_points(_bounded_partial_off_by(op, 0.5 * 16 * eps))
    assert caused(inside) == set(), inside
    beyond = probe_edge_points(_bounded_partial_off_by(op, 1.5 * 16 * eps))
    assert caused(beyond) == {("wrong_gradient", op)}


def _exp_partial_off(relative=0.0, where=lambda x: True):
    """sound's exp, its partial times (1 + relative) where ``where(x)``, or halved if relative is None."""

    class Value(sound.Value):
        @staticmethod
        def exp_partial(x, out):
            if not where(x):
                return out
            return out / 2 if relative is None else out * (1 + relative)

    return Value


def test_an_edge_gradient_is_allowed_16_eps_times_2_plus_its_partials_rounding_relative():
    # exp's partial is its output, rounded once (partial_err 2): 16 * eps * (2 + 2) relative, no more
    eps = sys.float_info.epsilon
    assert caused(probe_edge_points(_exp_partial_off(3.5 * 16 * eps))) == set()
    beyond = probe_edge_points(_exp_partial_off(4.5 * 16 * eps))
    # too small for float differences to confirm; the definition's certified differences do
    assert caused(beyond) == {("wrong_gradient", "exp")}


class _TanhSlopeOffAtZero(sound.Value):
    """tanh's slope at 0 answered as 1 + 1e-10: 700 000 ulps, a few times the differences' margin."""

    def tanh(self):
        out = super().tanh()
        if self.data == 0:
            out = self._with_partials(out.data, (self,), (1 + 1e-10,))
        return out


def test_at_zero_the_differences_step_in_absolute_units_and_confirm_a_slip_of_1e_10():
    # x = 0 has no scale of its own: the step is eps ** (1/3) in x, where the differences' error for
    # tanh is 4e-11 (a step twice as long would make it 1.5e-10 and miss this slip)
    outcome = probe_edge_points(_TanhSlopeOffAtZero)
    assert caused(outcome) == {("wrong_gradient", "tanh")}


def _dot_slope_of_its_second_operand_off(ws, xs, start=0):
    """Our dot, with d/dxs[0] = ws[0] * (1 + 1e-12): a slip sympy sees and float differences cannot
    confirm (the definition's certified differences can)."""
    out = autograd.dot(ws, xs, start)
    bump = xs[0] * (1e-12 * ws[0].data)
    return out + (bump - bump.data)  # the value unchanged (plus 0.0), the slope bumped


def test_differences_of_a_variadic_op_vary_only_the_operand_judged():
    # dot([x], [y], z) = z + x * y: differenced along y with x and z held, the estimate is x
    eng = dataclasses.replace(resolve_engine(autograd), dot=_dot_slope_of_its_second_operand_off)
    found = probe_edge_points(eng)
    (slip,) = [f for f in found.findings if f.kind not in FACTS]
    assert (slip.kind, slip.op) == ("wrong_gradient", "dot")
    shown = (
        r"dot\(\[x\], \[y\], z\) at x = (\S+), y = \S+, z = \S+: d/dy \S+; sympy/mpmath (\S+) differs, "
        r"confirmed by certified first differences of the definition ([^\s;()]+)"
    )
    estimates = re.findall(shown, slip.summary)
    assert estimates and all(float(x) == float(sym) == float(est) for x, sym, est in estimates), slip.summary


def test_a_wrong_gradient_names_its_operand_and_both_votes():
    (finding,) = [f for f in probe_edge_points(wrong_rule.Value).findings if f.kind == "wrong_gradient"][:1]
    assert "x.exp() at x = " in finding.summary and ": d/dx " in finding.summary
    assert "sympy/mpmath " in finding.summary
    assert " differs, confirmed by finite differences " in finding.summary


def _votes(finding, method):
    """(sympy's value, the differences' estimate, their vote) of each point a finding lists, each
    voted by ``method``."""
    shown = rf"sympy/mpmath (\S+) differs,( confirmed by)? (?:\S+ )*?{method} ([^\s:;()]+)"
    found = re.findall(shown, finding.summary)
    assert len(found) == finding.summary.count(" differs,"), finding.summary  # every point by that method
    return [(float(sym), float(fd), "differs" if "confirmed" in how else "agrees") for sym, how, fd in found]


@pytest.mark.parametrize(
    ("fixture", "kind", "vote", "method"),
    [(_exp_partial_off(None, where=lambda x: 1 < abs(x) < 1e300), "wrong_gradient", "differs",
      "finite differences"),
     # 1e-12 relative is below what float differences resolve: the certified ones confirm it
     (exp_partial_ulps.Value, "wrong_gradient", "differs", "certified first differences of the definition")],
    ids=["halved_at_-708", "off_by_1e-12"],
)  # fmt: skip
def test_the_differences_vote_is_shown_with_their_estimate_in_units_of_x(fixture, kind, vote, method):
    # differenced in a step relative to x (u * x at u = 1), their estimate is shown divided back by x
    (finding,) = [f for f in probe_edge_points(fixture).findings if f.op == "exp" and f.kind not in FACTS]
    assert finding.kind == kind
    votes = _votes(finding, method)
    assert votes and all(v == vote and math.isclose(fd, sym, rel_tol=1e-6) for sym, fd, v in votes), votes


def test_a_gradient_wrong_where_no_relative_step_is_representable_is_confirmed_by_the_definition():
    # at |x| < 1e-290 a step relative to x underflows: float differences cannot vote; the definition's
    # certified differences can (exp's slope is 1.0 there, the engine's 0.5)
    tiny = _exp_partial_off(None, where=lambda x: 0 < abs(x) < 1e-290)
    (found,) = [f for f in probe_edge_points(tiny).findings if f.kind not in FACTS]
    assert (found.kind, found.op, found.expected, found.actual) == ("wrong_gradient", "exp", "1.0", "0.5")
    said = "sympy/mpmath 1.0 differs, confirmed by certified first differences of the definition 1.0"
    assert f": d/dx 0.5; {said}" in found.summary


def test_a_gradient_wrong_where_neither_differences_settle_is_inconclusive(monkeypatch):
    # the definition's differences given one step only never see two agree: then the float vote
    # stands, and at |x| < 1e-290 it cannot judge: sympy alone is no verdict
    monkeypatch.setattr(definition_differences, "MAX_STEPS", 1)
    tiny = _exp_partial_off(None, where=lambda x: 0 < abs(x) < 1e-290)
    found = [f for f in probe_edge_points(tiny).findings if f.kind not in FACTS]
    assert {(f.kind, f.op) for f in found} == {("inconclusive", "exp")}
    why = "finite differences cannot judge (no relative step is representable)"
    assert all(why in f.summary for f in found)


class _PowPartialOfNextPower(sound.Value):
    """``x ** c``'s partial computed as c * x ** c (the exponent not lowered): wrong but at x = 1."""

    @staticmethod
    def pow_partial(x, c):
        return c * x**c


def test_a_wrong_gradient_of_an_op_with_a_constant_is_confirmed_by_differences_of_that_op():
    outcome = probe_edge_points(_PowPartialOfNextPower)
    assert caused(outcome) == {("wrong_gradient", "powc")}
    # float differences of x ** c itself (with its constant) confirm it at an ordinary point: 2 * x ** 2
    # at x = -1 is 2.0 where the slope is -2.0
    (wrong,) = [f for f in outcome.findings if f.kind == "wrong_gradient"]
    said = "x ** 2 at x = -1.0: d/dx 2.0; sympy/mpmath -2.0 differs, confirmed by finite differences -1.99999"
    assert wrong.summary.startswith(said)


def run_reproducer(code):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(os.path.abspath(p) for p in sys.path if p))
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


class _DivSecondPartialSignFlipped(sound.Value):
    """d(a / b)/db computed as +a / b**2: wrong in x / y's second operand (and in 1 / x)."""

    def __truediv__(self, other):
        other = self._lift(other)
        a, b = self.data, other.data
        return self._with_partials(a / b, (self, other), (1 / b, a / (b * b)))


class _LogOffByOneAtTheSmallest(sound.Value):
    """log(5e-324) answered as -743.44: a value-only point (its gradient, 2e323, is past the floats)."""

    def log(self):
        out = super().log()
        if self.data < 1e-310:
            out.data += 1.0
        return out


@pytest.mark.slow
def test_a_reproducer_prints_every_operands_gradient():
    found = probe_edge_points(_DivSecondPartialSignFlipped).findings
    (finding,) = [f for f in found if (f.kind, f.op) == ("wrong_gradient", "div")]
    printed = run_reproducer(finding.reproducer)
    # x / y at x = 1, y = 1.5: 2/3, d/dx = 1 / y = 2/3, d/dy = -x / y**2 = -4/9; the fixture's +4/9
    third, ninth = "0.6666666666666666", "0.4444444444444444"
    assert f"expected: value {third}, gradient [{third}, -{ninth}]" in printed
    assert f"actual: value {third} , gradient [{third}, {ninth}]" in printed


class _LogOffByOneAtTheSmallestRefusingInfiniteGradients(_LogOffByOneAtTheSmallest):
    """The same wrong log, and a backward() that refuses to pass on a gradient past the floats."""

    def backward(self):
        super().backward()
        for v in self._topological_order():
            if not math.isfinite(v.grad):
                raise OverflowError(f"backward: gradient {v.grad!r} is not finite")


@pytest.mark.slow
@pytest.mark.parametrize(
    "fixture", [_LogOffByOneAtTheSmallest, _LogOffByOneAtTheSmallestRefusingInfiniteGradients]
)
def test_a_reproducer_of_a_value_only_point_prints_no_gradient(fixture):
    # at a value-only point the reproducer never calls backward(): only the value is judged there
    # (the second fixture's backward() also refuses the gradient a constant gets in x / 0.5 at
    # 8.99e307 and 0 / x at 5e-324, where the gradient asked for is finite: crashes of div's)
    (finding,) = [f for f in probe_edge_points(fixture).findings if f.kind not in FACTS and f.op == "log"]
    assert (finding.kind, finding.op) == ("wrong_value", "log")
    printed = run_reproducer(finding.reproducer)
    assert printed == f"expected: value {math.log(5e-324)!r}; actual: value {math.log(5e-324) + 1.0!r}\n"


@pytest.mark.parametrize(
    ("fixture", "shows"),
    [(pow0_crash, "expected: value 1.0, gradient [0.0]; actual: ZeroDivisionError"),
     (tanh_tiny, "expected: value 1e-20, gradient [1.0]; actual: value 0.0"),
     (sigmoid_overflow, "actual: OverflowError"),
     (wrong_rule, "expected: value 1.0, gradient [1.0]; actual: value 1.0 , gradient [0.0]")],
)  # fmt: skip
def test_reproducers_import_the_engine_and_show_expected_vs_actual(fixture, shows):
    finding = next(f for f in probe_edge_points(fixture.Value).findings if f.kind not in FACTS)
    assert f"from {fixture.__name__} import Value" in finding.reproducer
    assert shows in run_reproducer(finding.reproducer)


class _PowerOfAFractionOffByOne(autograd.Value):
    """Our engine, but x ** c one too large when c is a Fraction (x ** 0.5 is right)."""

    __slots__ = ()

    def __pow__(self, other):
        out = super().__pow__(other)
        if isinstance(other, Fraction):
            out.data += 1.0
        return out


@pytest.mark.slow
def test_a_reproducer_at_a_fraction_constant_imports_fraction_and_runs():
    found = probe_edge_points(_PowerOfAFractionOffByOne).findings
    (finding,) = [f for f in found if f.kind == "wrong_value"]
    assert finding.op == "powc" and "Fraction(" in finding.reproducer
    assert "from fractions import Fraction" in finding.reproducer
    printed = run_reproducer(finding.reproducer)
    assert printed.startswith(f"expected: value {finding.expected}")
    assert f"actual: value {finding.actual}" in printed
    # a point without a Fraction imports nothing more than the engine
    plain = next(f for f in probe_edge_points(wrong_rule.Value).findings if f.kind not in FACTS)
    assert "fractions" not in plain.reproducer


def test_the_edge_outcome_counts_each_point_once_judged_or_inconclusive(monkeypatch):
    monkeypatch.setattr(definition_differences, "MAX_STEPS", 1)  # only float differences vote
    outcome = probe_edge_points(exp_partial_ulps.Value)  # sound, but exp's slope 1e-12 off
    eng = resolve_engine(exp_partial_ulps.Value)
    ops = [OPS[name] for name in OPS if not OPS[name].variadic and eng.supports(name)]  # no vsum, dot
    points = sum(len(edge_points(op.name, c)) for op in ops for c in edge_consts(op, usable_consts(eng, op)))
    assert (outcome.name, outcome.unit) == ("edge_points", "points")
    assert outcome.inconclusive > 0 and outcome.judged + outcome.inconclusive == points
    assert outcome.reason == f"{points} points at the edges of the regions of {len(ops)} ops"


def test_an_engine_without_the_ops_is_not_applicable_rather_than_passed():
    class Nothing:
        def __init__(self, data):
            self.data, self.grad = data, 0

    eng = Engine(Nothing)  # has no op at all: nothing to judge
    assert probe_edge_points(eng).status == "not_applicable"
    assert probe_out_of_domain(eng).status == "not_applicable"
    partial = probe_edge_points(missing_ops.Value)  # add, sub, mul, div, ...: judged
    assert partial.status == "passed" and partial.judged > 0


def test_an_oracle_that_cannot_judge_gives_no_verdict(monkeypatch):
    def cannot_judge(*args, **kwargs):
        raise probe_edges.OracleInconclusive("cannot judge")

    monkeypatch.setattr(probe_edges, "_fd_row", cannot_judge)
    monkeypatch.setattr(definition_differences, "MAX_STEPS", 1)  # nor the definition's differences
    # sympy rejects wrong_rule's exp gradient, finite differences cannot say: no confirmation
    found = probe_edge_points(wrong_rule.Value)
    assert caused(found) == {("inconclusive", "exp")}
    (finding,) = [f for f in found.findings if f.kind == "inconclusive"]
    assert "finite differences cannot judge (OracleInconclusive: cannot judge)" in finding.summary
    assert caused(probe_edge_points(sound.Value)) == set()  # sympy accepts: nothing to report


def test_an_error_of_our_own_is_not_turned_into_a_verdict(monkeypatch):
    def broken(*args, **kwargs):
        raise KeyError("a bug of the harness")

    monkeypatch.setattr(probe_edges, "_compare", broken)
    with pytest.raises(KeyError):
        probe_edge_points(sound.Value)


def test_a_complex_power_outside_the_domain_is_reported_as_such_by_the_out_of_domain_check():
    # micrograd: (-1) ** 0.5 is (6.1e-17+1j), a complex number where no real number exists
    outcome = probe_out_of_domain("micrograd.engine")
    (invalid,) = [f for f in outcome.findings if f.kind == "accepts_invalid"]
    assert invalid.check == "out_of_domain" and invalid.op == "powc"
    assert "is not a real number, yet returns a complex number: (6.1" in invalid.summary
    assert invalid.expected == "an error, nan or inf (not a real number)" and "1j)" in invalid.actual


class _LogSaysUndefined(sound.Value):
    """A log that answers 'undefined' outside its domain: neither a number nor an error."""

    check = staticmethod(lambda x: x)

    def log(self):
        return type(self)("undefined") if self.data <= 0 else super().log()


def test_an_answer_that_is_no_number_at_all_outside_the_domain_is_called_so():
    outcome = probe_out_of_domain(_LogSaysUndefined)
    invalid = [f for f in outcome.findings if f.kind == "accepts_invalid" and f.op == "log"]
    assert invalid and all(f.check == "out_of_domain" and f.actual == "'undefined'" for f in invalid)
    assert all("yet returns something that is not a number: 'undefined'" in f.summary for f in invalid)


def test_the_out_of_domain_reproducer_says_refused_once_the_engine_is_fixed():
    # pasted against an engine that refuses the point (ours), the reproducer's except branch runs
    (invalid,) = [f for f in probe_out_of_domain(clamped_log.Value).findings if f.kind == "accepts_invalid"]
    ours = "from autograd import Value"
    fixed = invalid.reproducer.replace("from tests.engines.clamped_log import Value", ours)
    assert fixed != invalid.reproducer
    assert run_reproducer(fixed).startswith("refused: ValueError")


def test_the_out_of_domain_outcome_counts_each_point_once_and_lists_at_most_four_a_group():
    # ours refuses every point outside the domain: each one is in some group's list or its "N more"
    outcome = probe_out_of_domain(autograd)
    assert (outcome.name, outcome.unit) == ("out_of_domain", "points")
    assert outcome.reason == f"{outcome.judged} points outside the ops' regions"
    text = " ".join(f.summary for f in outcome.findings)
    groups = re.split(r"outside its domain, ", text)[1:]
    assert groups and all(re.match(r"raises [A-Za-z]+Error: ", g) for g in groups), text
    more = [int(n) for n in re.findall(r"(-?\d+) more points", text)]
    assert more and all(n >= 1 for n in more), text  # "N more" only when a group has over four
    assert all(g.count(" at ") <= 4 for g in groups), text
    assert text.count(" at ") + sum(more) == outcome.judged, text
    assert "x.log() at x = 0.0; x.log() at x = -1.0" in text and "XX" not in text
    assert all((f.kind, f.check) == ("convention", "out_of_domain") for f in outcome.findings)


class _NanOutsideLog(accepts_strings.Value):  # no validation of data
    """log is -inf at 0 and nan below, as math's float functions in C: a convention, not garbage."""

    def log(self):
        return type(self)(-math.inf if self.data == 0 else math.nan) if self.data <= 0 else super().log()


class _RealComplexOutsideLog(accepts_strings.Value):  # no validation of data
    """log outside its domain answers complex(-23.0, 0): a real number in a complex's clothes."""

    def log(self):
        return type(self)(complex(-23.0, 0)) if self.data <= 0 else super().log()


def test_nan_or_inf_outside_the_domain_is_a_fact_listed_by_what_it_returns():
    outcome = probe_out_of_domain(_NanOutsideLog)
    log = [f for f in outcome.findings if f.op == "log"]
    assert [f.kind for f in log] == ["convention"] and outcome.status == "passed"
    assert "outside its domain, returns -inf: x.log() at x = 0.0" in log[0].summary
    below = "x.log() at x = -1.0; x.log() at x = -1e-300; x.log() at x = -1e+300"
    assert f"returns nan: {below}" in log[0].summary


def test_a_complex_with_no_imaginary_part_outside_the_domain_is_a_finite_number_accepted():
    outcome = probe_out_of_domain(_RealComplexOutsideLog)
    invalid = [f for f in outcome.findings if f.op == "log"]
    assert invalid and all(f.kind == "accepts_invalid" for f in invalid)
    said = "x.log() at x = 0.0 is not a real number, yet returns a finite number: (-23+0j)"
    assert said in invalid[0].summary


class _PowersRefuseZero(sound.Value):
    """x ** 0 refused with a TypeError: 0 is one of the exponents the op table lists for powc."""

    def __pow__(self, c):
        if c == 0:
            raise TypeError("pow: no zero exponent")
        return super().__pow__(c)


class _AddingZeroRefused(sound.Value):
    """x + 0 refused: 0 is not among addc's listed constants, so the probe's own added zero."""

    def __add__(self, other):
        if not isinstance(other, sound.Core) and other == 0:
            raise ValueError("add: adding 0 is refused")
        return super().__add__(other)


def test_a_listed_constant_refused_is_a_crash_and_an_added_zero_refused_is_unsupported():
    found = probe_edge_points(_PowersRefuseZero).findings
    powers = [f for f in found if f.op == "powc" and f.kind != "convention"]  # not the range limits
    assert {f.kind for f in powers} == {"crash"}, powers
    assert "x ** 0 at x = " in powers[0].summary and "TypeError: pow: no zero exponent" in powers[0].summary
    found = probe_edge_points(_AddingZeroRefused).findings
    adding = [f for f in found if f.op == "addc" and f.kind != "convention"]
    assert {f.kind for f in adding} == {"unsupported"}, adding
    assert "x + 0: the constant 0 is refused (ValueError: add: adding 0 is refused)" in adding[0].summary


@pytest.mark.slow
def test_every_edge_finding_names_its_check_and_its_op(monkeypatch):
    monkeypatch.setattr(definition_differences, "MAX_STEPS", 1)  # exp_partial_ulps then inconclusive
    engines = (_PowersRefuseZero, _AddingZeroRefused, tanh_tiny.Value, wrong_rule.Value,
               exp_partial_ulps.Value, float32.Value)  # fmt: skip
    found = [f for engine in engines for f in probe_edge_points(engine).findings]
    # a crash, an unsupported 0, a wrong value, a wrong gradient, an inconclusive one, range limits
    assert {f.kind for f in found} >= {
        "crash",
        "unsupported",
        "wrong_value",
        "wrong_gradient",
        "inconclusive",
        "convention",
    }
    assert {f.check for f in found} == {"edge_points"} and {f.op for f in found} <= set(OPS)


# ---------------------------------------------------------------------- subnormals flushed to zero
def test_an_engine_that_flushes_subnormals_gets_one_fact_not_a_defect_per_op():
    # flushes_subnormals holds every number below the smallest normal float as 0, as XLA on the
    # CPU does: x / y at y = 1.8e308 gives 0 for 8.3e-309, 0 / x at 5e-324 divides by 0, ...
    assert subnormals_flushed("tests.engines.sound") is None
    how = subnormals_flushed("tests.engines.flushes_subnormals")
    assert how == (
        "2.1729236899484e-311 * 1.0 gives 0.0, not 2.1729236899484e-311; "
        "2.2250738585072014e-308 * 0.5 gives 0.0, not 1.1125369292536007e-308"
    )
    result = run_check("edge_points", "tests.engines.flushes_subnormals")
    assert result.status == "passed" and result.judged > 0
    assert not [f for f in result.findings if f.kind in DEFECT_KINDS or f.kind == "inconclusive"]
    (fact,) = [f for f in result.findings if "flushed" in f.summary]
    assert fact.kind == "convention" and fact.op is None
    assert fact.summary.startswith(f"subnormal numbers are flushed to zero ({how}): an engine-wide choice")
    # its consequences: the points where an operand or the exact result is subnormal
    assert "the engine differs because of it (div, powc, rdiv" in fact.summary
    assert (
        "x / y at x = 1.5, y = 1.7976931348623157e+308: value 0.0, expected 8.344026969402005e-309"
        in fact.summary
    )
    done = subprocess.run(
        [sys.executable, "-c", fact.reproducer], env=dict(os.environ, PYTHONPATH=child_path()),
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.stdout.splitlines() == ["2.1729236899484e-311 -> 0.0", "1.1125369292536007e-308 -> 0.0"]


def test_beside_flushed_subnormals_a_wrong_rule_at_ordinary_points_is_still_a_defect():
    result = run_check("edge_points", "tests.engines.flushes_subnormals_wrong_tanh")
    defects = [f for f in result.findings if f.kind in DEFECT_KINDS]
    assert result.status == "failed" and {f.op for f in defects} == {"tanh"}
    assert {f.kind for f in defects} == {"wrong_value", "wrong_gradient"}
    assert [f.op for f in result.findings if "flushed" in f.summary] == [None]


class _ProductSlopesOffAtOnePoint(sound.Value):
    """x * y whose two slopes are both 1e-12 too large at (1.0, 1.5) alone."""

    def __mul__(self, other):
        out = super().__mul__(other)
        a, b = out._prev
        if (a.data, b.data) == (1.0, 1.5):
            out = self._with_partials(out.data, (a, b), (b.data * (1 + 1e-12), a.data * (1 + 1e-12)))
        return out


def test_a_point_with_two_inconclusive_gradients_counts_once(monkeypatch):
    # float differences cannot confirm a slip of 1e-12, and the definition's differences given one
    # step never settle: both gradients of x * y at (1.0, 1.5) are inconclusive, and so are those of
    # 1.5 * x and x * 1.5 at 1.0 (the constant is the product's second operand): three points
    monkeypatch.setattr(definition_differences, "MAX_STEPS", 1)
    outcome, kind = probe_edge_points(_ProductSlopesOffAtOnePoint), "inconclusive"
    doubts = {f.op: f for f in outcome.findings if f.kind not in FACTS}
    assert {(f.kind, op) for op, f in doubts.items()} == {(kind, op) for op in ("mul", "mulc", "vmulc")}
    assert doubts["mul"].summary.startswith("x * y at x = 1.0, y = 1.5: d/dx 1.500000000001")
    assert "x * y at x = 1.0, y = 1.5: d/dy 1.000000000001" in doubts["mul"].summary
    assert outcome.inconclusive == 3
