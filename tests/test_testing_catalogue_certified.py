"""Every catalogue row certified where its expression cancels, and its three descriptions agreeing.

``certify`` must give each row's value and first derivative at a point of its own where a plain
evaluation loses digits (logit near 1/2, acosh near 1, lgamma near 1 and 2, digamma at its root,
erfc and gelu far out, ...): the float the exact number rounds to, exactly.  The expected numbers
are computed here by mpmath at 1000 bits from closed forms written by hand that do not cancel
(``log1p``, ``expm1``, ``2 atanh(2x - 1)``, series), never by ``certify``; where the row's plain
float formula is given, it is shown to miss that float, so the point is a hard one.

Then each row's sympy expression, float function and region must agree: inside the region sympy
has a real value and the float function is within the bound its error model states (times the
harness's safety factor, as the probes apply it) at ordinary points; where sympy has no real value
the float function refuses (raises, or gives no finite number).
"""

from __future__ import annotations

import math

import pytest
import sympy
from mpmath import mp

from autograd.testing import UNDEFINED, certify
from autograd.testing.ops import PARTNER
from autograd.testing.ops.catalogue import CATALOGUE, GAMMA_POLES, catalogue_names, known
from autograd.testing.oracles import SYMBOLIC_SAFETY

EPS = 2.0**-52
TINY = 2.0**-1074
X = sympy.symbols("x0:2", real=True)
#: selu's alpha and scale, as PyTorch writes them (made mpmath numbers at the working precision)
SELU_A, SELU_L = "1.6732632423543772848170429916717", "1.0507009873554804934193349852946"
ONE_UP, ONE_DOWN = math.nextafter(1.0, 2.0), math.nextafter(1.0, 0.0)


def _root_of_one_minus(x):
    """sqrt(1 - x^2) as sqrt((1 - x)(1 + x)), which does not cancel near 1."""
    return mp.sqrt((1 - x) * (1 + x))


def _sig(t):
    return 1 / (1 + mp.exp(-t))


def _gelu_tanh(x):
    """x sigmoid(2 z) and its slope, z = sqrt(2 / pi) (x + 0.044715 x^3) (the decimal, exactly)."""
    k, c = mp.sqrt(2 / mp.pi), mp.mpf(44715) / 10**6
    z, dz = k * (x + c * x**3), k * (1 + 3 * c * x**2)
    return x * _sig(2 * z), _sig(2 * z) + 2 * x * dz * _sig(2 * z) * _sig(-2 * z)


def _selu(x):
    scale = mp.mpf(SELU_L) * mp.mpf(SELU_A)
    return scale * mp.expm1(x), scale * mp.exp(x)


def _mish(x):
    sp = mp.log1p(mp.exp(x))
    return x * mp.tanh(sp), mp.tanh(sp) + x * _sig(x) * mp.sech(sp) ** 2


