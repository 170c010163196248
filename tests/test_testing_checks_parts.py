"""The properties of autograd/testing/checks.py and verify.py's results, one at a time, in process.

Each check is called directly with a fixture engine (a subclass of ``tests.engines.sound.Value``
whose docstring says what it plants, or a planted engine of tests/engines/) and a graph written
by hand: a check must judge the engine it is given (not ours), fail what it exists to fail, pass
what is only a different way of being right, and name the engine in its message.
"""

from __future__ import annotations

import math
import re
import typing
import unittest
from fractions import Fraction

import mpmath
import pytest
from hypothesis import Phase

import autograd.testing.checks as C
from autograd.testing import Graph, Node, resolve_engine
from autograd.testing.checks import machine as M
from autograd.testing.checks import properties as P
from autograd.testing.checks import stateful as S
from autograd.testing.findings import Finding, outcome
from autograd.testing.oracles import GradientMismatch, OracleInconclusive
from autograd.testing.verify import CheckResult, Conventions
from tests.engines import float_only, planted_exact, sound, wrong_rule
from tests.picks import Picks, run_machine

# x0 * exp(x1) + x0: one use of exp, a leaf used twice
EXP_GRAPH = Graph((0.5, 0.25), (Node("exp", (1,)), Node("mul", (0, 2)), Node("add", (3, 0))))
# x0 * x1 * x0 on Fractions: mul only
MUL_GRAPH = Graph((Fraction(1, 3), Fraction(2, 5)), (Node("mul", (0, 1)), Node("mul", (2, 0))))


class _ExpFlat(sound.Value):
    """exp's value 1e-9 too large (relatively): a forward defect, its gradient right."""

    def exp(self):
        e = math.exp(self.data)
        return self._with_partials(e * (1 + 1e-9), (self,), (e,))


class _MulPlusOne(sound.Value):
    """x * y computed as x * y + 1 (exactly, on Fractions); its partials right."""

    def __mul__(self, other):
        other = self._lift(other)
        return self._with_partials(self.data * other.data + 1, (self, other), (other.data, self.data))


# ---------------------------------------------------------------------- each check judges its engine
def test_the_gradient_checks_judge_the_engine_they_are_given():
    for check in (P.check_symbolic, C.check_fd, C.check_mlp):
        check(None, EXP_GRAPH)  # ours is right
        with pytest.raises(GradientMismatch):
            check(wrong_rule.Value, EXP_GRAPH)
    C.check_exact(None, MUL_GRAPH)
    with pytest.raises(GradientMismatch):
        C.check_exact(planted_exact.Value, MUL_GRAPH)


def test_the_forward_check_compares_exactly_on_fractions_and_within_the_bound_on_floats():
    C.check_forward(None, MUL_GRAPH)
    C.check_forward(None, EXP_GRAPH)
    with pytest.raises(AssertionError) as exact:
        C.check_forward(_MulPlusOne, MUL_GRAPH)
    # x0 * x1 + 1 = 17/15, then * x0 + 1 = 62/45; sympy: 2/45
    assert str(exact.value).startswith("forward: engine computes Fraction(62, 45), sympy 2/45 for ")
    assert resolve_engine(_MulPlusOne).import_line() in str(exact.value)
    with pytest.raises(AssertionError) as floats:
        C.check_forward(_ExpFlat, EXP_GRAPH)
    message = str(floats.value)
    assert message.startswith("forward: engine computes ") and ", sympy/mpmath " in message
    assert " > tolerance " in message and resolve_engine(_ExpFlat).import_line() in message
    error = float(message.split(", error ")[1].split(" ")[0])
    assert math.isclose(error, 0.5 * math.exp(0.25) * 1e-9, rel_tol=1e-2)  # x0 e^x1 off by 1e-9 of it


class _SecondPassReplaces(sound.Value):
    """A second backward() replaces leaf gradients instead of adding to them."""

    def backward(self):
        for node in self._topological_order():
            if not node._prev:
                node.grad = 0
        super().backward()


def test_backward_twice_fails_an_engine_whose_second_pass_does_not_double_its_leaf_gradients():
    C.check_backward_twice(None, EXP_GRAPH)
    C.check_backward_twice(wrong_rule.Value, EXP_GRAPH)  # a wrong rule, twice, is still doubled
    with pytest.raises(AssertionError) as failed:
        C.check_backward_twice(_SecondPassReplaces, EXP_GRAPH)
    message = str(failed.value)
    assert message.startswith("backward twice: leaf x0 has grad ")
    assert resolve_engine(_SecondPassReplaces).import_line() in message


def _pair():
    f = Graph((0.5, 0.25), (Node("exp", (1,)), Node("mul", (0, 2))))  # x0 * exp(x1)
    g = Graph((0.5, 0.25), (Node("exp", (0,)),))  # exp(x0)
    return (f, g, 0.75, -1.5)


def test_linearity_and_build_order_judge_only_what_they_check_not_the_rules():
    # a wrong rule, applied the same way in every graph, is linear and independent of build order
    C.check_linearity(wrong_rule.Value, _pair())
    C.check_build_order(wrong_rule.Value, (EXP_GRAPH, (1, 0, 2, 3, 4)))


class _CombinationSkewed(sound.Value):
    """A float engine whose gradients of a sum with a Value coefficient are off by 1e-9 (relative):
    d(a*f + b*g) is not a*df + b*dg, by far more than rounding."""

    def __add__(self, other):
        other = self._lift(other)
        skew = 1 + 1e-9 if len(self._prev) == 2 and len(other._prev) == 2 else 1
        return self._with_partials(self.data + other.data, (self, other), (skew, skew))


