"""The catalogue's rows as identification and the probes use them: each row's values name it and
no other; the families' parameters are fitted; each error model is the bound its row documents,
wide enough for the usual float evaluation of its function and no wider than the cancellation a
textbook formula commits; and the plain-float forms keep their digits where the textbook ones do not.

The models are pinned at points worked out by hand from the comments that state them (catalogue.py):
a model is part of what a row says, and the edge probe's tolerance is SAFETY * eps * model.
"""

from __future__ import annotations

import contextlib
import math

import mpmath
import pytest
import sympy
from mpmath import iv

from autograd.testing import certify
from autograd.testing.identify import PAIRS, POINTS, identify
from autograd.testing.ops import OPS
from autograd.testing.ops import special as sp
from autograd.testing.ops.catalogue import CATALOGUE, FIT, INTERVAL_FUNCTIONS, known
from autograd.testing.oracles import SYMBOLIC_SAFETY

EPS, TINY, CAP = 2.0**-52, 2.0**-1074, 1e300
SELU_ALPHA, SELU_SCALE = 1.6732632423543772, 1.0507009873554805  # PyTorch's, as floats
X = sympy.Symbol("x", real=True)
#: A parameter of each family other than its row's default, so that it must be fitted.
PARAMETER = {"leaky_relu": 0.2, "elu": 1.5, "celu": 0.5}
#: The rows added with the elementwise functions of PyTorch, JAX, MyGrad and tinygrad.
NEW = [spec.name for spec in CATALOGUE[CATALOGUE.index(known("elu")) + 1 :]]


def values_of(spec, c):
    """The row's own finite values at identify's points (pairs for a binary row)."""
    found = {}
    for at in POINTS if spec.arity == 1 else PAIRS:
        args = [at] if spec.arity == 1 else list(at)
        try:
            y = spec.num(args, c)
        except (ArithmeticError, ValueError):
            continue
        if isinstance(y, int | float) and math.isfinite(y):  # (vpow of a negative base: complex)
            found[at] = y
    return found


# ---------------------------------------------------------------------- identification
@pytest.mark.parametrize("name", [spec.name for spec in CATALOGUE])
def test_each_rows_values_identify_that_row_and_its_parameter(name):
    spec = known(name)
    c = PARAMETER.get(name)
    row, fitted = identify(values_of(spec, c), spec.arity)
    assert (row.name, fitted) == (name, c)


def test_the_tables_binary_ops_are_still_named_before_the_catalogues():
    for name in ("add", "sub", "mul", "div", "vpow"):
        assert identify(values_of(OPS[name], None), 2)[0].name == name


def test_relu6_and_the_hard_functions_are_told_apart_where_they_saturate():
    # below 6, relu6 is relu: 7.5 tells them apart; hardsigmoid is linear on (-3, 3): -3.5 and 7.5
    relu6, hardsigmoid = known("relu6"), known("hardsigmoid")
    assert {x: relu6.num([x], None) for x in POINTS if abs(x) < 6} == {
        x: OPS["relu"].num([x], None) for x in POINTS if abs(x) < 6
    }
    assert identify(values_of(relu6, None), 1)[0].name == "relu6"
    linear = {x: x / 6 + 0.5 for x in POINTS}
    assert identify(linear, 1) is None
    assert identify(values_of(hardsigmoid, None), 1)[0].name == "hardsigmoid"


def test_functions_of_0_to_1_and_xlogy_have_four_points_to_be_named_at():
    assert len(values_of(known("logit"), None)) == 4 and len(values_of(known("acosh"), None)) == 4
    assert len(values_of(known("xlogy"), None)) == 4


def test_celus_alpha_is_read_from_its_value_at_the_leftmost_point():
    for alpha in (0.5, 1.0, 2.0, 7.25):
        x = min(POINTS)
        assert FIT["celu"]({x: alpha * math.expm1(x / alpha), 1.0: 1.0}) == alpha
    assert FIT["celu"]({-2.0: -2.5, 1.0: 1.0}) is None  # below x: no alpha gives it
    assert FIT["celu"]({-2.0: 0.0, 1.0: 1.0}) is None  # relu's 0: none either
    assert FIT["celu"]({0.5: 0.5, 1.0: 1.0}) is None  # no negative point


