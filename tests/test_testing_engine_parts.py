"""Discovery and the adapters (autograd/testing/engines/) and the engine boundary
(autograd/testing/boundary.py), one function at a time, in process.

The tests of whole audits over each attribute form (tests/test_testing_engines.py,
tests/test_testing_discovery_forms.py) take seconds each; these take milliseconds, so the
``engines`` mutation target can afford them for every mutant.  Each judges what a part must do:
which number a 0-d array-like is read as, which member discovery names for each attribute form,
what a rejection says, what an adapter's scalar class passes to the adapter.  Expected values are
written by hand, never taken from the code under test.
"""

from __future__ import annotations

import ast
import inspect
import math
import os
import signal
import sys
import types
from fractions import Fraction
from pathlib import Path

import pytest

import autograd.testing
from autograd.testing import boundary
from autograd.testing.boundary import Died, EngineChild, EngineRaised, error_line
from autograd.testing.engines import (
    Accessors,
    Engine,
    EngineNotFound,
    GradientOnRead,
    apis,
    as_number,
    resolve_engine,
    scalar_class,
)
from autograd.testing.engines import adapter as A
from autograd.testing.engines import discover as D
from autograd.testing.engines import numbers as N
from autograd.testing.engines.apis import is_number, number_of, read_convention, read_member
from tests.engines import (
    descriptor_attrs,
    float32,
    grad_on_read,
    grad_on_read_last,
    method_accessors,
    output_read,
    property_attrs,
    property_read,
    sound,
    zero_d_arrays,
)


# ---------------------------------------------------------------------- 0-d array-likes, no numpy
class ZeroD:
    """A 0-d array-like: ``shape == ()``, ``item()``, ``copy()`` and ``a[()] = x`` (as numpy's)."""

    shape = ()

    def __init__(self, x, kind=float):
        self.x, self.kind = x, kind

    def item(self):
        return self.x

    def copy(self):
        return ZeroD(self.x, self.kind)

    def __setitem__(self, key, value):
        assert key == ()
        self.x = self.kind(value)  # an int array truncates 0.5 to 0, as numpy's does

    def __iadd__(self, other):
        self.x += other
        return self


class Shaped(ZeroD):
    def __init__(self, x, shape):
        super().__init__(x)
        self.shape = shape


class ItemIsANumber:
    shape = ()
    item = 2.5  # not callable


class Uncopyable(ZeroD):
    def copy(self):
        raise RuntimeError("no copy")


# ---------------------------------------------------------------------- one boundary, no nested classes
HARNESS = Path(autograd.testing.__file__).parent


def _harness_trees():
    for path in sorted(HARNESS.rglob("*.py")):
        yield path.relative_to(HARNESS).as_posix(), ast.parse(path.read_text(encoding="utf-8"))


@pytest.mark.slow
def test_the_harness_has_one_engine_call_the_boundarys():
    defined = [
        where
        for where, tree in _harness_trees()
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == "engine_call"
    ]
    assert defined == ["boundary.py"]


def test_no_class_of_the_engines_or_strategies_is_built_inside_a_function():
    nested = [
        f"{where}:{inner.lineno} {inner.name}"
        for where, tree in _harness_trees()
        if where.startswith(("engines/", "strategies"))
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        for inner in ast.walk(node)
        if isinstance(inner, ast.ClassDef)
    ]
    assert nested == []


def test_an_adapters_scalar_class_is_a_subclass_of_one_module_level_class():
    first, second = scalar_class(Recorder()), scalar_class(Recorder())
    assert first is not second and first.__bases__ == second.__bases__ == (A.AdaptedValue,)
    assert vars(first)["__slots__"] == ()  # no __dict__: a Value holds its four slots only
    with pytest.raises(AttributeError):
        first(1.0).extra = 1


# ---------------------------------------------------------------------- as_number
@pytest.mark.parametrize("x", [3, 0.25, Fraction(1, 3), complex(1, 2), True])
def test_as_number_leaves_numbers_as_they_are(x):
    assert as_number(x) is x


@pytest.mark.parametrize(("held", "kind"), [(2.5, float), (3, int), (Fraction(1, 4), Fraction)])
def test_as_number_reads_a_0d_array_like_as_the_real_number_it_holds(held, kind):
    got = as_number(ZeroD(held))
    assert got == held and type(got) is kind


@pytest.mark.parametrize(
    "x",
    [
        Shaped(2.5, (1,)),  # one entry, but an array
        Shaped(2.5, (2, 2)),
        Shaped(2.5, []),  # a shape that is no tuple
        Shaped(2.5, None),
        ZeroD(True),  # a bool is no number to compare
        ZeroD(1 + 2j),  # not real
        ZeroD("2.5"),
        ZeroD(None),
        ItemIsANumber(),
        "2.5",
        None,
        [2.5],
    ],
)
def test_as_number_leaves_what_is_not_a_0d_array_of_a_real_number_unchanged(x):
    assert as_number(x) is x


def test_as_number_leaves_a_number_that_also_looks_like_an_array_alone():
    class ShapedFloat(float):
        shape = ()

        def item(self):
            return 9.0

    x = ShapedFloat(2.5)
    assert as_number(x) is x


def test_as_number_never_reads_a_keep_instance():
    x = ZeroD(2.5)
    assert as_number(x, keep=ZeroD) is x
    assert as_number(x, keep=(int, ZeroD)) is x
    assert as_number(x, keep=(int, str)) == 2.5  # not a keep instance: read


# ---------------------------------------------------------------------- in_kind and write_grad
def test_in_kind_writes_a_number_into_a_copy_of_a_0d_gradient():
    current = ZeroD(3.0)
    new = N.in_kind(current, 0.5)
    assert isinstance(new, ZeroD) and new is not current and new.x == 0.5
    assert current.x == 3.0  # the array another node may share is left alone


@pytest.mark.parametrize(
    ("current", "g"),
    [
        (2.0, 0.5),  # a plain gradient: g as it is
        (ZeroD(3.0), "0.5"),  # g no number
        (Shaped(3.0, (1,)), 0.5),  # no 0-d array
        (ZeroD(4, kind=int), 0.5),  # the array cannot hold g exactly: g, not 0
        (Uncopyable(3.0), 0.5),  # the array cannot be copied: g
    ],
)
def test_in_kind_gives_g_itself_when_it_cannot_be_held_as_it_is(current, g):
    assert N.in_kind(current, g) is g


def test_in_kind_writes_no_non_number_even_one_equal_to_everything():
    class Equal:  # an engine's Value: its == returns something truthy
        def __eq__(self, other):
            return True

        __hash__ = object.__hash__

    g = Equal()
    assert N.in_kind(ZeroD(3.0, kind=lambda v: v), g) is g


def test_in_kind_holds_an_int_an_int_array_can_hold_and_a_nan():
    new = N.in_kind(ZeroD(4, kind=int), 7)
    assert isinstance(new, ZeroD) and new.x == 7 and type(new.x) is int
    nan = N.in_kind(ZeroD(1.0), math.nan)
    assert isinstance(nan, ZeroD) and math.isnan(nan.x)  # a NaN is never equal to itself, but held


def test_in_kind_never_writes_into_a_keep_instance():
    current = ZeroD(3.0)
    assert N.in_kind(current, 0.5, keep=ZeroD) == 0.5


def test_write_grad_writes_in_the_kind_held_or_as_it_is_when_the_read_raises():
    class Holder:
        pass

    h = Holder()
    h.g = ZeroD(3.0)
    N.write_grad(h, "g", 0.0)
    assert isinstance(h.g, ZeroD) and h.g.x == 0.0
    h.g = 3.0
    N.write_grad(h, "g", 0)
    assert h.g == 0 and type(h.g) is int

    class NotYet:
        @property
        def g(self):
            raise AttributeError("no gradient before a pass")

        @g.setter
        def g(self, value):
            self.written = value

    n = NotYet()
    N.write_grad(n, "g", 0.25)
    assert n.written == 0.25


# ---------------------------------------------------------------------- Engine
def test_engine_reads_members_by_the_names_it_was_given():
    class Scalar:
        def __init__(self, x):
            self.value, self.gradient = x, ZeroD(0.0)

        def backwards(self, create_graph=False):
            self.called = create_graph

    eng = Engine(Value=Scalar, data_attr="value", grad_attr="gradient", backward_method="backwards")
    assert eng.class_name == "Scalar"  # its __name__ when none is given
    v = eng.make(2.5)
    assert type(v) is Scalar and v.value == 2.5
    assert eng.data(v) == 2.5
    assert eng.grad(v) == 0.0 and type(eng.grad(v)) is float  # a 0-d gradient read as its number
    v.value = ZeroD(1.5)
    assert eng.data(v) == 1.5 and type(eng.data(v)) is float
    eng.backward(v)
    assert v.called is False
    eng.backward(v, create_graph=True)
    assert v.called is True
    eng.set_grad(v, 4.0)
    assert isinstance(v.gradient, ZeroD) and v.gradient.x == 4.0
    inner = Scalar(7.0)
    v.gradient = inner  # a Value of the engine (create_graph): kept, never read as a number
    assert eng.grad(v) is inner


class Tensorish(ZeroD):
    """An engine Value that looks like a 0-d array (shape (), item(), copy(), a[()] = x)."""

    def __init__(self, x):
        super().__init__(x)
        self.data, self.grad = self, self


def test_engine_keeps_its_own_values_even_when_they_look_like_0d_arrays():
    eng = Engine(Value=Tensorish)
    t = Tensorish(2.0)
    assert eng.data(t) is t and eng.grad(t) is t
    t.grad = Tensorish(5.0)  # a gradient that is a Value (create_graph): replaced, never written into
    eng.set_grad(t, 0)
    assert t.grad == 0 and type(t.grad) is int
    adapter = Accessors(Tensorish, "data", "grad", "backward", settable=True)
    t.grad = Tensorish(5.0)
    adapter.set_grad(t, 0)
    assert t.grad == 0 and type(t.grad) is int


def test_engine_defaults_are_a_backward_method_filling_attributes_of_our_package():
    eng = Engine(Value=sound.Value)
    assert (eng.name, eng.data_attr, eng.grad_attr, eng.backward_method) == (
        "autograd",
        "data",
        "grad",
        "backward",
    )
    assert (eng.vsum, eng.dot, eng.imports, eng.adapter) == (None, None, "", "")
    assert eng.gradient_api == "backward" and eng.gradient_convention == "the output backward() is called on"
    assert eng.import_line() == "from autograd import Value"


def test_resolving_an_engine_leaves_no_state_behind_its_precision_travels_with_it():
    # the oracles once read the precision of the engine resolved last from a context variable, so
    # resolving another engine changed the tolerances of the first one's checks
    import contextvars

    before = dict(contextvars.copy_context())
    f32 = resolve_engine("tests.engines.float32")
    resolve_engine("tests.engines.sound")
    assert dict(contextvars.copy_context()) == before
    assert f32.precision == "float32" and resolve_engine("tests.engines.sound").precision == "float64"


def test_engine_import_line_names_the_module_the_class_and_the_fused_ops_sorted_once():
    eng = Engine(Value=sound.Value, name="tests.engines.sound")
    assert eng.import_line() == "from tests.engines.sound import Value"
    assert eng.import_line(["vsum", "dot", "vsum"]) == "from tests.engines.sound import Value, dot, vsum"
    named = Engine(Value=sound.Value, name="pkg.mod", class_name="Scalar")
    assert named.import_line() == "from pkg.mod import Scalar"
    given = Engine(Value=sound.Value, name="pkg.mod", imports="import pkg\nValue = pkg.V")
    assert given.import_line(["dot"]) == "import pkg\nValue = pkg.V"


