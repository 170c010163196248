"""The certified reference (autograd.testing.certify) at its edges: what it refuses and how it
says so, values that need only a sign, kinks, poles beside defined values, evaluations that
fail or cancel at low precision, and functions evaluated only at points.

Expected values come from closed forms (mpmath at 60 digits with expm1, Euler's constant),
exact Fractions, or the definition of the function at the point; not from the reference.
"""

from fractions import Fraction

import mpmath
import pytest
import sympy

from autograd.testing import UNDEFINED, ReferenceUnresolved, certify
from autograd.testing.ops import Relu

X, Y, Z = sympy.symbols("x y z", real=True)

#: Exactly 1, which sympy does not simplify: (sin**2 + cos**2 - 1) * 2**8150 is some 2**-40 wide at
#: 8192 bits and wider below, so its sign is certain only at 8192 bits and its value never settles.
SIGN_ONLY = (sympy.sin(Z) ** 2 + sympy.cos(Z) ** 2 - 1) * 2**8150 + 1
#: Exactly 0 (e**1 - e), whose intervals straddle 0 at every precision: its value (the float 0) is
#: certain once both ends round to a zero float, its sign never is.
ZERO_BY_INTERVALS = sympy.exp(Y) - sympy.E


def rational(v):
    """An mpmath number as the Fraction it is."""
    sign, man, exp, _ = v._mpf_
    return (-1) ** sign * Fraction(man) * Fraction(2) ** exp


# ---------------------------------------------------------------------- arguments and messages
def test_an_undefined_value_has_no_float_and_says_why():
    with pytest.raises(ValueError) as info:
        float(UNDEFINED)
    assert str(info.value) == "reference: an undefined value (a pole or a complex result) has no float"


def test_a_point_that_is_not_finite_is_refused_naming_the_first_expression_and_the_point():
    with pytest.raises(ValueError) as info:
        certify((X,), [X + 1, X + 2], (float("nan"),))
    assert str(info.value) == "reference: (x + 1,) at (nan,): nan is not a finite number"


def test_a_point_with_the_wrong_number_of_values_is_refused():
    with pytest.raises(ValueError) as info:
        certify((X, Y), [X + Y], (1.0,))
    assert str(info.value) == "reference: 1 values for the symbols (x, y)"


# ---------------------------------------------------------------------- exact arithmetic
def test_a_rational_pole_leaves_the_other_expressions_exact():
    assert certify((X,), [1 / X, X + 1, X / 3 - 1], (0,)) == (
        UNDEFINED,
        certify((X,), [X + 1], (0,))[0],
        certify((X,), [X / 3 - 1], (0,))[0],
    )
    _, one, minus_one = certify((X,), [1 / X, X + 1, X / 3 - 1], (0,))
    assert (one.value, one.exact, minus_one.value) == (Fraction(1), True, Fraction(-1))


def test_beside_a_pole_a_rational_expression_stays_exact_unless_asked_otherwise():
    _, third = certify((X, Y), [sympy.log(X), Y / 3], (0.0, 1.0))
    assert third.exact is True and third.value == Fraction(1, 3) and third.radius == 0
    _, third = certify((X, Y), [sympy.log(X), Y / 3], (0.0, 1.0), exact=False)
    assert third.exact is False and isinstance(third.value, type(third.radius))
    assert abs(rational(third.value) - Fraction(1, 3)) <= rational(third.radius) <= Fraction(1, 2**100)


# ---------------------------------------------------------------------- intervals
def test_an_interval_value_is_marked_not_exact():
    (found,) = certify((X,), [sympy.exp(X)], (0.5,))
    assert found.exact is False


@pytest.mark.parametrize(
    ("x", "want"),
    [
        # exp(x) - 1 - x at 2**-70 is about 2**-141: its 128-bit interval reaches 0, whose log
        # is no real number, yet the value is real
        (2.0**-70, "-97.7337524589522886278294467812871446651991628173661861244089"),
        # at 2**-130 it is about 2**-261: exp(x) rounds down to 1 at 128 bits and the interval
        # has negative numbers, whose log is an error; at 256 bits it reaches 0
        (2.0**-130, "-180.9114141261457257578975837005840842677052901733702000156"),
    ],
)
def test_a_log_whose_argument_cancels_at_low_precision_is_certified(x, want):
    # want: log(expm1(x) - x) by mpmath at 250 digits, and 2 log x - log 2 + log of the series
    # sum 2 x**k / (k + 2)! at 250 digits, which agree to 1e-210
    (found,) = certify((X,), [sympy.log(sympy.exp(X) - 1 - X)], (x,))
    assert float(found) == float(want) and found.exact is False
    assert abs(rational(found.value) - Fraction(want)) <= rational(found.radius) + Fraction(1, 10**55)
    assert found.radius <= abs(found.value) * 2.0**-70


def test_a_value_that_needs_only_its_sign_is_returned_without_settling():
    x, sign = certify((Z,), [Z, SIGN_ONLY], (0.5,), signs=1)
    assert x.value == 0.5 and x.exact is False
    assert sign.value - sign.radius > 0  # the sign is certain: positive
    with pytest.raises(ReferenceUnresolved, match="the intervals are still wide at 8192 bits"):
        certify((Z,), [Z, SIGN_ONLY], (0.5,))  # its value is not


