"""Unit tests of higher-order differentiation: backward(create_graph=True), grad, hessian, hvp.

Expected values come from sympy (exact rationals, or evaluated to 30 digits for the
transcendental ops) or from hand calculus written out here, never from the engine.
"""

import gc
import math
import os
import subprocess
import sys
from fractions import Fraction as F
from pathlib import Path

import pytest
import sympy

from autograd import Value, dot, grad, hessian, hvp, vsum
from autograd.nn import Neuron

ROOT = Path(__file__).resolve().parent.parent
X, Y = sympy.symbols("x y")


# ---------------------------------------------------------------------- the functions, written twice
class EngineOps:
    exp = staticmethod(lambda v: v.exp())
    log = staticmethod(lambda v: v.log())
    tanh = staticmethod(lambda v: v.tanh())
    sigmoid = staticmethod(lambda v: v.sigmoid())
    relu = staticmethod(lambda v: v.relu())
    vsum = staticmethod(vsum)
    dot = staticmethod(dot)


class SympyOps:
    exp = staticmethod(sympy.exp)
    log = staticmethod(sympy.log)
    tanh = staticmethod(sympy.tanh)
    sigmoid = staticmethod(lambda v: 1 / (1 + sympy.exp(-v)))
    relu = staticmethod(lambda v: sympy.Max(0, v))
    vsum = staticmethod(lambda vs: sum(vs, sympy.Integer(0)))
    dot = staticmethod(lambda ws, xs, start=0: start + sum(w * x for w, x in zip(ws, xs, strict=True)))


# Each function of (x, y) uses the ops named; written once over an `o` namespace so that
# the very same formula is built from engine Values and from sympy symbols.
RATIONAL = {
    "add sub mul": lambda o, x, y: x * x * y - y * y + 3 * x - (x - y) * x,
    "div": lambda o, x, y: x / (y + 2) - 1 / x + (x * y) / (x + y * y),
    "neg": lambda o, x, y: -(x * y * y) + -x,
    "int pow": lambda o, x, y: x**3 * y**-2 + (x - y) ** 4 + x ** F(2),
    "vsum": lambda o, x, y: o.vsum([x * x, x * y, y, 2, x * x * x]),
    "dot": lambda o, x, y: o.dot([x, y, x * y, 3], [y, y, x, x * x], x * x * y),
    "mixed": lambda o, x, y: (x * y - x / (y + 1)) ** 3 / (x - y * y) + 2 / x,
}
TRANSCENDENTAL = {
    "exp": lambda o, x, y: o.exp(x * y) + o.exp(-x),
    "log": lambda o, x, y: o.log(x * x + y) * y,
    "tanh": lambda o, x, y: o.tanh(x * y) + o.tanh(x) * x,
    "sigmoid": lambda o, x, y: o.sigmoid(x - y * y) * x,
    "Value ** Value": lambda o, x, y: x**y + (x * y) ** (y - x),
    "c ** Value": lambda o, x, y: 2 ** (x * y) + F(1, 3) ** x,
    "float pow": lambda o, x, y: x**2.5 * y + (x * x + y) ** -1.5,
    "relu": lambda o, x, y: o.relu(x * y) * x + o.relu(x - y) * y * y,
}
RATIONAL_POINTS = [(F(1, 3), F(-5, 7)), (2, 3), (F(-7, 2), F(4, 9))]
FLOAT_POINTS = [(0.7, 1.3), (1.9, 0.4), (F(3, 4), F(5, 2))]  # all positive: log, pow and ** need it


def engine_derivatives(f, point, order):
    """All partial derivatives of f up to `order`, by grad of grad: {(i, j, ...): value}."""
    xs = [Value(c) for c in point]
    out = f(EngineOps, *xs)
    results = {(): out.data}
    layer = {(): out}
    for k in range(1, order + 1):
        nxt = {}
        for index, node in layer.items():
            for i, g in enumerate(grad(node, xs, create_graph=k < order)):
                nxt[(*index, i)] = g
        results.update({index: g.data if k < order else g for index, g in nxt.items()})
        layer = nxt
    return results


