"""The MyGrad adapter: :data:`mygrad_float64` audits MyGrad through 0-d ``float64`` tensors.

``python -m autograd.testing audit --adapter autograd.testing.adapters.mygrad:mygrad_float64``.
Importing this module imports MyGrad (the optional extra ``mygrad`` installs the version the
suite tests).  MyGrad keeps a tape, as PyTorch does: ``Tensor.backward()`` leaves a gradient (a
NumPy array) on every tensor the output was computed from.  Its gradients are not tensors, so
it has no second order: ``backward(create_graph=True)`` is refused.  The ops are MyGrad's:
Python's operators on tensors, ``mygrad.exp``, ``mygrad.log``, ``mygrad.tanh`` and
``mygrad.nnet.activations``' ``relu`` and ``sigmoid``, and MyGrad's other elementwise functions
(:data:`MYGRAD_FUNCTIONS`), which the audit identifies by their values against the catalogue of
known functions and judges there.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, ClassVar

from autograd.testing.adapters.common import require

__all__ = ["MYGRAD_FUNCTIONS", "MygradFloat64", "mygrad_float64"]

mg = require("mygrad", "MyGrad", "mygrad")
activations = require("mygrad.nnet.activations", "MyGrad", "mygrad")

#: MyGrad's elementwise functions of one or two tensors, by the name the scalar class gives them
#: (the catalogue's names where MyGrad's differ: ``asin`` is ``mygrad.arcsin``); the activations
#: with a required parameter at PyTorch's default (leaky_relu's slope 0.01, elu's alpha 1).
MYGRAD_FUNCTIONS: dict[str, Callable[..., Any]] = {
    **{
        name: getattr(mg, name)
        for name in [
            "sqrt",
            "cbrt",
            "square",
            "reciprocal",
            "sin",
            "cos",
            "tan",
            "sinh",
            "cosh",
            "log1p",
            "expm1",
            "log2",
            "log10",
            "exp2",
            "logaddexp",
            "maximum",
            "minimum",
        ]
    },
    **{name: getattr(mg, f"arc{name[1:]}") for name in ["asin", "acos", "atan", "asinh", "acosh", "atanh"]},
    "atan2": mg.arctan2,
    "selu": activations.selu,
    "softsign": activations.soft_sign,
    "hardtanh": activations.hard_tanh,
    "leaky_relu": partial(activations.leaky_relu, slope=0.01),
    "elu": partial(activations.elu, alpha=1.0),
}


class MygradFloat64:
    """MyGrad, each scalar a 0-d ``float64`` tensor; a gradient MyGrad leaves unset reads 0."""

    name = "mygrad (0-d float64 tensors)"
    convention = "the output passed to backward (Tensor.backward)"
    ops: ClassVar[dict[str, Callable[..., Any]]] = {
        "exp": mg.exp,
        "log": mg.log,
        "tanh": mg.tanh,
        "relu": activations.relu,
        "sigmoid": activations.sigmoid,
        **MYGRAD_FUNCTIONS,
    }

    def make(self, x: Any) -> Any:
        return mg.tensor(x, dtype="float64")

    def data(self, v: Any) -> Any:
        return v.item()

    def backward(self, output: Any, leaves: Sequence[Any], *, create_graph: bool = False) -> None:
        if create_graph:
            raise TypeError("MyGrad has no second order: its gradients are NumPy arrays, not tensors")
        output.backward()

    def grad(self, v: Any) -> Any:
        g = v.grad
        return 0.0 if g is None else g.item()

    def is_value(self, obj: Any) -> bool:
        return isinstance(obj, mg.Tensor)


#: The adapter of MyGrad float64 scalars (``--adapter autograd.testing.adapters.mygrad:mygrad_float64``).
mygrad_float64 = MygradFloat64()
