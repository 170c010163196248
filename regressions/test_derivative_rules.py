"""Regression: each op's backward rule is the derivative of that op, on both sides.

The bugs: the cousins in the bug zoo that other hand-written engines are known
to have had: sub or div sending the second operand's share with the wrong sign,
relu passing gradient on the wrong side (or at 0, where the documented
derivative is 0), sigmoid's derivative written as s instead of s * (1 - s),
tanh's written with the input (1 - x**2) instead of the output (1 - t**2),
exp's multiplied by the input, and pow's using x**c instead of x**(c - 1).

How they show up: a network still trains, more or less, so only a check of
each rule against calculus finds them.

Why these tests catch them: every op is differentiated at points where each
wrong formula above gives a different number than the right one, with both
operands distinct, and compared with derivatives written out by hand (exact
for the rational ops, to 1e-12 relative for the transcendental ones).
"""

from __future__ import annotations

import math
from fractions import Fraction as F

import autograd.engine

ENGINE = autograd.engine


def sigmoid(x):
    return 1 / (1 + math.exp(-x))


def test_binary_rules(engine=ENGINE):
    # (expression, f(a, b), (df/da, df/db)) at a = 3, b = 5, by hand
    cases = [
        ("a + b", lambda a, b: a + b, 8, (1, 1)),
        ("a - b", lambda a, b: a - b, -2, (1, -1)),
        ("a * b", lambda a, b: a * b, 15, (5, 3)),
        ("a / b", lambda a, b: a / b, F(3, 5), (F(1, 5), F(-3, 25))),
        ("7 - a", lambda a, b: 7 - a, 4, (-1, 0)),
        ("2 / a", lambda a, b: 2 / a, F(2, 3), (F(-2, 9), 0)),
    ]
    failures = []
    for name, f, value, slopes in cases:
        a, b = engine.Value(3), engine.Value(5)
        y = f(a, b)
        y.backward()
        if (y.data, (a.grad, b.grad)) != (value, slopes):
            failures.append(
                f"{name} at a = 3, b = 5: value {y.data!r}, (d/da, d/db) {(a.grad, b.grad)!r}; "
                f"expected {value!r}, {slopes!r}"
            )
    a, b = engine.Value(1.5), engine.Value(2.5)
    y = a**b  # d/da = b a**(b-1), d/db = a**b ln a
    y.backward()
    expected = (2.5 * 1.5**1.5, 1.5**2.5 * math.log(1.5))
    if not all(math.isclose(g, e, rel_tol=1e-12) for g, e in zip((a.grad, b.grad), expected, strict=True)):
        failures.append(f"a ** b at a = 1.5, b = 2.5: {(a.grad, b.grad)!r}, expected {expected!r}")
    assert not failures, "\n".join(failures)


def test_unary_rules(engine=ENGINE):
    # (name, f, x, f'(x)) by hand; exact where the op is exact
    cases = [
        ("-x", lambda x: -x, 3, -1),
        ("x ** 3", lambda x: x**3, 2, 12),
        ("x ** -2", lambda x: x**-2, 2, F(-1, 4)),
        ("x ** 0.5", lambda x: x**0.5, 4, 0.25),
        ("x ** 0", lambda x: x**0, 3, 0),
        ("relu(x), x > 0", lambda x: x.relu(), 2, 1),
        ("relu(x), x < 0", lambda x: x.relu(), -2, 0),
        ("relu(x), x = 0", lambda x: x.relu(), 0, 0),
        ("tanh(x)", lambda x: x.tanh(), 0.5, 1 - math.tanh(0.5) ** 2),
        ("tanh(x)", lambda x: x.tanh(), -1.2, 1 - math.tanh(-1.2) ** 2),
        ("sigmoid(x)", lambda x: x.sigmoid(), 0.8, sigmoid(0.8) * (1 - sigmoid(0.8))),
        ("sigmoid(x)", lambda x: x.sigmoid(), -2.0, sigmoid(-2.0) * (1 - sigmoid(-2.0))),
        ("exp(x)", lambda x: x.exp(), 1.5, math.exp(1.5)),
        ("log(x)", lambda x: x.log(), 2.5, 0.4),
    ]
    failures = []
    for name, f, x0, slope in cases:
        x = engine.Value(x0)
        f(x).backward()
        exact = isinstance(slope, (int, F))
        if not (x.grad == slope if exact else math.isclose(x.grad, slope, rel_tol=1e-12)):
            failures.append(f"{name} at x = {x0!r}: d/dx {x.grad!r}, expected {slope!r}")
    assert not failures, "\n".join(failures)
