"""Adapters (the README's adapter protocol) for engines of the AUDITS.md corpus whose API discovery
cannot read: `.ci/audits.py` passes them as ``--adapter audit_adapters:NAME`` with this folder
on PYTHONPATH.  Each holds nothing but the engine's own calls: how to build a leaf, read its
number, run or read its gradient.  Gradients computed on read are accumulated here across
backward calls, as PyTorch accumulates them, so the harness sees one convention.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class _Accumulated:
    """Gradients kept by the adapter: {id(leaf): (leaf, gradient)} (the leaf keeps its id alive)."""

    def __init__(self) -> None:
        self.grads: dict[int, tuple[Any, Any]] = {}

    def add(self, leaf: Any, g: Any) -> None:
        old = self.grads.get(id(leaf), (leaf, 0))[1]
        self.grads[id(leaf)] = (leaf, old + g)

    def grad(self, leaf: Any) -> Any:
        return self.grads.get(id(leaf), (leaf, 0))[1]

    def set_grad(self, leaf: Any, g: Any) -> None:
        self.grads[id(leaf)] = (leaf, g)


class Simplegrad:
    """simplegrad (C++/pybind11): ``Node(x)``, ``v.data()`` and ``v.grad()`` are methods."""

    name = "simplegrad (data() and grad() are methods)"
    convention = "the output passed to backward (Node.backward)"

    def __init__(self) -> None:
        import simplegrad

        self.node = simplegrad.Node

    def make(self, x: Any) -> Any:
        return self.node(x)

    def data(self, v: Any) -> Any:
        return v.data()

    def backward(self, output: Any, leaves: Sequence[Any], *, create_graph: bool = False) -> None:
        if create_graph:
            raise NotImplementedError("simplegrad has no higher-order gradients")
        output.backward()

    def grad(self, leaf: Any) -> Any:
        return leaf.grad()


class Gradpy(_Accumulated):
    """gradpy: ``Var(x)``, the number in ``.value``, d(out)/dx read as ``out.der(x)``."""

    name = "gradpy (gradient on read: out.der(x))"
    convention = "the output passed to backward (out.der(x))"

    def __init__(self) -> None:
        super().__init__()
        from gradpy.autodiff import Var

        self.var = Var

    def make(self, x: Any) -> Any:
        return self.var(x)

    def data(self, v: Any) -> Any:
        return v.value

    def backward(self, output: Any, leaves: Sequence[Any], *, create_graph: bool = False) -> None:
        if create_graph:
            raise NotImplementedError("gradpy's derivatives are numbers")
        for leaf in leaves:
            self.add(leaf, output.der(leaf))

    def read(self, v: Any, output: Any) -> Any:
        return output.der(v)


class Gradim(_Accumulated):
    """GrADim: ``ReverseMode(x)``, the number in ``.value``; the property ``x.derivative`` sums over
    the paths from x to every output built from it (one entry per output), so d(out)/dx is read
    from ``x.derivative_helper``, the engine's own walk, at the entry whose output is ``out``."""

    name = "GrADim (gradient on read: x.derivative)"
    convention = "the output passed to backward (its entry in x.derivative)"

    def __init__(self) -> None:
        super().__init__()
        from GrADim import ReverseMode

        self.mode = ReverseMode

    def make(self, x: Any) -> Any:
        return self.mode(x)

    def data(self, v: Any) -> Any:
        return v.value

    def read(self, v: Any, output: Any) -> Any:
        if v is output:  # d(out)/d(out): the engine's walk lists only the outputs built from v
            return 1
        outputs, derivatives = v.derivative_helper(1, [], [])
        return next((d for o, d in zip(outputs, derivatives) if o is output), 0)

    def backward(self, output: Any, leaves: Sequence[Any], *, create_graph: bool = False) -> None:
        if create_graph:
            raise NotImplementedError("GrADim's derivatives are numbers")
        for leaf in leaves:
            self.add(leaf, self.read(leaf, output))


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

        leaf.grad = numpy.zeros_like(leaf.data) + g  # an array of its own (backward adds in place)


simplegrad = Simplegrad
gradpy = Gradpy
gradim = Gradim
vizgrad = Vizgrad