class CountedTanh(sound.Value):
    """sound's Value counting its tanh calls; ``works`` says whether tanh computes or raises."""

    calls = 0
    works = True

    def tanh(self):
        type(self).calls += 1
        if not self.works:
            raise TypeError("no tanh")
        return super().tanh()


class RefusedTanh(CountedTanh):
    calls = 0
    works = False


def test_engine_supports_probes_each_op_once_and_caches_the_answer():
    eng = resolve_engine("tests.engines.audit_refuses_fractions")  # add, mul, neg, sub, relu, log only
    assert eng.supports("add") and eng.supports("log")
    assert not eng.supports("tanh") and not eng.supports("exp")
    for cls, has in ((CountedTanh, True), (RefusedTanh, False)):
        counted = Engine(Value=cls)
        assert counted.supports("tanh") is has
        probes = cls.calls
        assert probes >= 1  # probed by calling the engine
        assert counted.supports("tanh") is has and counted.supports("tanh") is has
        assert cls.calls == probes  # the answer is cached: the engine is not called again


@pytest.mark.parametrize(
    ("module", "int_", "fraction"),
    [
        ("autograd", "exact", "exact"),  # ours: 3 / 2 is Fraction(3, 2)
        ("tests.engines.sound", "float", "exact"),  # 3 / 2 is 1.5
        ("tests.engines.slots_registry", "exact", "exact"),  # + and * only: no / to make a float
        ("tests.engines.float_only", "float", "refused"),
        ("tests.engines.floatifies", "float", "float"),
        ("tests.engines.output_read", "float", "refused"),
    ],
)
def test_number_types_say_how_ints_and_fractions_fare(module, int_, fraction):
    eng = resolve_engine(module)
    assert eng.number_types == {"int": int_, "fraction": fraction}
    assert eng.exact is (fraction == "exact")


def _scalar(name, *, make=None, ops=None, backward=None, data=None):
    """A scalar class whose construction, ops, backward or data may be replaced."""

    class S:
        def __init__(self, x):
            if make is not None:
                make(x)
            self._x, self.grad = x, 0

        @property
        def data(self):
            return self._x if data is None else data(self._x)

        def _op(self, fn, other):
            if ops is not None:
                ops(fn.__name__, self._x, other)
            return type(self)(fn(self._x, other._x if isinstance(other, S) else other))

        def __add__(self, o):
            return self._op(lambda a, b: a + b, o)

        def __mul__(self, o):
            return self._op(lambda a, b: a * b, o)

        def __sub__(self, o):
            return self._op(lambda a, b: a - b, o)

        def __truediv__(self, o):
            return self._op(lambda a, b: a / b, o)

        def backward(self):
            if backward is not None:
                backward()
            self.grad = 1

    S.__name__ = S.__qualname__ = name
    return S


def test_number_types_refused_when_making_or_the_first_op_or_backward_raises():
    def no_fraction(x):
        if isinstance(x, Fraction):
            raise TypeError("no Fraction")

    def ops_refuse(name, a, b):
        raise TypeError("no ops")

    def backward_raises():
        raise RuntimeError("no backward")

    assert Engine(Value=_scalar("S", make=no_fraction)).number_types["fraction"] == "refused"
    assert Engine(Value=_scalar("S", ops=ops_refuse)).number_types == {
        "int": "refused",
        "fraction": "refused",
    }
    assert Engine(Value=_scalar("S", backward=backward_raises)).number_types["fraction"] == "refused"


def test_number_types_judge_the_ops_that_work_when_a_later_one_is_missing():
    class NoDiv(_scalar("NoDiv")):
        __truediv__ = None  # type: ignore[assignment]

    class Later(_scalar("Later")):
        def __truediv__(self, o):
            raise ZeroDivisionError("no /")

    # + - * stay exact, / raises: judged on the three that work (the grads too: leaves keep 0)
    assert Engine(Value=Later).number_types == {"int": "exact", "fraction": "exact"}
    assert Engine(Value=NoDiv).number_types == {"int": "exact", "fraction": "exact"}


def test_number_types_see_a_float_in_a_gradient_or_a_value():
    made = []

    class FloatGrad(_scalar("FloatGrad")):
        def __init__(self, x):
            super().__init__(x)
            made.append(self)

        def backward(self):
            for v in made:  # every Value's gradient a float (the leaves' too)
                v.grad = 1.0

    assert Engine(Value=FloatGrad).number_types["fraction"] == "float"
    half = _scalar("Half", data=lambda x: float(x))
    assert Engine(Value=half).number_types == {"int": "float", "fraction": "float"}


def test_precision_is_float32_only_when_every_number_shown_is_one():
    assert Engine(Value=float32.Value).precision == "float32"
    assert Engine(Value=sound.Value).precision == "float64"
    for shown in ("0.1", True, None, 1j):  # not numbers the engine computes in: float64 (forward says why)
        S = _scalar("S", data=lambda x, s=shown: s)
        assert Engine(Value=S).precision == "float64", shown

    def refuses(x):
        raise TypeError("no")

    assert Engine(Value=_scalar("S", make=refuses)).precision == "float64"
    halves = _scalar("Halves", data=lambda x: 0.5)  # 0.5 is a float32 number
    assert Engine(Value=halves).precision == "float32"


@pytest.mark.parametrize(
    ("shown", "precision"),
    [
        (0.5, "float32"),
        (0.10000000149011612, "float32"),  # float32(0.1)
        (float32.FLOAT32_MAX, "float32"),
        (0.1, "float64"),
        (1 / 3, "float64"),
        (1e300, "float64"),  # beyond float32's range: not one (and no OverflowError)
    ],
)
def test_a_number_is_float32_when_it_survives_a_round_trip_through_four_bytes(shown, precision):
    always = _scalar("Always", data=lambda x, s=shown: s)  # every number it shows is ``shown``
    assert Engine(Value=always).precision == precision


def test_settable_grad_and_higher_order():
    assert Engine(Value=sound.Value).settable_grad
    assert not resolve_engine("tests.engines.method_accessors").settable_grad  # the gradient is a method

    def refuses(x):
        raise TypeError("no")

    assert not Engine(Value=_scalar("S", make=refuses)).settable_grad
    assert resolve_engine("autograd").higher_order  # create_graph leaves Values
    assert not Engine(Value=sound.Value).higher_order  # no create_graph keyword
    assert not Engine(Value=_scalar("S", make=refuses)).higher_order


def test_higher_order_needs_the_gradient_to_be_a_value_of_the_class():
    class NumberGrad(_scalar("NumberGrad")):
        def backward(self, create_graph=False):
            self.grad = 3.0

    assert not Engine(Value=NumberGrad).higher_order

    made = []

    class ValueGrad(_scalar("ValueGrad")):
        def __init__(self, x):
            super().__init__(x)
            made.append(self)

        def backward(self, create_graph=False):
            for v in made[:]:
                v.grad = ValueGrad(3.0) if create_graph else 3.0

    assert Engine(Value=ValueGrad).higher_order


# ---------------------------------------------------------------------- scalar_class
class Recorder:
    """An adapter over plain floats (a Value is a one-item list), recording what it is passed."""

    name = "recorder"

    def __init__(self, **extra):
        self.calls, self.grads = [], {}
        for key, value in extra.items():
            setattr(self, key, value)

    def make(self, x):
        return [x]

    def data(self, v):
        return v[0]

    def backward(self, output, leaves, create_graph=False):
        self.calls.append((output[0], [leaf[0] for leaf in leaves], create_graph))
        for leaf in leaves:
            self.grads[id(leaf)] = 1.0

    def grad(self, leaf):
        return self.grads.get(id(leaf), 0.0)

    def set_grad(self, leaf, g):
        self.grads[id(leaf)] = g


def list_ops():
    return {
        "__add__": lambda a, b: [a[0] + (b[0] if isinstance(b, list) else b)],
        "__radd__": lambda a, b: [a[0] + b],
        "__mul__": lambda a, b: [a[0] * (b[0] if isinstance(b, list) else b)],
        "__sub__": lambda a, b: [a[0] - (b[0] if isinstance(b, list) else b)],
        "__neg__": lambda a: [-a[0]],
        "double": lambda a: [2 * a[0]],
    }


def test_scalar_class_is_one_class_per_adapter_named_value():
    adapter = Recorder(ops=list_ops())
    Value = scalar_class(adapter)
    assert scalar_class(adapter) is Value and scalar_class(Recorder(ops=list_ops())) is not Value
    assert Value.__name__ == Value.__qualname__ == "Value" and Value.__module__ == A.__name__
    v = Value(2.5)
    assert v.inner == [2.5] and v.parents is None and v.data == 2.5
    assert repr(v) == "Value([2.5])"


def test_scalar_class_passes_every_leaf_once_and_applies_ops_and_methods():
    adapter = Recorder(ops=list_ops())
    Value = scalar_class(adapter)
    x, w = Value(2.0), Value(3.0)
    y = (x * w + x).double() - 1  # 2 (xw + x) - 1 = 15
    assert y.data == 15.0 and (-x).data == -2.0
    y.backward()
    assert len(adapter.calls) == 1 and adapter.calls[0][0] == 15.0 and adapter.calls[0][2] is False
    assert sorted(adapter.calls[0][1]) == [2.0, 3.0]  # each leaf once, though x is used twice
    assert (x.grad, w.grad) == (1.0, 1.0)
    y.backward(create_graph=True)
    assert adapter.calls[-1][2] is True
    x.grad = 0.25
    assert adapter.grads[id(x.inner)] == 0.25 and x.grad == 0.25


class Box:
    """An engine Value with Python operators (over exact Fractions), for an adapter without ops."""

    def __init__(self, x):
        self.x = Fraction(x)

    def _op(fn):
        return lambda self, o=None: Box(fn(self.x, o.x if isinstance(o, Box) else o))

    __add__ = _op(lambda a, b: a + b)
    __radd__ = _op(lambda a, b: b + a)
    __sub__ = _op(lambda a, b: a - b)
    __rsub__ = _op(lambda a, b: b - a)
    __mul__ = _op(lambda a, b: a * b)
    __rmul__ = _op(lambda a, b: b * a)
    __truediv__ = _op(lambda a, b: a / b)
    __rtruediv__ = _op(lambda a, b: b / a)
    __pow__ = _op(lambda a, b: a**b)
    __rpow__ = _op(lambda a, b: b**a)
    __neg__ = _op(lambda a, b: -a)
    __pos__ = _op(lambda a, b: a)
    __abs__ = _op(lambda a, b: abs(a))


def test_scalar_class_uses_the_values_own_operators_and_reflects_them_in_order():
    Value = scalar_class(Recorder(make=Box, data=lambda v: v.x))
    x = Value(3)
    assert (x - 1).data == 2 and (1 - x).data == -2  # reflected: 1 - x, not x - 1
    assert (x / 2).data == Fraction(3, 2) and (2 / x).data == Fraction(2, 3)
    assert (2**x).data == 8 and (x**2).data == 9
    assert (5 + x).data == 8 and (2 * x).data == 6
    assert (-x).data == -3 and (+x).data == 3 and abs(Value(-4)).data == 4
    assert (x + x).parents == (x,)  # an operand used twice is one parent


def test_scalar_class_gives_private_names_and_non_methods_no_access():
    class Inner(list):
        number = 2.0

        def twice(self):
            return Inner([2 * self[0]])

        def _hidden(self):
            return Inner([0.0])

    Value = scalar_class(Recorder(make=lambda x: Inner([x])))
    x = Value(1.5)
    assert x.twice().data == 3.0  # a method of the engine's Value
    with pytest.raises(AttributeError, match="the adapted Value of recorder has no attribute 'number'"):
        x.number  # noqa: B018 - a number goes through the adapter, never read around it
    with pytest.raises(AttributeError, match=r"^the adapted Value of recorder has no attribute '_hidden'$"):
        x._hidden  # noqa: B018 - the engine's private method: not the engine's API
    with pytest.raises(AttributeError, match=r"^the adapted Value of recorder has no attribute 'nothing'$"):
        x.nothing  # noqa: B018