# (row, point, constant, value and slopes by hand (of mpmath numbers at 1000 bits), the row's
#  plain float formula of the value or None, ... of the first slope or None)
CASES = [
    ("neg", (5e-324,), None, lambda x: (-x, -1), None, None),
    ("exp", (-745.0,), None, lambda x: (mp.exp(x), mp.exp(x)), None, None),
    ("log", (ONE_UP,), None, lambda x: (mp.log1p(x - 1), 1 / x), None, None),
    ("tanh", (20.0,), None, lambda x: (mp.tanh(x), mp.sech(x) ** 2), None, lambda x: 1 - math.tanh(x) ** 2),
    ("relu", (-1e-300,), None, lambda x: (0, 0), None, None),
    ("sigmoid", (40.0,), None, lambda x: (_sig(x), _sig(x) * _sig(-x)), None,
     lambda x: (1 / (1 + math.exp(-x))) * (1 - 1 / (1 + math.exp(-x)))),
    ("pos", (-5e-324,), None, lambda x: (x, 1), None, None),
    ("abs", (-5e-324,), None, lambda x: (-x, -1), None, None),
    ("sqrt", (5e-324,), None, lambda x: (mp.sqrt(x), 1 / (2 * mp.sqrt(x))), None, None),
    ("sin", (math.pi,), None, lambda x: (mp.sin(x), mp.cos(x)), None, None),
    ("cos", (math.pi / 2,), None, lambda x: (mp.cos(x), -mp.sin(x)), None, None),
    ("tan", (math.pi / 2,), None, lambda x: (mp.tan(x), 1 / mp.cos(x) ** 2), None, None),
    ("sinh", (1e-20,), None, lambda x: (x + x**3 / 6, mp.cosh(x)), lambda x: (math.exp(x) - math.exp(-x)) / 2,
     None),
    ("cosh", (1e-8,), None, lambda x: (mp.cosh(x), x + x**3 / 6), None,
     lambda x: (math.exp(x) - math.exp(-x)) / 2),
    ("atan", (1e10,), None, lambda x: (mp.pi / 2 - mp.atan(1 / x), 1 / (1 + x * x)), None, None),
    ("log1p", (1e-300,), None, lambda x: (x - x * x / 2, 1 / (1 + x)), lambda x: math.log(1 + x), None),
    ("expm1", (1e-20,), None, lambda x: (x + x * x / 2, mp.exp(x)), lambda x: math.exp(x) - 1, None),
    ("softplus", (-50.0,), None, lambda x: (mp.log1p(mp.exp(x)), _sig(x)),
     lambda x: math.log(1 + math.exp(x)), None),
    ("softsign", (-1e-300,), None, lambda x: (x / (1 - x), 1 / (1 - x) ** 2), None, None),
    ("gelu", (-16.63497187569737,), None,
     lambda x: (x * mp.ncdf(x), mp.ncdf(x) + x * mp.npdf(x)),
     lambda x: x / 2 * (1 + math.erf(x / math.sqrt(2))), None),
    ("silu", (-40.0,), None, lambda x: (x * _sig(x), _sig(x) * (1 + x * _sig(-x))), None, None),
    ("erf", (1e-300,), None, lambda x: (2 * x / mp.sqrt(mp.pi), 2 / mp.sqrt(mp.pi)), None, None),
    ("gamma", (ONE_UP,), None, lambda x: (mp.gamma(x), mp.gamma(x) * mp.digamma(x)), None, None),
    ("leaky_relu", (-1e-300,), 0.01, lambda x: (mp.mpf(0.01) * x, mp.mpf(0.01)), None, None),
    ("elu", (-1e-20,), 1.0, lambda x: (mp.expm1(x), mp.exp(x)), lambda x: math.exp(x) - 1, None),
    # -------------------------------------------------------------- the rows added with them
    ("rsqrt", (1e-200,), None, lambda x: (1 / mp.sqrt(x), -1 / (2 * x * mp.sqrt(x))), None, None),
    ("reciprocal", (1e-154,), None, lambda x: (1 / x, -1 / x**2), None, None),
    ("square", (1e-160,), None, lambda x: (x * x, 2 * x), None, None),
    # x ** (1/3) errs by |log x| / 12 eps from its rounded exponent: 57 eps at 1e-300
    ("cbrt", (-1e-300,), None, lambda x: (-mp.cbrt(-x), 1 / (3 * mp.cbrt(-x) ** 2)),
     lambda x: -(abs(x) ** (1 / 3)), None),
    ("asin", (1 - 1e-9,), None, lambda x: (mp.atan2(x, _root_of_one_minus(x)), 1 / _root_of_one_minus(x)),
     None, lambda x: 1 / math.sqrt(1 - x * x)),
    ("acos", (1 - 1e-9,), None, lambda x: (2 * mp.asin(mp.sqrt((1 - x) / 2)), -1 / _root_of_one_minus(x)),
     lambda x: math.pi / 2 - math.asin(x), None),
    ("asinh", (-1e5,), None, lambda x: (-mp.log(mp.sqrt(x * x + 1) - x), 1 / mp.sqrt(x * x + 1)),
     lambda x: math.log(x + math.sqrt(x * x + 1)), None),
    ("acosh", (ONE_UP,), None,
     lambda x: (mp.log1p((x - 1) + mp.sqrt((x - 1) * (x + 1))), 1 / mp.sqrt((x - 1) * (x + 1))),
     lambda x: math.log(x + math.sqrt(x * x - 1)), None),
    ("atanh", (1e-10,), None, lambda x: (mp.log1p(2 * x / (1 - x)) / 2, 1 / ((1 - x) * (1 + x))),
     lambda x: math.log((1 + x) / (1 - x)) / 2, None),
    ("log2", (ONE_UP,), None, lambda x: (mp.log1p(x - 1) / mp.log(2), 1 / (x * mp.log(2))), None, None),
    ("log10", (ONE_DOWN,), None, lambda x: (mp.log1p(x - 1) / mp.log(10), 1 / (x * mp.log(10))), None, None),
    ("exp2", (1e-17,), None, lambda x: (mp.exp(x * mp.log(2)), mp.exp(x * mp.log(2)) * mp.log(2)), None,
     None),
    ("logsigmoid", (200.0,), None, lambda x: (-mp.log1p(mp.exp(-x)), _sig(-x)),
     lambda x: math.log(1 / (1 + math.exp(-x))), lambda x: 1 - 1 / (1 + math.exp(-x))),
    ("logit", (0.5000000001,), None, lambda x: (2 * mp.atanh(2 * x - 1), 1 / (x * (1 - x))),
     lambda x: math.log(x / (1 - x)), None),
    ("gelu_tanh", (-10.0,), None, _gelu_tanh,
     lambda x: x / 2 * (1 + math.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3))), None),
    ("selu", (-1e-20,), None, _selu, lambda x: 1.7580993408473766 * (math.exp(x) - 1), None),
    ("mish", (-40.0,), None, _mish, lambda x: x * math.tanh(math.log(1 + math.exp(x))), None),
    ("tanhshrink", (1e-10,), None, lambda x: (x**3 / 3 - 2 * x**5 / 15 + 17 * x**7 / 315, mp.tanh(x) ** 2),
     lambda x: x - math.tanh(x), None),
    ("relu6", (6 - 2.0**-50,), None, lambda x: (x, 1), None, None),
    ("hardtanh", (-1 + 2.0**-52,), None, lambda x: (x, 1), None, None),
    ("hardsigmoid", (-3 + 2.0**-51,), None, lambda x: ((x + 3) / 6, mp.mpf(1) / 6), lambda x: x / 6 + 0.5,
     None),
    ("hardswish", (-1.5 + 2.0**-50,), None, lambda x: (x * (x + 3) / 6, (2 * x + 3) / 6), None,
     lambda x: x / 3 + 0.5),
    ("erfc", (26.0,), None, lambda x: (mp.erfc(x), -2 / mp.sqrt(mp.pi) * mp.exp(-x * x)),
     lambda x: 1 - math.erf(x), None),
    ("lgamma", (ONE_UP,), None, lambda x: (mp.loggamma(x), mp.digamma(x)), lambda x: math.log(math.gamma(x)),
     None),
    ("lgamma", (2 - 2.0**-51,), None, lambda x: (mp.loggamma(x), mp.digamma(x)),
     lambda x: math.log(math.gamma(x)), None),
    ("digamma", (1.4616321449683622,), None, lambda x: (mp.digamma(x), mp.polygamma(1, x)), None, None),
    ("sinc", (ONE_UP,), None,
     lambda x: (mp.sin(mp.pi * x) / (mp.pi * x), (mp.cos(mp.pi * x) - mp.sin(mp.pi * x) / (mp.pi * x)) / x),
     lambda x: math.sin(math.pi * x) / (math.pi * x), None),
    ("atan2", (1e-300, -1.5), None,
     lambda y, x: (mp.pi - mp.atan(y / -x), x / (x * x + y * y), -y / (x * x + y * y)), None, None),
    ("hypot", (1e-200, 3e-200), None, lambda x, y: (mp.hypot(x, y), x / mp.hypot(x, y), y / mp.hypot(x, y)),
     lambda x, y: math.sqrt(x * x + y * y), None),
    ("xlogy", (1.5, ONE_UP), None, lambda x, y: (x * mp.log1p(y - 1), mp.log1p(y - 1), x / y), None, None),
    # e^x + e^y = 1 nearly: the value is ln 2 + x, 2.3e-17, where a plain log(exp(x) + exp(y)) is 0.0
    ("logaddexp", (-0.6931471805599453, -0.6931471805599453), None,
     lambda x, y: (mp.log(2) + x, mp.mpf(1) / 2, mp.mpf(1) / 2),
     lambda x, y: math.log(math.exp(x) + math.exp(y)), None),
    ("maximum", (1e-300, -1e-300), None, lambda x, y: (x, 1, 0), None, None),
    ("minimum", (1e-300, -1e-300), None, lambda x, y: (y, 0, 1), None, None),
    ("celu", (-1e-20,), 0.5, lambda x: (mp.mpf(0.5) * mp.expm1(x / mp.mpf(0.5)), mp.exp(x / mp.mpf(0.5))),
     lambda x: 0.5 * (math.exp(x / 0.5) - 1), None),
    ("clip", (ONE_DOWN,), None, lambda x: (x, 1), None, None),
]  # fmt: skip