def test_linearity_fails_a_combination_off_by_more_than_rounding_and_names_its_tolerance():
    C.check_linearity(None, _pair())
    with pytest.raises(AssertionError) as failed:
        C.check_linearity(_CombinationSkewed, _pair())
    message = str(failed.value)
    assert message.startswith("linearity: d(0.75*f + -1.5*g)/dx0 = ") and " (tolerance " in message
    assert message.count(resolve_engine(_CombinationSkewed).import_line()) == 2  # f and g


class _CombinationOff(sound.Value):
    """A float engine whose gradients of a sum with a Value coefficient are a tenth too large."""

    def __add__(self, other):
        other = self._lift(other)
        skew = 1.1 if len(self._prev) == 2 and len(other._prev) == 2 else 1
        return self._with_partials(self.data + other.data, (self, other), (skew, skew))


def test_the_linearity_tolerance_is_each_gradients_bound_plus_the_combinations_rounding(monkeypatch):
    # stand-in bounds: f's (2 nodes) 1e-2, g's (1 node) 1e-3, the combined graph's (6 nodes) 1e-4,
    # and a working precision of 1e-5; at x0 df = e^0.25, dg = e^0.5
    bounds = {2: [1e-2, 0.0], 1: [1e-3, 0.0], 6: [1e-4, 0.0, 0.0, 0.0]}
    monkeypatch.setattr(P, "leaf_tolerances", lambda graph, precision: bounds[len(graph.nodes)])
    monkeypatch.setattr(P, "working_precision", lambda precision: (1e-5, 0))
    _, _, a, b = _pair()
    rounding = 4 * 1e-5 * (abs(a) * math.exp(0.25) + abs(b) * math.exp(0.5))
    want = abs(a) * 1e-2 + abs(b) * 1e-3 + 1e-4 + rounding  # 0.00924
    with pytest.raises(AssertionError) as failed:
        C.check_linearity(_CombinationOff, _pair())
    assert "/dx0 = " in str(failed.value) and f" (tolerance {want:.3g})\n" in str(failed.value)


def test_the_combined_graph_is_a_times_f_plus_b_times_g_on_the_same_leaves():
    _, _, a, b = example = _pair()
    combined = C.linear_combination_graphs(example)[2]
    assert combined.leaves == (0.5, 0.25, 0.75, -1.5)
    assert combined.nodes == (
        Node("exp", (1,)), Node("mul", (0, 4)),  # f, its slots moved up by the two coefficients
        Node("exp", (0,)),  # g
        Node("mul", (2, 5)), Node("mul", (3, 6)), Node("add", (7, 8)),  # a * f + b * g
    )  # fmt: skip
    # an output that is a leaf stays that leaf
    leaf_f = Graph((0.5, 0.25), (Node("exp", (1,)),), output=0)
    leaf_g = Graph((0.5, 0.25), (Node("exp", (0,)),), output=1)
    nodes = C.linear_combination_graphs((leaf_f, leaf_g, a, b))[2].nodes
    assert nodes[-3:] == (Node("mul", (2, 0)), Node("mul", (3, 1)), Node("add", (6, 7)))


class _ExactOffBy2To60(sound.Value):
    """An exact engine whose x * y sends back partials 1 + 2**-60 times too large (a float rounds
    that to the right partial: only equality sees it)."""

    def __mul__(self, other):
        other = self._lift(other)
        slip = 1 + Fraction(1, 2**60)
        return self._with_partials(
            self.data * other.data, (self, other), (other.data * slip, self.data * slip)
        )


def test_exact_numbers_are_judged_by_equality_not_by_a_tolerance():
    w, x = Fraction(3, 2), Fraction(2, 3)
    C.check_chain_sweep(None, (w, x, 3))
    with pytest.raises(AssertionError, match=r"^chain sweep n=3: dy/dx = Fraction\("):
        C.check_chain_sweep(_ExactOffBy2To60, (w, x, 3))
    f = Graph((w, x), (Node("mul", (0, 1)),))
    with pytest.raises(AssertionError, match=r"^linearity: "):
        C.check_linearity(_ExactOffBy2To60, (f, f, Fraction(1, 2), Fraction(1, 3)))


class _ChainDwScaled(sound.Value):
    """x * y whose partial for its FIRST operand is 1e-9 too large: in the chain w * (w * x), dy/dw
    is off, dy/dx is right."""

    def __mul__(self, other):
        other = self._lift(other)
        return self._with_partials(
            self.data * other.data, (self, other), (other.data * (1 + 1e-9), self.data)
        )


def test_the_chain_sweep_judges_each_leaf_by_its_own_tolerance():
    w, x = 1.5, 0.75
    C.check_chain_sweep(None, (w, x, 4))
    with pytest.raises(AssertionError, match=r"^chain sweep n=4: dy/dw = "):
        C.check_chain_sweep(_ChainDwScaled, (w, x, 4))


