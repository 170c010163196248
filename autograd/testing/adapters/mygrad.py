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
from typing import Any, ClassVar

from autograd.testing.adapters.common import require, tape_program, with_functions

__all__ = ["MYGRAD_FUNCTIONS", "MYGRAD_SOURCES", "MygradFloat64", "mygrad_float64"]

mg = require("mygrad", "MyGrad", "mygrad")
activations = require("mygrad.nnet.activations", "MyGrad", "mygrad")

#: MyGrad's elementwise functions of one or two tensors, by the name the scalar class gives them
#: (the catalogue's names where MyGrad's differ: ``asin`` is ``mygrad.arcsin``); the activations
#: with a required parameter at PyTorch's default (leaky_relu's slope 0.01, elu's alpha 1); as a
#: person writes them: the audit calls what this text names
#: (:func:`~autograd.testing.adapters.common.function`) and reproducers write the same text.
_OF_MYGRAD = (
    "sqrt cbrt square reciprocal sin cos tan sinh cosh log1p expm1 log2 log10 exp2 logaddexp maximum minimum"
)
MYGRAD_SOURCES: dict[str, str] = {
    **{name: f"mygrad.{name}" for name in _OF_MYGRAD.split()},
    **{name: f"mygrad.arc{name[1:]}" for name in ["asin", "acos", "atan", "asinh", "acosh", "atanh"]},
    "atan2": "mygrad.arctan2",
    "selu": "mygrad.nnet.activations.selu",
    "softsign": "mygrad.nnet.activations.soft_sign",
    "hardtanh": "mygrad.nnet.activations.hard_tanh",
    "leaky_relu": "mygrad.nnet.activations.leaky_relu(slope=0.01)",
    "elu": "mygrad.nnet.activations.elu(alpha=1.0)",
}
#: The table's functions, for the adapter and reproducers.
_TABLE_SOURCES = {
    "exp": "mygrad.exp",
    "log": "mygrad.log",
    "tanh": "mygrad.tanh",
    "relu": "mygrad.nnet.activations.relu",
    "sigmoid": "mygrad.nnet.activations.sigmoid",
}
MYGRAD_FUNCTIONS: dict[str, Callable[..., Any]] = with_functions(MYGRAD_SOURCES)


class MygradFloat64:
    """MyGrad, each scalar a 0-d ``float64`` tensor; a gradient MyGrad leaves unset reads 0."""

    name = "mygrad (0-d float64 tensors)"
    convention = "the output passed to backward (Tensor.backward)"
    ops: ClassVar[dict[str, Callable[..., Any]]] = {**with_functions(_TABLE_SOURCES), **MYGRAD_FUNCTIONS}

    def standalone(self, expr: str, leaves: Sequence[tuple[str, float]], order: int = 1) -> str:
        """A program importing only MyGrad that computes ``expr`` (the harness's method syntax) at
        ``leaves`` (name, number) as the adapter does, and prints its value and gradients."""
        make = "mygrad.tensor({x}, dtype='float64')"
        if order != 1:
            raise ValueError(f"MyGrad has no second order: no reproducer of order {order}")
        return tape_program(["import mygrad"], make, expr, leaves, {**_TABLE_SOURCES, **MYGRAD_SOURCES})

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
