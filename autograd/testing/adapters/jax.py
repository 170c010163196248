"""The JAX adapter: :data:`jax_float64` audits JAX through 0-d ``float64`` arrays, on the CPU.

``python -m autograd.testing audit --adapter autograd.testing.adapters.jax:jax_float64``.
Importing this module imports JAX (the optional extra ``jax`` installs the version the suite
tests) and enables its float64 (``jax_enable_x64``) for the whole process.

JAX is functional: it has no tape and no gradient slot.  Each scalar is a :class:`Recorded`
value: the JAX array an op returned (computed eagerly, so every forward value is JAX's own) and
how it was computed.  ``backward`` replays the recorded computation as a function of the leaves
and takes :func:`jax.grad` of it; with ``create_graph=True`` each gradient is itself a
:class:`Recorded` value (the function ``jax.grad`` returns, of the same leaves), so it can be
differentiated again.  The ops are JAX's: Python's operators on JAX arrays, ``jnp.exp``,
``jnp.log``, ``jnp.tanh``, ``jax.nn.relu`` and ``jax.nn.sigmoid``, and JAX's other elementwise
functions (:data:`JAX_FUNCTIONS`: ``jnp.*``, ``jax.nn.*``, ``jax.scipy.special.*``), which the
audit identifies by their values against the catalogue of known functions and judges there.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from autograd.testing.adapters.common import require, standalone_lines, with_functions

__all__ = ["JAX_FUNCTIONS", "JAX_SOURCES", "JaxFloat64", "Recorded", "jax_float64"]

jax = require("jax", "JAX", "jax")
jax.config.update("jax_enable_x64", True)
jnp = require("jax.numpy", "JAX", "jax")


class Recorded:
    """A JAX value and how it was computed: ``fn(*args)``, each arg a :class:`Recorded` or a
    plain number (a leaf has ``fn`` None)."""

    __slots__ = ("value", "fn", "args")

    def __init__(self, value: Any, fn: Callable[..., Any] | None = None, args: tuple[Any, ...] = ()) -> None:
        self.value, self.fn, self.args = value, fn, args

    def __repr__(self) -> str:
        return f"Recorded({float(self.value)!r})"


def _op(fn: Callable[..., Any]) -> Callable[..., Recorded]:
    """``fn`` (of JAX arrays and numbers) as an op of Recorded values: computed now, recorded."""

    def apply(*args: Any) -> Recorded:
        return Recorded(fn(*[a.value if isinstance(a, Recorded) else a for a in args]), fn, args)

    return apply


def _reflected(fn: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """``fn(b, a)``: a reflected operator (``c - v`` is ``__rsub__(v, c)``), JAX's own."""

    def swapped(a: Any, b: Any) -> Any:
        return fn(b, a)

    return swapped


def replay(output: Recorded, inputs: Sequence[Recorded], values: Sequence[Any]) -> Any:
    """``output`` computed again with each of ``inputs`` (leaves or interior values) taking the
    value at the same place in ``values`` (JAX tracers under :func:`jax.grad`); every other leaf
    is a constant.  Iterative: a recorded chain may be deep."""
    known: dict[int, Any] = {id(v): x for v, x in zip(inputs, values)}
    stack = [output]
    while stack:
        node = stack[-1]
        if id(node) in known:
            stack.pop()
            continue
        if node.fn is None:  # a leaf not differentiated: a constant
            known[id(node)] = node.value
            stack.pop()
            continue
        pending = [a for a in node.args if isinstance(a, Recorded) and id(a) not in known]
        if pending:
            stack.extend(pending)
            continue
        stack.pop()
        known[id(node)] = node.fn(*[known[id(a)] if isinstance(a, Recorded) else a for a in node.args])
    return known[id(output)]


