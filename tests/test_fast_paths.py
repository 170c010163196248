"""The first-order fast paths (issue 10) keep the engine's semantics.

Each test pins one shortcut against what it must not change: ``zero_grad``
walking the modules instead of building ``parameters()``, ``dot`` checking its
operands' types inside its summing loop, and ``backward()`` summing the shares
of a leaf that holds the int 0 in place instead of saving and restoring it.
Expected values are worked out by hand (or by plain float arithmetic), never
taken from the engine.
"""

from fractions import Fraction

import pytest

from autograd.engine import Value, dot
from autograd.nn import MLP, Module


def bits(x):
    return float(x).hex()


# ---------------------------------------------------------------------- zero_grad
class Pair(Module):
    """A user's own module: zero_grad comes from Module, through parameters()."""

    def __init__(self):
        self.a, self.b = Value(1.0), Value(2.0)

    def parameters(self):
        return [self.a, self.b]


def test_a_users_module_zeroes_what_parameters_lists():
    m = Pair()
    (m.a * m.b).backward()
    assert (m.a.grad, m.b.grad) == (2.0, 1.0)
    m.zero_grad()
    assert (m.a.grad, m.b.grad) == (0, 0)


def test_mlp_zero_grad_reaches_weights_put_in_after_construction():
    model = MLP(2, [3, 1], seed=1)
    neuron = model.layers[0].neurons[2]
    neuron.w = [Value(0.5), Value(-0.25)]  # the walk must read the neuron's current weights
    neuron.b = Value(0.125)
    for p in model.parameters():
        p.grad = 7.0
    model.zero_grad()
    assert [p.grad for p in model.parameters()] == [0] * 13
    assert all(type(p.grad) is int for p in model.parameters())


# ---------------------------------------------------------------------- dot
def test_dot_with_a_value_start_and_numbers_among_the_operands():
    w0, x1, b = Value(0.5), Value(-2.0), Value(0.25)
    out = dot([w0, 3.0], [4.0, x1], b)  # the fast path meets 4.0 and starts again
    assert out.data == 0.25 + 0.5 * 4.0 + 3.0 * -2.0
    out.backward()
    assert (w0.grad, x1.grad, b.grad) == (4.0, 3.0, 1)


def test_dot_refuses_a_foreign_value_with_a_data_attribute():
    class Foreign:  # another engine's Value: it has .data, but it is not ours
        data = 1.0

    with pytest.raises(TypeError, match="dot"):
        dot([Value(1.0)], [Foreign()], Value(0.0))


def test_dot_fast_path_adds_in_the_documented_order():
    ws = [Value(0.1), Value(0.2), Value(0.3)]
    xs = [Value(0.7), Value(1.1), Value(-0.3)]
    out = dot(ws, xs, Value(1e16))
    assert bits(out.data) == bits(((1e16 + 0.1 * 0.7) + 0.2 * 1.1) + 0.3 * -0.3)


# ---------------------------------------------------------------------- leaves summed in place
def test_a_leaf_holding_minus_zero_is_kept_and_added_back():
    # -0.0 + (0 + -0.0) is 0.0; summing in place from -0.0 would give -0.0
    x = Value(2.0)
    x.grad = -0.0
    (x * Value(-0.0)).backward()
    assert bits(x.grad) == bits(0.0)


def test_a_leaf_holding_float_zero_is_kept_too():
    x = Value(3.0)
    x.grad = 0.0
    y = x * 0.1 + x * 0.2
    y.backward()
    assert bits(x.grad) == bits(0.0 + (0.1 + 0.2))
    assert type(x.grad) is float


def test_int_zero_leaves_double_bit_for_bit_over_many_shares():
    x = Value(1.5)
    shares = [0.1, 0.7, 1e-3, 3.3, -2.9, 0.45]
    y = x * shares[0]
    for c in shares[1:]:
        y = y + x * c
    y.backward()  # from the int 0: summed in place
    first = x.grad
    y.backward()  # from a float: kept, summed from 0, added back
    assert bits(x.grad) == bits(2 * first)
    running = 0.0
    for c in shares:
        running = running + c  # the order of the shares is immaterial to the doubling, not to the sum
    assert abs(first - running) < 1e-15


def test_exact_leaves_stay_exact_and_ints_stay_ints():
    a, n = Value(Fraction(1, 3)), Value(4)
    (a * a * n + n * n).backward()
    assert a.grad == Fraction(8, 3) and type(a.grad) is Fraction
    assert n.grad == Fraction(1, 9) + 8
    m = Value(5)
    (m * 3 + m).backward()
    assert (m.grad, type(m.grad)) == (4, int)


def test_create_graph_from_a_float_zero_leaf_gives_the_pass_value_itself():
    x = Value(3.0)
    x.grad = 0.0  # not the int 0: kept, and accumulated as a number 0 (no `0 + Value` node)
    (x * x).backward(create_graph=True)
    assert type(x.grad) is Value
    assert x.grad.data == 6.0
    assert [v.op for v in x.grad._prev] == ["mul", "mul"]  # 1*x + 1*x, not 0.0 + (1*x + 1*x)


def test_only_the_int_zero_is_summed_in_place():
    # a leaf holding the int 1 must be kept: 1 + (0.1 + 0.3) is 1.4, while adding
    # the shares one by one onto it would give (1 + 0.1) + 0.3 = 1.4000000000000001
    x = Value(0.5)
    (x + 5).backward()
    assert (x.grad, type(x.grad)) == (1, int)
    (x * 0.1 + x * 0.3).backward()
    assert bits(x.grad) == bits(1 + (0.1 + 0.3))
    assert bits((1 + 0.1) + 0.3) != bits(1 + (0.1 + 0.3))  # why the test can fail