# ---------------------------------------------------------------------- the error models, pinned
def test_the_inverse_functions_slopes_err_as_one_minus_x_squared_does():
    asin, acosh, atanh = known("asin"), known("acosh"), known("atanh")
    assert asin.partial_err([0.6], None, 0.0) == 3 + 0.36 / 0.64
    assert known("acos").partial_err([-0.6], None, 0.0) == 3 + 0.36 / 0.64
    assert acosh.partial_err([2.0], None, 0.0) == 3 + 4 / 3
    assert atanh.partial_err([0.5], None, 0.0) == 3 + 0.25 / 0.75
    assert asin.partial_err([1.0], None, 0.0) == 3  # the slope is infinite there: not judged
    assert acosh.partial_err([1e200], None, 0.0) == 4  # x*x beyond the floats: x^2 / (x^2 - 1) is 1


def test_the_models_with_a_rounded_argument_grow_with_it():
    o = sp.cbrt(math.exp(12.0))
    assert known("cbrt").fwd_err([math.exp(12.0)], None, o) == pytest.approx(3 * o, rel=1e-15)  # |log x| / 12
    assert known("cbrt").partial_err([math.exp(-12.0)], None, 0.0) == pytest.approx(6.0, rel=1e-15)
    assert known("cbrt").fwd_err([0.0], None, 0.0) == 0 and known("cbrt").partial_err([0.0], None, 0.0) == 4
    assert (
        known("erfc").partial_err([3.0], None, 0.0) == 12
        and known("erfc").partial_err([1e200], None, 0) == CAP
    )
    gelu = known("gelu")
    assert gelu.fwd_err([-3.0], None, -0.5) == 0.5 * 22 and gelu.fwd_err([2.0], None, 1.5) == 6
    assert gelu.fwd_err([-1e200], None, 0.0) == 0  # (the cap keeps 0 * inf away)
    z = math.sqrt(2 / math.pi) * -5 * (1 + 0.044715 * 25)
    want = 4 + 10 * abs(z) / (1 + math.exp(2 * z))
    assert known("gelu_tanh").fwd_err([-5.0], None, -2.0) == pytest.approx(2 * want, rel=1e-14)


def test_the_slopes_formed_from_outputs_err_absolutely_where_they_are_small():
    assert known("logsigmoid").partial_err([2.0], None, 0.0) == 4 + math.exp(2.0)  # 1 - s
    assert known("logsigmoid").partial_err([1000.0], None, 0.0) == 4 + math.exp(690.0)
    assert known("selu").partial_err([-2.0], None, 0.0) == 4 + 2 * math.exp(2.0)  # out + alpha scale
    assert known("selu").partial_err([1.0], None, 0.0) == 4
    celu = known("celu")
    assert celu.partial_err([-1.0], 0.5, 0.0) == 4 + 2 + 2 * math.exp(2.0)
    assert celu.partial_err([0.5], 0.5, 0.5) == 2 and celu.partial_err([-1e308], 0.5, -0.5) == CAP
    assert all(known(n).bounded_partials for n in ("logsigmoid", "selu", "celu", "lgamma"))


def test_the_models_of_slopes_near_their_zeros_are_absolute():
    # 4 + (absolute error) / |slope|, each worked out from the row's comment
    assert known("gelu_tanh").partial_err([0.0], None, 0.0) == 8  # 2 / 0.5
    assert known("gelu_tanh").partial_err([1e6], None, 1e6) == 6  # 2 / 1 (t*t is 1: its error is not)
    assert known("gelu_tanh").partial_err([-1e6], None, 0.0) == 4 + CAP  # a slope of 0
    assert known("mish").partial_err([0.0], None, 0.0) == pytest.approx(7.0, rel=1e-15)  # 1.8 / 0.6
    assert known("mish").partial_err([50.0], None, 50.0) == 7  # 3 / 1
    assert known("sinc").partial_err([0.5], None, 0.0) == pytest.approx(4 + 2 * math.pi, rel=1e-15)
    assert known("sinc").partial_err([0.0], None, 1.0) == 4 + CAP
    assert known("hardswish").partial_err([-1.0], None, 0.0) == pytest.approx(9.0, rel=1e-15)
    assert known("hardswish").partial_err([5.0], None, 5.0) == 3
    assert known("logaddexp").partial_err([0.0, 0.0], None, math.log(2)) == 3 + math.log(2)
    assert known("logaddexp").partial_err([1000.0, 0.0], None, 1000.0) == 3
    assert (
        known("hardsigmoid").fwd_err([0.0], None, 0.5) == 2 and known("logit").fwd_err([0.5], None, 0.0) == 2
    )