class Gradient:
    """d(output)/d(inputs[index]) as a function of the inputs' values: what a gradient made with
    ``create_graph=True`` computes, so that it replays (and differentiates) like any op."""

    def __init__(self, output: Recorded, inputs: Sequence[Recorded], index: int) -> None:
        self.output, self.inputs, self.index = output, tuple(inputs), index

    def __call__(self, *values: Any) -> Any:
        return jax.grad(self._of, argnums=self.index)(*values)

    def _of(self, *values: Any) -> Any:
        return replay(self.output, self.inputs, values)


def gradients(output: Recorded, inputs: Sequence[Recorded]) -> tuple[Any, ...]:
    """d(output)/d(each of inputs), by one :func:`jax.grad` of the replayed computation."""
    if not inputs:
        return ()

    def of(*values: Any) -> Any:
        return replay(output, inputs, values)

    grads: tuple[Any, ...] = jax.grad(of, argnums=tuple(range(len(inputs))))(*[v.value for v in inputs])
    return grads


_BINARY = ("add", "sub", "mul", "truediv", "pow")  # Python's operators on JAX arrays, and reflected

#: JAX's elementwise functions of one or two arrays, by the name the scalar class gives them (the
#: catalogue's names where JAX's differ: ``asin`` is ``jnp.arcsin``; ``gelu`` is the exact one,
#: ``gelu_tanh`` jax.nn's default, the tanh approximation), as a person writes them: the audit
#: calls what this text names (:func:`~autograd.testing.adapters.common.function`) and
#: reproducers write the same text.
_OF_NUMPY = (
    "sqrt cbrt reciprocal square sin cos tan sinh cosh log1p expm1 log2 log10 exp2 sinc hypot "
    "logaddexp maximum minimum"
)
_OF_NN = "softplus silu mish elu selu celu leaky_relu relu6"
JAX_SOURCES: dict[str, str] = {
    **{name: f"jax.numpy.{name}" for name in _OF_NUMPY.split()},
    **{name: f"jax.numpy.arc{name[1:]}" for name in ["asin", "acos", "atan", "asinh", "acosh", "atanh"]},
    "atan2": "jax.numpy.arctan2",
    "rsqrt": "jax.lax.rsqrt",
    **{name: f"jax.scipy.special.{name}" for name in ["erf", "erfc", "digamma", "logit", "xlogy"]},
    "lgamma": "jax.scipy.special.gammaln",
    **{name: f"jax.nn.{name}" for name in _OF_NN.split()},
    "softsign": "jax.nn.soft_sign",
    "logsigmoid": "jax.nn.log_sigmoid",
    "gelu": "jax.nn.gelu(approximate=False)",
    "gelu_tanh": "jax.nn.gelu(approximate=True)",
    "hardtanh": "jax.nn.hard_tanh",
    "hardsigmoid": "jax.nn.hard_sigmoid",
    "hardswish": "jax.nn.hard_swish",
}
#: The table's functions (JAX arrays have no methods for them), for the adapter and reproducers.
_TABLE_SOURCES = {
    "exp": "jax.numpy.exp",
    "log": "jax.numpy.log",
    "tanh": "jax.numpy.tanh",
    "relu": "jax.nn.relu",
    "sigmoid": "jax.nn.sigmoid",
}
JAX_FUNCTIONS: dict[str, Callable[..., Any]] = with_functions(JAX_SOURCES)