def sympy_derivatives(f, point, order):
    expr = f(SympyOps, X, Y)
    at = {X: sympy.nsimplify(point[0]), Y: sympy.nsimplify(point[1])}
    results = {(): expr.subs(at)}
    layer = {(): expr}
    for _ in range(order):
        layer = {(*index, i): sympy.diff(e, s) for index, e in layer.items() for i, s in enumerate((X, Y))}
        results.update({index: e.subs(at) for index, e in layer.items()})
    return results


def as_fraction(r):
    r = sympy.nsimplify(r)
    assert r.is_Rational, r
    return F(int(r.p), int(r.q))


def assert_exact(actual, expected):
    assert actual == expected, (actual, expected)
    assert type(actual) in (int, F), f"{actual!r} is not exact"


# ---------------------------------------------------------------------- every op, to the third order
@pytest.mark.parametrize("point", RATIONAL_POINTS, ids=str)
@pytest.mark.parametrize("name", list(RATIONAL))
def test_rational_ops_second_and_third_derivatives_equal_sympy_exactly(name, point):
    engine = engine_derivatives(RATIONAL[name], point, order=3)
    expected = sympy_derivatives(RATIONAL[name], point, order=3)
    assert len(engine) == 1 + 2 + 4 + 8
    for index, value in expected.items():
        assert_exact(engine[index], as_fraction(value))


@pytest.mark.parametrize("point", FLOAT_POINTS, ids=str)
@pytest.mark.parametrize("name", list(TRANSCENDENTAL))
def test_transcendental_ops_second_and_third_derivatives_match_sympy(name, point):
    engine = engine_derivatives(TRANSCENDENTAL[name], point, order=3)
    expected = sympy_derivatives(TRANSCENDENTAL[name], point, order=3)
    for index, value in expected.items():
        reference = float(sympy.N(value, 30))
        assert engine[index] == pytest.approx(reference, rel=1e-11, abs=1e-12), index


def test_relu_second_derivative_is_zero_on_both_sides_of_the_kink():
    for x0, slope in ((F(3, 2), 1), (F(-3, 2), 0), (2.5, 1), (-0.5, 0)):
        x = Value(x0)
        (g,) = grad(x.relu() * 3, [x], create_graph=True)
        assert g.data == 3 * slope
        assert grad(g, [x]) == [0]
    # relu(x) * x = x**2 on the right, 0 on the left: second derivative 2, then 0
    for x0, second in ((F(1, 2), 2), (F(-1, 2), 0)):
        x = Value(x0)
        (g,) = grad(x.relu() * x, [x], create_graph=True)
        assert grad(g, [x]) == [second]


def test_pow_by_zero_and_one_and_a_power_of_zero_base():
    x = Value(0)
    (g,) = grad(x**2 + x**1 + x**0, [x], create_graph=True)  # 2x + 1 + 0
    assert_exact(g.data, 1)
    assert grad(g, [x]) == [2]
    x = Value(0.0)
    (g,) = grad(x**2.5, [x], create_graph=True)  # 2.5 x**1.5, then 3.75 x**0.5: both 0 at 0
    assert g.data == 0 and grad(g, [x]) == [0]


def test_pow_whose_second_derivative_is_infinite_at_zero_refuses_and_leaves_leaves_alone():
    x, w = Value(0.0), Value(2.0)
    (x * 5).backward()
    y = x**1.5 * w  # first derivative 1.5 x**0.5 = 0 is finite; the second, 0.75 x**-0.5, is not
    with pytest.raises(ValueError, match=r"pow: 0\.0 \*\* 0\.5 has an infinite derivative"):
        y.backward(create_graph=True)
    assert (x.grad, w.grad) == (5, 0)
    y.backward()  # first order is fine
    assert (x.grad, w.grad) == (5, 0)


def test_overflow_inside_a_graph_rule_names_backward_and_leaves_leaves_alone():
    x, z = Value(0.5), Value(3.0)
    (z * 2).backward()
    y = x**-1023 + z
    with pytest.raises(OverflowError, match="backward: the gradient through pow"):
        y.backward(create_graph=True)
    assert (x.grad, z.grad) == (0, 2)


def test_value_pow_of_ints_with_a_negative_exponent_is_exact():
    a, b = Value(3), Value(-2)
    y = a**b
    assert_exact(y.data, F(1, 9))
    ga, gb = grad(y, [a, b], create_graph=True)
    assert_exact(ga.data, F(-2, 27))  # b a**(b-1)
    assert gb.data == pytest.approx(math.log(3) / 9)
    assert_exact(grad(ga, [a])[0], F(6, 81))  # b (b-1) a**(b-2) = -2 * -3 / 81