# ---------------------------------------------------------------------- the stateful run, verify's results
def test_run_stateful_runs_the_machine_with_the_settings_and_convention_asked_for(monkeypatch):
    machines, made = [], C.stateful_machine

    def spy(engine, convention):
        machines.append((made(engine, convention), convention))
        return machines[-1][0]

    monkeypatch.setattr(S, "stateful_machine", spy)
    C.run_stateful(None, max_examples=7)
    ((machine, convention),) = machines
    # (a run hypothesis discards, a draw past its buffer, still ran: runs may exceed the examples)
    assert convention == C.OUR_CONVENTION and machine.runs >= 7
    reset = C.BackwardConvention(leaves="reset")
    with pytest.raises(unittest.SkipTest, match="no test cases"):  # the explicit phase only: no run
        C.run_stateful(None, max_examples=3, convention=reset, phases=[Phase.explicit])
    assert machines[1][1] == reset and machines[1][0].runs == 0


def test_the_machine_counts_each_of_its_runs_once():
    class Counted(C.stateful_machine("autograd")):
        made = 0

        def __init__(self):
            type(self).made += 1
            super().__init__()

    run_machine(Counted, 7)
    assert Counted.runs == Counted.made >= 7


def test_an_engine_crash_keeps_the_script_that_reproduces_it():
    crash = C.EngineCrash("ZeroDivisionError: division by zero", "v0 = Value(0)\nv1 = 1 / v0")
    assert (str(crash), crash.reproducer) == (
        "ZeroDivisionError: division by zero",
        "v0 = Value(0)\nv1 = 1 / v0",
    )


def test_a_check_result_prints_its_message_only_when_it_failed():
    assert str(CheckResult("exact", True, "40 graphs judged")) == "exact: passed"
    assert str(CheckResult("exact", False, "wrong_gradient: ...")) == "exact: FAILED\nwrong_gradient: ..."


def test_verify_leaves_out_the_checks_of_capabilities_not_declared_and_lists_a_not_judged_checks_facts(
    monkeypatch,
):
    every = _verify_asks(monkeypatch, conventions=Conventions())[0]["names"]
    assert "exact" in every and "second_order" in every
    lacking = Conventions(exact=False, higher_order=False)
    assert _verify_asks(monkeypatch, conventions=lacking)[0]["names"] == [
        n for n in every if n not in ("exact", "second_order")
    ]
    facts = [
        Finding("convention", "exact", "data become floats"),
        Finding("inconclusive", "exact", "no oracle"),
    ]
    nothing_rational = outcome("exact", facts, judged=0, unit="graphs", reason="nothing rational")
    result = _result(monkeypatch, "exact", nothing_rational)
    assert (result.passed, result.message) == (
        False, "not judged: nothing rational\nconvention: data become floats\ninconclusive: no oracle",
    )  # fmt: skip


def test_a_convention_reproducer_uses_the_arithmetic_asked_for():
    ours = C.OUR_CONVENTION
    assert "Fraction(2)" in C.convention_reproducer(None, ours)  # ours keeps Fractions exact
    floats = C.convention_reproducer(None, ours, exact=False)
    assert "float(2)" in floats and "Fraction(2)" not in floats
    assert "Fraction(2)" in C.convention_reproducer(resolve_engine(None), ours, exact=True)
    assert C.convention_gradients(ours, exact=False)[0][0] == "12.0"  # dy/dx = 2 x c, after one pass
    assert C.convention_gradients(ours, exact=True)[0][0] == "12"


def test_a_difference_exactly_at_the_tolerance_agrees_and_exact_numbers_need_equality():
    assert P.agrees(1.0, 1.5, lambda: 0.5) and not P.agrees(1.0, 1.5, lambda: 0.4999)
    assert not P.agrees(Fraction(1, 3), Fraction(1, 3) + Fraction(1, 2**80), lambda: 1.0)
    assert P.agrees(Fraction(1, 3), 1 / 3, lambda: 1e-15)  # a float on either side: the tolerance


class _FloatOffIntegers(sound.Value):
    """x ** c whose gradient is a float unless x is an integer (the engine rounds what it must)."""

    def __pow__(self, c):
        x = self.data
        partial = c * x ** (c - 1)
        return self._with_partials(
            x**c, (self,), (partial if Fraction(x).denominator == 1 else float(partial),)
        )


def test_exact_gradients_are_probed_at_points_that_are_not_integers():
    # the exact machine leaves out the ops whose gradients are not exact numbers, and says so
    assert C.stateful_machine(_FloatOffIntegers, exact=True).not_judged == (
        "x ** 2, x ** -1 (gradients not exact numbers: equality cannot judge them)",
    )  # x * y is kept
    assert C.stateful_machine(None, exact=True).not_judged == ()


# ---------------------------------------------------------------------- verify_engine's wiring
def _verify_asks(monkeypatch, **kwargs):
    """What verify_engine asks run_checks for (the checks answer with nothing judged)."""
    import autograd.testing.verify as V

    asked = {}

    def run_checks(names, eng, **how):
        asked.update(names=list(names), **how)
        return {n: outcome(n, [], judged=1, unit="graphs", reason="stub") for n in names}

    monkeypatch.setattr(V, "run_checks", run_checks)
    results = V.verify_engine(None, **kwargs)
    return asked, results


