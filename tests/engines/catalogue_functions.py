"""Every function of the catalogue beyond the table and its first rows, correct: what the audit
must identify by behaviour, row by row, and find no defect in, at the edges of their regions too.

Each method's value and slopes are mpmath's, written by hand here from the textbook definitions
(never from the harness's rows), at a precision doubled from 96 bits (more near 0, where the
forms cancel the bits 1/x^2 says) until two precisions round to the same floats.  A point where
the function is not a real number raises ValueError, as math's functions do; a slope that is
infinite there (asin's at 1) is inf.  celu's alpha is 0.5, so that the audit must fit it; clip
clips to [0, 1]; the other functions are PyTorch's.
"""

import math
from fractions import Fraction

import mpmath

from tests.engines import sound

SELU_ALPHA = mpmath.mpf("1.6732632423543772848170429916717")
SELU_SCALE = mpmath.mpf("1.0507009873554804934193349852946")
CELU_ALPHA = 0.5


def _float(y):
    """A real mpmath result as a float; a complex one is no real number (ValueError)."""
    if isinstance(y, mpmath.mpc):
        if y.imag != 0:
            raise ValueError(f"not a real number: {y}")
        y = y.real
    return float(y)


def _settled(f, args):
    """f(*args) (mpmath numbers) rounded to floats, once two precisions agree (a Fraction operand
    is taken as a float, as math's functions take it)."""
    args = [float(a) for a in args]
    small = min((abs(a) for a in args if a), default=1.0)
    prec = 96 + 2 * max(0, -math.frexp(small)[1])
    before = None
    while prec <= 1 << 15:
        with mpmath.workprec(prec):
            now = _float(f(*[mpmath.mpf(a) for a in args]))
        if now == before:
            return now
        before, prec = now, 2 * prec
    raise ArithmeticError(f"no settled value at {args}")


def _slope(f, args):
    """A slope that is infinite (a pole of the slope, where the value is finite) is inf."""
    try:
        return _settled(f, args)
    except ZeroDivisionError:
        return math.inf


def _sig(t):
    return 1 / (1 + mpmath.exp(-t))


def _gelu_z(x):
    k = mpmath.sqrt(2 / mpmath.pi)
    return k * (x + mpmath.mpf("0.044715") * x**3), k * (1 + 3 * mpmath.mpf("0.044715") * x**2)


def _sincpi_slope(x):
    return (mpmath.cospi(x) - mpmath.sincpi(x)) / x if x else mpmath.mpf(0)


def _erfc(x):
    return mpmath.erfc(x) if x < 1e100 else mpmath.mpf(0)  # below the least float long before


def _xlogy(x, y):
    if y <= 0 and x:
        raise ValueError("xlogy: y must be positive")
    return x * mpmath.log(y) if x else mpmath.mpf(0)


def _logaddexp(x, y):
    return max(x, y) + mpmath.log1p(mpmath.exp(-abs(x - y)))


#: The rational functions, in plain Python: correctly rounded on floats and exact on Fractions (the
#: audit checks an engine that keeps Fractions exactly on them).
RATIONAL = {  # name: (value, slope)
    "reciprocal": (lambda x: 1 / x, lambda x: -(1 / x) / x),  # (x * x underflows first)
    "square": (lambda x: x * x, lambda x: 2 * x),
    "relu6": (lambda x: min(max(x, 0 * x), 6 + 0 * x), lambda x: 1 if 0 < x < 6 else 0),
    "hardtanh": (lambda x: min(max(x, -1 + 0 * x), 1 + 0 * x), lambda x: 1 if -1 < x < 1 else 0),
    "hardsigmoid": (
        lambda x: min(max((x + 3) / 6, 0 * x), 1 + 0 * x),
        lambda x: Fraction(1, 6) if -3 < x < 3 else 0,
    ),
    "hardswish": (
        lambda x: x * (min(max(x + 3, 0 * x), 6 + 0 * x) / 6),
        lambda x: (2 * x + 3) / 6 if -3 < x < 3 else (1 if x >= 3 else 0),
    ),
    "clip": (lambda x: min(max(x, 0 * x), 1 + 0 * x), lambda x: 1 if 0 < x < 1 else 0),
}