# ---------------------------------------------------------------------- the two rule tables agree
@pytest.mark.parametrize(
    "f, point",
    [(f, p) for f in RATIONAL.values() for p in RATIONAL_POINTS]
    + [(f, p) for f in TRANSCENDENTAL.values() for p in FLOAT_POINTS],
)
def test_graph_mode_gradients_equal_the_fast_path_bit_for_bit(f, point):
    # the same arithmetic in the same order: equal exactly, for floats too
    fast = [Value(c) for c in point]
    f(EngineOps, *fast).backward()
    slow = [Value(c) for c in point]
    f(EngineOps, *slow).backward(create_graph=True)
    assert all(type(v.grad) is Value for v in slow)
    assert [v.grad.data for v in slow] == [v.grad for v in fast]
    assert [type(v.grad.data) for v in slow] == [type(v.grad) for v in fast]


def test_every_rule_has_a_twin_and_the_table_names_every_op():
    import autograd.engine as engine

    assert set(engine._GRAPH_RULES) == set(engine._RULE_NAMES)
    assert set(engine._RULE_NAMES.values()) == {
        "add", "sub", "mul", "div", "neg", "pow", "exp", "log", "tanh", "relu", "sigmoid", "vsum", "dot",
    }  # fmt: skip
    assert len(set(engine._GRAPH_RULES.values())) == len(engine._GRAPH_RULES)


# ---------------------------------------------------------------------- backward(create_graph=True)
def test_create_graph_makes_every_reachable_grad_a_value():
    x, y = Value(F(1, 2)), Value(3)
    h = x * y
    r = (h - 5).relu()  # inactive: nothing flows behind it
    out = h * h + r + y**0
    out.backward(create_graph=True)
    for node in (x, y, h, r, out):
        assert type(node.grad) is Value, node
    # d/dx (x y)^2 = 2 x y^2 = 9, d/dy = 2 x^2 y + 0 = 3/2
    assert (x.grad.data, y.grad.data, h.grad.data, r.grad.data, out.grad.data) == (9, F(3, 2), 3, 1, 1)
    # the gradients are differentiable: d(dout/dx)/dy = 4 x y = 6, d(dout/dy)/dy = 2 x^2 = 1/2
    assert grad(x.grad, [x, y]) == [2 * 9, 6]
    assert grad(y.grad, [x, y]) == [6, F(1, 2)]


def test_create_graph_on_a_lone_leaf():
    x = Value(4)
    x.backward(create_graph=True)
    assert type(x.grad) is Value and x.grad.data == 1
    x.backward(create_graph=True)
    assert type(x.grad) is Value and x.grad.data == 2


def test_create_graph_twice_accumulates_leaves_and_keeps_interiors_at_one_pass():
    x = Value(F(2, 3))
    h = x * x * x
    y = h * x  # x**4: dy/dx = 4 x**3 = 32/27, dy/dh = x
    y.backward(create_graph=True)
    first = x.grad
    y.backward(create_graph=True)
    assert x.grad.data == 2 * F(32, 27)
    assert h.grad.data == F(2, 3)  # interior: the latest pass only
    assert grad(x.grad, [x]) == [2 * 12 * F(4, 9)]  # twice d2/dx2 x**4 = 12 x**2
    assert first.data == F(32, 27)  # the first pass's Value is not changed in place


def test_create_graph_twice_doubles_float_leaves_bit_for_bit():
    x = Value(0.5)
    y = x * 0.2 + x * 0.2 + x * 0.2
    y.backward(create_graph=True)
    assert x.grad.data == 0.2 + 0.2 + 0.2
    y.backward(create_graph=True)
    assert x.grad.data == 2 * (0.2 + 0.2 + 0.2)


