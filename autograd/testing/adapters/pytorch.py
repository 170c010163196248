"""The PyTorch adapter: :data:`torch_float64` audits PyTorch through 0-d ``float64`` tensors.

``python -m autograd.testing audit --adapter autograd.testing.adapters:torch_float64``.  torch is
imported only when the adapter is first used: it is not a dependency of this package (the
optional extra ``torch`` installs the version the suite tests).  Beside Python's operators and
the tensors' own methods, the adapter maps PyTorch's elementwise functions (``torch.*`` and
``torch.nn.functional.*``, :func:`torch_functions`) as methods of the scalar class: the audit
identifies each by its values against the catalogue of known functions and judges it there.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from autograd.testing.adapters.common import require, tape_program, with_functions

__all__ = ["TORCH_SOURCES", "TorchFloat64", "torch_float64", "torch_functions"]


class TorchFloat64:
    """PyTorch, each scalar a 0-d ``float64`` tensor with ``requires_grad=True``.

    Every op's result keeps its gradient (``retain_grad``) and every backward keeps its graph
    (``retain_graph``), so that a second backward through the same graph is allowed and interior
    gradients are readable, as they are in a scalar engine; gradients accumulate (PyTorch's
    convention).  A gradient PyTorch leaves unset (``None``: the node was not reached) reads 0.
    """

    name = "torch (0-d float64 tensors)"
    convention = "the output passed to backward (Tensor.backward)"

    def __init__(self) -> None:
        self._torch: Any = None

    @property
    def torch(self) -> Any:
        if self._torch is None:
            self._torch = require("torch", "PyTorch", "torch")
        return self._torch

    @property
    def ops(self) -> dict[str, Callable[..., Any]]:
        """PyTorch's elementwise functions, by name (:func:`torch_functions`)."""
        return torch_functions()

    def standalone(self, expr: str, leaves: Sequence[tuple[str, float]], order: int = 1) -> str:
        """A program importing only PyTorch that computes ``expr`` (the harness's method syntax) at
        ``leaves`` (name, number) as the adapter does, and prints its value and gradients (its
        second derivatives: ``order=2``)."""
        make = "torch.tensor({x}, dtype=torch.float64, requires_grad=True)"
        sources = {**_TABLE_SOURCES, **TORCH_SOURCES}
        return tape_program(["import torch"], make, expr, leaves, sources, order=order)

    def make(self, x: Any) -> Any:
        return self.torch.tensor(x, dtype=self.torch.float64, requires_grad=True)

    def data(self, v: Any) -> Any:
        return v.item()

    def record(self, v: Any) -> None:
        if v.requires_grad and not v.is_leaf:
            v.retain_grad()

    def backward(self, output: Any, leaves: Sequence[Any], *, create_graph: bool = False) -> None:
        output.backward(retain_graph=True, create_graph=create_graph)

    def grad(self, v: Any) -> Any:
        g = v.grad
        if g is None:
            return 0.0
        return g if g.requires_grad else g.item()

    def set_grad(self, v: Any, g: Any) -> None:
        v.grad = (
            g.detach().clone()
            if isinstance(g, self.torch.Tensor)
            else self.torch.tensor(float(g), dtype=self.torch.float64)
        )

    def is_value(self, obj: Any) -> bool:
        return isinstance(obj, self.torch.Tensor)


_OF_TORCH = (
    "sqrt rsqrt reciprocal square sin cos tan asin acos atan sinh cosh asinh acosh atanh log1p expm1 "
    "log2 log10 exp2 erf erfc lgamma digamma sinc logit atan2 hypot xlogy logaddexp maximum minimum"
)
_OF_FUNCTIONAL = (
    "softplus softsign logsigmoid silu mish gelu elu selu celu leaky_relu relu6 hardtanh hardsigmoid "
    "hardswish tanhshrink"
)
#: PyTorch's elementwise functions of one or two tensors, by the name the scalar class gives them,
#: as a person writes them (``torch.*`` and ``torch.nn.functional.*`` at their defaults;
#: ``gelu_tanh`` is ``gelu(approximate="tanh")``): the audit calls what this text names
#: (:func:`~autograd.testing.adapters.common.function`) and reproducers write the same text.
TORCH_SOURCES: dict[str, str] = {
    **{name: f"torch.{name}" for name in _OF_TORCH.split()},
    **{name: f"torch.nn.functional.{name}" for name in _OF_FUNCTIONAL.split()},
    "gelu_tanh": "torch.nn.functional.gelu(approximate='tanh')",
}
#: The table's functions, which the scalar class calls as tensor methods, for reproducers.
_TABLE_SOURCES = {name: f"torch.{name}" for name in ("exp", "log", "tanh", "relu", "sigmoid")}


def torch_functions() -> dict[str, Callable[..., Any]]:
    """PyTorch's elementwise functions (:data:`TORCH_SOURCES`), resolved; a missing torch is named
    with the extra that installs it."""
    require("torch", "PyTorch", "torch")
    return with_functions(TORCH_SOURCES)


#: The adapter of PyTorch float64 scalars (``--adapter autograd.testing.adapters:torch_float64``).
torch_float64 = TorchFloat64()
