"""Regression: second derivatives at the edges of pow's and a number's division's domains.

The bugs (found by the ``edge_second_order`` probe on this engine): two rules multiplied the
incoming gradient by a factor of the partial before the rest of it, and one differentiated a
quotient whose numerator is the constant 0.

- ``x ** y`` at x = 1.5, y = -1e300: d2/dx2 = y (y - 1) x ** (y - 2) is 0 (x ** (y - 2)
  underflows), but the second pass formed (gradient * (y - 1)) first, 1e600 = inf, then
  inf * 0 = nan, and backward() refused the nan.  The partial is now formed first.
- ``0 / x`` at x = 5e-324: 0 / x is 0 for every x, so every derivative is 0; the graph rule
  formed -(g * out) / x, whose derivative holds 1 / x = inf, times 0.  A numerator 0 now sends
  no gradient.

Why these tests catch it: they take the second derivatives where the exact ones are finite
(0 here, worked by hand above) and demand those numbers; and they keep the rules' values at
ordinary points, where the exact derivatives are worked by hand too.
"""

from __future__ import annotations

import math

from autograd.engine import Value


def second_derivatives(build, *xs):
    """The Hessian of ``build(*leaves)``, row by row, by two passes (create_graph, then plain)."""
    rows = []
    for i in range(len(xs)):
        leaves = [Value(x) for x in xs]
        out = build(*leaves)
        out.backward(create_graph=True)
        gi = leaves[i].grad
        for v in leaves:
            v.grad = 0
        if isinstance(gi, Value):
            gi.backward()
            rows.append([v.grad for v in leaves])
        else:
            rows.append([0] * len(xs))
    return rows


def test_pow_second_derivatives_where_the_power_underflows_are_zero():
    hessian = second_derivatives(lambda x, y: x**y, 1.5, -1e300)
    assert all(h == 0 for row in hessian for h in row)


def test_pow_second_derivatives_at_an_ordinary_point():
    # x ** y at (2, 3): d2/dx2 = y (y - 1) x ** (y - 2) = 12; d2/dx dy = x ** (y - 1) (1 + y ln x)
    # = 4 (1 + 3 ln 2); d2/dy2 = x ** y (ln x) ** 2 = 8 (ln 2) ** 2
    (dxx, dxy), (dyx, dyy) = second_derivatives(lambda x, y: x**y, 2.0, 3.0)
    assert dxx == 12.0
    assert math.isclose(dxy, 4 * (1 + 3 * math.log(2)), rel_tol=1e-15)
    assert math.isclose(dyx, 4 * (1 + 3 * math.log(2)), rel_tol=1e-15)
    assert math.isclose(dyy, 8 * math.log(2) ** 2, rel_tol=1e-15)


def test_pow_by_a_constant_second_derivative():
    # x ** 3 at 2: 6 x = 12; at 1e-300 ** 2.5: 3.75 x ** 0.5 = 3.75e-150
    assert second_derivatives(lambda x: x**3, 2.0) == [[12.0]]
    ((value,),) = second_derivatives(lambda x: x**2.5, 1e-300)
    assert math.isclose(value, 3.75e-150, rel_tol=1e-14)


def test_zero_over_x_has_zero_second_derivative_at_the_smallest_float():
    for x in (5e-324, -5e-324, 1e-300, 1.0):
        assert second_derivatives(lambda v: 0 / v, x) == [[0]]


def test_a_number_over_x_keeps_its_second_derivative():
    # 3 / x at 2: d2/dx2 = 6 / x ** 3 = 0.75; the first derivative -3 / x ** 2 = -0.75
    assert second_derivatives(lambda v: 3 / v, 2.0) == [[0.75]]
    x = Value(2.0)
    (3 / x).backward()
    assert x.grad == -0.75
    z = Value(5e-324)
    (0 / z).backward()
    assert z.grad == 0
