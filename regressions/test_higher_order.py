"""Regression: derivatives of derivatives, and the bookkeeping of Value gradients.

The bugs (the typical ones of engines that add ``create_graph``; each lives in
the bug zoo):
* a graph-mode rule that multiplies by ``.data`` (a plain number) where it
  needs the node itself: the first derivative is right, but the term of the
  second derivative that comes through that factor silently vanishes;
* a graph-mode pass that detaches its results: every ``.grad`` is a Value, but
  a constant one, so every second derivative is 0;
* create_graph state leaking into the next plain ``backward()``: interior
  gradients stay Values (and keep graphs alive) after a first-order pass;
* Value gradients that do not accumulate on leaves across passes (the
  documented semantics: leaves accumulate, as in first order), or that
  ``grad()`` leaves behind in ``.grad`` when it must touch none.

How they show up: first derivatives stay right, so every first-order test
passes; Newton steps, Hessians and gradient penalties are quietly wrong.

Why these tests catch them: every op's second derivative (and a third) is
compared, exactly where the data are rational, with derivatives worked out by
hand, at points where the missing term is not 0; and the state of every
``.grad`` (number or Value, and its value) is checked after each sequence of
passes that the semantics define.
"""

from __future__ import annotations

import math
from fractions import Fraction as F

import autograd.engine

ENGINE = autograd.engine


def second(engine, f, point, i, j):
    """d2 f / dx_i dx_j at ``point``, by grad of grad."""
    xs = [engine.Value(c) for c in point]
    first = engine.grad(f(*xs), xs, create_graph=True)
    return engine.grad(first[i], xs)[j]


def test_second_derivatives_of_the_rational_ops(engine=ENGINE):
    # (name, f, point, i, j, d2f/dxi dxj by hand); points where every term is nonzero
    x0, y0 = F(2, 3), F(-5, 4)
    cases = [
        ("x * y * x, d/dx d/dy", lambda x, y: x * y * x, 0, 1, 2 * x0),
        ("x * y * x, d2/dx2", lambda x, y: x * y * x, 0, 0, 2 * y0),
        ("x / y, d2/dy2", lambda x, y: x / y, 1, 1, 2 * x0 / y0**3),
        ("x / y, d/dx d/dy", lambda x, y: x / y, 0, 1, -1 / y0**2),
        ("1 / x, d2/dx2", lambda x, y: 1 / x, 0, 0, 2 / x0**3),
        ("x ** 3, d2/dx2", lambda x, y: x**3, 0, 0, 6 * x0),
        ("x ** -2, d2/dx2", lambda x, y: x**-2, 0, 0, 6 / x0**4),
        ("(x - y) ** 2 + -(x * y), d/dx d/dy", lambda x, y: (x - y) ** 2 + -(x * y), 0, 1, -3),
        ("vsum([x * y, x * x, y]), d2/dx2", lambda x, y: engine.vsum([x * y, x * x, y]), 0, 0, 2),
        ("dot([x, y], [x, x], x * y), d/dx d/dy", lambda x, y: engine.dot([x, y], [x, x], x * y), 0, 1, 2),
        ("dot([x, y], [y, y]), d2/dy2", lambda x, y: engine.dot([x, y], [y, y]), 1, 1, 2),
    ]
    failures = []
    for name, f, i, j, expected in cases:
        actual = second(engine, f, (x0, y0), i, j)
        if actual != expected:
            failures.append(f"{name} at x = 2/3, y = -5/4: {actual!r}, expected {expected!r}")
    assert not failures, "\n".join(failures)


def test_second_derivatives_of_the_transcendental_ops(engine=ENGINE):
    x0, y0 = 0.6, 1.7
    t, s = math.tanh(x0), 1 / (1 + math.exp(-x0))
    cases = [
        ("tanh(x), d2/dx2", lambda x, y: x.tanh(), 0, 0, -2 * t * (1 - t * t)),
        ("sigmoid(x), d2/dx2", lambda x, y: x.sigmoid(), 0, 0, s * (1 - s) * (1 - 2 * s)),
        ("exp(x * y), d/dx d/dy", lambda x, y: (x * y).exp(), 0, 1, math.exp(x0 * y0) * (1 + x0 * y0)),
        ("log(x), d2/dx2", lambda x, y: x.log(), 0, 0, -1 / x0**2),
        ("x ** 2.5, d2/dx2", lambda x, y: x**2.5, 0, 0, 3.75 * x0**0.5),
        ("x ** y, d/dx d/dy", lambda x, y: x**y, 0, 1, x0 ** (y0 - 1) * (1 + y0 * math.log(x0))),
        ("x ** y, d2/dy2", lambda x, y: x**y, 1, 1, x0**y0 * math.log(x0) ** 2),
        ("3 ** x, d2/dx2", lambda x, y: 3**x, 0, 0, 3**x0 * math.log(3) ** 2),
        ("relu(x) * x * y, d2/dx2", lambda x, y: x.relu() * x * y, 0, 0, 2 * y0),
        ("relu(-x) * x, d2/dx2", lambda x, y: (-x).relu() * x, 0, 0, 0),
    ]
    failures = []
    for name, f, i, j, expected in cases:
        actual = second(engine, f, (x0, y0), i, j)
        if not math.isclose(actual, expected, rel_tol=1e-12, abs_tol=1e-300):
            failures.append(f"{name} at x = 0.6, y = 1.7: {actual!r}, expected {expected!r}")
    assert not failures, "\n".join(failures)