def test_scalar_class_ops_may_name_private_methods_and_a_record_sees_every_result():
    seen = []
    ops = {"_double": lambda a: [2 * a[0]], "__mul__": lambda a, b: [a[0] * b[0]]}
    Value = scalar_class(Recorder(ops=ops, record=lambda v: seen.append(v[0])))
    x = Value(1.5)
    assert x._double().data == 3.0
    assert (x * Value(2.0)).data == 3.0
    assert seen == [3.0, 3.0]


def test_scalar_class_returns_non_values_and_not_implemented_as_they_are():
    ops = {"__add__": lambda a, b: NotImplemented, "__mul__": lambda a, b: 7.0, "label": lambda a: "x"}
    Value = scalar_class(Recorder(ops={**ops, "nothing": lambda a: None}))
    x = Value(1.0)
    assert x.nothing() is None
    assert x.__add__(2) is NotImplemented
    assert x * 3 == 7.0 and x.label() == "x"
    is_value = scalar_class(Recorder(ops={"__mul__": lambda a, b: [5.0]}, is_value=lambda obj: False))
    assert is_value(1.0) * 2 == [5.0]  # not a Value by the adapter's word: returned unwrapped


def test_scalar_class_wraps_a_gradient_that_is_a_value_over_the_leaves():
    class GradValue(Recorder):
        def grad(self, leaf):
            return [leaf[0] * 10]

    Value = scalar_class(GradValue())
    x = Value(2.0)
    g = x.grad
    assert isinstance(g, Value) and g.data == 20.0 and g.recipe is None

    class NoSetGrad(Recorder):
        set_grad = None

    with pytest.raises(AttributeError, match="the adapter recorder cannot set a gradient"):
        scalar_class(NoSetGrad()).__call__(1.0).grad = 0


def test_scalar_class_reads_an_interior_gradient_from_the_latest_output():
    reads = []

    def read(v, output):
        reads.append((v[0], output[0]))
        return 0.5

    adapter = Recorder(ops=list_ops(), read=read)
    Value = scalar_class(adapter)
    x = Value(2.0)
    h = x * 3.0
    assert h.grad == 0 and reads == []  # no pass went through h yet
    y = h + 1.0
    y.backward()
    assert h.grad == 0.5 and reads == [(6.0, 7.0)]
    z = h * 2.0
    z.backward()
    assert h.grad == 0.5 and reads[-1] == (6.0, 12.0)  # the latest output a pass went through
    assert x.grad == 1.0 and len(reads) == 2  # a leaf's gradient is the adapter's grad, not a read


def test_scalar_class_replays_the_output_alone_on_fresh_leaves_for_backward_rebuilt():
    made, rebuilt = [], []

    class Replaying(Recorder):
        def make(self, x):
            made.append(x)
            return [x]

        def backward_rebuilt(self, output, fresh, leaves):
            rebuilt.append((output[0], [f[0] for f in fresh], leaves))

    adapter = Replaying(ops=list_ops())
    Value = scalar_class(adapter)
    x, w = Value(2.0), Value(3.0)
    y = x * w + x
    _ = x * 100.0  # built from x too: not in the replay
    y.backward()
    ((out, fresh, leaves),) = rebuilt
    assert out == 8.0 and sorted(fresh) == [2.0, 3.0]
    assert {id(leaf) for leaf in leaves} == {id(x.inner), id(w.inner)}  # credited to the originals
    assert all(f is not o for f, o in zip(fresh, leaves))
    assert made == [2.0, 3.0, 2.0, 3.0] or made == [2.0, 3.0, 3.0, 2.0]
    assert adapter.calls == []  # not the plain backward
    y.backward(create_graph=True)  # no replay under create_graph
    assert len(rebuilt) == 1 and adapter.calls[-1][2] is True
    g = Value.__new__(Value)  # a Value with no recipe (a gradient made a Value): the plain backward
    g.inner, g.parents, g.output, g.recipe = [4.0], (x,), None, None
    (g + 1.0).backward()
    assert len(rebuilt) == 1 and adapter.calls[-1] == (5.0, [2.0], False)


def test_scalar_class_shows_the_adapted_classs_public_methods():
    class Inner(list):
        def tanh(self):
            return Inner([math.tanh(self[0])])

        def _private(self):
            return 0

        size = 3

    Value = scalar_class(Recorder(make=lambda x: Inner([x]), cls=Inner))
    assert "tanh" in dir(Value) and "_private" not in vars(Value) and "size" not in vars(Value)
    assert Value.tanh.__name__ == "tanh"
    assert Value(0.5).tanh().data == math.tanh(0.5)
    assert "append" in vars(Value)  # a list's method is public too
    assert Value.data is not Inner  # an existing name of the scalar class is not replaced
    assert isinstance(inspect.getattr_static(Value, "data"), property)


def test_scalar_class_leaves_of_a_deep_graph_without_recursion():
    Value = scalar_class(Recorder(ops=list_ops()))
    x = y = Value(1.0)
    for _ in range(5000):
        y = y + 1.0
    y.backward()  # its leaves found without a recursion 5000 deep
    assert x.grad == 1.0 and y.data == 5001.0


# ---------------------------------------------------------------------- discovery: attribute forms
@pytest.mark.parametrize(
    ("module", "accessors"),
    [
        ("tests.engines.sound", ("data", "grad", "backward")),
        ("tests.engines.slots_registry", ("data", "grad", "backward")),  # __slots__
        ("tests.engines.property_attrs", ("data", "grad", "backward")),  # @property
        ("tests.engines.descriptor_attrs", ("data", "grad", "backward")),  # C-like descriptors
        ("tests.engines.zero_d_arrays", ("data", "grad", "backward")),  # 0-d arrays
    ],
)
def test_discovery_names_the_members_of_each_attribute_form(module, accessors):
    eng = resolve_engine(module)
    assert (eng.data_attr, eng.grad_attr, eng.backward_method) == accessors
    assert eng.gradient_api == "backward" and eng.name == module and eng.class_name == "Value"


def _with(**members):
    """A class built from ``sound.Value`` with renamed members."""
    return type("Renamed", (sound.Value,), members)


def test_discovery_finds_renamed_data_grad_and_backward():
    class Scalar:
        def __init__(self, x):
            self.value, self.gradient, self.other = x, 0, 5.0

        def __add__(self, o):
            return Scalar(self.value + (o.value if isinstance(o, Scalar) else o))

        def __mul__(self, o):
            out = Scalar(self.value * (o.value if isinstance(o, Scalar) else o))
            out.src = (self, o.value if isinstance(o, Scalar) else o)
            return out

        def backwards(self):
            src, c = self.src
            src.gradient += c

    eng = resolve_engine(Scalar)
    assert (eng.data_attr, eng.grad_attr, eng.backward_method) == ("value", "gradient", "backwards")
    assert eng.name == __name__ and eng.vsum is None and eng.dot is None


def test_discovery_prefers_usual_names_among_equal_attributes():
    class Twice(sound.Value):
        def __init__(self, data, parents=()):
            super().__init__(data, parents)
            self.value = self.data  # two attributes hold 0.75: "data" is tried first

    assert resolve_engine(Twice).data_attr == "data"

    class Aliases(sound.Value):
        @property
        def zz(self):
            return self.data

        @property
        def gradient(self):
            return self.grad

    eng = resolve_engine(Aliases)  # both change to 1 on y = x * 1: "grad" before "gradient"
    assert (eng.data_attr, eng.grad_attr) == ("data", "grad")


def test_discovery_takes_the_attribute_that_became_1_before_others_that_changed():
    class Counting(sound.Value):
        def backward(self):
            super().backward()
            for node in (self, *self._prev):
                node.count = getattr(node, "count", 0) + 2

    eng = resolve_engine(Counting)
    assert eng.grad_attr == "grad"  # count changed too (to 2), grad became 1


def test_discovery_finds_a_backward_by_its_name_containing_back_but_no_dunder():
    class Hidden(sound.Value):
        backward = property(lambda self: 1 / 0)  # no usual name works
        go_back_now = sound.Value.backward
        __back__ = sound.Value.backward  # a dunder (sorted first): never tried

    eng = resolve_engine(Hidden)
    assert eng.backward_method == "go_back_now"


@pytest.mark.parametrize(
    ("module", "api", "data", "grad", "backward"),
    [
        ("tests.engines.method_accessors",
         "backward: Node.backward(); number Node.data(), gradient Node.grad()",
         "data", "grad", "backward"),
        ("tests.engines.output_read", "read: Var.der", "value", "der", "output"),
        ("tests.engines.property_read", "read: Scalar.derivative", "value", "derivative", "each"),
        ("tests.engines.grad_on_read", "read: Value.grad", "data", "grad", "passed"),
        ("tests.engines.grad_on_read_last", "read: Value.grad", "data", "grad", "last"),
    ],
)  # fmt: skip
def test_discovery_adapts_members_behind_methods_and_gradients_read(module, api, data, grad, backward):
    eng = resolve_engine(module)
    assert eng.gradient_api == api and eng.class_name == "Value" and eng.name == module
    assert (eng.data_attr, eng.grad_attr, eng.backward_method) == ("data", "grad", "backward")
    cls_name = api.split(": ")[1].split(".")[0]
    kind = "Accessors" if api.startswith("backward") else "GradientOnRead"
    assert eng.imports.splitlines() == [  # the adapter discovery built, as the reproducers build it
        f"from autograd.testing.engines import {kind}, scalar_class",
        f"from {module} import {cls_name}",
        f"Value = scalar_class({kind}({cls_name}, {data!r}, {grad!r}, {backward!r}))",
    ]


def test_the_imports_of_discovered_adapters_are_exact():
    eng = resolve_engine("tests.engines.method_accessors")
    assert eng.imports == (
        "from autograd.testing.engines import Accessors, scalar_class\n"
        "from tests.engines.method_accessors import Node\n"
        "Value = scalar_class(Accessors(Node, 'data', 'grad', 'backward'))"
    )
    assert eng.gradient_convention == "the output backward() is called on"
    eng = resolve_engine("tests.engines.grad_on_read")
    assert eng.imports == (
        "from autograd.testing.engines import GradientOnRead, scalar_class\n"
        "from tests.engines.grad_on_read import Value\n"
        "Value = scalar_class(GradientOnRead(Value, 'data', 'grad', 'passed'))"
    )
    assert eng.gradient_convention == "the output passed to the leaf's method: x.grad(y)"
    assert resolve_engine("tests.engines.property_read").gradient_convention == (
        "every output built from the leaf, one entry each: x.derivative (a number when there is one output)"
    )
    assert resolve_engine("tests.engines.grad_on_read_last").gradient_convention == (
        "the last output built: x.grad() (a later Value built from x changes it)"
    )
    assert resolve_engine("tests.engines.output_read").gradient_convention == (
        "the output whose method is called with the leaf: y.der(x)"
    )


def test_accessors_are_settable_when_the_gradient_is_an_attribute_and_the_data_a_method():
    class DataMethod(sound.Value):
        def __init__(self, data, parents=()):
            super().__init__(data, parents)
            self._d = self.data

        def value(self):
            return self._d

    DataMethod.data = property(lambda self: self._d, lambda self, x: setattr(self, "_d", x))
    eng = resolve_engine(DataMethod, data="value")
    assert (
        eng.gradient_api
        == "backward: DataMethod.backward(); number DataMethod.value(), gradient DataMethod.grad"
    )
    assert eng.imports.splitlines()[-1] == (
        "Value = scalar_class(Accessors(DataMethod, 'value', 'grad', 'backward', settable=True))"
    )
    assert eng.settable_grad
    x = eng.make(2.0)
    eng.backward(x * x)
    assert eng.grad(x) == 4.0
    eng.set_grad(x, 0)
    assert eng.grad(x) == 0


