"""An adapter's ``ops`` may name functions beyond Python's operators and the table's methods (a
framework adapter maps the framework's elementwise functions there): each public name becomes a
method of the scalar class, listed by ``dir`` (where the search for extra ops looks) and computed
through the adapter, gradient included; private names stay out."""

from typing import ClassVar

from autograd.testing.engines import scalar_class
from tests.engines import functional


class WithFunctions(functional.Adapter):
    ops: ClassVar[dict] = {
        **functional.Adapter.ops,
        "triple": lambda a: functional.mul(a, functional.const(3.0)),
        "_hidden": lambda a: a,
    }


def test_each_public_function_of_an_adapters_ops_is_a_method_of_its_scalar_class():
    Value = scalar_class(WithFunctions())
    assert "triple" in dir(Value) and "_hidden" not in dir(Value)
    x = Value(1.5)
    y = x.triple() * x  # 3 x^2: 6.75, d/dx 6 x = 9
    y.backward()
    assert (y.data, x.grad) == (6.75, 9.0)


def test_an_adapter_without_functions_adds_no_method():
    assert "triple" not in dir(scalar_class(functional.Adapter()))