def test_third_derivative(engine=ENGINE):
    x = engine.Value(F(3, 2))
    (d1,) = engine.grad(x**4, [x], create_graph=True)
    (d2,) = engine.grad(d1, [x], create_graph=True)
    (d3,) = engine.grad(d2, [x])
    assert (d1.data, d2.data, d3) == (4 * F(3, 2) ** 3, 12 * F(3, 2) ** 2, 24 * F(3, 2)), (
        f"d/dx, d2/dx2, d3/dx3 of x**4 at 3/2: {(d1.data, d2.data, d3)!r}, expected 27/2, 27, 36"
    )


def test_backward_create_graph_gives_gradients_that_differentiate_again(engine=ENGINE):
    x, y = engine.Value(F(1, 2)), engine.Value(3)
    out = x * x * y
    out.backward(create_graph=True)
    gx = x.grad
    assert isinstance(gx, engine.Value), f"after backward(create_graph=True) x.grad is {gx!r}, not a Value"
    assert gx.data == 3, f"d/dx (x^2 y) at (1/2, 3) is 2xy = 3, got {gx.data!r}"
    cross = engine.grad(gx, [x, y])
    assert cross == [6, 1], f"d/dx and d/dy of 2xy at (1/2, 3): {cross!r}, expected [2y, 2x] = [6, 1]"


def test_plain_backward_after_create_graph_leaves_numbers_in_interior_nodes(engine=ENGINE):
    x, w = engine.Value(F(1, 2)), engine.Value(3)
    h = x * w
    y = h * h + x
    y.backward(create_graph=True)
    y.backward()
    interior = {"h": h.grad, "y": y.grad}
    leaked = {name: g for name, g in interior.items() if isinstance(g, engine.Value)}
    assert not leaked, f"a plain backward() after a create_graph one left Values in interior nodes: {leaked}"
    assert interior == {"h": 3, "y": 1}, f"interior gradients {interior}, expected h: 2h = 3, y: 1"


def test_create_graph_passes_accumulate_on_leaves_and_not_interiors(engine=ENGINE):
    x = engine.Value(F(2, 3))
    h = x * x
    y = h * x  # dy/dx = 3x^2 = 4/3, dy/dh = x
    y.backward(create_graph=True)
    y.backward(create_graph=True)
    assert x.grad.data == 2 * F(4, 3), f"two create_graph passes: x.grad {x.grad.data!r}, expected 8/3"
    assert h.grad.data == F(2, 3), f"two create_graph passes: interior h.grad {h.grad.data!r}, expected 2/3"
    second_x = engine.grad(x.grad, [x])
    assert second_x == [2 * 6 * F(2, 3)], f"d/dx of the accumulated x.grad: {second_x!r}, expected 8"


def test_grad_leaves_every_grad_as_it_was(engine=ENGINE):
    x, y = engine.Value(F(1, 3)), engine.Value(2)
    h = x * y
    out = h * h + x
    x.grad, y.grad, h.grad = 7, 8, 9
    results = [engine.grad(out, [x, y]), engine.grad(out, [x, y], create_graph=True)]
    grads = (x.grad, y.grad, h.grad)
    assert grads == (7, 8, 9), f"grad() must touch no .grad: (x, y, h) now {grads!r}, were (7, 8, 9)"
    # d/dx (xy)^2 + x = 2xy^2 + 1 = 11/3, d/dy = 2x^2 y = 4/9
    assert results[0] == [F(11, 3), F(4, 9)], f"grad(out, [x, y]) = {results[0]!r}, expected [11/3, 4/9]"
    assert [g.data for g in results[1]] == results[0]