def test_verify_asks_for_30_examples_seed_0_no_shrinking_and_a_verdict_per_check_by_default(monkeypatch):
    from autograd.testing import SearchMode
    from autograd.testing.verify import CHECKS

    asked, results = _verify_asks(monkeypatch)
    assert asked == {
        "names": list(CHECKS), "examples": 30, "seed": 0, "convention": C.OUR_CONVENTION,
        "mode": SearchMode(shrink=False, first_defect=True),
    }  # fmt: skip
    assert [(r.name, r.passed) for r in results.values()] == [(n, True) for n in CHECKS]
    reset = C.BackwardConvention(leaves="reset")
    declared = Conventions(backward=reset, exact=False)
    asked, _ = _verify_asks(monkeypatch, seed=5, shrink=True, max_examples=4, conventions=declared)
    assert (asked["seed"], asked["examples"], asked["convention"]) == (5, 4, reset)
    assert asked["mode"] == SearchMode(shrink=True, first_defect=True) and "exact" not in asked["names"]
    _, renamed = _verify_asks(monkeypatch, checks=["fd"])
    assert renamed["fd"].name == "fd"


def _result(monkeypatch, name, found):
    """verify_engine's result for the check ``name`` whose outcome is ``found``."""
    import autograd.testing.verify as V

    monkeypatch.setattr(V, "run_checks", lambda names, eng, **how: {name: found})
    return V.verify_engine(None, checks=[name])[name]


def test_a_result_names_its_check_and_is_a_failure_unless_it_judged_without_defect(monkeypatch):
    wrong = [Finding("wrong_gradient", "exact", f"d/dx{i} wrong", "mul") for i in (0, 1)]
    failed = _result(monkeypatch, "exact", outcome("exact", wrong, judged=3, unit="graphs", reason="r"))
    assert (failed.name, failed.passed) == ("exact", False)
    assert failed.message == (
        "wrong_gradient (mul): d/dx0 wrong\n\nwrong_gradient (mul): d/dx1 wrong\n\n"
        "3 graphs judged, 0 inconclusive (r)"
    )
    nothing = _result(monkeypatch, "exact", outcome("exact", [], judged=0, unit="graphs", reason="r"))
    assert (nothing.name, nothing.passed) == ("exact", False)
    judged = _result(monkeypatch, "exact", outcome("exact", [], judged=2, unit="graphs", reason="r"))
    assert (judged.name, judged.passed, judged.message) == (
        "exact",
        True,
        "2 graphs judged, 0 inconclusive (r)",
    )


# ---------------------------------------------------------------------- bounds, and what a message shows
class _Bound(mpmath.mpf):
    """A bound held exactly (an mpmath number) that a message can print as a float does."""

    def __format__(self, spec):
        return format(float(self), spec)


def test_a_forward_error_exactly_at_its_bound_passes(monkeypatch):
    want, _ = EXP_GRAPH.mp_value_and_gradient()
    eng = resolve_engine(_ExpFlat)
    error = _Bound(abs(want - eng.data(EXP_GRAPH.build(eng)[EXP_GRAPH.out])))
    monkeypatch.setattr(P, "symbolic_tolerances", lambda graph, precision: ([], error))  # the bound, exactly
    C.check_forward(_ExpFlat, EXP_GRAPH)
    below = _Bound(error * (1 - 2.0**-40))
    monkeypatch.setattr(P, "symbolic_tolerances", lambda graph, precision: ([], below))
    with pytest.raises(AssertionError, match=r"^forward: "):
        C.check_forward(_ExpFlat, EXP_GRAPH)


def test_an_interior_gradient_that_changes_on_a_second_pass_is_shown_with_the_engines_program():
    from tests.engines import interior_accumulates

    with pytest.raises(AssertionError) as failed:
        C.check_backward_twice(interior_accumulates.Value, EXP_GRAPH)
    message = str(failed.value)
    assert (
        message.startswith("backward twice: ")
        and resolve_engine(interior_accumulates.Value).import_line() in message
    )


def test_an_exact_linearity_failure_shows_no_tolerance():
    w, x = Fraction(3, 2), Fraction(2, 3)
    f = Graph((w, x), (Node("mul", (0, 1)),))
    with pytest.raises(AssertionError) as failed:
        C.check_linearity(_ExactOffBy2To60, (f, f, Fraction(1, 2), Fraction(1, 3)))
    first = str(failed.value).splitlines()[0]
    assert first.startswith("linearity: d(1/2*f + 1/3*g)/dx0 = Fraction(") and first.endswith(")")
    assert "tolerance" not in first and ", but 1/2*df/dx0 + 1/3*dg/dx0 = Fraction(" in first


def test_an_output_that_is_the_first_node_moves_up_by_the_two_coefficients():
    f = Graph((0.5, 0.25), (Node("exp", (1,)),))  # its output: slot 2, the first node
    g = Graph((0.5, 0.25), (Node("exp", (0,)),))
    nodes = C.linear_combination_graphs((f, g, 2.0, 3.0))[2].nodes
    assert nodes == (
        Node("exp", (1,)), Node("exp", (0,)), Node("mul", (2, 4)), Node("mul", (3, 5)), Node("add", (6, 7)),
    )  # fmt: skip


def test_a_float_build_order_failure_compares_gradients_not_only_values():
    from tests.engines import planted_build_order

    # exp(x0) * x1, x1 made after exp(x0): the tape skips exp, so x0's gradient is wrong, values right
    graph = Graph((0.5, 0.25), (Node("exp", (0,)), Node("mul", (2, 1))))
    with pytest.raises(AssertionError) as failed:
        C.check_build_order(planted_build_order.Value, (graph, (0, 2, 1, 3)))
    message = str(failed.value)
    assert message.startswith("build order: x0 is (data, grad) = ")
    assert resolve_engine(planted_build_order.Value).import_line() in message