def certified(spec, point, const):
    """The row's value and partials at ``point``, by certify, as floats (None: not a finite real)."""
    symbols = X[: spec.arity]
    expr = spec.sym(list(symbols), const)
    found = certify(symbols, [expr, *(sympy.diff(expr, s) for s in symbols)], point)
    return [float(c) if c.defined else None for c in found]


@pytest.mark.parametrize(("name", "point", "const", "exact", "plain", "plain_slope"), CASES,
                         ids=[f"{c[0]}-{c[1][0]!r}" for c in CASES])  # fmt: skip
def test_each_rows_value_and_slope_are_certified_where_they_cancel(
    name, point, const, exact, plain, plain_slope
):
    with mp.workprec(1000):
        want = [float(v) for v in exact(*(mp.mpf(x) for x in point))]
    assert certified(known(name), point, const) == want
    # the row's plain float formulas lose digits here: the point is a hard one
    if plain is not None:
        assert plain(*point) != want[0], (name, plain(*point), want[0])
    if plain_slope is not None:
        assert plain_slope(*point) != want[1], (name, plain_slope(*point), want[1])


def test_every_row_has_a_case_and_lgamma_one_near_1_and_one_near_2():
    assert {name for name, *_ in CASES} == set(catalogue_names())
    assert sorted(point[0] for name, point, *_ in CASES if name == "lgamma") == [ONE_UP, 2 - 2.0**-51]