def test_beside_a_pole_the_sign_only_expressions_stay_sign_only():
    pole, z, zero, sign = certify(
        (X, Y, Z), [sympy.log(X), Z, ZERO_BY_INTERVALS, SIGN_ONLY], (0.0, 1.0, 0.5), signs=1
    )
    assert pole is UNDEFINED and z.value == 0.5
    # 0, certified to round to the float 0
    assert abs(rational(zero.value)) <= rational(zero.radius) <= Fraction(1, 2**1075)
    assert sign.value - sign.radius > 0


def test_a_log_of_a_relu_at_its_kink_is_undefined():
    # relu(e - e) = 0: its intervals are [0, w], whose log has the end -inf: a pole, not a width
    assert certify((X,), [sympy.log(Relu(sympy.exp(X) - sympy.E))], (1.0,)) == (UNDEFINED,)


@pytest.mark.parametrize("x", [0.5, -0.5, 2.0**-1074, -3.0])
def test_dirac_delta_is_zero_off_its_kink(x):
    (found,) = certify((X,), [sympy.DiracDelta(X)], (x,))
    assert found.value == 0 and found.radius == 0


def test_dirac_delta_at_its_kink_has_no_number():
    with pytest.raises(ReferenceUnresolved) as info:
        certify((X,), [sympy.DiracDelta(X)], (0.0,))
    assert info.value.reason == (
        "the reference did not settle: an interval met a kink or a pole at 8192 bits (Straddle)"
    )


# ---------------------------------------------------------------------- points
def test_a_point_value_of_exactly_zero_is_certified():
    # loggamma(1) = loggamma(2) = 0: two evaluations agree on 0 exactly
    for x in (1.0, 2.0):
        (found,) = certify((X,), [sympy.loggamma(X)], (x,))
        assert found.value == 0 and found.radius == 0 and found.exact is False


def test_a_point_value_whose_sign_is_needed_must_not_be_zero():
    with pytest.raises(ReferenceUnresolved) as info:
        certify((X,), [X + 1, sympy.loggamma(X)], (1.0,), signs=1)
    assert info.value.reason == "the reference did not settle: two evaluations still differ at 8192 bits"


def test_a_point_value_whose_sign_is_needed_keeps_its_sign():
    # loggamma(0.5) = log(sqrt(pi)) = 0.5723649429247001 > 0, loggamma(3) = log 2
    value, sign = certify((X,), [sympy.loggamma(X + 2), sympy.loggamma(X)], (0.5,), signs=1)
    assert float(value) == 0.2846828704729192  # loggamma(2.5) = log(3 sqrt(pi) / 4)
    assert sign.value > 0


def test_point_evaluations_must_agree_after_the_cancellation_not_before():
    # (loggamma(2 + x) / x + loggamma(2 + x**2) / x**2) at x = 2**-200 is 2 (1 - euler) + O(x):
    # 0 at 128 bits (2 + x rounds to 2), about half of it at 256 bits (2 + x**2 still does)
    (found,) = certify((X,), [sympy.loggamma(2 + X) / X + sympy.loggamma(2 + X**2) / X**2], (2.0**-200,))
    assert float(found) == 0.8455686701969343  # 2 (1 - euler) at 60 digits
    assert found.exact is False and found.radius <= abs(found.value) * 2.0**-70


def test_point_evaluations_that_round_to_one_float_must_also_agree_to_the_settled_width():
    # (y + 1/3)**2 - y**2 - 2 y / 3 = 1/9 exactly; at y = 2**30 the 128-bit evaluation is off
    # by some 2**-64 of it: the same float as 1/9, yet not settled
    expr = sympy.loggamma(Z) + (Y + sympy.Rational(1, 3)) ** 2 - Y**2 - 2 * Y / 3
    (found,) = certify((Y, Z), [expr], (2.0**30, 2.0))  # loggamma(2) = 0
    assert float(found) == 1 / 9 and found.exact is False
    assert abs(rational(found.value) - Fraction(1, 9)) <= rational(found.radius)
    assert found.radius <= abs(found.value) * 2.0**-70


def test_a_point_expression_with_functions_that_have_intervals_is_evaluated_at_points():
    # loggamma has no interval version: exp and the constant 1/2 are evaluated at points too
    (found,) = certify((X,), [sympy.loggamma(X) + sympy.exp(X) / 2], (2.0,))
    assert float(found) == 3.694528049465325  # e**2 / 2 at 60 digits
    assert found.exact is False and found.radius <= abs(found.value) * 2.0**-70


def test_a_point_value_that_loses_bits_at_128_carries_a_radius_within_the_settled_width():
    # loggamma(2 + x) / x at x = 2**-64 ~ 1 - euler: at 128 bits only some 64 bits of it are right
    (found,) = certify((X,), [sympy.loggamma(2 + X) / X], (2.0**-64,))
    assert float(found) == 0.42278433509846713  # 1 - euler + O(2**-64) at 60 digits
    assert found.radius <= abs(found.value) * 2.0**-70


