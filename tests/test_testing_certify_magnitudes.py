"""The certified reference (autograd.testing.certify) before values too large to evaluate: towers
such as x ** (x ** y) at (2, 1e10), whose exponent has ten billion bits, and exp(exp(x)) at 1e5.

mpmath reduces the argument of exp, sin and the like (and e * ln b for b ** e) with as many bits
beyond the working precision as the argument's exponent has, and raises a number to an integer
power by as many squarings as the exponent has bits; Fractions and sympy compute a rational power
exactly.  Past the reference's limits (RANGE_BITS, POW_BITS, EXACT_BITS) that takes minutes or
raises OverflowError, MemoryError, RecursionError; the reference must say ReferenceUnresolved
instead, at once, naming the size, and still certify the values just inside the limits.

Each call runs in a thread that must return (a hang fails the test instead of stalling the
suite).  Expected values come from exact arithmetic (powers of 2 as mpmath's exponent, Fractions)
or identities (log(2 ** N) = N ln 2, tanh(t) = 1 in floats for t > 20), not from the reference.

PYTEST_DONT_REWRITE: explaining a failed assertion, pytest would write out the values in it in
decimal, and 2 ** (2 ** 2047) has more digits than any evaluation here takes time.
"""

import math
import threading
from fractions import Fraction

import mpmath
import pytest
import sympy

from autograd.testing import UNDEFINED, ReferenceUnresolved, certify
from autograd.testing.ops import Relu

X, Y = sympy.symbols("x y", real=True)
TOWER = X ** (X**Y)
TOWER_AND_PARTIALS = [TOWER, sympy.diff(TOWER, X), sympy.diff(TOWER, Y)]


