"""A ``Scalar`` with ``.value``, ``.gradient`` and ``backwards()``, float-only data, no relu."""

from tests.engines.audit_minimal import scalar_class

Scalar = scalar_class(
    "Scalar",
    data="value",
    grad="gradient",
    backward="backwards",
    ops=("add", "mul", "neg", "sub", "div", "pow", "tanh", "exp"),
    numbers="float",
)
Scalar.__module__ = __name__
