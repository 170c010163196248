"""Unit tests of autograd.engine: values and gradients of every op, backward semantics, bad input.

Expected values come from hand calculus written out here, from exact Fraction
arithmetic, from the math module, or from sympy; never from the engine itself.
"""

import gc
import math
import os
import re
import subprocess
import sys
import tracemalloc
from fractions import Fraction as F
from pathlib import Path

import mpmath
import pytest
import sympy

from autograd import Value, dot, grad, vsum

ROOT = Path(__file__).resolve().parent.parent

# Points with awkward signs and denominators, so a wrong sign or a swapped operand shows.
POINTS = [(F(1, 3), F(-5, 7)), (2, 3), (F(-7, 2), F(4, 9)), (-4, F(11, 5))]


def grad_of(f, *xs):
    """Build f on fresh leaves, run backward, return (output data, leaf gradients)."""
    leaves = [Value(x) for x in xs]
    out = f(*leaves)
    out.backward()
    return out.data, [leaf.grad for leaf in leaves]


def assert_exact(actual, expected):
    """Equal AND still a rational (int or Fraction): no silent rounding to float."""
    assert actual == expected
    assert isinstance(actual, (int, F)) and not isinstance(actual, bool), f"{actual!r} is not exact"


def approx(x, rel=1e-12):
    return pytest.approx(x, rel=rel, abs=1e-300)


# ---------------------------------------------------------------------- leaves
def test_leaf_holds_its_number_and_zero_grad():
    v = Value(F(2, 3))
    assert v.data == F(2, 3) and v.grad == 0
    assert v.op == ""
    assert repr(v) == "Value(data=Fraction(2, 3), grad=0)"


def test_repr_names_the_op():
    assert repr(Value(2) * 3) == "Value(data=6, grad=0, op='mul')"


class Meters(float):
    """A float subclass, standing in for third-party reals such as numpy.float64."""


@pytest.mark.parametrize("x", [0, -3, 2.5, F(-1, 7), 10**30, Meters(0.5)])
def test_accepts_every_finite_real(x):
    assert Value(x).data == x
    assert (Value(x) * 2).data == 2 * x


# ---------------------------------------------------------------------- binary arithmetic, exact
@pytest.mark.parametrize("a, b", POINTS)
def test_add(a, b):
    data, grads = grad_of(lambda x, y: x + y, a, b)
    assert_exact(data, F(a) + F(b))
    assert grads == [1, 1]


@pytest.mark.parametrize("a, b", POINTS)
def test_sub(a, b):
    data, grads = grad_of(lambda x, y: x - y, a, b)
    assert_exact(data, F(a) - F(b))
    assert grads == [1, -1]


@pytest.mark.parametrize("a, b", POINTS)
def test_mul(a, b):
    data, (ga, gb) = grad_of(lambda x, y: x * y, a, b)
    assert_exact(data, F(a) * F(b))
    assert_exact(ga, F(b))
    assert_exact(gb, F(a))


@pytest.mark.parametrize("a, b", POINTS)
def test_div(a, b):
    data, (ga, gb) = grad_of(lambda x, y: x / y, a, b)
    assert_exact(data, F(a) / F(b))
    assert_exact(ga, 1 / F(b))  # d(a/b)/da = 1/b
    assert_exact(gb, -F(a) / F(b) ** 2)  # d(a/b)/db = -a/b^2


def test_int_division_is_an_exact_fraction_not_a_float():
    data, (ga, gb) = grad_of(lambda x, y: x / y, 1, 3)
    assert type(data) is F and data == F(1, 3)
    assert type(ga) is F and ga == F(1, 3)
    assert type(gb) is F and gb == F(-1, 9)


@pytest.mark.parametrize("a", [F(1, 3), -4, 0, 2.5])
def test_neg(a):
    data, (ga,) = grad_of(lambda x: -x, a)
    assert data == -a
    assert ga == -1


@pytest.mark.parametrize("a, b", [(2.5, -0.5), (1e-3, 7.0), (-3.25, 2)])
def test_float_arithmetic(a, b):
    for f, value, da, db in [
        (lambda x, y: x + y, a + b, 1, 1),
        (lambda x, y: x - y, a - b, 1, -1),
        (lambda x, y: x * y, a * b, b, a),
        (lambda x, y: x / y, a / b, 1 / b, -a / b**2),
    ]:
        data, (ga, gb) = grad_of(f, a, b)
        assert data == approx(value)
        assert ga == approx(da)
        assert gb == approx(db)


# ---------------------------------------------------------------------- powers
@pytest.mark.parametrize("a", [F(1, 3), F(-5, 7), 2, -3])
@pytest.mark.parametrize("c", [0, 1, 2, 3, -1, -2, 5])
def test_pow_by_int_is_exact(a, c):
    data, (ga,) = grad_of(lambda x: x**c, a)
    expected = F(1)
    for _ in range(abs(c)):
        expected *= F(a)
    if c < 0:
        expected = 1 / expected
    assert_exact(data, expected)
    # d(x^c)/dx = c x^(c-1), with x^(c-1) = x^c / x written out by hand
    assert_exact(ga, 0 if c == 0 else c * expected / F(a))