def test_a_53_bit_digamma_misses_its_root_by_far_more_than_an_ulp():
    # mpmath's own digamma at 53 bits (20 guard bits) near 1.4616...: its terms are of order 1 and its
    # value 1e-16, so its 73 bits leave a few digits; certify's interval raises the bits it needs
    x = 1.4616321449683622
    with mp.workprec(1000):
        want = mp.digamma(x)
    with mp.workprec(53):
        plain = mp.digamma(x)
    assert abs(plain - want) > abs(want) * 2.0**-40
    assert certified(known("digamma"), (x,), None)[0] == float(want)


# ---------------------------------------------------------------------- sympy, floats and region agree
#: Ordinary points each operand's region is probed at (the other operand at PARTNER).
GRID = (-50.5, -7.3, -3.7, -2.5, -1.3, -0.77, -0.31, -0.05, 0.0, 0.004, 0.13, 0.5, 0.77, 0.999, 1.3, 2.6, 6.1,
        19.5, 47.2)  # fmt: skip
#: ... and beside it, where a row's region leaves out a pole or where the function is no real number.
BEYOND = (-1e300, -4.0, -3.0, -2.0, -1.0, 1.0, 1e300)
#: Where a region leaves out points at which its function is real: gamma's is the positive reals,
#: lgamma's and digamma's stop at -GAMMA_POLES (a region is a finite union of intervals).
CONSERVATIVE = {
    "gamma": lambda x: x < 0, "lgamma": lambda x: x < -GAMMA_POLES, "digamma": lambda x: x < -GAMMA_POLES,
}  # fmt: skip


