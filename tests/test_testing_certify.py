"""The certified reference (autograd.testing.certify) at cancellation-heavy points, judged by
values the code does not compute: mpmath at 200 digits with closed forms that do not cancel
(log1p, expm1, erfc, ncdf, ...), written here as literals, or plain Fraction arithmetic.

The reference must give the float these round to, exactly: a wrong reference is a false alarm
on a correct engine, or a false pass on a wrong one.  A value it cannot certify raises
ReferenceUnresolved, and the edge probe then reports the point inconclusive, never a verdict.
"""

import math
from fractions import Fraction

import pytest
import sympy

import autograd
from autograd.testing import UNDEFINED, ReferenceUnresolved, certify, run_check
from autograd.testing.findings import DEFECT_KINDS
from autograd.testing.ops import OPS, registered
from autograd.testing.ops.catalogue import known
from tests.unsettled import HIDDEN_ZERO, HIDDEN_ZERO_OP

X, Y, Z = sympy.symbols("x y z", real=True)


def expression(row, const=None, n=1):
    symbols = (X, Y, Z)[:n]
    return symbols, row.sym(list(symbols), const)


def value_of(row, point, const=None, derivative=None):
    symbols, expr = expression(row, const, len(point))
    if derivative is not None:
        expr = sympy.diff(expr, symbols[derivative])
    (found,) = certify(symbols, [expr], point)
    return found


# ---------------------------------------------------------------------- the catalogue
# (function, point, what the derivative is taken in or None, the float the exact value rounds to
#  from mpmath at 200 digits of a form that does not cancel, its leading digits)
CATALOGUE_CASES = [
    ("gelu", -16.63497187569737, None, -3.234989996488556e-61),  # x ncdf(x): -3.2349899964885560779e-61
    ("gelu", -16.63497187569737, 0, -5.381258682993238e-60),  # ncdf + x npdf: -5.3812586829932381932e-60
    ("sin", 3.141592653589793, None, 1.2246467991473532e-16),  # 1.2246467991473531772e-16
    ("cos", 1.5707963267948966, None, 6.123233995736766e-17),  # 6.1232339957367658861e-17
    ("tan", 1.5707963267948966, None, 1.633123935319537e16),  # 16331239353195369.756
    ("sinh", 1e-20, None, 1e-20),  # (exp(x) - exp(-x)) / 2 cancels: sinh 9.9999999999999994515e-21
    ("sinh", 1e-300, None, 1e-300),  # 60 digits gave 0.0 here: 1e-300 + 1.7e-901
    ("cosh", 1e-8, None, 1.0),  # 1.00000000000000005
    ("atan", 1e300, None, 1.5707963267948966),  # pi / 2 - 1e-300
    ("log1p", 1e-300, None, 1e-300),  # log(1 + x) cancels: log1p 1.0000000000000000251e-300
    ("expm1", 1e-20, None, 1e-20),  # exp(x) - 1 cancels: expm1 9.9999999999999994516e-21
    ("expm1", -1e-300, None, -1e-300),  # 60 digits gave 0.0 here: -1e-300 + 5e-601
    ("softplus", -50.0, None, 1.9287498479639178e-22),  # log1p(exp(x)): 1.928749847963917783e-22
    ("softsign", -1e-300, None, -1e-300),  # -1.0000000000000000251e-300
    ("silu", -40.0, None, -1.6993417021166355e-16),  # x e^x / (1 + e^x): -1.6993417021166355909e-16
    ("erf", 1e-300, None, 1.1283791670955126e-300),  # 1.1283791670955126022e-300
    ("erf", -6.0, None, -1.0),  # -1 + erfc(6) = -1 + 2.15e-17: below half an ulp of 1
    ("gamma", 1.0000000000000002, None, 0.9999999999999999),  # 0.99999999999999987183
    ("sqrt", 5e-324, None, 2.2227587494850775e-162),  # 2.2227587494850774834e-162
    ("elu", -1e-20, None, -1e-20),  # exp(x) - 1 cancels: expm1 -9.9999999999999994515e-21
    ("tanh", 1e-20, None, 1e-20),  # by 1 - 2 / (exp(2x) + 1), which cancels: 9.9999999999999994515e-21
    ("tanh", 20.0, 0, 1.6993417021166355e-17),  # 1 - tanh**2 cancels: 1/cosh**2 1.6993417021166355837e-17
    ("sigmoid", -745.0, None, 5e-324),  # 2.8223507304719370764e-324: rounds up to the least subnormal
    ("sigmoid", 40.0, 0, 4.248354255291589e-18),  # e^-x / (1 + e^-x)**2: 4.2483542552915889592e-18
    ("log", 1.0000000000000002, None, 2.2204460492503128e-16),  # 2.2204460492503128343e-16
    ("exp", -745.0, None, 5e-324),  # 2.8223507304719370764e-324
    ("exp", 1e-20, None, 1.0),
    ("relu", -1e-300, None, 0.0),
    ("neg", 5e-324, None, -5e-324),
    ("pos", -5e-324, None, -5e-324),
    ("abs", -5e-324, None, 5e-324),
    (
        "leaky_relu",
        -1e-300,
        None,
        -1.0000000000000001e-302,
    ),  # 0.01 (the float) * -1e-300: -1.0000000000000000459e-302
]


