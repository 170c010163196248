"""``first_difference``, ``second_difference`` and ``difference_vote``: certified difference quotients
of an op's definition, held to quotients worked by hand.

For exp the quotient is closed: with step ``2h`` on the diagonal,
``D(h) = (e^(x+2h) - 2 e^x + e^(x-2h)) / (4 h^2) = e^x (sinh(h) / h)^2``, and the steps are
``h_n = 2^(e - 20 - 12 n)`` where ``x = m 2^e`` with ``1/2 <= m < 1`` (``e = 0`` at 0): so each
value, spread and step count below is computed here from that formula, in mpmath at 400 bits.
The certified quotients are intervals' midpoints at 128 bits or more: a spread of 1e-34 beside a
quotient of 1 is known to a few parts in 1e8 (to 1e-3 here; a wrong step moves it by 4 or more).
"""

import math
import operator

import mpmath
import sympy

from autograd.testing.ops import Call, OpSpec, known, registered
from autograd.testing.oracles.definition_differences import (
    difference_vote,
    first_difference,
    second_difference,
)
from autograd.testing.verdicts import Vote

mpmath.mp.prec = 400


def exp_quotient(x, exponent, n):
    """D(h_n) of exp at x (``exponent``: e of x = m 2^e)."""
    h = mpmath.mpf(2) ** (exponent - 20 - 12 * n)
    return mpmath.exp(mpmath.mpf(x)) * (mpmath.sinh(h) / h) ** 2


def test_at_0_the_step_starts_at_2_to_the_minus_20_and_shrinks_by_2_to_the_12():
    # D(h_n) - 1 = h_n^2 / 3 + ...: successive spreads 2^-40/3, 2^-64/3, 2^-88/3, 2^-112/3; the
    # first within 1e-30 is the fourth, D(h_4) - D(h_3), at the fifth step
    found = second_difference("exp", (0.0,), None, 0, 0, wanted=1e-30)
    spread = exp_quotient(0, 0, 3) - exp_quotient(0, 0, 4)
    assert found is not None and found.steps == 5
    assert math.isclose(float(found.spread), float(spread), rel_tol=1e-3)
    assert math.isclose(float(found.value), 1.0, rel_tol=1e-15)
    assert 6.4e-35 < float(spread) < 6.5e-35  # 2^-112 / 3 = 6.42e-35


def test_at_1_the_step_is_relative_to_the_operand():
    # 1 = 2^-1 * 2^1: h_n = 2^(-19 - 12 n); spreads e 2^-38/3, e 2^-62/3, e 2^-86/3 = 1.2e-26 <= 1e-20
    found = second_difference("exp", (1.0,), None, 0, 0, wanted=1e-20)
    assert found is not None and found.steps == 4
    spread = exp_quotient(1, 1, 2) - exp_quotient(1, 1, 3)
    assert math.isclose(float(found.spread), float(spread), rel_tol=1e-9)
    assert math.isclose(float(found.value), float(exp_quotient(1, 1, 3)), rel_tol=1e-15)
    # within 1e-30 it takes one step more: the spread is what the caller wants, however relatively small
    found = second_difference("exp", (1.0,), None, 0, 0, wanted=1e-30)
    spread = exp_quotient(1, 1, 3) - exp_quotient(1, 1, 4)
    assert found is not None and found.steps == 5
    assert math.isclose(float(found.spread), float(spread), rel_tol=1e-3)


def test_quotients_that_never_come_within_what_the_caller_wants_do_not_settle():
    # at 1 no two quotients of exp are equal: a spread of 0 is never reached
    assert second_difference("exp", (1.0,), None, 0, 0, wanted=0) is None


def test_quotients_that_differ_relatively_do_not_settle_however_close_they_are():
    # x^4 at 0: D(h) = ((2h)^4 + (-2h)^4) / (4 h^2) = 8 h^2, each quotient 2^-24 of the one before:
    # they differ by 8 h^2 (1 - 2^-24), within 1 of each other, but never within 2^-20 of their size
    assert second_difference("powc", (0.0,), 4, 0, 0, wanted=1) is None


