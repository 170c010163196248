"""Regression: a Value used twice in one operation must receive exactly two shares.

The bug: add's backward rule re-read the gradient it had just written and
multiplied it again, ``a.grad = out.grad * (a.grad + 1)``, instead of adding
its share, ``a.grad += out.grad``.  With a = 2, b = a + a, c = b * b the
gradient of a came out as 72; calculus says dc/da = d(4a**2)/da = 8a = 16.

How it showed up: only when one Value is *both* operands of an op.  With two
different operands each slot is written once, starting from 0, and the broken
rule happens to give the right answer, so every test without reuse passed.

Why these tests catch it: they put the same Value on both sides of every
binary op and into the n-ary ops several times, and compare with derivatives
worked out by hand; with int data the engine is exact, so the comparison is
exact too.  A chain of ``b = b + b`` doubles the gradient at each link, so any
rule that loses, repeats or multiplies a share is off by far more than rounding.
"""

from __future__ import annotations

import math
from fractions import Fraction

import autograd.engine

ENGINE = autograd.engine


def test_article_example(engine=ENGINE):
    a = engine.Value(2)
    b = a + a
    c = b * b
    c.backward()
    assert c.data == 16
    assert b.grad == 8  # dc/db = 2b
    assert a.grad == 16, (
        f"dc/da for a = 2, b = a + a, c = b * b is 16 (the double-counting rule gave 72), got {a.grad}"
    )


def test_same_operand_on_both_sides_of_every_binary_op(engine=ENGINE):
    # op, f(x) = x op x, and f'(x), worked out by hand
    cases = [
        ("x + x", lambda x: x + x, lambda x: 2 * x, lambda x: 2),
        ("x - x", lambda x: x - x, lambda x: 0, lambda x: 0),
        ("x * x", lambda x: x * x, lambda x: x**2, lambda x: 2 * x),
        ("x / x", lambda x: x / x, lambda x: 1, lambda x: 0),
    ]
    failures = []
    for x0 in (3, Fraction(5, 2), -7):
        for name, f, value, slope in cases:
            x = engine.Value(x0)
            y = f(x)
            y.backward()
            if (y.data, x.grad) != (value(x0), slope(x0)):
                failures.append(
                    f"{name} at x = {x0!r}: value {y.data!r}, d/dx {x.grad!r}; "
                    f"expected {value(x0)!r}, {slope(x0)!r}"
                )
    for x0 in (3, 0.5):  # x ** x = exp(x ln x): d/dx = x**x * (ln x + 1)
        x = engine.Value(x0)
        y = x**x
        y.backward()
        expected = x0**x0 * (math.log(x0) + 1)
        if not math.isclose(x.grad, expected, rel_tol=1e-12):
            failures.append(f"x ** x at x = {x0!r}: d/dx {x.grad!r}, expected {expected!r}")
    assert not failures, "\n".join(failures)


def test_repeated_operands_of_the_n_ary_ops(engine=ENGINE):
    failures = []
    x = engine.Value(3)
    y = engine.vsum([x, x, x])
    y.backward()
    if (y.data, x.grad) != (9, 3):
        failures.append(f"vsum([x, x, x]) at 3: value {y.data!r}, d/dx {x.grad!r}; expected 9, 3")
    x = engine.Value(3)
    y = engine.vsum([x, x * x, x])  # 2x + x**2: d/dx = 2 + 2x
    y.backward()
    if (y.data, x.grad) != (15, 8):
        failures.append(f"vsum([x, x*x, x]) at 3: value {y.data!r}, d/dx {x.grad!r}; expected 15, 8")
    x, w = engine.Value(3), engine.Value(5)
    y = engine.dot([x, x, w], [x, 2, x], x)  # x + x**2 + 2x + w*x
    y.backward()
    # d/dx = 1 + 2x + 2 + w = 14 at x = 3, w = 5; d/dw = x = 3
    if (y.data, x.grad, w.grad) != (33, 14, 3):
        failures.append(
            f"dot([x, x, w], [x, 2, x], x) at x = 3, w = 5: value {y.data!r}, "
            f"d/dx {x.grad!r}, d/dw {w.grad!r}; expected 33, 14, 3"
        )
    assert not failures, "\n".join(failures)


def test_doubling_chain(engine=ENGINE):
    # b = x; 12 times: b = b + b  ->  b = 4096 x, so d/dx = 4096 exactly
    x = engine.Value(1)
    b = x
    for _ in range(12):
        b = b + b
    b.backward()
    assert (b.data, x.grad) == (4096, 4096), (
        f"doubling chain: value {b.data!r}, d/dx {x.grad!r}; expected 4096"
    )


def test_squares_of_squares(engine=ENGINE):
    # (x * x) * (x * x) = x**4: d/dx = 4x**3 = 108 at 3; y = (x + x) * x = 2x**2: d/dx = 4x = 12
    x = engine.Value(3)
    s = x * x
    y = s * s
    y.backward()
    assert (y.data, x.grad) == (81, 108), (
        f"(x*x)*(x*x) at 3: value {y.data!r}, d/dx {x.grad!r}; expected 81, 108"
    )
    x = engine.Value(3)
    y = (x + x) * x
    y.backward()
    assert (y.data, x.grad) == (18, 12), f"(x+x)*x at 3: value {y.data!r}, d/dx {x.grad!r}; expected 18, 12"