def test_plain_backward_after_create_graph_makes_interior_grads_numbers_again():
    x, w = Value(F(1, 2)), Value(3)
    h = (x * w).tanh()
    y = h * w + x * x
    y.backward(create_graph=True)
    leaf_grad = x.grad
    y.backward()
    for node in (h, y):
        assert type(node.grad) is not Value, node  # no create_graph state left in interior nodes
    assert y.grad == 1 and h.grad == 3
    # leaves accumulate: the Value kept from the first pass plus this pass's number
    assert type(x.grad) is Value and x.grad.data == 2 * leaf_grad.data
    x.grad = w.grad = 0
    y.backward()
    assert type(x.grad) is not Value and x.grad == leaf_grad.data


def test_create_graph_after_plain_backward_adds_a_value_to_the_number():
    x = Value(F(1, 3))
    y = x * x * x
    y.backward()
    assert x.grad == F(1, 3)
    y.backward(create_graph=True)
    assert type(x.grad) is Value and x.grad.data == F(2, 3)
    assert grad(x.grad, [x]) == [2]  # only the second pass depends on x: d(3x^2)/dx = 6x


def test_plain_leaf_gradient_overflowing_onto_a_value_gradient_is_refused():
    a = Value(1.0)
    (a * 1e308).backward(create_graph=True)
    with pytest.raises(OverflowError, match="add"):
        (a * 1e308).backward()


def test_a_leaf_used_twice_gets_its_value_once_per_pass():
    a = Value(3)
    y = a * a
    y.backward(create_graph=True)
    assert a.grad.data == 6
    assert grad(a.grad, [a]) == [2]


# ---------------------------------------------------------------------- grad
def test_grad_touches_no_grad():
    x, y = Value(F(1, 3)), Value(2)
    h = x * y
    out = h.tanh() + h * x
    out.backward(create_graph=True)  # every grad is a Value now
    before = {id(v): v.grad for v in (x, y, h, out)}
    for create_graph in (False, True):
        assert len(grad(out, [x, y], create_graph=create_graph)) == 2
        assert {id(v): v.grad for v in (x, y, h, out)} == before
        for node in (x, y, h, out):
            assert node.grad is before[id(node)]
    x.grad, y.grad, h.grad = 7, 8, 9
    grad(out, [x, h])
    assert (x.grad, y.grad, h.grad) == (7, 8, 9)


def test_grad_values():
    x, y = Value(F(1, 3)), Value(F(-5, 7))
    out = (x * y - x / (y + 1)) ** 3 / (x - y * y) + 2 / x
    expr = (X * Y - X / (Y + 1)) ** 3 / (X - Y * Y) + 2 / X
    at = {X: sympy.Rational(1, 3), Y: sympy.Rational(-5, 7)}
    expected = [as_fraction(sympy.diff(expr, s).subs(at)) for s in (X, Y)]
    assert grad(out, [x, y]) == expected
    assert [g.data for g in grad(out, [x, y], create_graph=True)] == expected
    assert grad(out, (v for v in [y, x])) == expected[::-1]  # any iterable, in its order


def test_grad_of_an_input_the_output_does_not_depend_on_is_zero():
    x, z = Value(2), Value(5)
    z.grad = 4
    assert grad(x * x, [x, z]) == [4, 0]
    assert z.grad == 4
    _, gz = grad(x * x, [x, z], create_graph=True)
    assert type(gz) is Value and gz.data == 0
    assert grad(gz, [x, z]) == [0, 0]


def test_grad_with_respect_to_an_interior_node_and_the_output_itself():
    x = Value(3)
    h = x * x
    out = h * h + h  # d/dh = 2h + 1 = 19
    assert grad(out, [h, x, out]) == [19, 19 * 6, 1]
    assert grad(x, [x]) == [1]
    (g,) = grad(x, [x], create_graph=True)
    assert type(g) is Value and g.data == 1


def test_grad_of_a_repeated_input():
    x = Value(F(1, 2))
    assert grad(x * x * x, [x, x]) == [F(3, 4), F(3, 4)]


def test_grad_restores_grads_when_the_pass_fails():
    x = Value(0.5)
    x.grad = 3
    with pytest.raises(OverflowError, match="backward"):
        grad(x**-1023, [x])
    assert x.grad == 3


