"""The engines package through its public seams: the stage each of the Engine's accessors tells
what the engine raised under, ops applied by :meth:`Engine.apply` (fused ones, methods taking a
Value or a number, and the harness's own errors), how ints and Fractions fare through
``number_types``, and what discovery makes of engines of a few more forms (tests/engines/
``handle_accessors``, ``strict_sum`` and ``grad_on_read_folds_leaves``).

Every expected value is worked out by hand from the fixture's definition.
"""

from __future__ import annotations

import types

import pytest

import autograd
from autograd.testing import EngineNotFound, resolve_engine
from autograd.testing.boundary import EngineRaised
from autograd.testing.engines import Accessors, Engine
from autograd.testing.ops import OPS, Call, OpSpec
from tests.engines import handle_accessors, sound


# ---------------------------------------------------------------------- the stage of what an engine raises
class BrokenItem:
    """A 0-d array-like (``shape == ()``) whose ``item()`` raises."""

    shape = ()

    def item(self):
        raise FloatingPointError("no item")


class Refusing:
    """A scalar class each of whose members raises: strings are refused, its number and gradient
    cannot be read or written, and backward and + fail."""

    def __init__(self, x):
        if isinstance(x, str):
            raise TypeError("no strings")

    @property
    def data(self):
        raise ValueError("no data")

    @property
    def grad(self):
        raise ValueError("no gradient")

    @grad.setter
    def grad(self, g):
        raise ValueError("read-only gradient")

    def backward(self, create_graph=False):
        raise RuntimeError("no backward")

    def __add__(self, other):
        raise ArithmeticError("no add")


class ItemsRaise(Refusing):
    """Its number and gradient are 0-d array-likes whose ``item()`` raises."""

    data = BrokenItem()  # type: ignore[assignment]
    grad = BrokenItem()  # type: ignore[assignment]


def stage_of(call, *args, **kwargs):
    """The stage under which the engine's exception left ``call``."""
    with pytest.raises(EngineRaised) as raised:
        call(*args, **kwargs)
    return raised.value.stage


def test_each_accessor_tells_the_engines_exception_under_its_own_stage_or_the_one_given():
    eng = Engine(Value=Refusing)
    v = Refusing(1.0)
    assert stage_of(eng.make, "x") == "forward"
    assert stage_of(eng.make, "x", stage="making a leaf") == "making a leaf"
    assert stage_of(eng.data, v) == "forward"
    assert stage_of(eng.data, v, stage="reading") == "reading"
    assert stage_of(eng.grad, v) == "backward()"
    assert stage_of(eng.grad, v, stage="reading") == "reading"
    assert stage_of(eng.backward, v) == "backward()"
    assert stage_of(eng.backward, v, stage="second pass") == "second pass"
    assert stage_of(eng.set_grad, v, 0) == "setting a gradient"
    assert stage_of(eng.set_grad, v, 0, stage="zero_grad") == "zero_grad"
    assert stage_of(eng.apply, OPS["add"], [v, v]) == "forward"
    assert stage_of(eng.apply, OPS["add"], [v, v], stage="a node") == "a node"


def test_reading_a_0d_number_is_the_engines_work_told_under_the_accessors_stage():
    eng = Engine(Value=ItemsRaise)
    v = ItemsRaise(1.0)
    assert stage_of(eng.data, v) == "forward"
    assert stage_of(eng.data, v, stage="reading") == "reading"
    assert stage_of(eng.grad, v) == "backward()"
    assert stage_of(eng.grad, v, stage="reading") == "reading"


def test_an_adapters_refused_write_is_told_as_setting_a_gradient():
    adapter = Accessors(handle_accessors.Zeroable, "get", "grad", "backward", settable=True)
    h = handle_accessors.Zeroable(2.0)
    adapter.set_grad(h, 0)  # zeroing is let through
    assert h.grad == 0
    assert stage_of(adapter.set_grad, h, 0.5) == "setting a gradient"


# ---------------------------------------------------------------------- Engine.apply
def _spec(name, arity, call):
    """An op row of an engine's method (as the search for extra ops makes them)."""
    return OpSpec(name, arity, call, lambda s, c: s[0], lambda x, c: x[0], lambda n, c: f"{n[0]}.{name}()")


class WithMethods(sound.Value):
    """sound's Value with a method taking another Value and one taking a number."""

    def times(self, other):
        return self * other

    def scaled(self, k):
        return self * k