@pytest.mark.parametrize(("name", "x", "derivative", "want"), CATALOGUE_CASES)
def test_each_catalogue_function_is_certified_where_its_expression_cancels(name, x, derivative, want):
    row = known(name)
    const = row.consts[0] if row.consts else None
    assert float(value_of(row, (x,), const, derivative)) == want


def test_every_case_is_a_catalogue_function():
    # every row's own value and slope at a point where they cancel: tests/test_testing_catalogue_certified.py
    from autograd.testing.ops.catalogue import catalogue_names

    assert {name for name, *_ in CATALOGUE_CASES} <= set(catalogue_names())


# ---------------------------------------------------------------------- the op table
def exactly(*xs):
    return [Fraction(x) for x in xs]


# (op, constant, point, derivative or None, expected: a float from mpmath at 200 digits, or
# the exact Fraction, computed here from the point's own rationals)
a, b = exactly(1.0, -0.9999999999999999)
TABLE_CASES = [
    ("add", None, (1.0, -0.9999999999999999), None, a + b),
    ("sub", None, (1e16, 9999999999999998.0), None, Fraction(2)),
    ("mul", None, (3.0, 1 / 3), None, 3 * Fraction(1 / 3)),
    ("div", None, (0.1, 0.30000000000000004), 1, -Fraction(0.1) / Fraction(0.30000000000000004) ** 2),
    ("neg", None, (5e-324,), None, Fraction(-5e-324)),
    ("addc", 1, (-0.9999999999999999,), None, 1 + Fraction(-0.9999999999999999)),
    ("radd", 0.25, (-0.25000000000000006,), None, Fraction(0.25) + Fraction(-0.25000000000000006)),
    ("rsub", 1, (0.9999999999999999,), None, 1 - Fraction(0.9999999999999999)),
    ("subc", 0.5, (0.5000000000000001,), None, Fraction(0.5000000000000001) - Fraction(0.5)),
    ("mulc", 0.5, (5e-324,), None, Fraction(5e-324) / 2),  # exactly half the least subnormal
    ("vmulc", 1.5, (1 / 3,), None, Fraction(1.5) * Fraction(1 / 3)),
    ("rdiv", 0.5, (0.30000000000000004,), 0, -Fraction(0.5) / Fraction(0.30000000000000004) ** 2),
    ("divc", -4, (1e-300,), None, Fraction(1e-300) / -4),
    ("powc", 1.5, (1.0000000000000002,), None, 1.0000000000000004),  # x**c near 1: 1.0000000000000003331
    ("powc", 1.5, (1.0000000000000002,), 0, 1.5000000000000002),  # 1.5 x**0.5: 1.5000000000000001665
    ("powc", Fraction(1, 2), (5e-324,), None, 2.2227587494850775e-162),
    ("rpow", 2, (-1074.0,), None, 5e-324),  # 2**-1074, the least subnormal
    ("rpow", 2, (1e-17,), 0, 0.6931471805599453),  # log(2) 2**x: 0.69314718055994531422
    ("vpow", None, (1.0000000000000002, 1e15), None, 1.2486270715390861),  # 1.2486270715390861502
    (
        "vpow",
        None,
        (1.0000000000000002, 1e15),
        1,
        2.7725090479859514e-16,
    ),  # x**y log x: 2.77250904798595157e-16
    ("exp", None, (-745.0,), None, 5e-324),
    ("log", None, (1.0000000000000002,), None, 2.2204460492503128e-16),
    ("tanh", None, (1e-20,), None, 1e-20),
    ("tanh", None, (20.0,), 0, 1.6993417021166355e-17),
    ("relu", None, (-0.0,), None, Fraction(0)),
    ("sigmoid", None, (40.0,), 0, 4.248354255291589e-18),
    ("vsum", None, (1e16, -9999999999999998.0), None, Fraction(2)),
    ("dot", None, (100000001.0, 99999999.0, -1e16), None, Fraction(-1)),  # x*y + z: (1e8+1)(1e8-1) - 1e16
]


def table_value(op, const, point, derivative):
    symbols = (X, Y, Z)[: len(point)]
    expr = OPS[op].sym(list(symbols), const)
    if derivative is not None:
        expr = sympy.diff(expr, symbols[derivative])
    (found,) = certify(symbols, [expr], point)
    return found


@pytest.mark.parametrize(("op", "const", "point", "derivative", "want"), TABLE_CASES)
def test_each_op_of_the_table_is_certified_at_a_cancellation(op, const, point, derivative, want):
    found = table_value(op, const, point, derivative)
    if isinstance(want, Fraction):  # a rational op: the exact value itself
        assert found.exact and found.value == want
    else:
        assert float(found) == want