def test_each_leaf_of_the_chain_sweep_is_judged_by_its_own_tolerance(monkeypatch):
    monkeypatch.setattr(P, "leaf_tolerances", lambda graph, precision: [0.0, 1.0])  # w: none; x: plenty
    with pytest.raises(AssertionError, match=r"^chain sweep n=4: dy/dw = "):
        C.check_chain_sweep(_ChainDwScaled, (1.5, 0.75, 4))


class _FloatUnlessSecondIsInteger(sound.Value):
    """x * y whose partial for x (that is y) is a float unless y is an integer."""

    def __mul__(self, other):
        other = self._lift(other)
        y = other.data
        shown = y if Fraction(y).denominator == 1 else float(y)
        return self._with_partials(self.data * y, (self, other), (shown, self.data))


class _PowRaises(sound.Value):
    def __pow__(self, c):
        raise ArithmeticError("powers are not supported")


class _PowRaisesOffIntegers(sound.Value):
    """x ** c refused on a Fraction that is not an integer (taken elsewhere: the engine has it)."""

    def __pow__(self, c):
        if isinstance(self.data, Fraction) and self.data.denominator != 1:
            raise ArithmeticError("powers of fractions are not supported")
        return super().__pow__(c)


def test_exact_gradients_are_probed_with_both_operands_off_the_integers_and_a_refusal_is_no_exactness():
    inexact = "(gradients not exact numbers: equality cannot judge them)"
    floats_in_mul = C.stateful_machine(_FloatUnlessSecondIsInteger, exact=True)
    assert floats_in_mul.not_judged[0].startswith("x * y")
    assert C.stateful_machine(_PowRaisesOffIntegers, exact=True).not_judged == (f"x ** 2, x ** -1 {inexact}",)


def test_a_float_build_order_allows_twice_each_leafs_derived_tolerance(monkeypatch):
    from tests.engines import planted_build_order

    graph = Graph((0.5, 0.25), (Node("exp", (0,)), Node("mul", (2, 1))))
    gap = math.exp(0.5) * 0.25  # x0's gradient in slot order; the late x1 leaves it 0
    for tolerance, fails in ((gap / 1.9, False), (gap / 2.1, True)):
        monkeypatch.setattr(P, "leaf_tolerances", lambda graph, precision, t=tolerance: [t, t])
        if fails:
            with pytest.raises(AssertionError, match=r"^build order: x0 "):
                C.check_build_order(planted_build_order.Value, (graph, (0, 2, 1, 3)))
        else:
            C.check_build_order(planted_build_order.Value, (graph, (0, 2, 1, 3)))


class _InteriorRetained(sound.Value):
    """Leaves accumulate as ours do; interior gradients add each pass's to what they showed
    (PyTorch's retain_grad): a second backward() doubles the leaves but changes interior nodes."""

    def backward(self):
        order = self._topological_order()
        shown = {id(n): n.grad for n in order if n._prev}
        super().backward()
        for n in order:
            if n._prev and n is not self:
                n.grad += shown[id(n)]


def test_an_interior_gradient_changed_by_a_second_pass_fails_with_the_engines_program():
    with pytest.raises(AssertionError) as failed:
        C.check_backward_twice(_InteriorRetained, EXP_GRAPH)
    message = str(failed.value)
    assert message.startswith("backward twice: interior n2 grad changed from ")
    assert resolve_engine(_InteriorRetained).import_line() in message


def test_a_linearity_failure_in_floats_names_its_tolerance_though_the_other_side_is_exact():
    w, x = Fraction(3, 2), Fraction(2, 3)
    f = Graph((w, x), (Node("mul", (0, 1)), Node("mul", (2, 0))))
    with pytest.raises(
        AssertionError
    ) as failed:  # the combination's add rounds to floats, f alone stays exact
        C.check_linearity(_CombinationSkewed, (f, f, Fraction(1, 2), Fraction(1, 3)))
    assert " (tolerance " in str(failed.value).splitlines()[0]


def _leaf_gradients_float_on_pass(float_pass: int) -> type:
    """An exact engine whose leaf gradients come out as floats on one backward() pass only
    (the first or the second): the same numbers, rounded, in one of the two builds."""

    class FloatOnOnePass(sound.Value):
        passes = 0

        def backward(self):
            super().backward()
            FloatOnOnePass.passes += 1
            if FloatOnOnePass.passes == float_pass:
                for node in self._topological_order():
                    if not node._prev:
                        node.grad = float(node.grad)

    return FloatOnOnePass


def test_a_build_order_with_floats_in_either_build_is_judged_with_a_tolerance_not_equality():
    # x0 * x1 * x0 at (1/3, 2/5): dx0 = 4/15 exactly in one build, float(4/15) in the other;
    # only an exact pair on both sides may be compared for equality (no false alarm on rounding)
    for float_pass in (1, 2):
        engine = _leaf_gradients_float_on_pass(float_pass)
        eng = resolve_engine(engine)  # discovery runs backward() too: count the check's passes only
        engine.passes = 0
        C.check_build_order(eng, (MUL_GRAPH, (1, 0, 2, 3)))
        assert engine.passes == 2


class _AloneSkewedInFloats(sound.Value):
    """Exact on the first backward() pass (the combination); on every later pass (f alone, g
    alone) the leaf gradients come back as floats 1e-6 too large (relatively)."""

    passes = 0

    def backward(self):
        super().backward()
        _AloneSkewedInFloats.passes += 1
        if _AloneSkewedInFloats.passes > 1:
            for node in self._topological_order():
                if not node._prev:
                    node.grad = float(node.grad) * (1 + 1e-6)