def test_pow_zero_exponent_at_zero_base():
    data, (ga,) = grad_of(lambda x: x**0, 0)
    assert data == 1 and ga == 0
    data, (ga,) = grad_of(lambda x: x**1, 0)
    assert data == 0 and ga == 1
    data, (ga,) = grad_of(lambda x: x**2, 0)
    assert data == 0 and ga == 0
    data, (ga,) = grad_of(lambda x: x**1.5, 0.0)  # c > 1: finite derivative 0 at x = 0
    assert data == 0 and ga == 0


@pytest.mark.parametrize("a, c", [(2.0, 0.5), (4, 1.5), (0.3, -2.5), (7.5, 3.0), (-2.0, 3.0), (-1.5, -2.0)])
def test_pow_by_float(a, c):
    data, (ga,) = grad_of(lambda x: x**c, a)
    assert data == approx(math.pow(a, c))
    assert ga == approx(c * math.pow(a, c - 1))


def test_pow_by_fraction():
    data, (ga,) = grad_of(lambda x: x ** F(2, 3), F(8, 27))
    assert data == approx(4 / 9)  # (8/27)^(2/3) = (2/3)^2
    assert ga == approx(1.0)  # (2/3) (8/27)^(-1/3) = (2/3)(3/2)
    data, (ga,) = grad_of(lambda x: x ** F(1, 2), 4)
    assert data == approx(2.0) and ga == approx(0.25)
    # A Fraction exponent that is an integer keeps a negative base legal and exact.
    data, (ga,) = grad_of(lambda x: x ** F(3), F(-2, 3))
    assert_exact(data, F(-8, 27))
    assert_exact(ga, F(4, 3))


@pytest.mark.parametrize("a, b", [(2, 3), (0.5, -1.5), (3.0, 0.25), (F(9, 4), F(1, 2))])
def test_value_pow_value(a, b):
    data, (ga, gb) = grad_of(lambda x, y: x**y, a, b)
    fa, fb = float(a), float(b)
    assert data == approx(fa**fb)
    assert ga == approx(fb * fa ** (fb - 1))  # d(a^b)/da = b a^(b-1)
    assert gb == approx(fa**fb * math.log(fa))  # d(a^b)/db = a^b ln a


@pytest.mark.parametrize("base, b", [(2, 3), (0.5, 2.0), (F(1, 3), -1), (math.e, 1.5)])
def test_constant_pow_value(base, b):
    data, (gb,) = grad_of(lambda y: base**y, b)
    fbase = float(base)
    assert data == approx(fbase ** float(b))
    assert gb == approx(fbase ** float(b) * math.log(fbase))


# ---------------------------------------------------------------------- transcendental functions
@pytest.mark.parametrize("x", [0, 1, -2.5, 0.001, F(1, 3), 700])
def test_exp(x):
    data, (g,) = grad_of(lambda v: v.exp(), x)
    assert type(data) is float
    assert data == approx(math.exp(x))
    assert g == approx(math.exp(x))


@pytest.mark.parametrize("x", [1, math.e, 0.25, F(1, 3), 1e-300, 1e300])
def test_log(x):
    data, (g,) = grad_of(lambda v: v.log(), x)
    assert data == approx(math.log(x))
    assert g == approx(1 / float(x))