def test_every_op_of_the_table_has_a_cancellation_case():
    assert set(OPS) == {op for op, *_ in TABLE_CASES}


# ---------------------------------------------------------------------- no finite real value
@pytest.mark.parametrize(
    ("expr", "point"),
    [
        (sympy.log(X), (0.0,)),  # a pole
        (1 / X, (0.0,)),
        (X**Y, (-1.0, 0.5)),  # a complex value
        (X**Y * sympy.log(X), (-1.0, 1.5)),  # pi in complex arithmetic: no real value all the same
        (sympy.sqrt(X), (-1e-300,)),
    ],
)
def test_a_pole_or_a_complex_value_is_undefined_not_unresolved(expr, point):
    symbols = (X, Y)[: len(point)]
    assert certify(symbols, [expr], point) == (UNDEFINED,)


def test_a_partial_without_a_value_leaves_the_others_certified():
    # sqrt at 0: the value is 0, its derivative 1 / (2 sqrt x) has no finite value
    value, partial = certify((X,), [sympy.sqrt(X), sympy.diff(sympy.sqrt(X), X)], (0.0,))
    assert value.value == 0 and partial is UNDEFINED


def test_a_value_beyond_the_floats_is_returned_for_the_caller_to_round():
    (found,) = certify((X,), [sympy.exp(X)], (710.0,))
    assert found.defined and found.value > 2**1024  # e**710 = 2.2339...e308


def test_a_point_that_is_not_a_finite_number_is_refused_naming_it():
    with pytest.raises(ValueError, match=r"inf is not a finite number"):
        certify((X,), [sympy.exp(X)], (math.inf,))


# ---------------------------------------------------------------------- unresolved
def test_a_value_no_precision_settles_raises_reference_unresolved():
    with pytest.raises(ReferenceUnresolved, match="did not settle") as info:
        certify((X,), [HIDDEN_ZERO], (0.5,))
    assert "8192 bits" in info.value.reason


@pytest.mark.slow
def test_the_edge_probe_reports_an_uncertifiable_point_inconclusive_never_a_verdict():
    # x + HIDDEN_ZERO is x: at no point can its value be certified
    with registered(HIDDEN_ZERO_OP):
        out = run_check("edge_points", autograd)
    mine = [f for f in out.findings if f.op == "test_hidden_zero"]
    assert [f.kind for f in mine] == ["inconclusive"]  # its points, folded into one finding
    reason = "the reference did not settle: the intervals are still wide at 8192 bits"
    assert mine[0].summary.startswith(f"x * 1.0 at x = 1.0: no certified reference ({reason}); not judged")
    assert out.inconclusive >= 1 and not any(f.kind in DEFECT_KINDS for f in out.findings)


# ---------------------------------------------------------------------- the edge probe on gelu
@pytest.mark.slow
def test_a_correct_gelu_is_no_defect_at_the_edges():
    # the 60-digit reference took 1 + erf(x / sqrt 2) at -16.63 for 2e-61 (true: 1e-61) and
    # reported this engine's correct -3.2349899964885561e-61 as a wrong value
    out = run_check("edge_points", "tests.engines.gelu_accurate")
    assert out.status == "passed"
    assert not [f for f in out.findings if f.kind in DEFECT_KINDS or f.kind == "inconclusive"]


@pytest.mark.slow
def test_the_textbook_gelu_is_wrong_where_its_value_is_still_a_normal_float():
    # x / 2 * (1 + erf(x / sqrt 2)) gives -0.0 where gelu is the least normal float: the point
    # where gelu leaves the normal floats, -37.615868313955986 (by mpmath, x ncdf(x) at 200 digits:
    # -2.2250738585077190e-308, normal: at least 2.2250738585072014e-308)
    out = run_check("edge_points", "tests.engines.gelu_cancels")
    (wrong,) = [f for f in out.findings if f.kind == "wrong_value"]
    assert wrong.summary == (
        "x.gelu() at x = -37.615868313955986: value -0.0, expected -2.225073858507719e-308"
    )


# ---------------------------------------------------------------------- no interval version
def test_a_function_without_an_interval_version_is_certified_by_doubling_point_evaluations():
    # log(gamma(x)) near 1 cancels: loggamma(1 + 2**-52) = -1.281676242696000840264646e-16 (mpmath,
    # 200 digits); mpmath.iv has no loggamma, so two point evaluations must agree
    (found,) = certify((X,), [sympy.loggamma(X)], (1.0000000000000002,))
    assert not found.exact and float(found) == -1.2816762426960008e-16
    assert 0 < found.radius <= abs(found.value) * 2.0**-70
    assert certify((X,), [sympy.loggamma(X)], (0.0,)) == (UNDEFINED,)  # a pole