def test_a_gradient_method_is_the_one_whose_reading_a_pass_changed():
    class Slope(method_accessors.Node):
        def grad(self):
            return 0.0  # a number that no pass changes: no gradient

        def slope(self):
            return self._v.grad

    eng = resolve_engine(Slope)
    assert eng.gradient_api == "backward: Slope.backward(); number Slope.data(), gradient Slope.slope()"
    eng = resolve_engine(method_accessors.Node)
    assert eng.gradient_api == "backward: Node.backward(); number Node.data(), gradient Node.grad()"

    class NoPass(method_accessors.Node):
        def backward(self):
            pass  # no reading changes: no gradient method

    with pytest.raises(EngineNotFound) as missing:
        resolve_engine(NoPass)
    assert (
        "NoPass: backward() on y = x * 1 changed no numeric attribute or zero-argument method of x; "
        "no gradient computed on read either" in str(missing.value)
    )


def test_plain_attributes_are_read_by_the_engine_itself_a_member_behind_a_method_by_accessors():
    eng = resolve_engine(sound.Value)
    assert eng.Value is sound.Value and eng.gradient_api == "backward" and eng.imports == ""
    assert (eng.data_attr, eng.grad_attr, eng.backward_method) == ("data", "grad", "backward")
    eng = resolve_engine(method_accessors.Node)
    assert eng.imports.splitlines()[-1] == "Value = scalar_class(Accessors(Node, 'data', 'grad', 'backward'))"
    assert not eng.settable_grad  # no set_grad: the gradient is a method


# ---------------------------------------------------------------------- discovery: what it reads
class Opaque:
    """Has + and * but shows no 0.75 anywhere: discovery's rejection lists the numbers it read."""

    __slots__ = ()

    def __add__(self, other):
        return self

    __mul__ = __add__


class OneSlot(Opaque):
    __slots__ = "only"  # one slot, named by a string

    def __init__(self, x):
        self.only = 1.0


class TwoSlots(Opaque):
    __slots__ = ("a", "b")


class SlotsDictProperty(TwoSlots):
    __slots__ = ("c", "__dict__")
    shown = property(lambda self: 1.0)
    method = lambda self: 1.0  # noqa: E731 - a method, no descriptor of data: not an attribute

    def __init__(self, x):
        self.a = self.b = self.c = self.d = 1.0


class NumbersAmongOthers(Opaque):
    __slots__ = ("__dict__",)
    raises = property(lambda self: 1 / 0)

    def __init__(self, x):
        self.a, self.flag, self.text, self.arr, self.frac = 1.5, True, "x", ZeroD(2.5), Fraction(1, 3)


def _attributes_tried(cls):
    """The attributes discovery read as numbers on ``cls(0.75)``, as its rejection lists them."""
    with pytest.raises(EngineNotFound) as rejected:
        resolve_engine(cls)
    lines = str(rejected.value).splitlines()
    head = (
        f"candidates tried: {cls.__name__}: no attribute or zero-argument method gives the number "
        "it was built from (0.75); attributes tried: "
    )
    assert lines[1].startswith(head), lines[1]
    return ast.literal_eval(lines[1][len(head) :])


def test_attributes_read_cover_dict_slots_properties_and_descriptors():
    assert _attributes_tried(OneSlot) == ["only"]
    assert _attributes_tried(SlotsDictProperty) == ["a", "b", "c", "d", "shown"]  # no "method"
    for module in (property_attrs, descriptor_attrs):  # the number behind a property, a descriptor
        eng = resolve_engine(module.Value)
        assert (eng.data_attr, eng.grad_attr, eng.gradient_api) == ("data", "grad", "backward")


def test_attributes_read_are_numbers_and_0d_arrays_skipping_what_raises_or_is_no_number():
    assert _attributes_tried(NumbersAmongOthers) == ["a", "arr", "frac"]
    eng = resolve_engine(zero_d_arrays.Value)  # 0.75 and its gradient held as 0-d arrays
    assert (eng.data_attr, eng.grad_attr, eng.gradient_api) == ("data", "grad", "backward")


class ThreeShown(sound.Value):
    """Shows its number as ``data``, ``value`` and ``aaa`` (first in the alphabet, no usual name)."""

    aaa = property(lambda self: self.data)
    value = property(lambda self: self.data)


class Shifted(sound.Value):
    shifted = property(lambda self: self.data + 1)  # a number, not the one it was built from


class NoNumber(_scalar("NoNumber")):
    """Shows 2.0 as ``b`` and its gradient 0 as ``grad``: not the number it was built from."""

    data = property(lambda self: None)
    _x = property(lambda self: 2.0, lambda self, x: None)
    b = property(lambda self: 2.0)


def test_data_is_found_by_attribute_then_by_method_else_rejected_naming_what_was_tried():
    assert resolve_engine(sound.Value).data_attr == "data"
    assert resolve_engine(ThreeShown).data_attr == "data"  # usual names first, in their order
    number = resolve_engine(method_accessors.Node).gradient_api.split("; ")[1]
    assert number == "number Node.data(), gradient Node.grad()"  # a method returning it
    assert _attributes_tried(NoNumber) == ["_x", "b", "grad"]
    assert resolve_engine(Shifted).data_attr == "data"
    assert resolve_engine(Shifted, data="shifted").data_attr == "shifted"  # named: any number
    for named in ("nope", "_prev"):
        with pytest.raises(EngineNotFound) as rejected:
            resolve_engine(sound.Value, data=named)
        assert str(rejected.value).splitlines()[1] == (
            f"candidates tried: Value: no attribute or zero-argument method {named!r} giving a number"
        )


def _plain(target, **options):
    """(data, grad, backward) of a class discovery found filling a gradient attribute itself."""
    eng = resolve_engine(target, **options)
    assert eng.gradient_api == "backward" and eng.Value is target
    return eng.data_attr, eng.grad_attr, eng.backward_method


def test_fit_rejects_with_what_failed():
    class Refuses:
        def __init__(self, x):
            raise ValueError("bad number")

    assert _rejection(Refuses) == "candidates tried: Refuses: Refuses(0.75) raised ValueError: bad number"

    class NoMul:
        def __init__(self, x):
            self.data = x

        def __add__(self, o):
            return self

    assert _rejection(NoMul) == "candidates tried: NoMul: no __mul__"
    bare = type("Bare", (), {"__init__": NoMul.__init__})
    assert _rejection(bare) == "candidates tried: Bare: no __add__ or __mul__"
    assert _rejection(sound.Value, backward="nope") == "candidates tried: Value: no method 'nope'"
    assert _rejection(sound.Value, grad="nope") == (
        "candidates tried: Value: no numeric attribute 'nope' after backward()"
    )


def test_fit_with_a_named_backward_that_raises_says_what_it_raised():
    class Broken(sound.Value):
        def backward(self):
            raise RuntimeError("broken backward")

    assert _rejection(Broken, backward="backward") == (
        "candidates tried: Broken: backward(): RuntimeError: broken backward"  # once, not per build
    )

    class Inert(sound.Value):
        def backward(self):
            pass

    assert _rejection(Inert, backward="backward") == (
        "candidates tried: Inert: "
        "backward() on y = x * 1 changed no numeric attribute or zero-argument method of x"
    )


def test_a_constructor_that_raises_once_during_discovery_is_a_rejection_never_our_fault():
    # discovery builds many fresh leaves; whichever of them raises, that is the engine's fact:
    # the class is found, or rejected saying what raised, never an error of the harness
    outcomes = set()
    for fails_at in range(1, 30):

        class Tiring(sound.Value):
            made, fails = 0, fails_at

            def __init__(self, *args, **kwargs):
                type(self).made += 1
                if type(self).made == type(self).fails:
                    raise RuntimeError("tired")
                super().__init__(*args, **kwargs)

        try:
            eng = resolve_engine(Tiring)
        except EngineNotFound as exc:
            assert "raised RuntimeError: tired" in str(exc), (fails_at, str(exc))
            outcomes.add("rejected")
        else:
            assert (eng.data_attr, eng.grad_attr, eng.backward_method) == ("data", "grad", "backward")
            outcomes.add("found")
    assert outcomes == {"found", "rejected"}


def test_fit_tries_the_next_build_when_one_raises():
    class NoOne(sound.Value):
        def __mul__(self, o):
            if not isinstance(o, sound.Value):
                raise TypeError("only Values")
            return super().__mul__(o)

    assert _plain(NoOne) == ("data", "grad", "backward")


def test_fit_with_a_named_gradient_behind_a_method():
    got = resolve_engine(method_accessors.Node, grad="grad")
    assert got.imports.splitlines()[-1] == "Value = scalar_class(Accessors(Node, 'data', 'grad', 'backward'))"
    assert _plain(sound.Value, grad="grad") == ("data", "grad", "backward")


class Unfit:
    """A class discovery rejects: constructible, but with no ``+`` or ``*``."""

    def __init__(self, x):
        self.data = x


def _unfit(name, module=__name__):
    return type(name, (Unfit,), {"__module__": module})


def _tried(target, **options):
    """The candidates discovery tried on ``target``, in order, as its EngineNotFound lists them."""
    with pytest.raises(EngineNotFound) as missing:
        resolve_engine(target, **options)
    line = str(missing.value).splitlines()[1]
    if not line.startswith("candidates tried: "):
        return line
    return [tried.split(": ")[0] for tried in line.removeprefix("candidates tried: ").split("; ")]


def test_candidates_are_the_targets_own_classes_usual_names_first():
    space = types.SimpleNamespace(
        Helper=_unfit("Helper"), Node=_unfit("Node"), Value=_unfit("Value"), __Hidden=_unfit("H"), number=3
    )
    assert _tried(space) == ["Value", "Node", "Helper"]  # no dunder name, no non-class
    assert _tried(space, cls="Helper") == ["Helper"]
    with pytest.raises(EngineNotFound, match=r"^namespace\(.*\) has no class 'number'$"):
        resolve_engine(space, cls="number")
    module = types.ModuleType("tests_fake")
    module.Value, module.Mine = sound.Value, _unfit("Mine", "tests_fake.x")
    assert _tried(module) == ["Mine"]  # sound.Value is another package's
    nameless = types.ModuleType("")
    nameless.Value = sound.Value
    assert resolve_engine(nameless).Value is sound.Value  # no package to tell: every class
    module.__name__ = "tests.anything"
    assert resolve_engine(module).Value is sound.Value  # now Mine is another package's
    del module.Value
    assert _tried(module) == "tests.anything has no classes to try (name one with --class)"


def test_resolve_accepts_an_engine_a_class_a_string_with_a_class_and_a_namespace():
    eng = Engine(Value=sound.Value)
    assert resolve_engine(eng) is eng
    found = resolve_engine("tests.engines.float32:Value")
    assert found.Value is float32.Value and found.name == "tests.engines.float32"
    cls = resolve_engine(sound.Value)
    assert cls.name == "tests.engines.sound" and cls.class_name == "Value"
    space = resolve_engine(types.SimpleNamespace(Scalar=sound.Value, vsum=sum, dot=max))
    assert space.name == "tests.engines.sound" and space.class_name == "Scalar"
    assert (space.vsum, space.dot) == (sum, max)
    assert resolve_engine().Value.__module__.startswith("autograd")