def test_a_spread_of_exactly_one_is_still_relatively_too_far():
    # K x^4 with K = 2^61 / (2^24 - 1): D(h) = 8 K h^2, and from h = 2^-20 to 2^-32 the quotient
    # moves by 8 K (2^-40 - 2^-64) = 1 exactly, while the quotients themselves are about 1
    k = sympy.Rational(2**61, 2**24 - 1)
    quartic = OpSpec(
        "test_scaled_quartic", 1, Call(operator.pow, ("v0",), numbers=(4,)), lambda s, c: k * s[0] ** 4,
        lambda x, c: float(k) * x[0] ** 4, lambda n, c: f"K * {n[0]} ** 4",
    )  # fmt: skip
    with registered(quartic):
        assert second_difference("test_scaled_quartic", (0.0,), None, 0, 0, wanted=1) is None


def test_steps_that_leave_the_domain_are_shrunk_until_they_stay_inside():
    # acosh at x = 1 + 2^-52 (m 2^1): h_n = 2^(-19 - 12 n), and x - 2 h_n < 1 for n = 0, 1, 2; from
    # n = 3 on, the quotients of acosh ~ sqrt(2 (x - 1)) move relatively by about (2 h / (x - 1))^2 / 3:
    # 2^-6, then 2^-30 from n = 4 to n = 5: the sixth step, within 1e-6 of acosh'' = -x / (x^2 - 1)^1.5
    x = 1 + 2.0**-52
    with registered(known("acosh")):
        found = second_difference("acosh", (x,), None, 0, 0, wanted=1e17)
        assert second_difference("acosh", (1.0,), None, 0, 0, wanted=1e30) is None  # no step stays inside
    exact = -mpmath.mpf(x) / (mpmath.mpf(x) ** 2 - 1) ** 1.5
    assert found is not None and found.steps == 6
    assert math.isclose(float(found.value), float(exact), rel_tol=1e-12)
    assert 0 < float(found.spread) < 1e-6 * abs(float(exact))


def test_mixed_second_differences_of_a_product_are_exact():
    # (x + h)(y + h) - (x + h)(y - h) - (x - h)(y + h) + (x - h)(y - h) = 4 h^2: exactly 1 at once
    found = second_difference("mul", (1e300, -3.0), None, 0, 1, wanted=0)
    assert found is not None and (found.value, found.spread, found.steps) == (1, 0, 2)


def test_quotients_exactly_2_to_the_minus_20_of_the_larger_apart_agree():
    # a x^2 + b x^4 at 0: D(h) = 2a + 8b h^2.  With 8b = 2^20 and 2a = 1 - 2^-24 - 2^-20, the first
    # two quotients are D(2^-20) = 1 - 2^-24 and D(2^-32) = 1 - 2^-24 - 2^-20 + 2^-44: they differ by
    # 2^-20 (1 - 2^-24), exactly 2^-20 of the larger: they agree, at the second step
    a = (1 - sympy.Rational(1, 2**24) - sympy.Rational(1, 2**20)) / 2
    b = sympy.Integer(2**17)
    row = OpSpec(
        "test_quadratic_quartic", 1, Call(operator.mul, ("v0", "v0")),
        lambda s, c: a * s[0] ** 2 + b * s[0] ** 4, lambda x, c: float(a) * x[0] ** 2 + float(b) * x[0] ** 4,
        lambda n, c: f"q({n[0]})",
    )  # fmt: skip
    with registered(row):
        found = second_difference("test_quadratic_quartic", (0.0,), None, 0, 0, wanted=1)
    before = 1 - sympy.Rational(1, 2**24)
    assert found is not None and found.steps == 2
    assert found.spread == (before - found.value) == before / 2**20


# ---------------------------------------------------------------------- first differences
def exp_first_quotient(x, exponent, n):
    """(e^(x+h) - e^(x-h)) / (2h) = e^x sinh(h) / h at h = h_n (``exponent``: e of x = m 2^e)."""
    h = mpmath.mpf(2) ** (exponent - 20 - 12 * n)
    return mpmath.exp(mpmath.mpf(x)) * mpmath.sinh(h) / h


