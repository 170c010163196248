"""Adapters (the README's adapter protocol) for engines of the AUDITS.md corpus whose API discovery
cannot read: `.ci/audits.py` passes them as ``--adapter audit_adapters:NAME`` with this folder
on PYTHONPATH.  Each holds nothing but the engine's own calls: how to build a leaf, read its
number, run or read its gradient.

Only vizgrad needs one now: its number and gradient are 0-d numpy arrays, which the harness does
not take for numbers (simplegrad's ``data()``/``grad()`` methods, gradpy's ``out.der(x)`` and
GrADim's ``x.derivative`` are found by discovery).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class Vizgrad:
    """vizgrad: ``Value(x)`` keeps its number and gradient as 0-d numpy arrays (read as floats)."""

    name = "vizgrad (0-d numpy arrays)"
    convention = "the output passed to backward (Value.backward)"

    def __init__(self) -> None:
        from vizgrad import Value

        self.value = Value

    def make(self, x: Any) -> Any:
        return self.value(x)

    def data(self, v: Any) -> Any:
        return float(v.data)

    def backward(self, output: Any, leaves: Sequence[Any], *, create_graph: bool = False) -> None:
        if create_graph:
            raise NotImplementedError("vizgrad's gradients are arrays")
        output.backward()

    def grad(self, leaf: Any) -> Any:
        return float(leaf.grad)

    def set_grad(self, leaf: Any, g: Any) -> None:
        import numpy

        # a 0-d array of its own, as the engine keeps it (backward adds in place); zeros_like(...) + g
        # would be a numpy scalar, which has no __iadd__: a crash of our adapter, not of vizgrad
        leaf.grad = numpy.full_like(leaf.data, g)


vizgrad = Vizgrad