def test_hand_derived_hessian_of_a_neurons_squared_error():
    # L = mean((w.x + b - t)^2) over two points: H = (2/N) sum z z^T with z = (x0, x1, 1)
    neuron = Neuron(2, nonlin="linear")
    for p, value in zip(neuron.parameters(), (F(1, 2), F(-1, 3), F(1, 4)), strict=True):
        p.data = value
    points = [([F(1), F(2)], F(3)), ([F(-1), F(1, 2)], F(-2))]
    loss = vsum((neuron(x) - t) ** 2 for x, t in points) / len(points)
    params = neuron.parameters()
    gradient = grad(loss, params, create_graph=True)
    rows = [grad(g, params) for g in gradient]
    zs = [[*x, 1] for x, _ in points]
    expected = [[sum(2 * z[i] * z[j] for z in zs) / len(zs) for j in range(3)] for i in range(3)]
    assert rows == expected
    assert all(p.grad == 0 for p in params)


# ---------------------------------------------------------------------- hessian and hvp
def f_cubic(a, b):
    return a * a * b + b**3 - a / b


def test_hessian_equals_sympy_exactly():
    expr = X * X * Y + Y**3 - X / Y
    at = {X: sympy.Rational(1, 2), Y: 3}
    expected = [[as_fraction(sympy.diff(expr, s, t).subs(at)) for t in (X, Y)] for s in (X, Y)]
    result = hessian(f_cubic, [F(1, 2), 3])
    assert result == expected
    for row in result:
        for entry in row:
            assert type(entry) in (int, F)


def test_hessian_of_transcendental_function():
    result = hessian(lambda a, b: (a * b).tanh() + a.exp() * b.log(), [0.3, 1.7])
    expr = sympy.tanh(X * Y) + sympy.exp(X) * sympy.log(Y)
    at = {X: sympy.Rational(3, 10), Y: sympy.Rational(17, 10)}
    for i, s in enumerate((X, Y)):
        for j, t in enumerate((X, Y)):
            assert result[i][j] == pytest.approx(float(sympy.diff(expr, s, t).subs(at)), rel=1e-12)


def test_hessian_of_linear_and_constant_pieces_is_zero():
    assert hessian(lambda a, b: 3 * a - b + 2, [1, 2]) == [[0, 0], [0, 0]]
    assert hessian(lambda a: a - a, [F(1, 2)]) == [[0]]
    assert hessian(lambda: Value(3), []) == []


def test_hvp_equals_hessian_times_v():
    expr = X * X * Y + Y**3 - X / Y
    at = {X: sympy.Rational(1, 2), Y: 3}
    h = [[as_fraction(sympy.diff(expr, s, t).subs(at)) for t in (X, Y)] for s in (X, Y)]
    v = [F(2, 3), -5]
    assert hvp(f_cubic, [F(1, 2), 3], v) == [h[0][0] * v[0] + h[0][1] * v[1], h[1][0] * v[0] + h[1][1] * v[1]]
    assert hvp(f_cubic, (F(1, 2), 3), (1, 0)) == [h[0][0], h[1][0]]


@pytest.mark.parametrize(
    "call, error, words",
    [
        (lambda: grad(3, [Value(1)]), TypeError, ["grad", "output", "3", "int"]),
        (lambda: grad(Value(1), Value(1)), TypeError, ["grad", "single Value", "[it]"]),
        (lambda: grad(Value(1), 5), TypeError, ["grad", "list of Values", "5"]),
        (lambda: grad(Value(1), [Value(1), 2.5]), TypeError, ["grad", "inputs[1]", "2.5", "float"]),
        (lambda: hessian(f_cubic, [Value(1), 2]), TypeError, ["hessian", "numbers", "Value(data=1"]),
        (lambda: hessian(f_cubic, 3), TypeError, ["hessian", "list of numbers", "3"]),
        (lambda: hessian(f_cubic, Value(3)), TypeError, ["hessian", "list of numbers"]),
        (lambda: hessian(f_cubic, ["a", 2]), TypeError, ["hessian", "'a'"]),
        (lambda: hessian(f_cubic, [True, 2]), TypeError, ["hessian", "bool"]),
        (lambda: hessian(f_cubic, [math.nan, 2]), ValueError, ["hessian", "nan"]),
        (lambda: hessian(lambda a: 3.0, [1]), TypeError, ["hessian", "f must return a Value", "3.0"]),
        (lambda: hvp(f_cubic, [1, 2], [1]), ValueError, ["hvp", "1 entries", "2 inputs"]),
        (lambda: hvp(f_cubic, [1, 2], 1), TypeError, ["hvp", "v", "list of numbers"]),
        (lambda: hvp(f_cubic, [1, 2], [1, "b"]), TypeError, ["hvp", "'b'"]),
        (lambda: hvp(f_cubic, [1, 2], [1, math.inf]), ValueError, ["hvp", "inf"]),
        (lambda: hvp(lambda a, b: [a], [1, 2], [1, 1]), TypeError, ["hvp", "f must return a Value"]),
    ],
)
def test_bad_input_raises_a_clear_error(call, error, words):
    with pytest.raises(error) as info:
        call()
    assert type(info.value) is error
    for word in words:
        assert word in str(info.value), f"{word!r} missing from {info.value}"