class JaxFloat64:
    """JAX, each scalar a :class:`Recorded` 0-d ``float64`` array; gradients by :func:`jax.grad`.

    Gradients accumulate across ``backward`` calls (PyTorch's convention, which the stateful
    check reports as a fact); an interior value's gradient is d(output)/d(value) of the latest
    output a backward went through it (``read``).
    """

    name = "jax (0-d float64 arrays)"
    convention = "the output passed to backward (jax.grad of the recorded computation)"
    ops: ClassVar[dict[str, Callable[..., Any]]] = {
        **{f"__{n}__": _op(getattr(operator, n)) for n in ("add", "sub", "mul", "truediv", "pow")},
        **{
            f"__r{n}__": _op(_reflected(getattr(operator, n)))
            for n in ("add", "sub", "mul", "truediv", "pow")
        },
        "__neg__": _op(operator.neg),
        "__pos__": _op(operator.pos),
        "__abs__": _op(operator.abs),
        **{name: _op(fn) for name, fn in with_functions(_TABLE_SOURCES).items()},
        **{name: _op(fn) for name, fn in JAX_FUNCTIONS.items()},
    }

    def __init__(self) -> None:
        self.grads: dict[int, tuple[Recorded, Any]] = {}  # id(leaf) -> (leaf, gradient)

    def standalone(self, expr: str, leaves: Sequence[tuple[str, float]]) -> str:
        """A program importing only JAX that computes ``expr`` (the harness's method syntax) at
        ``leaves`` (name, number) in float64 as the adapter does, and prints its value and
        gradients (one :func:`jax.grad` over every leaf)."""
        binds, call = standalone_lines(expr, {**_TABLE_SOURCES, **JAX_SOURCES})
        names = ", ".join(n for n, _ in leaves)
        return "\n".join(
            [
                "import jax",
                'jax.config.update("jax_enable_x64", True)',
                "import jax.numpy",
                *(b for b in binds if b not in ("import jax", "import jax.numpy")),
                f"def f({names}):",
                f"    return {call}",
                f"args = [jax.numpy.asarray(x, dtype=jax.numpy.float64) for x in {[x for _, x in leaves]!r}]",
                "grads = jax.grad(f, argnums=tuple(range(len(args))))(*args)",
                "print('value', repr(float(f(*args))), 'gradient', [float(g) for g in grads])",
            ]
        )

    def make(self, x: Any) -> Recorded:
        return Recorded(jnp.asarray(x, dtype=jnp.float64))

    def data(self, v: Recorded) -> float:
        return float(v.value)

    def backward(self, output: Recorded, leaves: Sequence[Recorded], *, create_graph: bool = False) -> None:
        # every leaf the output was recorded from, as PyTorch's backward reaches every leaf: the
        # scalar class names a gradient's own leaf only (d out/d x0 depends on x1 too), and a
        # leaf left out would be a constant of the replay, its derivative silently 0
        leaves = _recorded_leaves(output, leaves)
        if create_graph:
            found: Sequence[Any] = [
                Recorded(g, Gradient(output, leaves, i), tuple(leaves))
                for i, g in enumerate(gradients(output, leaves))
            ]
        else:
            found = [float(g) for g in gradients(output, leaves)]
        for leaf, g in zip(leaves, found):
            self.grads[id(leaf)] = (leaf, _accumulated(self.grad(leaf), g))

    def grad(self, v: Recorded) -> Any:
        kept = self.grads.get(id(v))
        return kept[1] if kept is not None and kept[0] is v else 0.0

    def set_grad(self, v: Recorded, g: Any) -> None:
        self.grads[id(v)] = (v, g)

    def read(self, v: Recorded, output: Recorded) -> float:
        """d(output)/dv for an interior value ``v``: the output replayed with ``v`` as its input."""
        return float(gradients(output, [v])[0])

    def is_value(self, obj: Any) -> bool:
        return isinstance(obj, Recorded)


def _recorded_leaves(output: Recorded, leaves: Sequence[Recorded]) -> list[Recorded]:
    """``leaves``, then every other leaf ``output`` was recorded from, each once (iteratively)."""
    found = {id(leaf): leaf for leaf in leaves}
    seen, stack = set(), [output]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if node.fn is None:
            found.setdefault(id(node), node)
        stack.extend(a for a in node.args if isinstance(a, Recorded))
    return list(found.values())


def _accumulated(kept: Any, g: Any) -> Any:
    """``kept + g``: a gradient added to the one a leaf holds (recorded, if either is)."""
    if isinstance(kept, Recorded) or isinstance(g, Recorded):
        return _op(operator.add)(kept, g)
    return kept + g


#: The adapter of JAX float64 scalars (``--adapter autograd.testing.adapters.jax:jax_float64``).
jax_float64 = JaxFloat64()