def test_a_linearity_failure_names_its_tolerance_when_only_the_separate_gradients_are_floats():
    w, x = Fraction(3, 2), Fraction(2, 3)
    f = Graph((w, x), (Node("mul", (0, 1)), Node("mul", (2, 0))))
    eng = resolve_engine(_AloneSkewedInFloats)
    _AloneSkewedInFloats.passes = 0  # discovery ran backward() too
    with pytest.raises(AssertionError) as failed:
        C.check_linearity(eng, (f, f, Fraction(1, 2), Fraction(1, 3)))
    first = str(failed.value).splitlines()[0]
    assert first.startswith("linearity: d(1/2*f + 1/3*g)/dx0 = Fraction(") and " (tolerance " in first


# ---------------------------------------------------------------------- the machine: conventions, rules
def test_each_backward_convention_is_described_in_plain_words():
    assert C.OUR_CONVENTION.describe() == [
        "a second backward() adds to leaf gradients",
        "interior gradients hold the latest backward() pass only",
        "backward() sets the output gradient to 1",
        "backward() on a leaf adds 1 to its gradient",
    ]
    assert C.BackwardConvention("reset", "accumulate", "accumulate", "assign").describe() == [
        "a second backward() replaces leaf gradients",
        "interior gradients accumulate across backward() calls (a stale one flows on into the next pass)",
        "backward() adds 1 to the output gradient",
        "backward() on a leaf sets to 1 its gradient",
    ]
    assert C.BackwardConvention(interior="retain").describe()[1] == (
        "interior gradients accumulate across backward() calls, but only the latest pass flows on"
    )
    freed = "backward() frees the graph it went through (no later pass over any of it is made)"
    cleared = "a value that enters a new operation has its gradient cleared"
    # a freed graph: what interior gradients and the seed do is never seen again, so not said
    assert C.BackwardConvention(graph="freed").describe() == [
        "a second backward() adds to leaf gradients",
        "backward() on a leaf adds 1 to its gradient",
        freed,
    ]
    assert C.BackwardConvention(operands="clear").describe()[4:] == [cleared]
    # freed and cleared: every pass reaches leaves holding nothing, so what a second one does is unseen
    assert C.BackwardConvention(graph="freed", operands="clear").describe() == [
        "backward() on a leaf adds 1 to its gradient",
        freed,
        cleared,
    ]


class _NumbersMade(sound.Value):
    """Our arithmetic, on Fractions or floats as given; records the type of every number a Value
    is made from."""

    made: typing.ClassVar[list] = []

    def __init__(self, data, parents=()):
        _NumbersMade.made.append(type(data))
        super().__init__(data, parents)


class _FloatNumbersMade(_NumbersMade):
    check = staticmethod(lambda x: float(sound.check_number(x)))


def _types_made(call) -> set:
    _NumbersMade.made = []
    call()
    return set(_NumbersMade.made)


def test_the_convention_probe_runs_on_the_engines_numbers_unless_told():
    exact, floats = resolve_engine(_NumbersMade), resolve_engine(_FloatNumbersMade)
    assert exact.exact and not floats.exact
    assert _types_made(lambda: C.backward_convention(exact)) == {Fraction}
    assert _types_made(lambda: C.backward_convention(floats)) == {float}
    assert _types_made(lambda: C.backward_convention(exact, exact=False)) == {float}
    assert _types_made(lambda: C.backward_convention(floats, exact=True)) == {
        Fraction,
        float,
    }  # made, then floats


def test_an_engine_matching_no_known_convention_gets_none_not_an_error():
    assert C.backward_convention("tests.engines.seed_grows") is None


def _leaf_types(engine, convention, exact=None) -> set:
    """The types of the leaves' numbers in three runs of the machine built with ``exact``."""
    machine = C.stateful_machine(engine, convention, exact=exact)
    return _types_made(lambda: run_machine(machine, 3))


def test_the_machine_runs_on_the_engines_numbers_unless_told():
    eng = resolve_engine(_NumbersMade)
    ours = C.backward_convention(eng)
    assert float not in _leaf_types(eng, ours)  # (a constant of an op may be a Fraction either way)
    assert float in _leaf_types(eng, ours, exact=False)


def test_only_an_exact_higher_order_engine_under_our_convention_gets_the_create_graph_rules():
    def rules(engine, convention=C.OUR_CONVENTION, exact=None):
        machine = C.stateful_machine(engine, convention, exact=exact)
        return {"backward_create_graph", "differentiate_a_gradient"} & set(dir(machine))

    assert rules(None) == {"backward_create_graph", "differentiate_a_gradient"}
    assert rules(None, exact=False) == set()
    assert rules(None, C.BackwardConvention(leaves="reset")) == set()
    assert rules(sound.Value, C.backward_convention(sound.Value)) == set()  # no create_graph


class _ValuesOnly(sound.Value):
    """Value op Value only: no constants, no negation, no powers, no relu (no unary op at all)."""

    def _lift(self, other):
        if not isinstance(other, sound.Value):
            raise TypeError(f"Values only, not {other!r}")
        return other

    def _refuses(self, *args):
        raise TypeError("Values only")

    __neg__ = __pow__ = relu = __radd__ = __rsub__ = __rmul__ = __rtruediv__ = _refuses