def test_engine_not_found_names_the_target_what_was_looked_for_and_each_rejection():
    with pytest.raises(EngineNotFound) as missing:
        resolve_engine(types.SimpleNamespace())
    lines = str(missing.value).splitlines()
    assert lines == [
        "no scalar autograd class found in namespace(): looked for a class constructible "
        "from a number (0.75), "
        "with __add__ and __mul__, an attribute holding that number (such as data, value, val, x), and a "
        "backward method (such as backward, backwards, backprop) that fills a gradient attribute "
        "(such as grad, gradient, g) of x on y = x * 1.",
        "namespace() has no classes to try (name one with --class)",
        "name what cannot be found with --class NAME, --backward NAME, --data NAME, --grad NAME",
    ]
    with pytest.raises(EngineNotFound) as rejected:
        resolve_engine(types.SimpleNamespace(A=int, B=dict))
    lines = str(rejected.value).splitlines()
    assert lines[1] == (
        "candidates tried: A: no attribute or zero-argument method gives the number "
        "it was built from (0.75); "
        "attributes tried: ['denominator', 'imag', 'numerator', 'real']; "
        "B: dict(0.75) raised TypeError: 'float' object is not iterable"
    )  # int(0.75) is 0; dict(0.75) raises
    assert len(lines) == 3


def test_import_failures_are_the_users_facts_and_ours_propagate():
    for target in ("no_such_module_x", "no_such_module_x:Value"):
        with pytest.raises(
            EngineNotFound, match=r"^cannot import 'no_such_module_x': ModuleNotFoundError: No module"
        ):
            resolve_engine(target)
    with pytest.raises(EngineNotFound, match=r"^cannot import 'no_such_module_x': ModuleNotFoundError"):
        resolve_engine(adapter="no_such_module_x:adapter")
    with pytest.raises(AttributeError, match="no_such_member"):
        resolve_engine("tests.engines.harness_bug_at_import")
    with pytest.raises(AttributeError, match="no_such_member"):
        resolve_engine(adapter="tests.engines.harness_bug_at_import:adapter")
    assert resolve_engine("tests.engines.sound").Value is sound.Value


def test_the_cases_no_public_call_reaches():
    # kept on private names: resolve_engine never builds the message with a class named and no
    # candidate rejected (a named class is always tried), nor asks whose an untraced error is
    message = D._not_found_message("target", "Cls", [])
    assert message.splitlines()[1] == "'target' has no classes to try"  # a class was named: no hint
    assert not D._ours(ValueError("never raised"))  # no traceback