def test_first_differences_settle_on_the_slope_within_what_the_caller_wants():
    # D(h_n) - 1 = h_n^2 / 6 + ...: the truncation alone needs five steps to move by less than
    # 1e-30 (spreads 2^-40/6, 2^-64/6, 2^-88/6, 2^-112/6 = 3.2e-35); the intervals' midpoints (a
    # double's width, early on) may need more
    found = first_difference("exp", (0.0,), None, 0, wanted=1e-30)
    assert found is not None and found.steps >= 5 and 0 <= found.spread <= 1e-30
    assert abs(found.value - exp_first_quotient(0, 0, found.steps - 1)) <= 2**-60
    assert float(found.value) == 1.0
    # at 1 (= 2^-1 * 2^1) the step is relative to it: e, to the double
    found = first_difference("exp", (1.0,), None, 0, wanted=1e-20)
    assert found is not None and found.spread <= 1e-20 and float(found.value) == math.e
    assert abs(found.value - exp_first_quotient(1, 1, found.steps - 1)) <= 2**-50


def test_first_differences_vary_only_the_operand_asked_for():
    # x * y: along x the quotient is y exactly, along y it is x, at any step
    along_x = first_difference("mul", (1e300, -3.0), None, 0, wanted=0)
    along_y = first_difference("mul", (1e300, -3.0), None, 1, wanted=0)
    assert along_x is not None and (along_x.value, along_x.spread, along_x.steps) == (-3, 0, 2)
    assert along_y is not None and (along_y.value, along_y.spread, along_y.steps) == (1e300, 0, 2)
    # 0 / x at 1e-300 is 0 at every shifted point: its slope is 0, exactly, where floats cannot step
    found = first_difference("rdiv", (1e-300,), 0, 0, wanted=0)
    assert found is not None and (found.value, found.spread) == (0, 0)


def test_first_differences_that_never_agree_do_not_settle():
    assert first_difference("exp", (1.0,), None, 0, wanted=0) is None


# ---------------------------------------------------------------------- the vote
def test_the_vote_rejects_what_the_definition_rejects_and_agrees_with_sympy():
    # 0 / x at 1e-300: the slope is 0 (sympy and the definition); an engine's nan, or 1e-310, is off
    vote = difference_vote("rdiv", (1e-300,), 0, (0,), math.nan, 0.0, 1e-320)
    assert vote == Vote("certified first differences of the definition", True, "0.0")
    assert difference_vote("rdiv", (1e-300,), 0, (0,), None, 0.0, 1e-320).rejects is True  # not a number
    assert difference_vote("rdiv", (1e-300,), 0, (0,), 1e-310, 0.0, 1e-320).rejects is True
    # within the bound of the estimate: not confirmed
    assert difference_vote("rdiv", (1e-300,), 0, (0,), 1e-321, 0.0, 1e-320).rejects is False
    # exp''(0) = 1 at second order; an engine's 1.5 is rejected, its 1 + 2**-52 is not (bound 1e-15)
    vote = difference_vote("exp", (0.0,), None, (0, 0), 1.5, 1.0, 1e-15)
    assert vote == Vote("certified second differences of the definition", True, "1.0")
    assert difference_vote("exp", (0.0,), None, (0, 0), 1.0 + 2**-52, 1.0, 1e-15).rejects is False


def test_the_vote_cannot_judge_where_the_definition_disagrees_with_sympy_or_does_not_settle():
    # a sympy value of 2 for exp'(0) (the definition's 1): the second method cannot vouch for it
    vote = difference_vote("exp", (0.0,), None, (0,), 3.0, 2.0, 1e-16)
    assert (vote.rejects, vote.says) == (None, "1.0 disagrees with sympy's too")
    # a bound of 0 at 1 and a disagreement of 0 ... never met by two quotients of exp
    vote = difference_vote("exp", (1.0,), None, (0,), math.e, math.e, 0.0)
    assert (vote.rejects, vote.says) == (None, "the quotients did not settle as the step shrank")