def test_apply_calls_the_fused_ops_with_their_operands_split_as_each_takes_them():
    ours = resolve_engine()
    a, b, c = ours.make(2), ours.make(3), ours.make(5)
    assert ours.data(ours.apply(OPS["vsum"], [a, b, c])) == 10
    w1, w2, x1, x2, start = (ours.make(n) for n in (2, 3, 5, 7, 11))
    # dot(ws, xs, start) = 11 + 2 * 5 + 3 * 7 = 42
    assert ours.data(ours.apply(OPS["dot"], [w1, w2, x1, x2, start])) == 42
    fn, args = ours.call_of(OPS["dot"], [w1, w2, x1, x2, start])
    assert fn is autograd.dot and args == ([w1, w2], [x1, x2], start)


def test_apply_calls_a_method_with_the_other_value_or_the_number_it_takes():
    eng = Engine(Value=WithMethods)
    x, w = eng.make(3.0), eng.make(4.0)
    assert eng.data(eng.apply(_spec("times", 2, Call("times", ("v0", "v1"))), [x, w])) == 12.0
    assert eng.data(eng.apply(_spec("scaled", 1, Call("scaled", ("v0",), numbers=(0.5,))), [x])) == 1.5


def test_apply_passes_the_constant_where_the_row_names_it():
    eng = Engine(Value=sound.Value)
    x = eng.make(3.0)
    assert eng.data(eng.apply(OPS["addc"], [x], 2.0)) == 5.0
    assert eng.data(eng.apply(OPS["rsub"], [x], 2.0)) == -1.0  # c - v


def test_apply_refuses_what_the_row_cannot_be_applied_to_as_the_harnesss_own_error():
    eng = Engine(Value=sound.Value, name="tests.engines.sound")
    x = eng.make(3.0)
    with pytest.raises(
        TypeError, match=r"^vsum: the engine tests\.engines\.sound has no vsum \(ask supports"
    ):
        eng.apply(OPS["vsum"], [x, x])
    with pytest.raises(TypeError, match=r"^abs has no call of its own \(a catalogue row\)"):
        eng.apply(_spec("abs", 1, Call(None)), [x])
    with pytest.raises(TypeError, match=r"^add takes 2 operands, given 1$"):
        eng.apply(OPS["add"], [x])
    with pytest.raises(TypeError, match=r"^powc needs a constant, given None$"):
        eng.apply(OPS["powc"], [x])


# ---------------------------------------------------------------------- number_types
class FloatProductRule(sound.Value):
    """sound's Value whose product rule takes its partials as floats: every number stays exact,
    but a gradient through ``*`` is a float."""

    def __mul__(self, other):
        other = self._lift(other)
        return self._with_partials(
            self.data * other.data, (self, other), (float(other.data), float(self.data))
        )


def test_a_float_made_only_by_the_product_rule_is_seen():
    eng = Engine(Value=FloatProductRule)
    assert eng.number_types == {"int": "float", "fraction": "float"}  # x * y is differentiated too
    assert not eng.exact


# ---------------------------------------------------------------------- discovery
def test_a_number_behind_a_method_of_no_usual_name_is_found_past_methods_that_need_arguments():
    eng = resolve_engine("tests.engines.handle_accessors:Handle")
    # clip(lo, hi) raises without its arguments, float(h) is Python's protocol: neither is the number
    assert eng.gradient_api == "backward: Handle.backward(); number Handle.get(), gradient Handle.grad"
    assert (
        eng.imports.splitlines()[-1] == "Value = scalar_class(Accessors(Handle, 'get', 'grad', 'backward'))"
    )
    assert not eng.settable_grad  # a read-only property
    x, w = eng.make(2.0), eng.make(5.0)
    eng.backward(x * w + x)
    assert (eng.grad(x), eng.grad(w)) == (6.0, 2.0)  # w + 1, x


def test_a_gradient_that_can_only_be_zeroed_is_settable():
    eng = resolve_engine("tests.engines.handle_accessors:Zeroable")
    assert eng.imports.splitlines()[-1] == (
        "Value = scalar_class(Accessors(Zeroable, 'get', 'grad', 'backward', settable=True))"
    )
    assert eng.settable_grad
    x, w = eng.make(2.0), eng.make(5.0)
    for _ in range(2):  # zeroed between the passes, as zero_grad does: no accumulation
        eng.backward(x * w)
        assert (eng.grad(x), eng.grad(w)) == (5.0, 2.0)
        eng.set_grad(x, 0)
        eng.set_grad(w, 0)
    assert stage_of(eng.set_grad, x, 0.5) == "setting a gradient"  # the engine's refusal