UNARY = {  # name: (value, slope), each of an mpmath number
    "rsqrt": (lambda x: 1 / mpmath.sqrt(x), lambda x: -1 / (2 * x * mpmath.sqrt(x))),
    "cbrt": (lambda x: mpmath.sign(x) * mpmath.cbrt(abs(x)), lambda x: 1 / (3 * mpmath.cbrt(abs(x)) ** 2)),
    "asin": (mpmath.asin, lambda x: 1 / mpmath.sqrt((1 - x) * (1 + x))),
    "acos": (mpmath.acos, lambda x: -1 / mpmath.sqrt((1 - x) * (1 + x))),
    "asinh": (mpmath.asinh, lambda x: 1 / mpmath.sqrt(1 + x * x)),
    "acosh": (mpmath.acosh, lambda x: 1 / mpmath.sqrt((x - 1) * (x + 1))),
    "atanh": (mpmath.atanh, lambda x: 1 / ((1 - x) * (1 + x))),
    "log2": (lambda x: mpmath.log(x) / mpmath.log(2), lambda x: 1 / (x * mpmath.log(2))),
    "log10": (mpmath.log10, lambda x: 1 / (x * mpmath.log(10))),
    "exp2": (lambda x: mpmath.mpf(2) ** x, lambda x: mpmath.mpf(2) ** x * mpmath.log(2)),
    "logsigmoid": (lambda x: -mpmath.log1p(mpmath.exp(-x)), lambda x: _sig(-x)),
    "logit": (lambda x: mpmath.log(x / (1 - x)), lambda x: 1 / (x * (1 - x))),
    "gelu_tanh": (
        lambda x: x * _sig(2 * _gelu_z(x)[0]),
        lambda x: (
            _sig(2 * _gelu_z(x)[0])
            + 2 * x * _gelu_z(x)[1] * _sig(2 * _gelu_z(x)[0]) * _sig(-2 * _gelu_z(x)[0])
        ),
    ),
    "selu": (
        lambda x: SELU_SCALE * (x if x > 0 else SELU_ALPHA * mpmath.expm1(x)),
        lambda x: SELU_SCALE * (1 if x > 0 else SELU_ALPHA * mpmath.exp(x)),
    ),
    "mish": (
        lambda x: x * mpmath.tanh(mpmath.log1p(mpmath.exp(x))),
        lambda x: (
            mpmath.tanh(mpmath.log1p(mpmath.exp(x)))
            + x * _sig(x) * mpmath.sech(mpmath.log1p(mpmath.exp(x))) ** 2
        ),
    ),
    "tanhshrink": (lambda x: x - mpmath.tanh(x), lambda x: mpmath.tanh(x) ** 2),
    "erfc": (_erfc, lambda x: -2 / mpmath.sqrt(mpmath.pi) * mpmath.exp(-x * x)),
    "lgamma": (lambda x: mpmath.loggamma(x).real, mpmath.digamma),
    "digamma": (mpmath.digamma, lambda x: mpmath.polygamma(1, x)),
    "sinc": (mpmath.sincpi, _sincpi_slope),
    "celu": (
        lambda x: x if x > 0 else CELU_ALPHA * mpmath.expm1(x / CELU_ALPHA),
        lambda x: 1 if x > 0 else mpmath.exp(x / CELU_ALPHA),
    ),
}

#: maximum and minimum, in plain Python (exact on Fractions); at a tie the slope is the second operand's.
RATIONAL_BINARY = {
    "maximum": (max, lambda x, y: 1 if x > y else 0, lambda x, y: 0 if x > y else 1),
    "minimum": (min, lambda x, y: 1 if x < y else 0, lambda x, y: 0 if x < y else 1),
}

BINARY = {  # name: (value, slope in the first operand, slope in the second)
    "atan2": (mpmath.atan2, lambda y, x: x / (x * x + y * y), lambda y, x: -y / (x * x + y * y)),
    "hypot": (mpmath.hypot, lambda x, y: x / mpmath.hypot(x, y), lambda x, y: y / mpmath.hypot(x, y)),
    "xlogy": (_xlogy, lambda x, y: mpmath.log(y), lambda x, y: x / y),
    "logaddexp": (_logaddexp, lambda x, y: _sig(x - y), lambda x, y: _sig(y - x)),
}


def _evaluated(name, value, slopes):
    """A method of any number of Values: the value and slopes of ``value`` and ``slopes`` at them."""

    def method(self, *others):
        operands = (self, *(self._lift(o) for o in others))
        args = [v.data for v in operands]
        try:
            y = _settled(value, args)
        except ZeroDivisionError as exc:
            raise ValueError(f"{name}: a pole at {args}") from exc
        return self._with_partials(y, operands, tuple(_slope(s, args) for s in slopes))

    method.__name__ = name
    return method


def _unary(name):
    value, slope = UNARY[name]
    method = _evaluated(name, value, (slope,))
    return lambda self: method(self)


def _binary(name):
    value, *slopes = BINARY[name]
    method = _evaluated(name, value, slopes)
    return lambda self, other: method(self, other)


def _exact_unary(name):
    value, slope = RATIONAL[name]

    def method(self):
        return self._with_partials(value(self.data), (self,), (slope(self.data),))

    method.__name__ = name
    return method


def _exact_binary(name):
    value, *slopes = RATIONAL_BINARY[name]

    def method(self, other):
        other = self._lift(other)
        args = (self.data, other.data)
        return self._with_partials(value(*args), (self, other), tuple(s(*args) for s in slopes))

    method.__name__ = name
    return method


class Value(sound.Value):
    """sound.Value with every catalogue function beyond the table as a method of its name."""


for _name in RATIONAL:
    setattr(Value, _name, _exact_unary(_name))
for _name in RATIONAL_BINARY:
    setattr(Value, _name, _exact_binary(_name))
for _name in UNARY:
    setattr(Value, _name, _unary(_name))
for _name in BINARY:
    setattr(Value, _name, _binary(_name))