@pytest.mark.parametrize("x", [0, 0.5, -2.0, F(3, 4), 19.0, -30.0])
def test_tanh(x):
    data, (g,) = grad_of(lambda v: v.tanh(), x)
    assert data == approx(math.tanh(x))
    # 1/cosh^2: a different formula from the 1 - tanh^2 a rule would use
    assert g == pytest.approx(1 / math.cosh(x) ** 2, rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("x", [0, 0.5, -2.0, F(3, 4), 30.0, -30.0])
def test_sigmoid(x):
    data, (g,) = grad_of(lambda v: v.sigmoid(), x)
    assert data == approx(1 / (1 + math.exp(-x)))
    assert g == pytest.approx(math.exp(-x) / (1 + math.exp(-x)) ** 2, rel=1e-9, abs=1e-15)


def test_sigmoid_of_zero_is_one_half():
    data, (g,) = grad_of(lambda v: v.sigmoid(), 0)
    assert data == 0.5 and g == 0.25


@pytest.mark.parametrize(
    "x, value, slope",
    [
        (3, 3, 1),
        (F(1, 2), F(1, 2), 1),
        (2.5, 2.5, 1),
        (-2, 0, 0),
        (F(-1, 3), 0, 0),
        (-2.5, 0, 0),
        (0, 0, 0),
        (0.0, 0, 0),
    ],
)
def test_relu(x, value, slope):
    data, (g,) = grad_of(lambda v: v.relu(), x)
    assert data == value and type(data) is type(x) and g == slope  # relu'(0) = 0, as in PyTorch
    assert math.copysign(1, data) == 1  # never -0.0


@pytest.mark.parametrize(
    "x",
    [1e4, -1e4, 1e308, -1e308, 10**400, -(10**400)],
    ids=["1e4", "-1e4", "1e308", "-1e308", "10**400", "-10**400"],
)
def test_tanh_and_sigmoid_are_stable_for_any_finite_input(x):
    t, (gt,) = grad_of(lambda v: v.tanh(), x)
    s, (gs,) = grad_of(lambda v: v.sigmoid(), x)
    assert t == (1.0 if x > 0 else -1.0) and gt == 0
    assert s == (1.0 if x > 0 else 0.0) and gs == 0


# ---------------------------------------------------------------------- fused n-ary ops
def test_vsum():
    a, b, c = Value(F(1, 3)), Value(-2), Value(0.5)
    out = vsum([a, b, c, 4, F(1, 6)])  # plain numbers mix in as constants
    out.backward()
    assert out.data == approx(1 / 3 - 2 + 0.5 + 4 + 1 / 6)
    assert (a.grad, b.grad, c.grad) == (1, 1, 1)
    assert_exact(vsum([a, b, 4]).data, F(7, 3))


def test_vsum_of_a_repeated_value_and_of_nothing():
    a = Value(3)
    out = vsum(a for _ in range(5))  # any iterable, here a generator
    out.backward()
    assert out.data == 15 and a.grad == 5
    empty = vsum([])
    assert empty.data == 0


def test_dot():
    w0, w1, x0, x1, b = (Value(v) for v in (F(1, 2), F(-3, 4), 5, F(2, 3), F(1, 7)))
    out = dot([w0, w1], [x0, x1], b)
    out.backward()
    assert_exact(out.data, F(1, 7) + F(1, 2) * 5 + F(-3, 4) * F(2, 3))
    assert (w0.grad, w1.grad, x0.grad, x1.grad, b.grad) == (5, F(2, 3), F(1, 2), F(-3, 4), 1)


def test_dot_with_numbers_shared_values_and_default_start():
    a, b = Value(3), Value(-2)
    out = dot([a, a, 2], [a, b, b])  # a*a + a*b + 2*b
    out.backward()
    assert out.data == 9 - 6 - 4
    assert a.grad == 2 * 3 + (-2)  # 2a + b
    assert b.grad == 3 + 2  # a + 2
    assert dot([], []).data == 0


def test_dot_equals_the_chain_of_adds_bit_for_bit():
    ws, xs = [0.1, -0.7, 0.3333, 2.5], [1.9, 0.2, -3.1, 1e-3]
    expected = 0.25
    for w, x in zip(ws, xs, strict=True):
        expected += w * x
    assert dot(ws, xs, 0.25).data == expected


def test_dot_length_mismatch():
    with pytest.raises(ValueError, match=r"dot: length mismatch, 2 weights and 3 inputs"):
        dot([1, 2], [1, 2, 3])


# ---------------------------------------------------------------------- reflected and mixed expressions
@pytest.mark.parametrize("v", [F(2, 3), 5, -1.5])
def test_reflected_ops(v):
    cases = [
        (lambda x: 2 + x, 2 + F(v), 1),
        (lambda x: 2 - x, 2 - F(v), -1),
        (lambda x: F(1, 2) - x, F(1, 2) - F(v), -1),
        (lambda x: 3 * x, 3 * F(v), 3),
        (lambda x: 1 / x, 1 / F(v), -1 / F(v) ** 2),
        (lambda x: 7 / x, 7 / F(v), -7 / F(v) ** 2),
    ]
    for f, value, slope in cases:
        data, (g,) = grad_of(f, v)
        if isinstance(v, float):
            assert data == approx(float(value)) and g == approx(float(slope))
        else:
            assert_exact(data, value)
            assert_exact(g, slope)


def test_reflected_pow():
    data, (g,) = grad_of(lambda x: 2**x, 3)
    assert data == 8 and g == approx(8 * math.log(2))
    data, (g,) = grad_of(lambda x: 0.5**x, -2.0)
    assert data == approx(4.0) and g == approx(4.0 * math.log(0.5))


def test_mixed_numbers_and_values():
    # f(x) = (3x + 1) / 2 - x^2 + 5 / x ;  f'(x) = 3/2 - 2x - 5/x^2
    x0 = F(2, 5)
    data, (g,) = grad_of(lambda x: (3 * x + 1) / 2 - x**2 + 5 / x, x0)
    assert_exact(data, (3 * x0 + 1) / 2 - x0**2 + 5 / x0)
    assert_exact(g, F(3, 2) - 2 * x0 - 5 / x0**2)
    # the same with floats and float constants mixed in
    data, (g,) = grad_of(lambda x: 0.5 * x - 1.25 + x * 2.0, 1.5)
    assert data == approx(0.5 * 1.5 - 1.25 + 3.0) and g == approx(2.5)


def test_sympy_oracle_on_a_rational_expression():
    a_s, b_s = sympy.symbols("a b")
    expr = (a_s * b_s - a_s / (b_s + 1)) ** 3 / (a_s - b_s * b_s) + 2 / a_s
    at = {a_s: sympy.Rational(1, 3), b_s: sympy.Rational(-5, 7)}

    def exact(r):
        r = sympy.nsimplify(r)
        assert r.is_Rational
        return F(int(r.p), int(r.q))

    a, b = Value(F(1, 3)), Value(F(-5, 7))
    out = (a * b - a / (b + 1)) ** 3 / (a - b * b) + 2 / a
    out.backward()
    assert_exact(out.data, exact(expr.subs(at)))
    assert_exact(a.grad, exact(sympy.diff(expr, a_s).subs(at)))
    assert_exact(b.grad, exact(sympy.diff(expr, b_s).subs(at)))


# ---------------------------------------------------------------------- gradient flow
def test_article_worked_example():
    a, b = Value(2), Value(3)
    c = a * b
    d = c + a
    d.backward()
    assert (d.data, c.data) == (8, 6)
    assert (a.grad, b.grad, c.grad, d.grad) == (4, 2, 1, 1)


def test_value_used_twice_in_one_op():
    a = Value(3)
    (a + a).backward()
    assert a.grad == 2
    b = Value(3)
    (b * b).backward()
    assert b.grad == 6  # 2b


def test_shares_are_added_not_compounded():
    # the article's first bug: a = 2, b = a + a, c = b * b gives dc/da = 2b * 2 = 16 (not 72)
    a = Value(2)
    b = a + a
    c = b * b
    c.backward()
    assert (c.data, b.grad, a.grad) == (16, 8, 16)


def test_fan_out_waits_for_every_consumer():
    # the article's third bug: h feeds two ops; dy/da = 2 + 3 = 5, exactly, every time
    a = Value(2)
    h = a + 1
    y = h * 2 + h * 3
    y.backward()
    assert (h.grad, a.grad) == (5, 5)


def test_interior_node_reached_on_paths_of_different_length():
    # y = h + 2h*h where h = x*x: h is reached directly and through a deeper branch
    x = Value(F(3, 2))
    h = x * x
    y = h + (h * 2) * h
    y.backward()
    hv = F(9, 4)
    assert_exact(h.grad, 1 + 4 * hv)
    assert_exact(x.grad, (1 + 4 * hv) * 2 * F(3, 2))


def test_backward_of_a_lone_leaf():
    v = Value(7)
    v.backward()
    assert v.grad == 1
    v.backward()
    assert v.grad == 2  # leaves accumulate, even as the output


def test_backward_twice_doubles_leaves_and_keeps_interior_at_one_pass():
    a, b = Value(F(1, 3)), Value(F(-5, 7))
    num = a * b - a / (b + 1)
    den = a - b * b
    out = num**3 / den + 2 / a
    out.backward()
    first_leaves = (a.grad, b.grad)
    first_interior = (num.grad, den.grad, out.grad)
    out.backward()
    assert (a.grad, b.grad) == (2 * first_leaves[0], 2 * first_leaves[1])
    assert (num.grad, den.grad, out.grad) == first_interior
    assert out.grad == 1


def test_backward_twice_on_the_fan_out_graph():
    a = Value(2.0)
    h = a + 1
    y = h * 2 + h * 3
    y.backward()
    y.backward()
    assert a.grad == 10.0  # leaf: twice 5
    assert h.grad == 5.0  # interior: the latest pass only


def test_backward_twice_doubles_float_leaves_bit_for_bit():
    # x collects three shares of 0.2.  Adding the second pass's shares one by
    # one onto the first pass's total would give 1.2000000000000002, not
    # 2 * 0.6000000000000001; each pass sums its own shares from 0 instead.
    x = Value(0.5)
    y = x * 0.2 + x * 0.2 + x * 0.2
    y.backward()
    assert x.grad == 0.2 + 0.2 + 0.2
    y.backward()
    assert x.grad == 2 * (0.2 + 0.2 + 0.2)
    assert 0.2 + 0.2 + 0.2 + 0.2 + 0.2 + 0.2 != 2 * (0.2 + 0.2 + 0.2)  # why the test can fail


def test_overflow_mid_pass_leaves_the_leaves_as_they_were():
    x, z = Value(0.5), Value(3.0)
    (z * 2).backward()
    assert z.grad == 2
    y = x**-1023 + z  # the pow rule overflows after z has received its share
    with pytest.raises(OverflowError, match="backward"):
        y.backward()
    assert (x.grad, z.grad) == (0, 2)


def test_overflow_mid_pass_restores_a_leaf_used_twice_to_its_previous_gradient():
    # z is met twice by the search (z * z); it must be saved, and restored, once
    x, z = Value(0.5), Value(3.0)
    (z * 2).backward()
    y = x**-1023 + z * z
    with pytest.raises(OverflowError, match="backward"):
        y.backward()
    assert z.grad == 2


def test_leaf_gradient_accumulating_to_minus_infinity_is_refused():
    a = Value(1.0)
    (a * -1e308).backward()
    assert a.grad == -1e308
    with pytest.raises(OverflowError, match="backward"):
        (a * -1e308).backward()  # -1e308 + -1e308 is -inf


def test_interior_gradient_belongs_to_the_latest_output():
    x = Value(2)
    h = x * 3
    (h * 5).backward()
    assert h.grad == 5 and x.grad == 15
    (h * 7).backward()
    assert h.grad == 7  # not 5 + 7
    assert x.grad == 15 + 21  # the leaf accumulates both passes


def test_resetting_leaf_grads_by_hand():
    x = Value(2)
    (x * x).backward()
    x.grad = 0
    (x * x).backward()
    assert x.grad == 4


def test_constants_do_not_change_the_gradient_of_leaves():
    x = Value(F(1, 2))
    y = (x + 1) * 2 - 3 / (x + 1) + 2**x
    y.backward()
    expected = 2 + 3 / F(3, 2) ** 2 + 2**0.5 * math.log(2)
    assert x.grad == approx(float(expected))


# ---------------------------------------------------------------------- bad input: type, message, at the op
def _log(x):
    return Value(x).log()


BAD_INPUT = [
    # non-numbers
    (lambda: Value("abc"), TypeError, ["Value", "'abc'"]),
    (lambda: Value(None), TypeError, ["Value", "None"]),
    (lambda: Value([1, 2]), TypeError, ["Value", "[1, 2]"]),
    (lambda: Value(1 + 2j), TypeError, ["Value", "(1+2j)"]),
    (lambda: Value(Value(2)), TypeError, ["Value"]),
    (lambda: Value(2) * "s", TypeError, ["mul", "'s'"]),
    (lambda: "s" * Value(2), TypeError, ["mul", "'s'"]),
    (lambda: Value(2) + None, TypeError, ["add", "None"]),
    (lambda: None + Value(2), TypeError, ["add", "None"]),
    (lambda: Value(2) - [1], TypeError, ["sub", "[1]"]),
    (lambda: [1] - Value(2), TypeError, ["sub", "[1]"]),
    (lambda: Value(2) / "x", TypeError, ["div", "'x'"]),
    (lambda: "x" / Value(2), TypeError, ["div", "'x'"]),
    (lambda: Value(2) ** "x", TypeError, ["pow", "'x'"]),
    (lambda: "x" ** Value(2), TypeError, ["pow", "'x'"]),
    (lambda: Value(2) * 1j, TypeError, ["mul", "1j"]),
    (lambda: vsum([Value(1), "a"]), TypeError, ["vsum", "'a'"]),
    (lambda: dot([1], ["a"]), TypeError, ["dot", "'a'"]),
    (lambda: dot([1], [2], None), TypeError, ["dot", "None"]),
    # bool: rejected (documented policy)
    (lambda: Value(True), TypeError, ["Value", "bool", "True", "use int(True)"]),
    (lambda: Value(2) + False, TypeError, ["add", "bool", "False", "use int(False)"]),
    (lambda: Value(2) ** True, TypeError, ["pow", "bool", "True"]),
    (lambda: True * Value(2), TypeError, ["mul", "bool", "True"]),
    # NaN and infinities: rejected (documented policy)
    (lambda: Value(math.nan), ValueError, ["Value", "nan", "not finite"]),
    (lambda: Value(math.inf), ValueError, ["Value", "inf", "not finite"]),
    (lambda: Value(-math.inf), ValueError, ["Value", "-inf", "not finite"]),
    (lambda: Value(2) * math.inf, ValueError, ["mul", "inf"]),
    (lambda: math.nan - Value(2), ValueError, ["sub", "nan"]),
    (lambda: Value(2) ** math.nan, ValueError, ["pow", "nan"]),
    (lambda: vsum([1, math.inf]), ValueError, ["vsum", "inf"]),
    # outside an op's domain
    (lambda: _log(0), ValueError, ["log", "0"]),
    (lambda: _log(-1.5), ValueError, ["log", "-1.5"]),
    (lambda: _log(F(-1, 3)), ValueError, ["log", "Fraction(-1, 3)"]),
    (lambda: (Value(1) - 1).log(), ValueError, ["log", "0"]),  # an interior node at 0
    (lambda: Value(-8) ** F(1, 3), ValueError, ["pow", "-8", "Fraction(1, 3)"]),
    (lambda: Value(-2.0) ** 0.5, ValueError, ["pow", "-2.0", "0.5"]),
    (lambda: Value(-2) ** Value(2), ValueError, ["pow", "-2", "base"]),
    (lambda: Value(0) ** Value(1.5), ValueError, ["pow", "0", "base"]),
    (lambda: (-2) ** Value(2), ValueError, ["pow", "-2"]),
    (lambda: 0 ** Value(3), ValueError, ["pow", "0"]),
    (lambda: Value(0) ** 0.5, ValueError, ["pow", "0", "0.5"]),  # infinite derivative at 0
    # division by zero
    (lambda: Value(1) / 0, ZeroDivisionError, ["div", "1", "zero"]),
    (lambda: Value(F(1, 3)) / Value(0.0), ZeroDivisionError, ["div", "Fraction(1, 3)"]),
    (lambda: 5 / Value(0), ZeroDivisionError, ["div", "5"]),
    (lambda: Value(2) / (Value(3) - 3), ZeroDivisionError, ["div", "2"]),
    (lambda: Value(0) ** -1, ZeroDivisionError, ["pow", "-1"]),
    (lambda: Value(0.0) ** -0.5, ZeroDivisionError, ["pow", "-0.5"]),
    # overflow, named after the op
    (lambda: Value(1000).exp(), OverflowError, ["exp", "1000"]),
    (lambda: Value(10**400).exp(), OverflowError, ["exp"]),
    (lambda: Value(1e308) * 10, OverflowError, ["mul", "1e+308"]),
    (lambda: Value(1e308) + 1e308, OverflowError, ["add", "1e+308"]),
    (lambda: -1e308 - Value(1e308), OverflowError, ["sub", "1e+308"]),
    (lambda: Value(1e300) / 1e-300, OverflowError, ["div", "1e+300"]),
    (lambda: Value(10.0) ** 400, OverflowError, ["pow", "10.0"]),
    (lambda: Value(2.0) ** Value(2000.0), OverflowError, ["pow", "2.0"]),
    (lambda: 10.0 ** Value(400), OverflowError, ["pow", "10.0"]),
    (lambda: vsum([1e308, 1e308]), OverflowError, ["vsum", "1e+308"]),
    (lambda: dot([1e308], [10.0]), OverflowError, ["dot", "1e+308"]),
]


@pytest.mark.parametrize("make, error, words", BAD_INPUT)
def test_bad_input_raises_at_the_op_with_a_clear_message(make, error, words):
    with pytest.raises(error) as info:
        make()
    message = str(info.value)
    assert type(info.value) is error
    for word in words:
        assert word in message, f"{word!r} missing from {message!r}"


def test_overflowing_gradient_is_refused_by_backward():
    x = Value(1e-320)  # a subnormal: log is finite, 1/x is not
    y = x.log()
    with pytest.raises(OverflowError, match="backward"):
        y.backward()


def test_large_but_finite_gradients_pass_backward():
    # each gradient is finite even though their magnitudes add up past the float range
    a, b = Value(1.0), Value(1.0)
    (a * 1e308 - b * 1e308).backward()
    assert (a.grad, b.grad) == (1e308, -1e308)


def test_exact_gradients_beyond_float_range_are_not_overflow():
    # int gradients are exact however large; mixed with float ones they are still accepted
    x, y, z = Value(2), Value(2), Value(1.0)
    out = x**2000 - y**2000 + z * 0.5
    out.backward()
    assert x.grad == 2000 * 2**1999 and y.grad == -2000 * 2**1999 and z.grad == 0.5


def test_gradient_overflowing_inside_a_rule_names_backward():
    x = Value(0.5)
    y = x**-1023  # 2^1023 fits in a float; the derivative 1023 * 2^1024 does not
    with pytest.raises(OverflowError, match="backward"):
        y.backward()


# ---------------------------------------------------------------------- numbers an op wraps are constants
# Each case: f, the point, d f/dx written out by hand.  A number f uses is a constant: its
# own gradient (which overflows in every case marked so) is never computed, so the pass,
# whose gradient is finite, goes through.
CONSTANT_CASES = {
    # d(2**x)/dx = 2**x ln 2: just under the float maximum times ln 2 (the constant's would be
    # x * 2**(x-1) > float max)
    "2 ** x": (lambda x: 2**x, 1023.9999999999999, None),
    "x / 0.5": (lambda x: x / 0.5, 8.98e307, 2.0),  # the constant's: -(x/0.5)/0.5 = -3.6e308
    "x / 1e-300": (lambda x: x / 1e-300, 1e-10, 1e300),  # the constant's: -1e290/1e-300
    "0 / x": (lambda x: 0 / x, 5e-324, 0.0),  # the constant's: 1/x = 2e323
    "x * 2, huge upstream": (lambda x: (x * 2 - 2e300) * 1e10, 1e300, 2e10),  # the constant's: 1e310
    "2 * x, huge upstream": (lambda x: (2 * x - 2e300) * 1e10, 1e300, 2e10),
    "c - x": (lambda x: (1e300 - x) * 1e300, 1e300, -1e300),
    "x - c": (lambda x: (x - 1e300) * 1e300, 1e300, 1e300),
    "c + x": (lambda x: (1e300 + x) * 1e-300, -1e300, 1e-300),
    "x + c": (lambda x: (x + 1e300) * 1e-300, -1e300, 1e-300),
}


@pytest.mark.parametrize("case", CONSTANT_CASES)
def test_a_number_an_op_wraps_gets_no_gradient_so_a_finite_gradient_goes_through(case):
    f, point, expected = CONSTANT_CASES[case]
    if expected is None:  # 2 ** x: 2**x ln 2, the correctly rounded value, to within rounding
        with mpmath.workprec(200):
            expected = float(mpmath.mpf(2) ** point * mpmath.log(2))
    x = Value(point)
    f(x).backward()
    assert math.isclose(x.grad, expected, rel_tol=4e-16, abs_tol=0)


def test_a_number_an_op_wraps_gets_no_gradient_in_a_graph_pass_either():
    # d2(2**x)/dx2 = 2**x ln(2)**2, finite near the float maximum; the constant 2's first and second
    # derivatives are not
    x = Value(1023.9999999999999)
    (first,) = grad(2**x, [x], create_graph=True)
    (second,) = grad(first, [x])
    with mpmath.workprec(200):
        d1 = mpmath.mpf(2) ** x.data * mpmath.log(2)
        d2 = d1 * mpmath.log(2)
    assert math.isclose(first.data, float(d1), rel_tol=4e-16)
    assert math.isclose(second, float(d2), rel_tol=1e-15)


def test_ops_with_fraction_constants_stay_exact():
    # f(x) = (1/3 - x) * (2/7) / x + 3/(2x) + 2 ** x, at x = 3: written out by hand
    def f(x):
        return (F(1, 3) - x) * F(2, 7) / x + F(3, 2) / x + 2**x - (x + F(1, 5)) * 5

    value, (gradient,) = grad_of(f, 3)
    assert_exact(value, F(-8, 3) * F(2, 7) / 3 + F(1, 2) + 8 - 16)
    # d/dx: (2/21)/x - 2/7 -> -(2/21)/x**2; 3/(2x) -> -3/(2x**2); 2**x -> 2**x ln 2 (a float); -5
    exact_part = F(-2, 21) / 9 - F(3, 18) - 5
    assert gradient == pytest.approx(float(exact_part) + 8 * math.log(2), rel=1e-15)
    value, (gradient,) = grad_of(lambda x: (F(1, 3) - x) * F(2, 7) / x + F(3, 2) / x - (x + F(1, 5)) * 5, 3)
    assert_exact(gradient, exact_part)


class Scaled(Value):
    """A Value of a subclass: an operand like any Value, never a number to wrap."""


@pytest.mark.parametrize(
    ("op", "dy"),
    [("add", 1.0), ("sub", -1.0), ("mul", 3.0), ("div", -3.0 / 4.0)],
)
def test_a_value_of_a_subclass_is_an_operand_with_its_own_gradient(op, dy):
    # d/dy of x + y, x - y, x * y and x / y at (3, 2): 1, -1, x = 3, -x / y**2 = -3/4
    x, y = Value(3.0), Scaled(2.0)
    out = {"add": x + y, "sub": x - y, "mul": x * y, "div": x / y}[op]
    out.backward()
    assert y.grad == dy


def test_a_leaf_the_user_made_from_a_number_still_gets_its_gradient():
    # only numbers wrapped inside an op are constants; a Value made by the user is a leaf
    x, c, d = Value(3.0), Value(2.0), Value(0.5)
    out = c * x + x / d - (c**x) + 1 / d + (1 - c)
    out.backward()
    assert c.grad == 3.0 - 3.0 * 2.0**2.0 - 1
    assert d.grad == -3.0 / 0.25 - 1 / 0.25
    assert x.grad == 2.0 + 2.0 - 2.0**3.0 * math.log(2.0)


# ---------------------------------------------------------------------- scale: no recursion, no cycles
CHAIN_SCRIPT = """
import sys
from autograd import Value
n, w = 1_000_000, 1.000001
x, wv, b = Value(1.0), Value(w), Value(0.001)
y = x
for _ in range(n):
    y = y * wv + b
y.backward()
print(sys.getrecursionlimit(), repr(y.data), repr(x.grad), repr(b.grad))
del y  # freeing a million-deep chain must not overflow the C stack either
"""


@pytest.mark.slow
def test_million_step_chain_at_the_default_recursion_limit():
    # In a fresh interpreter: the default recursion limit for sure, no coverage tracer slowing
    # it five-fold, and the half gigabyte of graph given back to the OS afterwards.
    done = subprocess.run(
        [sys.executable, "-c", CHAIN_SCRIPT],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr
    limit, y, dydx, dydb = done.stdout.split()
    assert int(limit) == 1000  # the interpreter default: backward must not recurse
    n, w = 1_000_000, 1.000001
    # y = x w^n + b (w^n - 1)/(w - 1): dy/dx = w^n, dy/db = (w^n - 1)/(w - 1)
    wn = math.exp(n * math.log1p(w - 1))
    assert float(dydx) == pytest.approx(wn, rel=1e-9)
    assert float(dydb) == pytest.approx(math.expm1(n * math.log1p(w - 1)) / (w - 1), rel=1e-6)
    assert float(y) == pytest.approx(wn + 0.001 * math.expm1(n * math.log1p(w - 1)) / (w - 1), rel=1e-6)


def _values_alive():
    return sum(1 for o in gc.get_objects() if type(o) is Value)


def _fan_out_graph(width=30, depth=30):
    """A layered graph in which every node feeds several others (like a network)."""
    leaves = [Value(0.01 * (i + 1)) for i in range(width)]
    layer = leaves
    for _ in range(depth):
        layer = [(layer[i] * layer[i - 1] + layer[i - 2]).tanh() for i in range(width)]
    return leaves, vsum(layer).exp()


def test_no_reference_cycles_graph_freed_by_refcounting_alone():
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        before = _values_alive()
        leaves, out = _fan_out_graph()
        out.backward()
        assert _values_alive() > before + 30 * 30 * 3
        del out
        # only the leaves we still hold survive; with GC off, the rest went by refcount alone
        assert _values_alive() == before + len(leaves)
        assert gc.collect() == 0  # and the cycle collector finds nothing unreachable
        assert gc.garbage == []
    finally:
        if was_enabled:
            gc.enable()


def test_no_reference_cycles_memory_back_to_baseline():
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    tracemalloc.start()

    def build_and_differentiate():
        x = Value(1.0)
        y = x
        for _ in range(5_000):
            y = (y * 1.0001 + 0.5).tanh()
        y.backward()
        return x, y

    try:
        # A warm-up run first fills CPython's tuple and float free lists, which keep
        # a few thousand freed objects allocated; the measured run then starts level.
        build_and_differentiate()  # the result is dropped at once
        baseline = tracemalloc.get_traced_memory()[0]
        x, y = build_and_differentiate()
        grown = tracemalloc.get_traced_memory()[0]
        del x, y
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
        if was_enabled:
            gc.enable()
    assert grown - baseline > 1_000_000  # the graph was big (about 30k objects)
    assert after - baseline < 10_000  # and all of it is gone without the cycle collector


# ---------------------------------------------------------------------- to_dot
def test_to_dot_lists_every_node_and_edge():
    a, b = Value(2), Value(F(1, 3))
    c = a * b
    d = (c + a).tanh()
    d.backward()
    text = d.to_dot()
    lines = text.splitlines()
    assert lines[0].startswith("digraph") and lines[0].endswith("{") and lines[-1] == "}"
    node_re = re.compile(r'^\s+n(\d+) \[label="((?:[^"\\]|\\.)*)"\];$')
    edge_re = re.compile(r"^\s+n(\d+) -> n(\d+);$")
    nodes, edges = {}, []
    for line in lines[1:-1]:
        if m := node_re.match(line):
            assert m.group(1) not in nodes, "a node is declared twice"
            nodes[m.group(1)] = m.group(2)
        elif m := edge_re.match(line):
            edges.append((m.group(1), m.group(2)))
        else:
            assert re.match(r"^\s+\w+( \[[^\]]*\])?\s*(=\s*\w+)?;$", line), f"not DOT: {line!r}"
    assert len(nodes) == 5  # a, b, c, c + a, d
    assert {v for e in edges for v in e} <= set(nodes)
    assert len(edges) == 2 + 2 + 1  # mul(a, b), add(c, a), tanh(c + a)
    labels = " ".join(nodes.values())
    for word in ("mul", "add", "tanh", "leaf", "data 2", "data Fraction(2, 3)", "data Fraction(8, 3)"):
        assert word in labels, word
    assert "\n" not in "".join(nodes.values())  # newlines in labels are escaped


def test_to_dot_of_a_leaf():
    text = Value(3).to_dot()
    assert text.count("->") == 0 and text.count("[label=") == 1 and "data 3" in text


@pytest.mark.parametrize("overflowing_first", [True, False])
def test_every_leaf_is_checked_for_overflow_whatever_the_order_and_the_others_gradients(overflowing_first):
    # b's share is 10 * 1e308 = inf (a float product: no exception), reached only by the final
    # check over the leaves; finite leaves, and one holding a Value from create_graph, come
    # before or after it in that check, and none may stop it.
    w, p, b = Value(2.0), Value(3.0), Value(1e-300)
    w.grad = 0.5  # a finite gradient, kept and added back
    (p * p).backward(create_graph=True)  # p.grad is now a Value
    big = (b * 1e308) * 10
    others = w * 1.5 + p * 1.5
    y = big + others if overflowing_first else others + big
    with pytest.raises(OverflowError, match="backward: the gradient reaching"):
        y.backward()