def returned(call):
    """What ``call()`` returns or raises, from a thread that must finish within a generous time."""
    outcome = {}

    def run():
        try:
            outcome["value"] = call()
        except Exception as exc:  # the outcome under test, whatever it is
            outcome["raised"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(timeout=60)
    assert not worker.is_alive(), "certify did not return"
    return outcome


def unresolved(symbols, exprs, point, **options):
    """The reason certify gives for not evaluating ``exprs`` (it must raise ReferenceUnresolved)."""
    outcome = returned(lambda: certify(symbols, exprs, point, **options))
    raised = outcome.get("raised")
    assert isinstance(raised, ReferenceUnresolved), (
        f"certify raised {raised!r}" if raised else "certify returned"
    )
    return raised.reason


def certified(symbols, exprs, point, **options):
    outcome = returned(lambda: certify(symbols, exprs, point, **options))
    assert "value" in outcome, f"certify raised {outcome['raised']!r}"
    return outcome["value"]


def power_of_two(n):
    """2 ** n exactly, as mpmath holds it (mantissa 1, exponent n)."""
    return mpmath.ldexp(mpmath.mpf(1), n)


# ---------------------------------------------------------------------- towers
def test_a_tower_whose_exponent_has_ten_billion_bits_is_unresolved_and_named():
    # x ** y at (2, 1e10) is exactly 2 ** 1e10: below 2 ** (1e10 + 1), the size named
    reason = unresolved([X, Y], [TOWER], (2.0, 1e10))
    assert reason == (
        f"an exponent of about 2**{10**10 + 1} in x**(x**y) is beyond what the reference can"
        " evaluate (over 2**2048)"
    )


def test_a_tower_and_its_partials_near_the_largest_float_are_unresolved_not_an_overflow():
    # x ** y at (1.5, 1e308) is about 2 ** (1e308 * log2(1.5)) = 2 ** (2 ** 1021.7)
    reason = unresolved([X, Y], TOWER_AND_PARTIALS, (1.5, 1e308))
    size = math.log2(1e308 * math.log2(1.5))
    assert reason.startswith(f"an exponent of about 2**(2**{size:.4g}) in x**(x**y)")


@pytest.mark.parametrize(
    ("y", "size"),
    [
        (10**15 - 2, "999999999999999"),  # x ** y = 2 ** y, below 2 ** (y + 1): a count of bits
        (10**15 - 1, f"(2**{math.log2(10**15):.4g})"),  # from 10 ** 15 bits on, by its own bits
        (2**1023, "(2**1023)"),  # beyond the floats too
    ],
)
def test_the_size_of_a_tower_is_named_shortly_however_large(y, size):
    reason = unresolved([X, Y], [TOWER], (2, y))
    assert reason.startswith(f"an exponent of about 2**{size} in x**(x**y) is beyond")


@pytest.mark.parametrize("name_length", [46, 47])
def test_a_long_part_is_named_by_its_first_57_characters(name_length):
    z = sympy.Symbol("z" * name_length, real=True)
    part = sympy.exp(z + sympy.exp(X))  # "exp(zz...z + exp(x))": 14 characters and the name
    text = str(part)
    assert len(text) == 14 + name_length
    reason = unresolved([X, z], [part], (1e5, 0.0))
    named = text if len(text) <= 60 else text[:57] + "..."
    assert reason == (
        f"an argument of exp of about 2**{math.ceil(1e5 / math.log(2))} in {named} is beyond what the"
        " reference can evaluate (over 2**65536)"
    )


def test_exp_of_exp_at_1e5_is_unresolved_and_names_the_bits_of_the_inner_value():
    # exp(1e5) = 2 ** (1e5 / ln 2) = 2 ** 144269.5
    bits = math.ceil(1e5 / math.log(2))
    for exprs in ([sympy.exp(sympy.exp(X))], [sympy.exp(sympy.exp(X)), sympy.exp(sympy.exp(X) + X)]):
        reason = unresolved([X], exprs, (1e5,))
        assert reason == (
            f"an argument of exp of about 2**{bits} in exp(exp(x)) is beyond what the reference can"
            " evaluate (over 2**65536)"
        )


@pytest.mark.parametrize("function", [sympy.sin, sympy.tanh, sympy.erf])
def test_a_function_that_reduces_its_argument_is_unresolved_beyond_the_limit(function):
    # 2 ** 1e300 is exact; sin of it raised RecursionError, tanh of it OverflowError
    reason = unresolved([X, Y], [function(X**Y) + X], (2.0, 1e300))
    size = math.log2(int(1e300) + 1)  # below 2 ** (1e300 + 1), a count of 2 ** 996.6 bits
    assert reason.startswith(f"an argument of {function.__name__} of about 2**(2**{size:.4g}) in ")


def test_a_power_whose_base_is_a_tower_is_unresolved_by_the_exponent_times_ln_base():
    # ln(exp(exp(45000)) + 1) is about exp(45000) = 2 ** 64921.5; times 2 ** 1000: past 2 ** 65536,
    # while the exponent alone is far inside 2 ** 2048
    base = sympy.exp(sympy.exp(X)) + 1
    reason = unresolved([X, Y], [base**Y], (45000.0, 2.0**1000))
    prefix = "an exponent times ln(base) of about 2**"
    assert reason.startswith(prefix) and " in (exp(exp(x)) + 1)**y is beyond " in reason
    bits = int(reason[len(prefix) :].split()[0])
    assert 1000 + 45000 / math.log(2) < bits <= 1000 + 45000 / math.log(2) + 3  # a bound, close
    # ... and times 2 it is inside: a value beyond the float range, as it is
    (value,) = certified([X, Y], [base**Y], (45000.0, 2.0))
    assert value.defined and float(value) == math.inf


# ---------------------------------------------------------------------- the limits
def test_an_exponent_just_inside_pow_bits_is_certified_exactly_and_just_outside_is_not():
    (value,) = certified([X, Y], [X**Y], (2, 2**2047))
    assert value.value == power_of_two(2**2047) and value.radius == 0
    reason = unresolved([X, Y], [X**Y], (2, 2**2048))
    assert (
        reason
        == "an exponent of about 2**2049 in x**y is beyond what the reference can evaluate (over 2**2048)"
    )


def test_an_argument_just_inside_range_bits_is_certified_and_just_outside_is_not():
    # exp(45000) = 2 ** 64921.5 is inside 2 ** 65536, exp(46000) = 2 ** 66364 is not
    for function, expected in [(sympy.tanh, 1.0), (lambda t: sympy.exp(-t), 0.0)]:
        (value,) = certified([X], [function(sympy.exp(X))], (45000.0,))
        assert float(value) == expected
        assert "of about 2**66364 in " in unresolved([X], [function(sympy.exp(X))], (46000.0,))
    (value,) = certified([X], [sympy.exp(sympy.exp(X))], (45000.0,))
    assert value.defined and value.value > 0 and float(value) == math.inf


def test_constants_count_in_the_size_of_an_argument():
    # exp(45427) = 2 ** 65536.8: a quarter of it is inside 2 ** 65536, pi times exp(45426)
    # (2 ** 65535.4 * 3.14 = 2 ** 65537.0) is not
    (value,) = certified([X], [sympy.tanh(sympy.exp(X) / 4)], (45427.0,))
    assert float(value) == 1.0
    reason = unresolved([X], [sympy.exp(sympy.pi * sympy.exp(X))], (45426.0,))
    bits = math.floor(45426 / math.log(2) + math.log2(math.pi)) + 1  # 2 ** 65537.0
    assert reason.startswith(f"an argument of exp of about 2**{bits} in exp(pi*exp(x)) is beyond")


def test_a_function_with_a_constant_argument_is_computed_to_find_a_tower_above_it():
    # polygamma(0, x) = digamma(x) is about ln(x) - 1 / (2 x): exp of it is about x - 1/2, and
    # exp(60000 - 1/2) = 2 ** 86561.3 is the argument of the outer exp
    part = sympy.exp(sympy.exp(sympy.exp(sympy.polygamma(0, X))))
    reason = unresolved([X], [part], (60000.0,))
    assert reason.startswith(
        f"an argument of exp of about 2**{math.ceil(59999.5 / math.log(2))} in {part} is beyond"
    )


def test_an_exact_power_just_inside_exact_bits_is_computed_and_just_outside_is_not():
    (value,) = certified([X], [X**65536], (1.5,))
    assert value.exact and value.value == Fraction(3, 2) ** 65536
    reason = unresolved([X], [X**65537], (1.5,))
    assert reason == (
        "an exact rational of about 65537 bits in a power is beyond what the reference computes"
        " (over 65536 bits)"
    )
    (value,) = certified([X], [X**65537], (1.5,), exact=False)  # in intervals it is just large
    assert not value.exact and float(value) == math.inf


def test_x_to_the_1e30_exactly_is_unresolved_not_a_hang():
    reason = unresolved([X], [X ** (10**30)], (1.5,))
    assert reason.startswith(
        f"an exact rational of about (2**{math.log2(10**30):.4g}) bits in a power is beyond"
    )


# ---------------------------------------------------------------------- what is defined
@pytest.mark.parametrize(
    ("power", "x", "inside", "outside", "bits"),
    [
        (X**Y, 2, 65536, 65537, 65537),
        (X ** (Y / 2), 2, 131072, 131074, 65537),
        (X ** (Y + 1), 2, 65535, 65536, 65537),
        (X ** (Y**2), 2, 256, 257, 257**2),
        (sympy.Abs(X) ** Y, -2, 65536, 65537, 65537),
    ],
)
def test_a_pole_beside_a_large_exact_power_is_undefined_when_sympy_can_compute_the_power(
    power, x, inside, outside, bits
):
    # sympy tells the pole of log(x -+ 2) by computing every part exactly: 2 ** 65536 is fine,
    # a power of more bits is refused before it is computed; its exponent (and base) exactly
    pole = sympy.log(X - x)
    found = certified([X, Y], [power, pole], (x, inside))
    assert found[0].value == power_of_two(65536) and found[1] == UNDEFINED
    reason = unresolved([X, Y], [power, pole], (x, outside))
    assert reason == (
        f"an exact rational of about {bits} bits in {power} is beyond what the reference computes"
        " (over 65536 bits)"
    )


def test_a_fractional_exact_power_is_left_to_sympy():
    # 2 ** (4097 / 2) = 2 ** 2048 * sqrt(2), beyond the floats: sympy keeps the root, no Fraction has it
    power, pole = certified([X, Y], [X ** (Y / 2), sympy.log(X - 2)], (2, 4097))
    with mpmath.workprec(200):
        ratio = float(power.value / power_of_two(2048))
    assert ratio == math.sqrt(2) and pole == UNDEFINED


@pytest.mark.parametrize("pole", [sympy.log(X) ** 2 + X, X * sympy.log(X), sympy.exp(-1 / X**2)])
def test_a_pole_inside_an_expression_is_left_to_the_evaluation(pole):
    # the guard meets log(0) or 0 ** -2 as no number, checks nothing above it, and sympy finds
    # the pole
    undefined, one = certified([X], [pole, X + 1], (0,))
    assert undefined == UNDEFINED and one.value == 1


def test_a_complex_partial_beside_a_huge_exact_power_is_unresolved_not_a_hang():
    # log(-1.5) in the partial in y sends the reference to sympy, which would compute
    # (-3/2) ** 1e300 exactly
    exprs = [X**Y, sympy.diff(X**Y, X), sympy.diff(X**Y, Y)]
    reason = unresolved([X, Y], exprs, (-1.5, 1e300))
    size = math.log2(int(1e300))  # |y| times the bits of 3/2 (1, rounded down)
    assert reason.startswith(f"an exact rational of about (2**{size:.4g}) bits in x**y is beyond")


# ---------------------------------------------------------------------- what keeps working
def test_a_power_of_2_beyond_the_float_range_stays_certified_exactly():
    values = certified([X, Y], [X**Y, sympy.diff(X**Y, X)], (2.0, 1e300))
    n = int(1e300)  # the integer the float 1e300 is
    assert values[0].value == power_of_two(n) and values[0].radius == 0
    assert values[1].value == n * power_of_two(n - 1) and values[1].radius == 0


@pytest.mark.parametrize("function", [sympy.Abs, Relu])
def test_piecewise_linear_functions_of_huge_values_are_not_limited(function):
    (value,) = certified([X, Y], [function(X**Y)], (2.0, 1e300))
    assert value.value == power_of_two(int(1e300))


def test_log_of_a_huge_value_is_not_limited():
    (value,) = certified([X, Y], [sympy.log(X**Y)], (2.0, 1e300))
    with mpmath.workdps(60):
        expected = float(int(1e300) * mpmath.ln2)  # log(2 ** N) = N ln 2
    assert float(value) == expected


def test_large_but_ordinary_values_stay_certified():
    (square,) = certified([X], [X**2], (1e300,), exact=False)
    with mpmath.workprec(256):  # the 53-bit mantissa squared: exact
        assert float(square) == math.inf and square.value == mpmath.mpf(int(1e300)) ** 2
    (e700,) = certified([X], [sympy.exp(X)], (700.0,))
    with mpmath.workdps(60):
        assert float(e700) == float(mpmath.exp(700))
