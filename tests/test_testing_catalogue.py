"""The catalogue of known functions (catalogue.py), judged row by row against sympy.

Each row describes one function twice: a sympy expression and a plain-float function (some
written for stability: softplus, silu, elu).  The two must agree wherever the row's region
allows, so a slip in either is seen here, before an engine's method is judged against it.
The interval versions of the functions mpmath.iv lacks must enclose mpmath's own values.
"""

import math
from fractions import Fraction

import mpmath
import pytest
import sympy
from mpmath import iv

import autograd
from autograd.testing import resolve_engine
from autograd.testing.engines.support import supported
from autograd.testing.ops import PARTNER, catalogue
from autograd.testing.ops.catalogue import (
    CATALOGUE,
    EXACT_FUNCTIONS,
    FIT,
    INTERVAL_FUNCTIONS,
    catalogue_names,
    known,
)

POINTS = (-30.0, -2.5, -0.75, -1e-3, 0.0, 2e-3, 0.3, 0.6, 0.95, 1.2, 1.7, 3.0, 25.0)
X = sympy.Symbol("x", real=True)
XS = sympy.symbols("x0:2", real=True)


def operand_points(spec, c):
    """The points of POINTS in each operand's region, the other operand at PARTNER (as the regions
    say): (point, i)."""
    for i, region in enumerate(spec.region(c)[: spec.arity]):
        for x in POINTS:
            if sympy.sympify(x) in region:
                yield tuple(x if j == i else PARTNER for j in range(spec.arity)), i


@pytest.mark.parametrize("name", catalogue_names())
def test_each_rows_float_function_is_its_sympy_expression(name):
    spec = known(name)  # the row as built now (a mutation run rebuilds the rows per mutant)
    judged = 0
    for c in spec.consts or (None,):
        expr = spec.sym(list(XS[: spec.arity]), c)
        for point, i in operand_points(spec, c):
            x = point[i]
            if spec.name == "tan" and abs(x) > 1.5:
                continue
            want = complex(expr.evalf(40, subs={s: sympy.Float(v, 60) for s, v in zip(XS, point)}))
            assert want.imag == 0, (spec.name, x)
            got = spec.num(list(point), c)
            # absolutely, for forms built from O(1) parts (gelu's 1 + erf(x) is 0.0 in floats at x = -30)
            assert math.isclose(got, want.real, rel_tol=1e-13, abs_tol=1e-16 * max(1.0, abs(x))), (
                spec.name, c, x, got, want,
            )
            judged += 1
    assert judged >= 4, spec.name  # every row is judged on both sides of 0 where it is defined


def test_a_row_is_named_applied_and_printed_as_its_name_says():
    row = catalogue._row("twice", lambda s, c: 2 * s, lambda x, c: 2 * x)
    assert (row.name, row.arity, row.form, row.label) == ("twice", 1, "twice(v)", "twice(v)")
    assert row.source(["n3"], None) == "twice(n3)"
    assert row.num([1.25], None) == 2.5 and row.sym([X], None) == 2 * X
    family = catalogue._row("scaled", lambda s, c: c * s, lambda x, c: c * x, consts=(3,), kinks=(0.5,))
    assert (family.consts, family.kinks) == ((3,), (0.5,))  # the other columns are the row's
    assert family.sym([X], 3) == 3 * X and family.num([2.0], 3) == 6.0  # its parameter reaches both
    # a catalogue row has no call of its own (identify applies the engine's method): applying it is
    # our fault, never "the engine does not support it"
    eng = resolve_engine(autograd)
    with pytest.raises(TypeError, match="twice has no call of its own"):
        eng.apply(row, [eng.make(1.0)])
    with pytest.raises(TypeError, match="twice has no call of its own"):
        supported(eng, row)


def test_a_row_of_two_operands_takes_them_in_order_and_names_both():
    # functions of two operands (atan2, hypot, logaddexp) are rows of the same type
    y, x = sympy.symbols("y x", real=True)
    row = catalogue._row(
        "atan2", lambda a, b, c: sympy.atan2(a, b), lambda a, b, c: math.atan2(a, b), arity=2
    )
    assert (row.arity, row.form, row.example) == (2, "atan2(v, w)", "atan2(x, y)")
    assert row.source(["n1", "n2"], None) == "atan2(n1, n2)"
    assert row.sym([y, x], None) == sympy.atan2(y, x) and row.num([1.0, -1.0], None) == 3 * math.pi / 4


def test_the_stable_float_forms_stay_finite_where_the_naive_ones_overflow():
    # softplus(800) = 800 + log1p(e^-800); silu(-800) = -800 e^-800 (tiny, not nan); elu(-800) = -alpha
    assert known("softplus").num([800.0], None) == 800.0
    assert known("softplus").num([-800.0], None) == 0.0
    assert known("silu").num([-800.0], None) == -0.0 or abs(known("silu").num([-800.0], None)) < 1e-300
    assert known("elu").num([-800.0], 1.5) == -1.5


