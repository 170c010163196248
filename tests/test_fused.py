"""The fused ops and the network built on them compute what the plain ops compute.

A neuron is one ``dot`` node and its activation; written plainly (micrograd's
way) it is a chain of ``mul`` and ``add`` nodes, ``b + w0*x0 + w1*x1 + ...``.
The network is built both ways with the same weights and must give the same
outputs and the same gradients: exactly (``==``) in exact arithmetic, where the
order in which shares arrive cannot matter, and with floats the same outputs
bit for bit and the same gradients up to the rounding of that order.  The fused
ops' own gradients are checked against sympy, which differentiates on its own.

The last section covers how the engine stores a node (operands in slots, a
visit mark per node) where that is observable: ``_prev``, a pass cut short by
an error, and the memory an op node takes.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

from autograd import Value, dot, vsum
from autograd.nn import MLP, Layer

FRACTIONS = st.fractions(min_value=-2, max_value=2, max_denominator=16)


def plain_network(model: MLP, xs: list) -> list[Value]:
    """``model``'s function written with ``+`` and ``*`` only, term by term, in dot's order."""
    out = list(xs)
    for layer in model.layers:
        activations = []
        for neuron in layer.neurons:
            act = neuron.b
            for w, x in zip(neuron.w, out, strict=True):
                act = act + w * x
            if neuron.nonlin == "tanh":
                act = act.tanh()
            elif neuron.nonlin == "relu":
                act = act.relu()
            activations.append(act)
        out = activations
    return out


def as_list(out: Value | list[Value]) -> list[Value]:
    return out if isinstance(out, list) else [out]


def weighted_sum(outputs: list[Value]) -> Value:
    """A scalar that depends on every output differently: 1*o0 + 2*o1 + ..., with plain ops."""
    total = outputs[0]
    for k, o in enumerate(outputs[1:], start=2):
        total = total + k * o
    return total


def twin_networks(nin: int, nouts: list[int], nonlin: str, weights: list) -> tuple[MLP, MLP]:
    fused, plain = MLP(nin, nouts, nonlin=nonlin), MLP(nin, nouts, nonlin=nonlin)
    for p, q, value in zip(fused.parameters(), plain.parameters(), weights, strict=True):
        p.data = q.data = value
    return fused, plain


# ---------------------------------------------------------------------- the network, both ways
@given(st.data())
def test_network_equals_its_plain_formulation_exactly(data):
    nin = data.draw(st.integers(1, 3), label="nin")
    nouts = data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=3), label="nouts")
    nonlin = data.draw(st.sampled_from(["relu", "linear"]), label="nonlin")
    n_params = sum((a + 1) * b for a, b in zip([nin, *nouts][:-1], nouts, strict=True))
    weights = data.draw(st.lists(FRACTIONS, min_size=n_params, max_size=n_params), label="weights")
    xs = data.draw(st.lists(FRACTIONS, min_size=nin, max_size=nin), label="inputs")
    fused, plain = twin_networks(nin, nouts, nonlin, weights)
    x_fused, x_plain = [Value(x) for x in xs], [Value(x) for x in xs]

    out_fused, out_plain = as_list(fused(x_fused)), plain_network(plain, x_plain)
    assert [o.data for o in out_fused] == [o.data for o in out_plain]
    weighted_sum(out_fused).backward()
    weighted_sum(out_plain).backward()
    assert [p.grad for p in fused.parameters()] == [p.grad for p in plain.parameters()]
    assert [x.grad for x in x_fused] == [x.grad for x in x_plain]


@pytest.mark.parametrize("nonlin", ["tanh", "relu", "linear"])
def test_network_equals_its_plain_formulation_in_floats(nonlin):
    fused, plain = MLP(2, [16, 16, 1], nonlin=nonlin, seed=3), MLP(2, [16, 16, 1], nonlin=nonlin, seed=3)
    points = [[0.5, -0.25], [1.75, 0.3], [-1.0, 0.9]]  # plain numbers, as the moons demo feeds them
    for x in points:
        out_fused, out_plain = as_list(fused(x)), plain_network(plain, x)
        assert [o.data for o in out_fused] == [o.data for o in out_plain]  # same additions, same order
        for model in (fused, plain):
            model.zero_grad()
        weighted_sum(out_fused).backward()
        weighted_sum(out_plain).backward()
        for p, q in zip(fused.parameters(), plain.parameters(), strict=True):
            assert math.isclose(p.grad, q.grad, rel_tol=1e-12, abs_tol=1e-15), (p, q)


def test_layer_reports_a_wrong_input_length_before_a_bad_input():
    with pytest.raises(ValueError, match=r"Neuron: expected 2 inputs, got 3"):
        Layer(2, 3)([1.0, "a", 2.0])
    with pytest.raises(TypeError, match=r"dot: expected a real number or Value, got 'a'"):
        Layer(2, 3)([1.0, "a"])


# ---------------------------------------------------------------------- the fused ops against sympy
def exact(r: sympy.Rational) -> Fraction:
    return Fraction(int(r.p), int(r.q))


def test_dot_gradients_match_sympy_with_shared_operands_and_numbers():
    a, b, c = sympy.symbols("a b c")
    point = {a: sympy.Rational(3, 4), b: sympy.Rational(-5, 3), c: sympy.Rational(7, 2)}
    expr = c + a * a + a * b + 2 * b + 3 * a  # dot([a, a, 2, 3], [a, b, b, a], c)
    va, vb, vc = (Value(exact(point[s])) for s in (a, b, c))
    out = dot([va, va, 2, 3], [va, vb, vb, va], vc)
    assert out.data == exact(expr.subs(point))
    out.backward()
    assert [va.grad, vb.grad, vc.grad] == [exact(sympy.diff(expr, s).subs(point)) for s in (a, b, c)]


def test_vsum_gradients_match_sympy_with_repeats_and_numbers():
    a, b = sympy.symbols("a b")
    point = {a: sympy.Rational(2, 7), b: sympy.Rational(-9, 5)}
    expr = (a + b + a + 3) * b  # vsum([a, b, a, 3]) * b
    va, vb = Value(exact(point[a])), Value(exact(point[b]))
    out = vsum([va, vb, va, 3]) * vb
    assert out.data == exact(expr.subs(point))
    out.backward()
    assert [va.grad, vb.grad] == [exact(sympy.diff(expr, s).subs(point)) for s in (a, b)]


def test_dot_sends_nothing_when_nothing_arrives():
    w, x, b = Value(Fraction(1, 3)), Value(Fraction(-2, 5)), Value(Fraction(4))
    (dot([w], [x], b) * 0).backward()
    assert (w.grad, x.grad, b.grad) == (0, 0, 0)
    live = dot([w], [x], b).relu()  # 4 - 2/15 > 0
    dead = dot([w], [x], -b).relu()  # -4 - 2/15 < 0: no gradient reaches its dot
    (live + dead).backward()
    assert (w.grad, x.grad, b.grad) == (x.data, w.data, 1)  # only the live dot passed shares on


# ---------------------------------------------------------------------- how a node is stored
def test_prev_lists_the_operands_in_order():
    a, b, c = Value(1), Value(2), Value(3)
    assert a._prev == ()
    assert (-a)._prev[0] is a and len((-a)._prev) == 1
    prod = a * b
    assert prod._prev[0] is a and prod._prev[1] is b
    assert [v is u for v, u in zip(dot([a, b], [b, c], a)._prev, [a, b, b, c, a], strict=True)] == [True] * 5
    assert [v.data for v in vsum([a, 5, c])._prev] == [1, 5, 3]
    assert (a**2)._prev[1].data == 2  # the exponent rides along as a constant


def test_a_backward_cut_short_by_an_error_leaves_nothing_behind():
    a, b = Value(1e-10), Value(2.0)
    shared = b * b
    y = a**-30 + shared  # 1e300 is fine, but its derivative -30 * a**-31 is not
    with pytest.raises(OverflowError, match="backward"):
        y.backward()
    b.grad = 0
    z = shared * 3 + shared  # a new pass through nodes the failed one had marked
    z.backward()
    assert b.grad == 16.0  # d(4 b**2)/db at b = 2
    assert shared.grad == 4


def test_a_graph_is_walked_afresh_by_every_pass():
    x = Value(Fraction(1, 2))
    h = x * x
    y1, y2 = h + x, h * h
    y1.backward()
    y2.backward()
    y1.backward()
    # leaves accumulate: d(h + x)/dx twice plus d(x**4)/dx once
    assert x.grad == 2 * (2 * x.data + 1) + 4 * x.data**3
    assert h.grad == 1  # interior: the latest pass only