def test_lgamma_and_digamma_err_absolutely_near_their_roots_and_by_pi_x_left_of_0():
    psi2, psi_half = 1 - 0.5772156649015329, 0.03648997397857652
    reflection = math.log(2.5) + math.pi**2 / 2  # at -1/2: cot(pi x) = 0, sin(pi x)^2 = 1
    assert known("lgamma").partial_err([2.0], None, 0.0) == pytest.approx(4 + (4 + math.log(2)) / psi2)
    assert known("lgamma").partial_err([-0.5], None, 0.0) == pytest.approx(
        4 + (4 + math.log(2) + reflection) / psi_half
    )
    assert known("lgamma").fwd_err([3.0], None, math.log(2)) == 4 * math.log(2) + 4
    assert known("digamma").fwd_err([2.0], None, psi2) == 2 * psi2 + 4
    assert known("digamma").fwd_err([-0.5], None, psi_half) == pytest.approx(2 * psi_half + 4 + reflection)
    assert known("digamma").partial_err([-0.25], None, 0.0) == pytest.approx(4 + math.pi / 2)
    assert known("digamma").partial_err([2.0], None, 0.0) == 4
    assert known("digamma").fwd_err([-2.0], None, 0.0) == 4 + CAP  # a pole (outside the region)


# ---------------------------------------------------------------------- honest, not loose
def forward_bound(name, x, value):
    return SYMBOLIC_SAFETY * (EPS * known(name).fwd_err([x], None, value) + TINY)


def slope_bound(name, x, value, slope):
    spec = known(name)
    absolute = 1.0 if spec.bounded_partials else 0.0
    err = spec.partial_err([x], None, value)
    return SYMBOLIC_SAFETY * (EPS * ((2 + err) * abs(slope) + absolute) + TINY)


def exact(name, x):
    expr = known(name).sym([X], None)
    return [float(c) for c in certify((X,), [expr, sympy.diff(expr, X)], (x,))]


@pytest.mark.parametrize(
    ("name", "x", "usual_slope"),
    [
        ("asin", 1 - 1e-9, lambda x: 1 / math.sqrt(1 - x * x)),  # torch: rsqrt(1 - x*x)
        ("acosh", 1 + 1e-9, lambda x: 1 / math.sqrt(x * x - 1)),
        ("atanh", 1 - 1e-9, lambda x: 1 / (1 - x * x)),
        ("logsigmoid", 40.0, lambda x: 1 - 1 / (1 + math.exp(-x))),  # 0.0 for 4e-18: absolute
        ("erfc", 19.823, lambda x: -2 / math.sqrt(math.pi) * math.exp(-x * x)),  # x*x rounded: 127 eps
        (
            "selu",
            -40.0,
            lambda x: 1.0507009873554805 * 1.6732632423543772 * math.expm1(x) + 1.7580993408473766,
        ),
    ],
)
def test_the_usual_formula_of_each_slope_is_within_its_bound_and_the_bound_needs_its_term(
    name, x, usual_slope
):
    value, slope = exact(name, x)
    error = abs(usual_slope(x) - slope)
    assert error <= slope_bound(name, x, value, slope)
    assert error > SYMBOLIC_SAFETY * (EPS * 4 * abs(slope) + TINY)  # a plain 2-eps model would call it wrong


@pytest.mark.parametrize(
    ("name", "x", "usual", "textbook"),
    [
        # the usual evaluation, rounding an argument; and a textbook form that cancels
        ("cbrt", 1e300, lambda x: x ** (1 / 3), None),
        ("sinc", 1 + 1e-9, lambda x: math.sin(math.pi * x) / (math.pi * x), None),
        ("logit", 0.5000000001, lambda x: math.log(x / (1 - x)), None),
        ("lgamma", 1 + 1e-9, lambda x: math.log(math.gamma(x)), None),
        ("hardsigmoid", -3 + 2.0**-40, lambda x: x / 6 + 0.5, None),
        (
            "gelu",
            -20.0,
            lambda x: 0.5 * x * math.erfc(-x / math.sqrt(2)),
            lambda x: x / 2 * (1 + math.erf(x / 2**0.5)),
        ),
        ("tanhshrink", 1e-5, None, lambda x: x - math.tanh(x)),
        ("erfc", 10.0, None, lambda x: 1 - math.erf(x)),
        ("logsigmoid", 50.0, None, lambda x: math.log(1 / (1 + math.exp(-x)))),
        (
            "gelu_tanh",
            -12.0,
            None,
            lambda x: x / 2 * (1 + math.tanh(0.7978845608028654 * (x + 0.044715 * x**3))),
        ),
    ],
)
def test_the_forward_bounds_take_the_usual_rounding_and_not_a_cancellation(name, x, usual, textbook):
    value = exact(name, x)[0]
    if usual is not None:
        assert abs(usual(x) - value) <= forward_bound(name, x, value)
        assert abs(usual(x) - value) > SYMBOLIC_SAFETY * (EPS * abs(value) + TINY)  # beyond 1 ulp's bound
    if textbook is not None:
        assert abs(textbook(x) - value) > forward_bound(name, x, value)