def test_an_engine_without_unary_ops_gets_the_machine_of_its_binary_ops():
    eng = resolve_engine(_ValuesOnly)
    C.run_stateful(eng, max_examples=20, convention=C.backward_convention(eng))


class _MulDivOnly(_ValuesOnly):
    """Values only, and only * and /: no op valid everywhere to fall back to."""

    __add__ = __sub__ = _ValuesOnly._refuses


@pytest.mark.parametrize("engine, fallback", [(_ValuesOnly, "v1 = v0 + v0"), ("autograd", "v1 = -v0")])
def test_a_draw_outside_an_ops_domain_builds_minus_a_else_a_plus_a(engine, fallback):
    eng = resolve_engine(engine)
    machine = C.stateful_machine(eng, C.backward_convention(eng))()
    machine.first_leaf(Fraction(0))
    machine.binary(Picks("div", 0, 0))  # 0 / 0: outside div's domain
    assert machine.script[-1] == fallback and machine.args[-1] == (0,) * fallback.count("v0")
    machine.backward(Picks(1, False))
    machine.gradients_match_model()
    assert machine.model == [Fraction(2 if "+" in fallback else -1), Fraction(1)]


def test_a_draw_outside_an_ops_domain_builds_nothing_without_negation_or_addition():
    eng = resolve_engine(_MulDivOnly)
    machine = C.stateful_machine(eng, C.backward_convention(eng))()
    machine.first_leaf(Fraction(0))
    machine.binary(Picks("div", 0, 0))
    assert len(machine.script) == len(machine.values) == 1  # v0 only
    C.run_stateful(eng, max_examples=10, convention=C.backward_convention(eng))


class _NoNegativePowers(sound.Value):
    def __pow__(self, c):
        if c < 0:
            raise ValueError(f"no negative powers: {c}")
        return super().__pow__(c)


@pytest.mark.slow
@pytest.mark.parametrize("engine", [_NoNegativePowers, _PowRaises])
def test_the_machine_uses_an_op_only_with_the_constants_the_engine_takes(engine):
    eng = resolve_engine(engine)
    C.run_stateful(eng, max_examples=30, convention=C.backward_convention(eng))


def test_run_stateful_is_deterministic_quiet_about_time_and_keeps_no_database(
    monkeypatch, hypothesis_defaults
):
    asked = []
    monkeypatch.setattr(S, "run_state_machine_as_test", lambda machine, settings: asked.append(settings))
    made, real = [], C.stateful_machine
    monkeypatch.setattr(S, "stateful_machine", lambda engine, how: made.append(engine) or real(engine, how))
    C.run_stateful(_NoNegativePowers)
    (used,) = asked
    assert made == [_NoNegativePowers]
    assert (used.max_examples, used.stateful_step_count, used.derandomize, used.database, used.deadline) == (
        30, 15, True, None, None,
    )  # fmt: skip


def _run(engine, convention, examples, exact=None) -> type:
    """The machine for ``engine`` after ``examples`` runs (raises what the run raises)."""
    return run_machine(C.stateful_machine(engine, convention, exact=exact), examples)


@pytest.mark.slow
def test_the_machine_models_retained_interior_gradients_and_counts_every_run_judged():
    from tests.engines import retained_interior

    observed = C.backward_convention(retained_interior.Value)
    assert observed is not None and observed.interior == "retain"
    machine = _run(retained_interior.Value, observed, 40)
    assert (machine.unjudged, machine.not_judged) == (0, ())
    assert machine.runs >= 40


class _LeafSeedOff(sound.Value):
    """Floats; backward() called on a leaf adds 1.001 to its gradient, not 1."""

    check = staticmethod(lambda x: float(sound.check_number(x)))

    def backward(self):
        if self._prev:
            return super().backward()
        self.grad += 1.001


@pytest.mark.slow
def test_a_float_pass_from_a_leaf_is_judged_without_tolerance():
    eng = resolve_engine(_LeafSeedOff)
    convention = C.backward_convention(resolve_engine(float_only.Value))
    judged_exactly = r"^stateful: leaf v\d+ has grad 1\.001, model says 1\.0 \(tolerance 0\)"
    with pytest.raises(AssertionError, match=judged_exactly):
        _run(eng, convention, 40)


@pytest.mark.slow
def test_a_run_whose_tolerance_cannot_be_derived_is_counted_once_as_not_judged(monkeypatch):
    def no_tolerance(graph, precision):
        raise OracleInconclusive("no tolerance")

    monkeypatch.setattr(M, "leaf_tolerances", no_tolerance)
    float_engine = float_only.Value
    machine = C.stateful_machine(float_engine, C.backward_convention(float_engine))

    class Counted(machine):
        interior_passes = 0  # runs with a pass from an interior node: those have no tolerance

        def teardown(self):
            passes = [re.fullmatch(r"v(\d+)\.backward\(\)", step) for step in self.script]
            type(self).interior_passes += any(self.args[int(m[1])] is not None for m in passes if m)

    run_machine(Counted, 30)
    assert 0 < Counted.unjudged == Counted.interior_passes < Counted.runs