@pytest.mark.parametrize("name", ["erf", "gamma", "atan"])
def test_interval_versions_enclose_mpmaths_values_tightly(name):
    f = getattr(mpmath, name)
    g = catalogue._iv_point(f)  # built here, so its code runs under the test
    assert INTERVAL_FUNCTIONS[name] is not None
    saved = iv.prec
    try:
        iv.prec = 128
        for a, b in [(0.5, 0.5 + 2**-100), (1.25, 1.25 + 2**-90), (2.0, 2.0)]:
            y = g(iv.mpf([a, b]))
            with mpmath.workprec(300):
                for x in (mpmath.mpf(a), mpmath.mpf(b), (mpmath.mpf(a) + mpmath.mpf(b)) / 2):
                    assert y.a <= f(x) <= y.b, (name, a, b)
            width = mpmath.mpf(y.b) - mpmath.mpf(y.a)
            assert width <= abs(mpmath.mpf(y.b)) * 2.0**-80, (name, a, b, width)
    finally:
        iv.prec = saved


def test_polygamma_interval_takes_its_order_as_an_integer():
    saved = iv.prec
    try:
        iv.prec = 128
        y = INTERVAL_FUNCTIONS["polygamma"](iv.mpf(0), iv.mpf([2, 2]))  # digamma(2) = 1 - euler
        with mpmath.workprec(300):
            assert y.a <= 1 - mpmath.euler <= y.b
    finally:
        iv.prec = saved


def test_family_parameters_are_read_from_values_left_of_zero():
    assert FIT["leaky_relu"]({-2.0: -0.02, 0.5: 0.5}) == 0.01
    assert FIT["leaky_relu"]({0.5: 0.5, 2.0: 2.0}) is None  # no negative point: no slope to read
    assert FIT["elu"]({-1.0: 1.5 * math.expm1(-1.0), 1.0: 1.0}) == 1.5
    assert FIT["elu"]({1.0: 1.0}) is None


def test_the_names_are_the_rows():
    names = catalogue_names()
    assert names == [spec.name for spec in CATALOGUE] and len(set(names)) == len(names)
    assert {"ln", "reLU"}.isdisjoint(names)  # aliases are found by behaviour, not listed
    assert known("gelu").name == "gelu" and known("exp") is CATALOGUE[1]


def test_an_interval_over_a_minimum_reaches_down_to_the_middle_value():
    # gamma has its minimum at 1.4616...; on [1.4, 1.5] both ends lie above gamma(1.45), and the
    # middle point is what brings the interval's lower end down to it (hand values: mpmath at 300 bits)
    g = catalogue._iv_point(mpmath.gamma)
    saved = iv.prec
    try:
        iv.prec = 128
        y = g(iv.mpf([1.4, 1.5]))
        with mpmath.workprec(300):
            lo, hi = mpmath.mpf(y.a), mpmath.mpf(y.b)
            middle, left = mpmath.gamma(mpmath.mpf(1.45)), mpmath.gamma(mpmath.mpf(1.4))
            assert lo <= middle and middle - lo < mpmath.mpf(2) ** -100  # no lower than the middle needs
            assert hi >= left and hi - left < mpmath.mpf(2) ** -100  # the left end is the highest
    finally:
        iv.prec = saved


def test_the_exact_sign_is_minus_one_zero_or_one():
    sign = EXACT_FUNCTIONS["sign"]
    assert [sign(Fraction(x)) for x in ("-5/2", "-1/3", "0", "1/3", "5/2")] == [-1, -1, 0, 1, 1]
    assert EXACT_FUNCTIONS["Abs"](Fraction(-2, 3)) == Fraction(2, 3)


def test_a_family_parameter_is_not_read_from_a_value_at_zero():
    # the point furthest left is 0: no slope to read there (and no division by it)
    assert FIT["leaky_relu"]({0.0: 0.0, 1.5: 1.5}) is None
    assert FIT["elu"]({0.0: 0.0, 1.5: 1.5}) is None
    assert FIT["leaky_relu"]({-0.5: -0.05, -3.0: -0.3}) == 0.1  # the leftmost point, listed last


def test_interval_versions_evaluate_with_20_guard_bits_and_widen_by_2_to_the_4_minus_prec(monkeypatch):
    # polygamma is looked up in mpmath at each call: a spy there sees the working precision f runs at
    seen = []
    polygamma = mpmath.polygamma

    def spy(n, x):
        seen.append(mpmath.mp.prec)
        return polygamma(n, x)

    monkeypatch.setattr(mpmath, "polygamma", spy)
    saved = iv.prec
    try:
        iv.prec = 128
        INTERVAL_FUNCTIONS["polygamma"](iv.mpf(0), iv.mpf([2, 2]))
        assert seen == [148, 148, 148]  # both ends and the middle, each at 128 + 20 bits
        # a point interval: lo = hi = erf(0.5), each moved by 2 |erf(0.5)| 2**(4 - 128) = |erf(0.5)| 2**-123,
        # so the width is 2**-122 of the value (to the outward rounding at 128 bits: well under 1 %)
        y = INTERVAL_FUNCTIONS["erf"](iv.mpf([0.5, 0.5]))
        with mpmath.workprec(300):
            relative = (mpmath.mpf(y.b) - mpmath.mpf(y.a)) / mpmath.erf(mpmath.mpf(0.5))
            assert abs(relative / mpmath.mpf(2) ** -122 - 1) < 0.01, relative
    finally:
        iv.prec = saved


def test_silu_takes_its_form_that_cannot_overflow_below_minus_700():
    # x / (1 + e^-x) above, x e^x below (e^-x overflows below -709.78); the two differ by an ulp at
    # -700.1, and at -700 itself they give the same float
    silu = known("silu")
    assert silu.num([-700.1], None) == -700.1 * math.exp(-700.1) != -700.1 / (1 + math.exp(700.1))
    assert silu.num([-699.9], None) == -699.9 / (1 + math.exp(699.9))