class LabelledHandle(handle_accessors.Handle):
    """A Handle with a member only its instances have (reading it from the class raises, as
    enum's ``name`` and ``value``)."""

    __slots__ = ()

    @types.DynamicClassAttribute
    def label(self):
        return "h"


def test_an_adapted_class_lends_its_methods_but_no_member_only_instances_have():
    eng = resolve_engine(LabelledHandle)
    assert {"clip", "get"} <= set(dir(eng.Value)) and "label" not in dir(eng.Value)
    x = eng.make(3.0)
    assert eng.data(x.clip(0.0, 1.0)) == 1.0


class Counted:
    """Shows no 0.75, so discovery rejects it listing the numbers it read: one number of its own
    (``own``); a class constant and a property of Python's dunder form are no Value's numbers."""

    made = 0
    __weight__ = property(lambda self: 2.0)

    def __init__(self, x):
        self.own = 1.0

    def __add__(self, other):
        return self

    __mul__ = __add__


class DunderSlots(Counted):
    """Its numbers kept in slots, one of them named like a dunder."""

    __slots__ = ("__v__", "w")

    def __init__(self, x):
        self.__v__, self.w = 1.0, 2.0


class OneDunderSlot(DunderSlots):
    __slots__ = "__u__"  # one slot, named by a string

    def __init__(self, x):
        self.__u__ = 3.0


@pytest.mark.parametrize(
    ("cls", "read"),
    [
        (Counted, ["own"]),  # not its class's constant, nor its dunder property
        (DunderSlots, ["__v__", "w"]),  # a slot is the instance's own storage, as __dict__ is
        (OneDunderSlot, ["__u__"]),
    ],
)
def test_the_numbers_discovery_reads_are_the_instances_own_whatever_their_names(cls, read):
    with pytest.raises(EngineNotFound) as rejected:
        resolve_engine(cls)
    assert str(rejected.value).splitlines()[1] == (
        f"candidates tried: {cls.__name__}: no attribute or zero-argument method gives the number it was "
        f"built from (0.75); attributes tried: {read}"
    )


class AddMulOnly:
    """+ and * only (no - or /), and a backward that always raises."""

    def __init__(self, x):
        self.data, self.grad = x, 0

    def __add__(self, other):
        return AddMulOnly(self.data + getattr(other, "data", other))

    def __mul__(self, other):
        return AddMulOnly(self.data * getattr(other, "data", other))

    def backward(self):
        raise RuntimeError("backward is broken")


def test_what_a_backward_raised_is_said_and_no_op_the_engine_lacks_is_tried():
    with pytest.raises(EngineNotFound) as rejected:
        resolve_engine(AddMulOnly, backward="backward")
    assert str(rejected.value).splitlines()[1] == (
        "candidates tried: AddMulOnly: backward(): RuntimeError: backward is broken"
    )


def test_a_gradient_read_is_found_on_the_product_graph_when_a_sum_of_leaves_is_wrong():
    eng = resolve_engine("tests.engines.grad_on_read_folds_leaves")  # x + 3 is folded: d/dx = 0
    assert eng.gradient_api == "read: Value.grad"
    assert eng.gradient_convention == "the output passed to the leaf's method: x.grad(y)"
    x, w = eng.make(2.0), eng.make(3.0)
    eng.backward(x * w)
    assert (eng.grad(x), eng.grad(w)) == (3.0, 2.0)
    x, w = eng.make(2.0), eng.make(3.0)
    eng.backward(x + w)
    assert (eng.grad(x), eng.grad(w)) == (0, 0)  # the wrong rule the audit then reports (1, 1 is right)


def test_a_gradient_is_found_through_the_one_trial_a_strict_engine_lets_through():
    # Value(1) and x * 1 are refused; x + 0 is x itself, so backward() on it fills x.grad
    eng = resolve_engine("tests.engines.strict_sum")
    assert (eng.data_attr, eng.grad_attr, eng.backward_method) == ("data", "grad", "backward")
    x, w = eng.make(2.0), eng.make(5.0)
    eng.backward(sum([x * w, x]))
    assert (eng.grad(x), eng.grad(w)) == (6.0, 2.0)  # w + 1, x