def test_a_float_pass_through_rounding_ops_is_judged_with_the_tolerance_of_its_subgraph():
    # v0 / v1 at 3, 11: the engine's d/dv1 = -(v0 / v1) / v1 is one ulp from the model's exact
    # value rounded (-0.024793388429752063 for -3/121, -0.024793388429752067); the tolerance derived
    # from the pass's subgraph (v0 / v1, not the leaves alone, whose tolerance is next to nothing)
    # covers it
    eng = resolve_engine(float_only.Value)
    machine = C.stateful_machine(eng, C.backward_convention(eng))()
    machine.first_leaf(Fraction(3))
    machine.leaf(Fraction(11))
    machine.binary(Picks("div", 0, 1))
    machine.backward(Picks(2, False))
    got = eng.grad(machine.values[1])
    assert got != float(machine.model[1]) and abs(got - machine.model[1]) < machine.tol[1] < 1e-13
    machine.gradients_match_model()


class _BackwardFromLeafRaises(sound.Value):
    def backward(self):
        if not self._prev:
            raise RuntimeError("no graph to run backward() through")
        super().backward()


def test_an_engine_raising_in_the_machine_is_a_crash_with_the_steps_that_reproduce_it():
    eng = resolve_engine(_BackwardFromLeafRaises)
    convention = C.backward_convention(resolve_engine("autograd"))
    with pytest.raises(C.EngineCrash) as crashed:
        _run(eng, convention, 20)
    assert str(crashed.value).startswith("RuntimeError: no graph to run backward() through")
    assert (
        ".backward()" in crashed.value.reproducer and "_BackwardFromLeafRaises(" in crashed.value.reproducer
    )
    assert C.SEEN not in crashed.value.reproducer  # no gradient was read: nothing to say it read


def test_leaves_a_pass_could_not_judge_stay_unjudged_after_another_such_pass(monkeypatch):
    def no_tolerance(graph, precision):
        raise OracleInconclusive("no tolerance")

    monkeypatch.setattr(M, "leaf_tolerances", no_tolerance)
    eng = resolve_engine(float_only.Value)
    machine = C.stateful_machine(eng, C.backward_convention(eng))()
    for value in (Fraction(1, 3), Fraction(7, 3), Fraction(5)):
        machine.leaf(value)
    machine.binary(Picks("div", 0, 1))  # v3 = v0 / v1: d/dv1 rounds (one ulp off the model)
    machine.binary(Picks("mul", 2, 2))  # v4 = v2 * v2
    machine.backward(Picks(3, False))
    machine.backward(Picks(4, False))
    assert machine.unknown == {0, 1, 2} and type(machine).unjudged == 1
    machine.gradients_match_model()


@pytest.mark.parametrize("leaves, passes", [("accumulate", 2), ("reset", 1)])
def test_a_float_leafs_tolerance_adds_up_over_the_passes_it_keeps(leaves, passes):
    eng = resolve_engine(float_only.Value)
    machine = C.stateful_machine(eng, C.BackwardConvention(leaves=leaves))()
    machine.first_leaf(Fraction(1, 3))
    machine.leaf(Fraction(7, 3))
    machine.binary(Picks("div", 0, 1))
    machine.backward(Picks(2, False))
    once = list(machine.tol[:2])
    machine.backward(Picks(2, False))
    assert machine.tol[:2] == [passes * t for t in once] and min(once) > 0


def test_an_exact_reproducer_expects_exact_numbers():
    machine = C.stateful_machine("autograd")()
    machine.first_leaf(Fraction(1, 3))
    machine.binary(Picks("mul", 0, 0))
    machine.backward(Picks(1, False))
    assert "print('expected:', ['2/3', '1'])" in machine._reproducer().splitlines()


def test_the_machine_says_what_it_cannot_judge_in_words():
    floats_in_mul = resolve_engine(_FloatUnlessSecondIsInteger)  # c * x too: x * c, c = -1/2
    machine = C.stateful_machine(floats_in_mul, C.backward_convention(floats_in_mul), exact=True)
    assert machine.not_judged == (
        "x * y, Fraction(-1, 2) * x (gradients not exact numbers: equality cannot judge them)",
    )
    unwritable = resolve_engine(adapter="tests.engines.no_set_grad:adapter")
    machine = C.stateful_machine(unwritable, C.backward_convention(unwritable))
    assert machine.not_judged == (
        "zero_grad (writing a leaf's gradient: the engine, or its adapter, has no set_grad)",
    )
    both = _engine_without_set_grad(floats_in_mul)
    assert C.stateful_machine(both, C.backward_convention(floats_in_mul), exact=True).not_judged == (
        "x * y, Fraction(-1, 2) * x (gradients not exact numbers: equality cannot judge them)",
        "zero_grad (writing a leaf's gradient: the engine, or its adapter, has no set_grad)",
    )


def _engine_without_set_grad(eng):
    import dataclasses

    cls = type("NoSetGrad", (type(eng),), {"settable_grad": property(lambda self: False)})
    return cls(**{f.name: getattr(eng, f.name) for f in dataclasses.fields(eng) if f.init})


@pytest.mark.parametrize("seed, output", [("assign", Fraction(1)), ("accumulate", Fraction(2))])
def test_the_model_of_retained_gradients_sets_or_adds_the_output_seed(seed, output):
    # y = x * x at x = 3, two passes; retained interior gradients, leaves accumulating (6 a pass)
    args, ops, values = (None, (0, 0)), (("", None), ("mul", None)), (Fraction(3), Fraction(9))
    grads = [Fraction(0), Fraction(0)]
    convention = C.BackwardConvention(interior="retain", seed=seed)
    for _ in range(2):
        C.model_backward(args, ops, values, grads, 1, convention)
    assert grads == [Fraction(12), output]