def test_whose_import_error_it_is_is_told_by_the_innermost_frame(tmp_path, monkeypatch):
    # the target's code calls ours, which raises: ours; ours calls the target's, which raises: theirs
    (tmp_path / "tests_calls_harness.py").write_text(
        "from autograd.testing.engines.apis import read_member\nread_member(object(), 'no_such')\n"
    )
    (tmp_path / "tests_harness_calls_it.py").write_text(
        "from autograd.testing.engines import as_number\nfrom tests.engines.sound import check_number\n"
        "class Bad:\n    shape = ()\n    def item(self):\n        return check_number('x')\n"
        "as_number(Bad())\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(AttributeError, match="no_such"):
        resolve_engine("tests_calls_harness")
    with pytest.raises(EngineNotFound) as theirs:
        resolve_engine("tests_harness_calls_it")
    assert str(theirs.value) == (
        "cannot import 'tests_harness_calls_it': TypeError: Value: data must be a real number, got 'x'"
    )


# ---------------------------------------------------------------------- discovery: adapters
def test_an_adapter_by_name_builds_an_engine_whose_reproducers_import_it():
    eng = resolve_engine(adapter="tests.engines.no_set_grad:adapter")
    assert eng.name == "tests.engines.no_set_grad" and eng.class_name == "Value"
    assert eng.gradient_api == "adapter" and eng.adapter == "tests.engines.no_set_grad:adapter"
    assert eng.gradient_convention == "the output passed to the adapter's backward"
    assert eng.imports == (
        "from autograd.testing.engines import scalar_class\n"
        "from tests.engines.no_set_grad import adapter\n"
        "Value = scalar_class(adapter)"
    )
    from tests.engines import no_set_grad

    assert resolve_engine(adapter=no_set_grad.adapter).adapter == "tests.engines.no_set_grad:adapter"
    nowhere = object()
    with pytest.raises(EngineNotFound, match=rf"^the adapter {nowhere!r} lacks make, data, backward"):
        resolve_engine(adapter=nowhere)  # defined nowhere: named by its repr


class ModuleAdapter(Recorder):
    """An adapter factory taking the target module."""

    def __init__(self, module):
        super().__init__(module=module)


SHOWN = Recorder()
_HIDDEN = Recorder()
ELSEWHERE = Recorder()
ELSEWHERE.__module__ = "no.such.module"  # its own __module__ names no module: its class's is searched


class Nameless:
    """An adapter with no name: its reproducers and report name it by where it is."""

    make, data, grad = Recorder.make, Recorder.data, Recorder.grad

    def backward(self, output, leaves, create_graph=False):
        pass


NAMELESS = Nameless()


class CallableAdapter(Recorder):
    """An adapter that is also callable: it is the adapter, not a factory of one."""

    def __call__(self, *args):
        raise AssertionError("an adapter with make() is never called as a factory")


CALLABLE = CallableAdapter()


class HalfAdapter:
    def make(self, x):
        return x


HALF = HalfAdapter()


def test_an_adapter_that_is_callable_is_used_as_it_is_and_a_factory_gets_the_targets_module():
    assert resolve_engine(adapter=CALLABLE).Value(2.0).data == 2.0
    made = []

    def factory(module):
        made.append(module)
        return Recorder()

    resolve_engine("tests.engines.sound:Value", adapter=factory)
    assert made == [sound]


def test_an_adapter_without_a_name_is_named_where_it_is_defined():
    eng = resolve_engine(adapter=NAMELESS)
    assert eng.name == f"{__name__}:NAMELESS" and eng.adapter == f"{__name__}:NAMELESS"
    assert resolve_engine(adapter=Nameless()).name == "Nameless"  # made on the fly: its class's name


def test_an_adapter_lacking_methods_is_named_by_where_it_is_defined_or_its_repr():
    with pytest.raises(EngineNotFound) as refused:
        resolve_engine(adapter=HALF)
    assert str(refused.value) == (
        f"the adapter '{__name__}:HALF' lacks data, backward, grad: an adapter has make(x), data(v), "
        "backward(output, leaves, create_graph=False) and grad(leaf) (see autograd.testing.engines.Adapter)"
    )
    half = types.SimpleNamespace(make=1)
    with pytest.raises(EngineNotFound) as refused:
        resolve_engine(adapter=half)
    assert str(refused.value).startswith(f"the adapter {half!r} lacks make, data, backward, grad: ")


def test_where_the_target_is_named_in_messages():
    empty = types.ModuleType("tests_empty_module")
    with pytest.raises(EngineNotFound) as missing:
        resolve_engine(empty)
    assert "no scalar autograd class found in tests_empty_module: " in str(missing.value)
    with pytest.raises(EngineNotFound, match=r"^tests\.engines\.sound has no class 'Nope'$"):
        resolve_engine("tests.engines.sound", cls="Nope")


def test_where_an_adapter_is_defined_is_a_public_name_of_its_module():
    assert resolve_engine(adapter=SHOWN).adapter == f"{__name__}:SHOWN"
    hidden = resolve_engine(adapter=_HIDDEN)  # a private name is no import for a reproducer
    assert hidden.adapter == "Recorder" and "ADAPTER" in hidden.imports
    assert resolve_engine(adapter=ELSEWHERE).adapter == f"{__name__}:ELSEWHERE"
    assert resolve_engine(adapter=Recorder).adapter == f"{__name__}:Recorder"  # a class: its own module


def test_an_adapter_factory_is_called_with_the_target_module():
    eng = resolve_engine("tests.engines.sound", adapter=ModuleAdapter)
    assert eng.imports == (
        "import importlib\n"
        "from autograd.testing.engines import scalar_class\n"
        f"from {__name__} import ModuleAdapter\n"
        "Value = scalar_class(ModuleAdapter(importlib.import_module('tests.engines.sound')))"
    )
    assert eng.name == "recorder" and eng.adapter == f"{__name__}:ModuleAdapter"
    eng = resolve_engine(adapter="tests.engines.functional:Adapter")
    assert eng.imports.splitlines()[-1] == "Value = scalar_class(Adapter())"  # no target given to it
    made = []

    def factory(*module):
        made.append(module)
        return Recorder(name="", convention="its own words")

    eng = resolve_engine(adapter=factory)
    assert made == [()] and eng.name == "Recorder" and eng.adapter == "Recorder"
    assert eng.gradient_convention == "its own words"
    assert eng.imports == (
        "from autograd.testing.engines import scalar_class\nValue = scalar_class(ADAPTER)  # your adapter"
    )
    eng = resolve_engine(sound, adapter=factory)
    assert made[-1] == (sound,)


def test_an_adapter_lacking_the_protocol_is_refused_naming_what_it_lacks():
    class Half:
        def make(self, x):
            return x

        grad = 3  # not callable

    with pytest.raises(EngineNotFound) as refused:
        resolve_engine(adapter=Half())
    assert str(refused.value).startswith("the adapter ")
    assert "lacks data, backward, grad: an adapter has make(x), data(v), " in str(refused.value)
    with pytest.raises(EngineNotFound, match=r"^--adapter wants MODULE:OBJECT, got 'tests.engines.sound'$"):
        resolve_engine(adapter="tests.engines.sound")
    with pytest.raises(EngineNotFound, match=r"^the module 'tests.engines.sound' has no adapter 'nope'$"):
        resolve_engine(adapter="tests.engines.sound:nope")


# ---------------------------------------------------------------------- gradient on read
class PrivateRead(grad_on_read.Value):
    """Only ``_secret`` (sorted first) and ``zzz`` give dy/dx; a private member is never read."""

    grad = None
    _secret = zzz = grad_on_read.Value.grad


class NoBackward(sound.Value):
    backward = None  # no backward method: only a gradient read could do


def _rejection(target, **options):
    """What discovery said of the one candidate of ``target``."""
    with pytest.raises(EngineNotFound) as missing:
        resolve_engine(target, **options)
    return str(missing.value).splitlines()[1]


def test_a_gradient_read_is_a_public_member_giving_the_known_graphs_gradients():
    assert resolve_engine(grad_on_read.Value).gradient_api == "read: Value.grad"
    assert resolve_engine(property_read.Scalar).gradient_api == "read: Scalar.derivative"
    assert resolve_engine(PrivateRead).gradient_api == "read: PrivateRead.zzz"


def test_gradient_on_read_rejects_a_class_without_a_gradient_read_saying_what_was_looked_for():
    assert _rejection(NoBackward, grad="nope") == (
        "candidates tried: NoBackward: no backward method; no gradient computed on read either "
        "(nope gave no d(out)/dx on y = x * x + x * 3 at x = 2; y = (x + 3) + 1.5 at x = 2)"
    )
    assert _rejection(NoBackward) == (
        "candidates tried: NoBackward: no backward method; no gradient computed on read either "
        "(no member of a leaf or an output gives d(out)/dx on "
        "y = x * x + x * 3 at x = 2 or y = (x + 3) + 1.5 at x = 2)"
    )


def test_gradient_on_read_is_found_on_the_second_known_graph_when_mul_is_wrong():
    class WrongMul(grad_on_read.Value):
        def __mul__(self, other):
            other = self._lift(other)
            return type(self)(self.data * other.data, (self, other), (other.data + 1, self.data + 1))

    made = resolve_engine(WrongMul).imports.splitlines()[-1]
    assert made == "Value = scalar_class(GradientOnRead(WrongMul, 'data', 'grad', 'passed'))"
    made = resolve_engine(grad_on_read.Value, grad="grad").imports.splitlines()[-1]
    assert made == "Value = scalar_class(GradientOnRead(Value, 'data', 'grad', 'passed'))"


# ---------------------------------------------------------------------- apis
def test_read_member_reads_attributes_properties_and_zero_argument_methods():
    assert read_member(sound.Value(2.5), "data") == 2.5
    assert read_member(property_attrs.Value(2.5), "data") == 2.5
    assert read_member(method_accessors.Node(2.5), "data") == 2.5
    holder = types.SimpleNamespace(arr=ZeroD(1.5), fn=lambda: ZeroD(0.5))
    assert read_member(holder, "arr") == 1.5 and read_member(holder, "fn") == 0.5
    kept = ZeroD(3.0)
    assert read_member(types.SimpleNamespace(v=kept), "v", keep=ZeroD) is kept
    assert read_member(types.SimpleNamespace(v=kept), "v", keep=(int, ZeroD)) is kept

    class Own(ZeroD):
        pass

    own = Own(1.0)
    own.me = Own(2.0)
    assert read_member(own, "me") is own.me  # a Value of v's own class is never read


def test_shown_as_number_of_and_is_number():
    assert apis.shown_as(method_accessors.Node, "grad") == "grad()"
    assert apis.shown_as(property_read.Scalar, "derivative") == "derivative"
    assert apis.shown_as(sound.Value, "nope") == "nope"
    assert number_of(sound.Value(2.5), sound.Value, "data") == 2.5
    assert number_of(ZeroD(1.5), sound.Value, "data") == 1.5
    assert number_of(4.0, sound.Value, "data") == 4.0
    assert [is_number(x) for x in (1, 1.5, Fraction(1, 2), 1j, True, "1", None)] == [
        True, True, True, True, False, False, False,
    ]  # fmt: skip


class Sized(float):
    def __len__(self):
        return 1

    def __iter__(self):
        return iter([1.0])


class ZeroDLen:
    def __len__(self):
        raise TypeError("len() of unsized object")

    def __iter__(self):
        raise TypeError("iteration over a 0-d array")


def _each_read(shown):
    """The gradient an "each" read credits to a leaf whose member shows ``shown``."""
    adapter = GradientOnRead(_leaf_reader(lambda users: shown), "data", "grad", "each")
    leaf = adapter.make(1.0)
    adapter.backward(None, [leaf])
    return adapter.grad(leaf)


def test_a_number_is_no_list_of_entries_even_when_it_has_a_length():
    shown = Sized(2.0)
    assert _each_read(shown) is shown


def test_the_entries_of_an_each_read_are_the_numbers_of_a_sequence():
    assert _each_read([4.0]) == 4.0 and _each_read((3,)) == 3
    with pytest.raises(apis.AmbiguousRead, match=", 2 here: "):
        _each_read([1.0, 2])
    for shown in (1.0, "ab", b"ab", [], [1.0, "a"], [True], None, ZeroDLen()):  # no entries: as read
        assert _each_read(shown) is shown, shown
    assert _each_read(ZeroD(1.0)) == 1.0  # a 0-d array: its number


def _leaf_reader(combine):
    """A class whose ``x.grad`` (a property) is ``combine`` of the multipliers of the Values built from x."""

    class Leafy:
        def __init__(self, data):
            self.data, self.users = data, []

        def __mul__(self, other):
            self.users.append(other.data)
            return Leafy(self.data * other.data)

        def __add__(self, other):
            return Leafy(self.data + other.data)

        @property
        def grad(self):
            return combine(self.users)

    return Leafy


@pytest.mark.parametrize(
    ("combine", "convention"),
    [
        (lambda users: users[-1], "last"),
        (lambda users: sum(users), "all"),
        (lambda users: users[0] if len(users) == 1 else list(users), "each"),
        (lambda users: users[0] if len(users) == 1 else list(reversed(users)), "each"),
        (lambda users: users[0], None),  # the first output's: no convention of ours
        (lambda users: 4.0, None),  # follows no output
    ],
)
def test_read_convention_of_a_leaf_read(combine, convention):
    found, seen = read_convention(_leaf_reader(combine), "data", "grad")
    assert found == convention, seen


def test_read_convention_says_what_it_saw():
    found, seen = read_convention(_leaf_reader(lambda u: 4.0), "data", "grad", "leaf")
    assert found is None and seen == "leaf: 4.0, 4.0, 4.0"
    found, seen = read_convention(_leaf_reader(lambda u: u[-1]), "data", "grad", "passed")
    assert found is None and seen == "passed: 'TypeError'"  # x.grad(y): a float is not callable
    found, seen = read_convention(grad_on_read.Value, "data", "grad", "passed")
    assert found == "passed" and seen == "passed: 3.0, 5.0, 3.0"
    found, seen = read_convention(grad_on_read.Value, "data", "grad")
    assert found == "passed" and seen == "passed: 3.0, 5.0, 3.0"  # the first form that fits ends it
    found, seen = read_convention(output_read.Var, "value", "der")
    assert found == "output" and seen.startswith("passed: ")


def test_read_convention_needs_the_two_single_reads_to_be_numbers_that_differ():
    # the last output's gradient, but the same for both outputs: no convention
    found, _ = read_convention(_leaf_reader(lambda u: 2.0 if len(u) < 2 else u[-1]), "data", "grad", "leaf")
    assert found is None
    found, _ = read_convention(_leaf_reader(lambda u: "3" if len(u) == 1 else 5), "data", "grad", "leaf")
    assert found is None


def test_read_convention_a_passed_read_must_still_give_the_first_outputs_gradient():
    class Leafy(_leaf_reader(lambda users: users[-1])):
        grad = None

        def read(self, out):  # ignores the output passed: the last one built from x
            return self.users[-1]

    found, seen = read_convention(Leafy, "data", "read", "passed")
    assert found is None and seen == "passed: 3.0, 5.0, 5.0"


def test_discovered_class_is_value_and_data():
    adapter = Accessors(method_accessors.Node, "data", "grad", "backward")
    assert adapter.name == "tests.engines.method_accessors:Node"
    n = adapter.make(2.5)
    assert type(n) is method_accessors.Node and adapter.data(n) == 2.5
    assert adapter.is_value(n)

    class Other:
        def data(self):
            return 1.0

    assert adapter.is_value(Other())  # another class showing the same member: an op's subclass
    assert adapter.is_value(types.SimpleNamespace(data=1.0))  # the member in the instance
    assert not adapter.is_value(2.5) and not adapter.is_value("data") and not adapter.is_value(ZeroD(1.0))
    assert not adapter.is_value(types.SimpleNamespace(value=1.0))


def test_accessors_backward_grad_and_set_grad():
    adapter = Accessors(sound.Value, "data", "grad", "backward")
    assert not hasattr(adapter, "set_grad")
    x = adapter.make(3.0)
    assert adapter.backward(x * x, [x]) is None and adapter.grad(x) == 6.0
    with pytest.raises(
        TypeError, match=r"^tests.engines.sound:Value: create_graph is not known through backward\(\)$"
    ):
        adapter.backward(x * x, [x], create_graph=True)
    settable = Accessors(zero_d_arrays.Value, "data", "grad", "backward", settable=True)
    z = settable.make(1.0)
    settable.set_grad(z, 0.5)
    assert z.grad.shape == () and settable.grad(z) == 0.5 and type(settable.grad(z)) is float


def test_gradient_on_read_accumulates_and_reads_interior_nodes():
    adapter = GradientOnRead(grad_on_read.Value, "data", "grad", "passed")
    x, w = adapter.make(3.0), adapter.make(2.0)
    y = x * w
    assert adapter.grad(x) == 0  # no pass yet
    adapter.backward(y, [x, w])
    assert (adapter.grad(x), adapter.grad(w)) == (2.0, 3.0)
    adapter.backward(y, [x])
    assert (adapter.grad(x), adapter.grad(w)) == (4.0, 3.0)
    adapter.set_grad(x, 0)
    assert adapter.grad(x) == 0
    adapter.backward(y, [x])
    assert adapter.grad(x) == 2.0
    assert adapter.read(y, y) == 1.0 and adapter.backward_rebuilt is None
    other = adapter.make(3.0)
    assert adapter.grad(other) == 0  # another leaf: nothing, even if it reuses an id later


def test_gradient_on_read_of_an_output_method():
    adapter = GradientOnRead(output_read.Var, "value", "der", "output")
    x = adapter.make(2.0)
    y = x * output_read.Var(7.0)
    assert adapter.read(x, y) == 7.0
    adapter.backward(y, [x])
    assert adapter.grad(x) == 7.0


def test_gradient_on_read_picked_by_the_engine_reads_rebuilt_outputs():
    adapter = GradientOnRead(grad_on_read_last.Value, "data", "grad", "last")
    assert adapter.read is None and adapter.backward_rebuilt is not None
    x, xf = adapter.make(3.0), adapter.make(3.0)
    out = xf * grad_on_read_last.Value(5.0)
    adapter.backward_rebuilt(out, [xf], [x])
    adapter.backward_rebuilt(out, [xf], [x])
    assert adapter.grad(x) == 10.0 and adapter.grad(xf) == 0
    with pytest.raises(ValueError, match="longer"):
        adapter.backward_rebuilt(out, [xf], [x, xf])


def test_gradient_on_read_each_reads_one_entry_and_refuses_several():
    adapter = GradientOnRead(property_read.Scalar, "value", "derivative", "each")
    x = adapter.make(2.0)
    y = x * property_read.Scalar(3.0)
    assert adapter.read is None  # the engine picks the output: read when backward runs
    adapter.backward(y, [x])
    assert adapter.grad(x) == 3.0
    x * property_read.Scalar(5.0)
    with pytest.raises(apis.AmbiguousRead) as ambiguous:
        adapter.backward(y, [x])
    assert str(ambiguous.value) == (
        "Scalar.derivative gives one gradient per output built from the leaf, 2 here: "
        "which one is d(output)/dx cannot be told"
    )
    listing = GradientOnRead(_leaf_reader(lambda u: list(u)), "data", "grad", "each")
    leaf = listing.make(1.0)
    leaf * listing.make(4.0)
    listing.backward(None, [leaf])
    assert listing.grad(leaf) == 4.0  # a list of one entry: that entry
    summed = GradientOnRead(_leaf_reader(lambda u: list(u)), "data", "grad", "all")
    leaf = summed.make(1.0)
    leaf * summed.make(4.0)
    summed.backward(None, [leaf])
    assert summed.grad(leaf) == [4.0]  # only "each" reads entries


def _pass(adapter, leaf, g):
    """A backward pass of ``adapter`` (over grad_on_read) giving ``leaf`` the gradient ``g``."""
    adapter.backward(leaf * grad_on_read.Value(g), [leaf])


def test_gradient_on_read_forgets_the_oldest_leaves_past_its_limit(monkeypatch):
    monkeypatch.setattr(apis, "MAX_KEPT", 2)
    adapter = GradientOnRead(grad_on_read.Value, "data", "grad", "passed")
    a, b, c = (adapter.make(1.0) for _ in range(3))
    for leaf, g in ((a, 1.0), (b, 2.0), (a, 3.0), (c, 5.0)):
        _pass(adapter, leaf, g)
    assert (adapter.grad(a), adapter.grad(b), adapter.grad(c)) == (4.0, 0, 5.0)  # b was the oldest
    adapter.set_grad(b, 7.0)
    _pass(adapter, c, 1.0)
    assert (adapter.grad(a), adapter.grad(b), adapter.grad(c)) == (0, 7.0, 6.0)  # two kept


def test_a_gradient_written_makes_its_leaf_the_newest_kept(monkeypatch):
    monkeypatch.setattr(apis, "MAX_KEPT", 2)
    adapter = GradientOnRead(grad_on_read.Value, "data", "grad", "passed")
    a, b, c = (adapter.make(1.0) for _ in range(3))
    _pass(adapter, a, 1.0)
    _pass(adapter, b, 2.0)
    adapter.set_grad(a, 0.5)  # a is now the newest: b is the oldest
    _pass(adapter, c, 3.0)
    assert (adapter.grad(a), adapter.grad(b), adapter.grad(c)) == (0.5, 0, 3.0)


def test_gradient_on_read_refuses_create_graph_and_unknown_conventions():
    adapter = GradientOnRead(grad_on_read.Value, "data", "grad", "passed")
    with pytest.raises(TypeError, match=r"^a gradient computed on read has no create_graph$"):
        adapter.backward(adapter.make(1.0), [], create_graph=True)
    with pytest.raises(ValueError) as unknown:
        GradientOnRead(grad_on_read.Value, "data", "grad", "first")
    assert str(unknown.value) == (
        "GradientOnRead: unknown convention 'first' (one of ['passed', 'output', 'last', 'all', 'each'])"
    )


# ---------------------------------------------------------------------- boundary
def test_engine_raised_carries_the_stage_and_the_exception():
    exc = ValueError("bad <Value at 0x7f00deadbeef>")
    raised = EngineRaised("backward()", exc)
    assert raised.stage == "backward()" and raised.exc is exc
    assert str(raised) == "ValueError: bad <Value at 0x7f00deadbeef>"
    assert raised.line() == "ValueError: bad <Value>"


def test_error_line_strips_addresses_and_is_at_most_300_characters():
    assert error_line(KeyError("k")) == "KeyError: 'k'"
    assert error_line(RuntimeError("a at 0xABCdef12 and b at 0x1")) == "RuntimeError: a and b"
    assert error_line(RuntimeError("cat 0x12")) == "RuntimeError: cat 0x12"  # no " at 0x": kept
    long = error_line(RuntimeError("x" * 400))
    assert long == "RuntimeError: " + "x" * 286 and len(long) == 300
    assert len(error_line(RuntimeError("x" * 286))) == 300


def test_boundary_engine_call_wraps_the_engines_exception_and_passes_arguments():
    assert boundary.engine_call("forward", lambda a, b=1: a - b, 5, b=2) == 3
    with pytest.raises(EngineRaised) as raised:
        boundary.engine_call("forward", int, "x")
    assert raised.value.stage == "forward" and isinstance(raised.value.exc, ValueError)
    assert raised.value.__cause__ is raised.value.exc
    with pytest.raises(KeyboardInterrupt):  # not an Exception: never the engine's fact
        boundary.engine_call("forward", _interrupt)


def _interrupt():
    raise KeyboardInterrupt


def test_child_path_is_every_import_directory_absolute(monkeypatch):
    monkeypatch.setattr(sys, "path", ["", "rel/dir", "/abs"])
    assert boundary.child_path().split(os.pathsep) == [os.getcwd(), os.path.abspath("rel/dir"), "/abs"]


def test_died_names_the_signal_only_when_one_ended_the_child():
    assert Died("killed by SIGSEGV", "backward()").signal == "SIGSEGV"
    assert Died("exit status 1", "x").signal == "" and Died("timed out after 2 s", "x").signal == ""
    assert Died("a", "b").stderr == ""


@pytest.mark.slow
def test_an_engine_child_answers_dies_is_restarted_and_times_out():
    program = "\n".join(
        [
            "import os, signal, time",
            "for line in sys.stdin:",
            "    stage('doing ' + line.rstrip('\\n'))",
            "    if line.strip().startswith('die'): os.kill(os.getpid(), signal.SIGKILL)",
            "    if line.strip() == 'rt': os.kill(os.getpid(), 40)",  # a signal with no name
            "    if line.strip() == 'quit': sys.exit(0)",
            "    if line.strip() == 'exit': print('a\\nb\\nlast words', file=sys.stderr); sys.exit(3)",
            "    if line.strip() == 'hang': time.sleep(30)",
            "    if line.strip() == 'pid': answer(os.getpid()); continue",
            "    print('noise')",
            "    answer({'got': line.strip()})",
        ]
    )
    with EngineChild(program, timeout=1) as child:
        assert child.program.startswith(boundary.CHILD_HELPERS)
        assert child.started == 0 and child.ask("a") == {"got": "a"} and child.started == 1
        assert child.ask("dieX") == Died("killed by SIGKILL", "doing dieX", "")  # the stage as announced
        assert child.ask("die ") == Died("killed by SIGKILL", "doing die ", "")
        assert child.ask("rt") == Died("killed by signal 40", "doing rt", "")
        assert child.ask("quit") == Died("exit status 0", "doing quit", "")
        exited = child.ask("exit")
        assert exited == Died("exit status 3", "doing exit", "last words") and child.started == 5
        assert child.ask("hang") == Died("timed out after 1 s", "doing hang")
        assert child.ask("b") == {"got": "b"} and child.started == 7
        pid = child.ask("pid")
        os.kill(pid, 0)  # alive
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # ended (and reaped) on exit
    assert signal.Signals.SIGKILL.name == "SIGKILL"


def test_an_engine_child_imports_from_our_path_in_our_environment(monkeypatch):
    monkeypatch.setenv("ENGINE_CHILD_MARK", "seen")
    program = "import os\nsys.stdin.readline()\n" + (
        "answer([os.environ.get('PYTHONPATH'), os.environ.get('ENGINE_CHILD_MARK')])"
    )
    with EngineChild(program) as child:
        assert child.ask("env") == [boundary.child_path(), "seen"]


def test_an_engine_child_that_dies_before_any_stage_died_starting():
    with EngineChild("raise SystemExit(5)") as child:
        assert child.ask("x") == Died("exit status 5", "starting", "")


# ---------------------------------------------------------------------- gradient on read: which member
_LAST: list = [None]


class ValueRead(grad_on_read.Value):
    """x.grad(y) returns dy/dx as a Value of the engine (its number in ``data``)."""

    def grad(self, out):
        return type(self)(super().grad(out))


class TwoReads(grad_on_read.Value):
    """Two members give dy/dx: ``grad`` (a usual name) and ``slope``."""

    slope = grad_on_read.Value.grad


class SlopeRead(grad_on_read.Value):
    """Only ``slope`` gives dy/dx; it sorts after the number's member ``data``."""

    grad = None
    slope = grad_on_read.Value.grad


class LastOrTwice(grad_on_read.Value):
    """``x.grad()`` is d(last output)/dx, right; ``x.grad(y)`` is 2 dy/dx, wrong: only the first
    form gives the known graphs' gradients, though the second follows the output passed."""

    def __init__(self, data, parents=(), partials=()):
        super().__init__(data, parents, partials)
        if parents:
            _LAST[0] = self

    def grad(self, out=None):
        return super().grad(_LAST[0]) if out is None else 2 * super().grad(out)


def test_a_gradient_read_as_a_value_is_read_through_its_number():
    eng = resolve_engine(ValueRead)
    made = eng.imports.splitlines()[-1]
    assert made == "Value = scalar_class(GradientOnRead(ValueRead, 'data', 'grad', 'passed'))"
    x = eng.make(3.0)
    eng.backward(x * eng.make(5.0))
    assert eng.grad(x) == 5.0 and type(eng.grad(x)) is float


def test_a_named_gradient_member_is_the_one_read():
    assert resolve_engine(TwoReads).gradient_api == "read: TwoReads.grad"
    assert resolve_engine(TwoReads, grad="slope").gradient_api == "read: TwoReads.slope"


def test_the_search_for_a_gradient_member_goes_past_the_number_member():
    assert resolve_engine(SlopeRead).gradient_api == "read: SlopeRead.slope"


def test_the_convention_is_observed_in_the_form_that_gave_the_gradient():
    made = resolve_engine(LastOrTwice).imports.splitlines()[-1]
    assert made == "Value = scalar_class(GradientOnRead(LastOrTwice, 'data', 'grad', 'last'))"


class FixedRead(grad_on_read.Value):
    def grad(self, out):
        return 7.0  # right on the first known graph, but follows no output


def test_every_read_seen_is_said_when_none_is_a_gradient():
    assert _rejection(FixedRead, grad="grad") == (
        "candidates tried: FixedRead: no backward method; no gradient computed on read either "
        "(grad (passed) on y1 = x * 3, y2 = x * 5 gave passed: "
        "7.0, 7.0, 7.0; grad (output) on y1 = x * 3, y2 = x * 5 gave output: 7.0, 7.0, 7.0)"
    )


class LeafOnly:
    def __init__(self, x):
        self.data = x

    def __add__(self, other):
        return OutOnly(self.data + other.data)

    def __mul__(self, other):
        return OutOnly(self.data * other.data)


class OutOnly(LeafOnly):
    def der(self, leaf):
        return 7.0  # right on the first known graph, but follows no output


def _members_read(target):
    """The members whose reads discovery saw give a known graph's gradient, in the order tried."""
    line = _rejection(target).split(" no gradient computed on read either (")[1]
    return [seen.split(" (")[0] for seen in line.split("; ")]


def test_members_read_include_those_of_an_output_of_another_class():
    assert "der" not in dir(LeafOnly)
    assert _members_read(LeafOnly) == ["der"]


class Named:
    """Every member but ``data`` reads 1.0: d(out)/dx on the second known graph, whatever the output."""

    def __init__(self, x):
        self.data = x

    def __add__(self, other):
        return Named(self.data + other.data)

    def __mul__(self, other):
        return Named(self.data * other.data)

    Mygrad = xadj = xder = xdiff = xgrad = alpha = property(lambda self: 1.0)


class Refuses(Named):
    def __mul__(self, other):
        raise TypeError("no product")  # the second known graph needs none


def test_members_read_put_names_like_a_derivative_first_then_the_rest():
    for target in (Named, Refuses):  # an output that cannot be built: the leaf's members alone
        assert _members_read(target) == ["Mygrad", "xadj", "xder", "xdiff", "xgrad", "alpha"], target


def test_read_convention_needs_both_single_reads_to_be_numbers():
    class SecondNoNumber(grad_on_read.Value):
        def grad(self, out):
            g = super().grad(out)
            return "five" if g == 5 else g

    found, seen = read_convention(SecondNoNumber, "data", "grad", "passed")
    assert found is None and seen == "passed: 3.0, 'five', 3.0"
    first_no_number = _leaf_reader(lambda users: "three" if users == [3.0] else users[-1])
    found, seen = read_convention(first_no_number, "data", "grad", "leaf")
    assert found is None and seen == "leaf: 'three', 5.0, 5.0"


def test_read_convention_says_every_form_it_read():
    assert read_convention(output_read.Var, "value", "der") == (
        "output",
        "passed: 0, 0, 0; output: 3.0, 5.0, 3.0",  # x.der(y) is dx/dy: 0
    )
    assert read_convention(property_read.Scalar, "value", "derivative") == (
        "each",
        "passed: 'TypeError'; output: 'TypeError'; leaf: 3.0, 5.0, [3.0, 5.0]",  # a property: not callable
    )
    assert read_convention(grad_on_read_last.Value, "data", "grad") == (
        "last",
        "passed: 'TypeError'; output: 'TypeError'; leaf: 3.0, 5.0, 5.0",
    )
    assert read_convention(_leaf_reader(sum), "data", "grad") == (
        "all",
        "passed: 'TypeError'; output: 'TypeError'; leaf: 3.0, 5.0, 8.0",
    )
    assert read_convention(_leaf_reader(lambda users: 4.0), "data", "grad") == (
        None,
        "passed: 'TypeError'; output: 'TypeError'; leaf: 4.0, 4.0, 4.0",
    )


def test_read_convention_goes_on_to_the_next_form_when_one_does_not_follow_the_output():
    class Reader(_leaf_reader(lambda users: 0)):
        def read(self, out=None):  # the last output's gradient, whatever output is passed
            return self.users[-1]

    found, seen = read_convention(Reader, "data", "read")
    assert (
        found == "last" and seen == "passed: 3.0, 5.0, 5.0; output: 'AttributeError'; leaf: 3.0, 5.0, 5.0"
    )  # y: no read


def test_read_convention_each_needs_the_entries_of_both_outputs():
    listing = _leaf_reader(lambda users: users[0] if len(users) == 1 else [9.0, 9.0])
    assert read_convention(listing, "data", "grad", "leaf") == (None, "leaf: 3.0, 5.0, [9.0, 9.0]")


def test_accessors_keep_a_gradient_of_the_engines_class_on_a_value_of_a_subclass():
    class Sub(Tensorish):
        pass

    adapter = Accessors(Tensorish, "data", "grad", "backward")
    v = Sub(1.0)
    v.grad = Tensorish(2.0)  # a Value of the engine's class (create_graph), on a Value of a subclass
    assert adapter.grad(v) is v.grad
    v.data = Tensorish(3.0)
    assert adapter.data(v) is v.data


def test_a_nameless_adapter_is_named_by_its_class_in_errors():
    x = scalar_class(Nameless())(1.0)
    with pytest.raises(AttributeError, match=r"^the adapted Value of Nameless has no attribute 'nothing'$"):
        x.nothing  # noqa: B018


def test_the_convention_of_an_accessors_engine_names_its_backward():
    class Node2(method_accessors.Node):
        backward = None  # not a method
        backprop = method_accessors.Node.backward

    eng = resolve_engine(Node2)
    assert eng.gradient_convention == "the output backprop() is called on"
    assert eng.gradient_api == "backward: Node2.backprop(); number Node2.data(), gradient Node2.grad()"


def test_a_gradient_method_is_never_the_backward_itself():
    class CountingBack(method_accessors.Node):
        grad = None

        def backward(self):  # returns the gradient it had: a number an earlier pass changes
            before = self._v.grad
            self._v.backward()
            return before

        def slope(self):
            return self._v.grad

    assert resolve_engine(CountingBack).gradient_api == (
        "backward: CountingBack.backward(); number CountingBack.data(), gradient CountingBack.slope()"
    )


class AfterOnly(method_accessors.Node):
    """``grad()`` raises until a pass has filled the gradient."""

    def grad(self):
        if self._v.grad == 0:
            raise RuntimeError("no gradient before backward()")
        return self._v.grad


def test_a_reading_that_fails_before_a_pass_is_no_gradient_method_unless_named():
    # a number before a pass and another after it: a member that works only after a pass cannot be
    # told from one the pass made possible, so it is not taken unless named (--grad)
    assert _rejection(AfterOnly).startswith(
        "candidates tried: AfterOnly: backward() on y = x * 1 changed no numeric attribute or "
        "zero-argument method of x; no gradient computed on read either"
    )
    named = resolve_engine(AfterOnly, grad="grad")  # read after a pass
    assert named.gradient_api == (
        "backward: AfterOnly.backward(); number AfterOnly.data(), gradient AfterOnly.grad()"
    )


def test_a_named_gradient_must_give_a_number():
    assert _rejection(method_accessors.Node, grad="relu") == (  # relu() gives a Node
        "candidates tried: Node: no numeric attribute 'relu' after backward()"
    )


class Me(Tensorish):
    """A Value that looks like a 0-d array of its number, with a method returning itself."""

    def __add__(self, other):
        return self

    __mul__ = __add__

    def backward(self):
        pass

    def me(self):
        return self


def test_a_method_returning_a_value_of_the_class_is_no_number():
    # read as a 0-d array, me() would give 0.75 and be taken for the named gradient
    assert _rejection(Me, grad="me") == "candidates tried: Me: no numeric attribute 'me' after backward()"


class PlainNode(method_accessors.Node):
    """A number and gradient behind methods, and an instance __dict__ (no __slots__ of its own):
    an instance attribute could hide the gradient's method."""


def test_a_gradient_behind_a_method_is_never_written_over():
    eng = resolve_engine(PlainNode)
    assert eng.imports.splitlines()[-1] == (
        "Value = scalar_class(Accessors(PlainNode, 'data', 'grad', 'backward'))"  # not settable
    )
    assert not eng.settable_grad


def test_a_gradient_attribute_that_takes_only_numbers_is_settable():
    class Checked(PlainNode):
        grad = property(lambda self: self._v.grad)

        @grad.setter
        def grad(self, g):
            if not isinstance(g, int | float):
                raise TypeError(f"a gradient is a number, got {g!r}")
            self._v.grad = g

    eng = resolve_engine(Checked)
    assert eng.imports.splitlines()[-1] == (
        "Value = scalar_class(Accessors(Checked, 'data', 'grad', 'backward', settable=True))"
    )
    assert eng.settable_grad


def test_reading_a_gradient_value_does_not_change_which_output_interior_nodes_follow():
    reads = []

    def read(v, output):
        reads.append((v[0], output[0]))
        return [0.5]  # a gradient that is a Value of the engine (a one-item list here)

    Value = scalar_class(Recorder(ops=list_ops(), read=read))
    x = Value(2.0)
    h = x * 3.0  # 6
    z = h * 2.0  # 12
    w = z + 1.0
    w.backward()  # 13: z and h follow it (while it lives: a weak reference)
    y = h + 1.0
    y.backward()  # 7: h follows this one now
    assert isinstance(z.grad, Value) and reads == [(12.0, 13.0)]
    h.grad  # noqa: B018
    assert reads[-1] == (6.0, 7.0)  # still the latest pass through h, not z


def test_the_leaves_of_a_graph_of_diamonds_are_found_visiting_each_node_once():
    adapter = Recorder(ops=list_ops())
    Value = scalar_class(adapter)
    x = y = Value(1.0)
    for _ in range(40):  # y = (y + 1) + y * 2: every node reached twice; 2**40 paths to x
        y = (y + 1.0) + y * 2.0
    y.backward()  # visiting each of the 2**40 paths would never end
    assert adapter.calls[-1][1] == [1.0] and x.grad == 1.0  # x, passed once, is the one leaf


def test_scalar_class_uses_the_adapters_reflected_ops():
    ops = {"__rsub__": lambda a, b: [b - a[0]], "__rtruediv__": lambda a, b: [b / a[0]]}
    Value = scalar_class(Recorder(ops=ops))
    x = Value(2.0)
    y = 10 - x
    assert y.data == 8.0 and y.parents == (x,) and (1 / x).data == 0.5
    assert y.recipe[1] == (x, 10)  # computed again from x's wrapper and the number


def test_only_a_class_given_as_cls_lends_its_methods():
    not_a_class = types.SimpleNamespace(tanh=lambda: 0.0)
    Value = scalar_class(Recorder(cls=not_a_class))
    assert "tanh" not in vars(Value)


def test_candidates_are_tried_in_the_order_of_the_usual_names():
    names = ["Other", "Node", "Tensor", "Var", "Variable", "Scalar", "Value"]
    space = types.SimpleNamespace(**{name: type(name, (), {}) for name in names})
    assert _tried(space) == [*reversed(names[1:]), "Other"]


class Renamed:
    """A scalar whose gradient is ``zgrad`` (no usual name) and whose ``g`` counts passes by 3: on
    y = x * 1 the gradient is the attribute that became 1, though ``g`` (a usual name) changed too."""

    def __init__(self, x):
        self.data, self.zgrad, self.g, self._src = x, 0, 0, ()

    def __add__(self, other):
        out = type(self)(self.data + (other.data if isinstance(other, Renamed) else other))
        out._src = ((self, 1),)
        return out

    def __mul__(self, other):
        c = other.data if isinstance(other, Renamed) else other
        out = type(self)(self.data * c)
        out._src = ((self, c),)
        return out

    def backward(self):
        self.zgrad = 1
        for parent, partial in self._src:
            parent.zgrad += partial
            parent.g += 3


class RenamedValuesOnly(Renamed):
    """Multiplies only by Values: discovery's y = x * 1 raises, y = x * Value(1) is tried next."""

    def __mul__(self, other):
        if not isinstance(other, Renamed):
            raise TypeError("a Value, please")
        return super().__mul__(other)


@pytest.mark.parametrize("cls", [Renamed, RenamedValuesOnly])
def test_the_gradient_is_the_attribute_that_became_1_on_y_equal_x_times_1(cls):
    assert _plain(cls) == ("data", "zgrad", "backward")


def test_backward_names_are_tried_in_their_usual_order_before_other_names():
    class Both(sound.Value):
        back_prop = sound.Value.backward  # also fills the gradient; "backward" comes first

        def __back__(self):  # a dunder: never tried
            self.grad = 5

    assert _plain(Both) == ("data", "grad", "backward")


def test_a_named_gradient_is_read_on_an_engine_without_backward():
    eng = resolve_engine(TwoReads, grad="slope")
    assert eng.gradient_api == "read: TwoReads.slope"


def test_a_backward_that_does_nothing_falls_back_to_a_gradient_read():
    class InertBack(grad_on_read.Value):
        def backward(self):
            pass

    made = resolve_engine(InertBack).imports.splitlines()[-1]
    assert made == "Value = scalar_class(GradientOnRead(InertBack, 'data', 'grad', 'passed'))"

    class BrokenBack(TwoReads):
        def backward(self):
            raise RuntimeError("broken")

    assert resolve_engine(BrokenBack, grad="slope").gradient_api == "read: BrokenBack.slope"

    class Inert(sound.Value):
        def backward(self):
            pass

    assert _rejection(Inert).startswith(
        "candidates tried: Inert: "
        "backward() on y = x * 1 changed no numeric attribute or zero-argument method of x; "
        "no gradient computed on read either ("
    )


def test_what_every_backward_tried_did_is_said_once_each():
    class InertTwo(sound.Value):
        def backward(self):
            pass

        backprop = backward

    assert _rejection(InertTwo).startswith(
        "candidates tried: InertTwo: "
        "backward() on y = x * 1 changed no numeric attribute or zero-argument method of x; "
        "backprop() on y = x * 1 changed no numeric attribute or zero-argument method of x; "
        "no gradient computed on read either ("
    )
    calls = []

    class Counting(sound.Value):
        def backward(self):
            calls.append(1)
            raise RuntimeError(f"call {len(calls)}")

    assert _rejection(Counting, backward="backward") == (
        "candidates tried: Counting: backward(): RuntimeError: call 1; backward(): RuntimeError: call 2; "
        "backward(): RuntimeError: call 3"
    )


def test_a_named_backward_is_the_one_used():
    class Both(sound.Value):
        back_prop = sound.Value.backward

    assert resolve_engine(Both, backward="back_prop").backward_method == "back_prop"
    assert resolve_engine(Both).backward_method == "backward"


def test_a_named_class_is_the_one_tried():
    core = resolve_engine("tests.engines.sound:Core")  # Value would be tried first unnamed
    assert core.Value is sound.Core and core.class_name == "Core" and core.name == "tests.engines.sound"
    assert resolve_engine(sound, cls="Core").Value is sound.Core
    assert resolve_engine(sound).Value is sound.Value


def test_a_module_target_is_imported_by_its_own_name_not_its_classs():
    eng = resolve_engine("autograd")  # Value lives in autograd.engine, re-exported by autograd
    assert eng.name == "autograd" and eng.import_line() == "from autograd import Value"


class ShiftedTensorish(Tensorish):
    """Holds x + 1 (no attribute shows 0.75), with + and *: discovery lists what it read."""

    def __init__(self, x):
        super().__init__(x + 1.0)

    def __add__(self, other):
        return self

    __mul__ = __add__


def test_numbers_keep_values_of_the_objects_own_class():
    assert _attributes_tried(ShiftedTensorish) == ["x"]  # data and grad are Tensorish themselves


def test_as_number_leaves_a_shape_without_item_alone():
    class ShapeOnly:
        shape = ()

    x = ShapeOnly()
    assert as_number(x) is x
