"""The tinygrad adapter: :data:`tinygrad_float64` audits tinygrad through 0-d ``float64`` tensors.

``python -m autograd.testing audit --adapter autograd.testing.adapters.tinygrad:tinygrad_float64``.
Importing this module imports tinygrad (the optional extra ``tinygrad`` installs the version the
suite tests).  tinygrad is lazy: an op builds a graph of micro-ops, and reading a value compiles
and runs it on a device.  Its CPU device compiles C with clang; the adapter runs on tinygrad's
``PYTHON`` device instead, which interprets the same micro-ops in Python and needs no compiler
(``TinygradFloat64(device="CPU")`` audits the CPU device where clang is installed).  Each leaf is
a realized buffer, not a constant, so that a graph evaluated at many points is one program.

tinygrad keeps no tape: ``Tensor.backward()`` differentiates the output's graph and leaves a
gradient on every tensor of it that is still alive, and that gradient is itself a lazy tensor,
differentiable again, so the second order needs nothing more.  The ops are Python's operators on
tensors, the tensors' methods for the table's functions, and tinygrad's other elementwise
methods (:data:`TINYGRAD_SOURCES`), which the audit identifies by their values against the
catalogue of known functions and judges there.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from autograd.testing.adapters.common import require, tape_program, with_functions

__all__ = ["TINYGRAD_FUNCTIONS", "TINYGRAD_SOURCES", "TinygradFloat64", "tinygrad_float64"]

tinygrad = require("tinygrad", "tinygrad", "tinygrad")

#: tinygrad's elementwise methods of one or two tensors, by the name the scalar class gives them
#: (the catalogue's names; ``gelu_tanh`` is tinygrad's ``gelu``, the tanh approximation), with
#: their defaults, as a person writes them: the audit calls what this text names
#: (:func:`~autograd.testing.adapters.common.function`) and reproducers write the same text.
_METHODS = (
    "sqrt rsqrt reciprocal square sin cos tan asin acos atan sinh cosh asinh acosh atanh log2 log10 "
    "exp2 erf softplus softsign logsigmoid silu mish elu selu celu leaky_relu relu6 hardtanh "
    "hardsigmoid hardswish logaddexp maximum minimum"
)
TINYGRAD_SOURCES: dict[str, str] = {
    **{name: f"tinygrad.Tensor.{name}" for name in _METHODS.split()},
    "gelu_tanh": "tinygrad.Tensor.gelu",
    "abs": "tinygrad.Tensor.abs",  # a tensor has no __abs__: abs(x) is refused
}
#: The table's functions, which the scalar class calls as tensor methods, for reproducers.
_TABLE_SOURCES = {name: f"tinygrad.Tensor.{name}" for name in ("exp", "log", "tanh", "relu", "sigmoid")}
TINYGRAD_FUNCTIONS: dict[str, Callable[..., Any]] = with_functions(TINYGRAD_SOURCES)


class TinygradFloat64:
    """tinygrad, each scalar a 0-d ``float64`` tensor on one device (``PYTHON`` unless told).

    Gradients accumulate across ``backward`` calls (tinygrad adds a new gradient to the one a
    tensor holds); a gradient tinygrad leaves unset (the tensor is not in the graph) reads 0.
    """

    convention = "the output passed to backward (Tensor.backward)"
    ops: ClassVar[dict[str, Callable[..., Any]]] = {"__abs__": tinygrad.Tensor.abs, **TINYGRAD_FUNCTIONS}

    def __init__(self, device: str = "PYTHON") -> None:
        self.device, self.differentiable = device, False
        self.name = f"tinygrad (0-d float64 tensors, {device} device)"

    def standalone(self, expr: str, leaves: Sequence[tuple[str, float]], order: int = 1) -> str:
        """A program importing only tinygrad that computes ``expr`` (the harness's method syntax)
        at ``leaves`` (name, number) on the adapter's device as the adapter does, and prints its
        value and gradients (its second derivatives: ``order=2``; tinygrad's gradients are
        always differentiable, its backward takes no create_graph)."""
        make = (
            "tinygrad.Tensor([{x}], dtype=tinygrad.dtypes.float64, "
            f"device={self.device!r}).reshape(()).realize()"
        )
        sources = {**_TABLE_SOURCES, **TINYGRAD_SOURCES}
        return tape_program(["import tinygrad"], make, expr, leaves, sources, order=order, create_graph="")

    def make(self, x: Any) -> Any:
        # a one-element buffer, realized: a constant would be folded into every program compiled
        return tinygrad.Tensor([x], dtype=tinygrad.dtypes.float64, device=self.device).reshape(()).realize()

    def data(self, v: Any) -> Any:
        return v.item()

    def backward(self, output: Any, leaves: Sequence[Any], *, create_graph: bool = False) -> None:
        # tinygrad's gradients are lazy tensors of the same graph: always differentiable again;
        # read as numbers unless the harness asked for gradients it will differentiate
        self.differentiable = create_graph
        output.backward()

    def grad(self, v: Any) -> Any:
        g = v.grad
        if g is None:
            return 0.0
        return g if self.differentiable else g.item()

    def set_grad(self, v: Any, g: Any) -> None:
        v.grad = g if isinstance(g, tinygrad.Tensor) else self.make(float(g))

    def is_value(self, obj: Any) -> bool:
        return isinstance(obj, tinygrad.Tensor)


#: The adapter of tinygrad float64 scalars on the PYTHON device
#: (``--adapter autograd.testing.adapters.tinygrad:tinygrad_float64``).
tinygrad_float64 = TinygradFloat64()