# ---------------------------------------------------------------------- the float forms
def test_sinpi_and_cospi_are_exact_at_the_half_integers_and_beyond_2_to_the_53():
    assert [sp.sinpi(x) for x in (0.5, 1.0, 1.5, -0.5, 2.5)] == [1.0, 0.0, -1.0, -1.0, 1.0]
    assert [sp.cospi(x) for x in (0.5, 1.0, 1.5, 2.0, -1.0)] == [0.0, -1.0, 0.0, 1.0, -1.0]
    assert sp.sinpi(2.0**53) == 0.0 and sp.cospi(2.0**53) == 1.0 and sp.cospi(-(2.0**60)) == 1.0
    assert sp.sinpi(2.0**52 + 1) == 0.0 and sp.cospi(2.0**52 + 1) == -1.0  # odd: below 2**53
    assert sp.sinc(3.0) == 0.0 and sp.sinc(0.0) == 1.0 and sp.sinc(5e-324) == 1.0


def test_the_float_slope_of_sinc_takes_its_series_near_0():
    # (a model's magnitude: its two terms cancel 2 log10(1/x) digits above 1e-4, a few parts in 1e10)
    with mpmath.workprec(2200):
        for x, digits in (
            (1e-300, 1e-12),
            (3e-5, 1e-12),
            (-9e-5, 1e-12),
            (2e-4, 1e-8),
            (0.7, 1e-12),
            (1e20, 1e-12),
        ):
            want = float((mpmath.cospi(x) - mpmath.sincpi(x)) / x)
            assert math.isclose(sp.dsinc(x), want, rel_tol=digits), x


def test_the_other_float_forms_at_the_points_their_branches_meet():
    with mpmath.workprec(300):
        for x in (0.25, 0.75, 0.2499999999999, 0.7500000000001):  # logit's two forms
            want = mpmath.log(x / (1 - mpmath.mpf(x)))
            assert math.isclose(sp.logit(x), float(want), rel_tol=4 * EPS), x
        for x in (9.99e-6, 1.001e-5, 1.999, 2.0, -1.5, 1e-300):  # tanhshrink's three
            want = mpmath.mpf(x) - mpmath.tanh(x)
            assert math.isclose(sp.tanhshrink(x), float(want), rel_tol=4 * EPS, abs_tol=TINY), x
        for x in (1e300, -1e-300, 5e-324, -1.7976931348623157e308, 27.0):  # the Newton step of cbrt
            want = mpmath.sign(x) * mpmath.cbrt(abs(mpmath.mpf(x)))
            assert sp.cbrt(x) == float(want), x
    assert sp.xlogy(0.0, -1.0) == 0.0 and sp.xlogy(0.0, 0.0) == 0.0  # 0 where x is 0, whatever y
    assert sp.logaddexp(-1e308, 1e308) == 1e308 and sp.logaddexp(3.0, 3.0) == 3 + math.log(2)
    assert sp.sigmoid(-800.0) == 0.0 and sp.sigmoid(800.0) == 1.0
    assert sp.gelu_tanh(-1e300) == 0.0 and sp.gelu_tanh(1e300) == 1e300  # z is infinite there


def test_the_digamma_of_floats_refuses_its_poles():
    for x in (0.0, -1.0, -3.0):
        with pytest.raises(ValueError):
            sp.digamma(x)
    assert sp.trigamma(1.0) == pytest.approx(math.pi**2 / 6, rel=1e-15)


