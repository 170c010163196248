"""Tests written because mutation testing found behaviour nothing else pinned down.

Each test names the mutants (``mutmut show NAME``) that survived the rest of the
suite and that it kills: error messages of the reflected operators, the exact
text of ``to_dot`` (including its escaping, which only a number type with an
unusual ``repr`` can reach), and the network's defaults.  Mutant names change
when the engine changes; what each test pins down does not.
"""

from __future__ import annotations

import math
import re

import pytest

from autograd.engine import Value, dot, vsum
from autograd.nn import MLP, Layer, Neuron

VALUE_1 = re.escape("Value(data=1, grad=0)")


@pytest.mark.parametrize(
    "op, apply",
    [
        ("add", lambda v: "a" + v),  # __radd__, __rtruediv__, __rpow__, __truediv__, __pow__: mutants
        ("sub", lambda v: "a" - v),  # replacing the op name or the operand the message shows
        ("mul", lambda v: "a" * v),
        ("div", lambda v: "a" / v),
        ("pow", lambda v: "a" ** v),
        ("add", lambda v: v + "a"),
        ("sub", lambda v: v - "a"),
        ("mul", lambda v: v * "a"),
        ("div", lambda v: v / "a"),
        ("pow", lambda v: v ** "a"),
    ],
)
def test_operators_name_the_op_and_the_value(op, apply):
    message = rf"^{op}: expected a real number or Value with {VALUE_1}, got 'a' \(str\)$"
    with pytest.raises(TypeError, match=message):
        apply(Value(1))


def test_the_constructor_and_the_n_ary_ops_name_themselves_for_a_bad_operand():
    with pytest.raises(TypeError, match=r"^Value: expected a real number or Value, got 'a' \(str\)$"):
        Value("a")
    with pytest.raises(TypeError, match=r"^dot: expected a real number or Value, got 'a' \(str\)$"):
        dot([Value(1)], ["a"])
    with pytest.raises(TypeError, match=r"^vsum: expected a real number or Value, got 'a' \(str\)$"):
        vsum([Value(1), "a"])


def test_relu_of_negative_zero_is_positive_zero():
    # relu: the mutant x >= 0 returns x itself at x = -0.0; the engine promises 0 of x's type, never -0.0
    out = Value(-0.0).relu().data
    assert (out, math.copysign(1.0, out)) == (0.0, 1.0)


@pytest.mark.parametrize(
    "message, apply",
    [  # _overflow's ", " and the op name each op hands to _node (div, pow, exp, Value ** Value, dot)
        (r"add: result of add\(1e\+308, 1e\+308\)", lambda: Value(1e308) + Value(1e308)),
        (r"add: result of add\(-1e\+308, -1e\+308\)", lambda: Value(-1e308) + Value(-1e308)),
        (r"sub: result of sub\(1e\+308, -1e\+308\)", lambda: Value(1e308) - Value(-1e308)),
        (r"sub: result of sub\(-1e\+308, 1e\+308\)", lambda: Value(-1e308) - Value(1e308)),
        (r"mul: result of mul\(1e\+308, 10\.0\)", lambda: Value(1e308) * Value(10.0)),
        (r"mul: result of mul\(-1e\+308, 10\.0\)", lambda: Value(-1e308) * Value(10.0)),
        (r"vsum: result of vsum\(1e\+308, 1e\+308\)", lambda: vsum([1e308, 1e308])),
        (r"vsum: result of vsum\(-1e\+308, -1e\+308\)", lambda: vsum([-1e308, -1e308])),
        (r"div: result of div\(1e\+308, 1e-10\)", lambda: Value(1e308) / Value(1e-10)),
        (r"pow: result of pow\(10\.0, 400\)", lambda: Value(10.0) ** 400),
        (r"pow: result of pow\(10\.0, 400\.0\)", lambda: Value(10.0) ** Value(400.0)),
        (r"exp: result of exp\(1000\.0\)", lambda: Value(1000.0).exp()),
        (r"dot: result of dot\(1e\+308, 1e\+308, 1\.0, 1\.0, 0\)", lambda: dot([1e308, 1e308], [1.0, 1.0])),
    ],
)
def test_overflow_names_the_op_and_its_operands(message, apply):
    with pytest.raises(OverflowError, match=f"^{message} is too large for a float$"):
        apply()


def test_int_to_a_non_negative_int_power_stays_int():
    # _pow: mutants turning c < 0 into c <= 0 or c < 1 give Fraction(1) for x ** 0 (Python gives int 1)
    x = Value(3)
    y = x**0
    z = x**1
    z.backward()
    assert (y.data, type(y.data), x.grad, type(x.grad)) == (1, int, 1, int)


def _named(text: str, names: dict[int, str]) -> set[str]:
    """The DOT lines with each node's id replaced by a readable name."""
    return set(re.sub(r"n(\d+)", lambda m: names[int(m.group(1))], text).splitlines())


def test_to_dot_text():
    # to_dot: mutants of the header lines and of the 'leaf' label
    a, b = Value(2), Value(3)
    c = a * b
    c.backward()
    assert _named(c.to_dot(), {id(a): "A", id(b): "B", id(c): "C"}) == {
        "digraph autograd {",
        "  rankdir=LR;",
        "  node [shape=box];",
        '  C [label="mul\\ndata 6\\ngrad 1"];',
        "  A -> C;",
        "  B -> C;",
        '  A [label="leaf\\ndata 2\\ngrad 3"];',
        '  B [label="leaf\\ndata 3\\ngrad 2"];',
        "}",
    }


def test_to_dot_shows_a_constants_gradient():
    # _constant: a number turned into a leaf starts with gradient 0, like any Value, and an op's
    # constant receives no gradient, so it still shows 0 after backward()
    y = Value(2) * 3
    y.backward()
    assert '[label="leaf\\ndata 3\\ngrad 0"];' in y.to_dot()


class Quoted(float):
    """A real number whose repr has a quote and a backslash, as DOT must escape them."""

    def __repr__(self) -> str:
        return 'Quoted("a\\b")'


def test_to_dot_escapes_quotes_backslashes_and_newlines():
    # _dot_escape: mutants of each of its three replacements
    v = Value(Quoted(2.0))
    assert _named(v.to_dot(), {id(v): "V"}) >= {'  V [label="leaf\\ndata Quoted(\\"a\\\\b\\")\\ngrad 0"];'}


def test_network_defaults():
    # Neuron/Layer: the default seed is 0 and a bias starts at 0; Layer's repr of a one-neuron layer
    def data(module):
        return [p.data for p in module.parameters()]

    assert data(Neuron(3)) == data(Neuron(3, rng=0))
    assert data(Layer(3, 2)) == data(Layer(3, 2, rng=0))
    assert all(n.b.data == 0 for n in Layer(3, 4).neurons)
    assert repr(Layer(2, 1)) == "Layer(2, 1, nonlin='tanh')"
    with pytest.raises(ValueError, match=r"^MLP: nouts must name at least one layer size$"):
        MLP(2, [])