# ---------------------------------------------------------------------- scale: no recursion
CHAIN_SCRIPT = """
import sys
from autograd import Value, grad
n, w0 = 20_000, 1.00001
x, w, b = Value(1.0), Value(w0), Value(0.5)
y = x
for _ in range(n):
    y = y * w + b
dw, db = grad(y, [w, b], create_graph=True)
print(sys.getrecursionlimit(), *map(repr, grad(dw, [w, x, b]) + grad(db, [w])))
y.backward(create_graph=True)
print(repr(grad(w.grad, [x])[0]))
del y, dw, db
"""


def test_second_derivative_through_a_20000_step_chain_at_the_default_recursion_limit():
    done = subprocess.run(
        [sys.executable, "-c", CHAIN_SCRIPT],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.splitlines()
    limit, dww, dwx, dwb, dbw = first.split()
    assert int(limit) == 1000
    n, w = 20_000, 1.00001
    # y = x w^n + b S with S = sum_{k<n} w^k, so
    # d2y/dw2 = x n(n-1) w^(n-2) + b sum k(k-1) w^(k-2);  d2y/dwdx = n w^(n-1);  d2y/dwdb = sum k w^(k-1)
    s1 = sum(k * w ** (k - 1) for k in range(1, n))
    s2 = sum(k * (k - 1) * w ** (k - 2) for k in range(2, n))
    assert float(dww) == pytest.approx(n * (n - 1) * w ** (n - 2) + 0.5 * s2, rel=1e-9)
    assert float(dwx) == pytest.approx(n * w ** (n - 1), rel=1e-9)
    assert float(dwb) == pytest.approx(s1, rel=1e-9)
    assert float(dbw) == pytest.approx(s1, rel=1e-9)
    assert float(second) == pytest.approx(n * w ** (n - 1), rel=1e-9)


# ---------------------------------------------------------------------- reference cycles
def _values_alive():
    return sum(1 for o in gc.get_objects() if type(o) is Value)


def _graph():
    x, y = Value(0.3), Value(-1.2)
    h = (x * y + x).tanh()
    return x, y, (h * h * y + vsum([h, x, y]).exp()) / (y * y + 1)


@pytest.fixture
def gc_off():
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    yield
    if was_enabled:
        gc.enable()


def test_grad_hessian_and_hvp_create_no_reference_cycles(gc_off):
    before = _values_alive()
    x, y, out = _graph()
    gx, gy = grad(out, [x, y], create_graph=True)
    second = grad(gx, [x, y]) + grad(gy, [x, y])
    assert len(second) == 4
    assert _values_alive() > before + 30
    del x, y, out, gx, gy
    assert _values_alive() == before  # all freed by reference counting alone
    hessian(lambda a, b: (a * b).tanh() * a, [0.5, 2.0])
    hvp(lambda a, b: (a * b).tanh() * a, [0.5, 2.0], [1.0, -1.0])
    assert _values_alive() == before
    assert gc.collect() == 0


def test_create_graph_backward_makes_cycles_that_the_collector_frees(gc_off):
    # x.grad is a Value computed from x: a reference cycle, as in torch (documented)
    before = _values_alive()
    x, y, out = _graph()
    out.backward(create_graph=True)
    del x, y, out
    assert _values_alive() > before  # kept alive by the cycles
    assert gc.collect() > 0
    assert _values_alive() == before


# ---------------------------------------------------------------------- exact messages and structure
VALUE_1 = "Value(data=1, grad=0)"


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: grad(3, [Value(1)]), TypeError, "grad: output must be a Value, got 3 (int)"),
        (
            lambda: grad(Value(1), Value(1)),
            TypeError,
            f"grad: inputs must be a list of Values, got the single Value {VALUE_1}; pass [it]",
        ),
        (lambda: grad(Value(1), 5), TypeError, "grad: inputs must be a list of Values, got 5"),
        (lambda: grad(Value(1), [Value(1), 2.5]), TypeError, "grad: inputs[1] is 2.5 (float), not a Value"),
        (lambda: hessian(f_cubic, 3), TypeError, "hessian: inputs must be a list of numbers, got 3 (int)"),
        (
            lambda: hvp(f_cubic, Value(1), [1]),
            TypeError,
            f"hvp: inputs must be a list of numbers, got {VALUE_1} (Value)",
        ),
        (
            lambda: hessian(f_cubic, [2, Value(1)]),
            TypeError,
            f"hessian: inputs are numbers (f receives Values made from them), got {VALUE_1}",
        ),
        (lambda: hessian(lambda a: 3.0, [1]), TypeError, "hessian: f must return a Value, got 3.0 (float)"),
        (lambda: hvp(lambda a: None, [1], [1]), TypeError, "hvp: f must return a Value, got None (NoneType)"),
        (lambda: hvp(f_cubic, [1, 2], 1), TypeError, "hvp: v must be a list of numbers, got 1 (int)"),
        (
            lambda: hvp(f_cubic, [1, 2], Value(1)),
            TypeError,
            f"hvp: v must be a list of numbers, got {VALUE_1} (Value)",
        ),
        (lambda: hvp(f_cubic, [1, 2], [1]), ValueError, "hvp: v has 1 entries but there are 2 inputs"),
        (lambda: hvp(f_cubic, [1, 2], [1, 2, 3]), ValueError, "hvp: v has 3 entries but there are 2 inputs"),
        (
            lambda: hvp(f_cubic, [1, 2], [1, "b"]),
            TypeError,
            "hvp: expected a real number or Value, got 'b' (str)",
        ),
        (
            lambda: hessian(f_cubic, ["a"]),
            TypeError,
            "hessian: expected a real number or Value, got 'a' (str)",
        ),
    ],
)
def test_error_messages_in_full(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert str(info.value) == message


def test_overflow_in_a_graph_pass_names_the_node():
    x = Value(0.5)
    y = x**-1023
    with pytest.raises(OverflowError) as info:
        y.backward(create_graph=True)
    assert str(info.value) == f"backward: the gradient through pow {y!r} overflowed"
    assert isinstance(info.value.__cause__, OverflowError)


def test_the_first_share_is_kept_as_it_is():
    # no `0 + share` node: a leaf's gradient from a fresh create_graph pass is the rule's own product
    x = Value(2)
    y = x * 3
    y.backward(create_graph=True)
    assert x.grad.op == "mul" and x.grad.data == 3
    assert grad(y, [x], create_graph=True)[0].op == "mul"
    z = Value(5)
    z.backward(create_graph=True)  # a lone leaf: the constant 1 itself
    assert z.grad.op == "" and z.grad.data == 1


def test_a_node_no_share_reaches_gets_a_constant_zero():
    x = Value(F(1, 2))
    inner = x - 1  # -1/2: relu is inactive, nothing flows back to inner or x
    out = inner.relu() * 3 + x**0
    out.backward(create_graph=True)
    for node in (inner, x):
        assert type(node.grad) is Value and node.grad.op == "" and node.grad.data == 0
    x.grad = 5  # an earlier number is kept, as a Value
    out.backward(create_graph=True)
    assert type(x.grad) is Value and x.grad.op == "" and x.grad.data == 5
    before = x.grad
    out.backward(create_graph=True)  # an earlier Value is kept as it is
    assert x.grad is before


def test_plain_backward_accumulates_onto_every_leaf_holding_a_value():
    a, b, c = Value(F(1, 2)), Value(3), Value(F(-2, 5))
    y = a * b + b * c + c * a
    y.backward(create_graph=True)
    first = [v.grad.data for v in (a, b, c)]
    y.backward()
    assert [v.grad.data for v in (a, b, c)] == [2 * g for g in first]
    assert all(type(v.grad) is Value for v in (a, b, c))