def test_a_point_where_mpmath_is_complex_and_sympy_cannot_say_is_unresolved():
    # loggamma(-1/2) is complex in mpmath; sympy does not decide whether it is real
    with pytest.raises(ReferenceUnresolved) as info:
        certify((X,), [sympy.loggamma(X)], (-0.5,))
    assert info.value.reason == "the reference did not settle: the evaluation failed at 8192 bits"


def test_a_value_of_minus_infinity_is_undefined():
    # Ei(0) = -oo (a real infinity, unlike the complex infinity of log(0)): no finite value,
    # alone or as a factor
    assert certify((X,), [sympy.Ei(X)], (0.0,)) == (UNDEFINED,)
    assert certify((X,), [X * sympy.Ei(X - 1)], (1.0,)) == (UNDEFINED,)


# ---------------------------------------------------------------------- interval exp
#: exp(x) - 1 - x at x = 2 ** -80: x ** 2 / 2 + x ** 3 / 6 + ... = 2 ** -161 (1 + 2 ** -81 / 3 + ...),
#: positive, and far below the width of exp(x)'s interval at the first precisions.
TINY_EXCESS = sympy.exp(X) - 1 - X


def truth(expr, x, bits=4000):
    """``expr`` at ``x`` by mpmath's point evaluation at ``bits`` bits (no interval involved)."""
    with mpmath.workprec(bits):
        return sympy.lambdify(X, expr, "mpmath")(mpmath.mpf(x))


def test_an_interval_exp_contains_the_value_where_mpmath_rounds_its_approximation_away():
    # exp(x) - 1 - x at x = 2 ** -1074 is x ** 2 / 2 + ... = 2 ** -2149 + ...: mpmath's iv.exp at 2048
    # bits gives a point interval there, and the difference came out as [0, 0] (radius 0, wrong)
    x = 2.0**-1074
    (c,) = certify((X,), [TINY_EXCESS], (x,))
    assert float(c) == 0.0  # below the least subnormal: rounds to 0
    with mpmath.workprec(4000):  # the leading term is the truth to 2 ** -3224 (the next, x ** 3 / 6)
        assert abs(c.value - mpmath.mpf(2) ** -2149) <= c.radius
    # and as a sign (a relu input), the reference knows it is positive
    _, sign = certify((X,), [X, TINY_EXCESS], (x,), signs=1)
    assert sign.value > 0


def test_exp_of_a_relu_whose_input_straddles_its_kink_is_not_taken_for_exp_of_0():
    # relu's input is 2 ** -161 > 0, but its interval straddles 0 at the first precisions: relu
    # then gives [0, b], and exp([0, b]) is not exp(0); the value is 2 ** -161 (1 + 2 ** -81 / 3 + ...)
    expr = sympy.exp(Relu(TINY_EXCESS)) - 1
    (c,) = certify((X,), [expr], (2.0**-80,))
    assert truth(TINY_EXCESS, 2.0**-80) > 0  # so relu is the identity there
    assert float(c) == 2.0**-161 == float(truth(sympy.exp(TINY_EXCESS) - 1, 2.0**-80))


def test_exp_of_0_is_1_exactly_so_a_kink_at_tanh_0_is_judged():
    # d relu(tanh x) / dx = Step(tanh x) (1 - tanh(x) ** 2): at 0, Step(0) = 0 (the reference's
    # convention at the kink), which needs tanh(0) = 1 - 2 / (exp(0) + 1) to be the point 0
    (c,) = certify((X,), [sympy.diff(Relu(sympy.tanh(X)), X)], (0.0,))
    assert c.value == 0
    (t,) = certify((X,), [sympy.tanh(X)], (0.0,))
    assert (t.value, t.radius) == (0, 0)


def test_a_log_whose_argument_straddles_0_at_first_is_retried_until_it_settles():
    # log(2 ** -161 (1 + ...)): at the first precisions the argument's interval reaches below 0 (a
    # ValueError from the interval log); sympy finds the value real, and more precision settles it
    expr = sympy.log(TINY_EXCESS)
    (c,) = certify((X,), [expr], (2.0**-80,))
    assert float(c) == float(truth(expr, 2.0**-80)) == pytest.approx(-161 * 0.6931471805599453, rel=1e-15)


def test_a_quotient_by_a_value_whose_interval_straddles_0_at_first_is_retried_until_it_settles():
    # 1 / (2 ** -161 (1 + ...)): at the first precisions the divisor's interval holds 0, and the
    # quotient's has infinite ends; sympy finds the value finite, and more precision settles it
    with mpmath.workprec(4000):  # expm1 keeps the digits that exp(x) - 1 cancels
        x = mpmath.mpf(2) ** -80
        want = float(1 / (mpmath.expm1(x) - x))
    (c,) = certify((X,), [1 / TINY_EXCESS], (2.0**-80,))
    assert float(c) == want == pytest.approx(2.0**161, rel=1e-15)