def points(spec, xs):
    """(point, moved operand) for each x of ``xs`` and each operand, the others at PARTNER."""
    for i in range(spec.arity):
        for x in xs:
            yield tuple(x if j == i else PARTNER for j in range(spec.arity)), i


def inside(spec, const, point, i):
    return sympy.Rational(point[i]) in spec.region(const)[i]


def bound(spec, point, const, value):
    """The forward tolerance the edge probe gives the row's error model at ``point``."""
    return SYMBOLIC_SAFETY * (EPS * spec.fwd_err(list(point), const, value) + TINY)


@pytest.mark.parametrize("name", catalogue_names())
def test_each_rows_float_function_is_within_its_error_model_of_sympy_inside_its_region(name):
    spec = known(name)
    judged = 0
    for const in spec.consts or (None,):
        expr = spec.sym(list(X[: spec.arity]), const)
        for point, i in points(spec, GRID):
            if not inside(spec, const, point, i):
                continue
            (ref,) = certify(X[: spec.arity], [expr], point)
            assert ref.defined, (name, point)  # every point of the region has a real value
            got = spec.num(list(point), const)
            want = float(ref)
            assert abs(got - want) <= bound(spec, point, const, want), (name, point, got, want)
            judged += 1
    assert judged >= 5, name


@pytest.mark.parametrize("name", catalogue_names())
def test_each_rows_float_function_refuses_where_sympy_has_no_real_value(name):
    spec = known(name)
    for const in spec.consts or (None,):
        expr = spec.sym(list(X[: spec.arity]), const)
        for point, i in points(spec, (*GRID, *BEYOND)):
            if inside(spec, const, point, i):
                continue
            (ref,) = certify(X[: spec.arity], [expr], point)
            if ref is not UNDEFINED:  # defined, yet outside: only where a region stops short
                assert CONSERVATIVE[name](point[i]), (name, point)
                continue
            try:
                got = spec.num(list(point), const)
            except (ArithmeticError, ValueError):
                continue
            assert not math.isfinite(got), (name, point, got)


def test_the_regions_leave_out_exactly_the_poles_and_branch_points_of_their_rows():
    # a boundary point the region leaves out has no real value (a pole, or past a branch point);
    # one it keeps has one
    for spec in CATALOGUE:
        for const in spec.consts or (None,):
            expr = spec.sym(list(X[: spec.arity]), const)
            for i, region in enumerate(spec.region(const)[: spec.arity]):
                for b in region.boundary:
                    if not b.is_finite:
                        continue
                    point = tuple(float(b) if j == i else PARTNER for j in range(spec.arity))
                    (ref,) = certify(X[: spec.arity], [expr], point)
                    assert ref.defined == (b in region), (spec.name, point)


def test_lgamma_and_digamma_are_defined_between_their_first_poles_and_every_row_has_a_region_per_operand():
    region = known("lgamma").region(None)[0]
    assert all(sympy.Rational(-k) not in region for k in range(GAMMA_POLES + 1))
    assert all(sympy.Rational(1, 2) - k in region for k in range(GAMMA_POLES))  # 1/2, -1/2, -3/2, -5/2
    assert sympy.Rational(-2 * GAMMA_POLES - 1, 2) not in region  # (the finite union stops there)
    assert known("digamma").region(None) == known("lgamma").region(None)
    assert all(len(spec.region(c)) >= spec.arity for spec in CATALOGUE for c in spec.consts or (None,))