# ---------------------------------------------------------------------- the sympy functions
def test_the_sympy_functions_sympy_lacks_evaluate_and_differentiate():
    x = X
    assert sp.real_cbrt(0) == 0 and sp.sincpi(0) == 1 and sp.sincpi(3) == 0 and sp.sincpi(-2) == 0
    assert (
        sp.dsincpi(0) == 0
        and sp.dsincpi(2) == sympy.Rational(1, 2)
        and sp.dsincpi(-3) == sympy.Rational(1, 3)
    )
    assert sympy.diff(sp.sincpi(x), x) == sp.dsincpi(x)
    assert sympy.diff(sp.real_cbrt(x), x) == 1 / (3 * sp.real_cbrt(x) ** 2)
    assert (
        sp.real_cbrt(x).is_extended_real and sp.dsincpi(x).is_extended_real and sp.sincpi(x).is_extended_real
    )
    assert sp.gamma(x).is_extended_real and sympy.Symbol("z").is_extended_real is None
    assert sp.real_cbrt(sympy.Symbol("z")).is_extended_real is None
    # evalf at sympy's precision, negative arguments real
    assert abs(sp.real_cbrt(-27).evalf(50) + 3) < 1e-45
    assert abs(sp.dsincpi(sympy.Rational(1, 2)).evalf(50) + 4 / sympy.pi) < 1e-45
    assert sp.dsincpi(x).evalf() == sp.dsincpi(x)  # no number, no value
    # log|gamma|' is psi: gamma psi sign(gamma) / |gamma|, in functions every namespace has (no re, im)
    slope = sympy.diff(sympy.log(sympy.Abs(sp.gamma(x))), x)
    assert slope == sp.gamma(x) * sympy.polygamma(0, x) * sympy.sign(sp.gamma(x)) / sympy.Abs(sp.gamma(x))
    assert not slope.has(sympy.re, sympy.im)


@contextlib.contextmanager
def intervals_of_128_bits():
    saved = iv.prec
    iv.prec = 128  # (mpmath.iv has no workprec)
    try:
        yield
    finally:
        iv.prec = saved


def test_the_functions_no_library_names_serve_floats_mpmath_numbers_and_intervals():
    f = sp.real_cbrt._imp_
    assert f(-8.0) == -2.0 and isinstance(f(-8.0), float)
    with mpmath.workprec(200):
        y = f(mpmath.mpf(-2))
        assert isinstance(y, mpmath.mpf) and abs(y**3 + 2) < mpmath.mpf(2) ** -190
    with intervals_of_128_bits():
        y = INTERVAL_FUNCTIONS["real_cbrt"](iv.mpf([-8, -8]))
        assert y.a <= -2 <= y.b and y.b - y.a < 2.0**-100
        y = INTERVAL_FUNCTIONS["dsincpi"](iv.mpf([0.5, 0.5]))
        with mpmath.workprec(300):
            assert y.a <= -4 / mpmath.pi <= y.b


def test_an_interval_version_refuses_a_complex_result_as_mpmath_does():
    with intervals_of_128_bits(), pytest.raises(ValueError, match="a complex result"):
        INTERVAL_FUNCTIONS["asin"](iv.mpf([2, 2]))


def test_erfc_in_mpmath_reaches_past_where_mpmaths_own_overflows():
    with mpmath.workprec(100):
        for x in (1e100, 1e300):
            y = sp.erfc_mp(mpmath.mpf(x))
            # erfc(x) = e^(-x^2) / (x sqrt(pi)) (1 - 1/(2x^2) + ...): log of it, to 100 bits
            want = -(mpmath.mpf(x) ** 2) - mpmath.log(x * mpmath.sqrt(mpmath.pi))
            assert abs(mpmath.log(y) - want) < 1e-20 * abs(want)
            assert sp.erfc_mp(-mpmath.mpf(x)) == 2 - y
        assert sp.erfc_mp(mpmath.mpf(3)) == mpmath.erfc(3)


def test_digammas_interval_takes_the_bits_its_root_cancels():
    # at the float next to digamma's root, 1.4616321449683622, psi is -9.2e-17: to 2**-110 of it
    with intervals_of_128_bits():
        y = INTERVAL_FUNCTIONS["polygamma"](iv.mpf(0), iv.mpf([1.4616321449683622] * 2))
    with mpmath.workprec(600):
        want = mpmath.digamma(mpmath.mpf(1.4616321449683622))
        assert y.a <= want <= y.b and (mpmath.mpf(y.b) - mpmath.mpf(y.a)) < abs(want) * 2.0**-110


def test_the_new_rows_are_the_ones_the_brief_lists():
    assert NEW == [
        "rsqrt", "reciprocal", "square", "cbrt", "asin", "acos", "asinh", "acosh", "atanh", "log2", "log10",
        "exp2", "logsigmoid", "logit", "gelu_tanh", "selu", "mish", "tanhshrink", "relu6", "hardtanh",
        "hardsigmoid", "hardswish", "erfc", "lgamma", "digamma", "sinc", "atan2", "hypot", "xlogy",
        "logaddexp", "maximum", "minimum", "celu", "clip",
    ]  # fmt: skip
