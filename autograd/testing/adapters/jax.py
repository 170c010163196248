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

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from autograd.testing.adapters.common import derivatives_lines, require, standalone_lines, with_functions
from autograd.testing.adapters.recorded import Derivatives, Recorded, RecordedAdapter, operators, recorded_op

__all__ = ["JAX_FUNCTIONS", "JAX_SOURCES", "JaxFloat64", "Recorded", "jax_float64"]

jax = require("jax", "JAX", "jax")
jax.config.update("jax_enable_x64", True)
jnp = require("jax.numpy", "JAX", "jax")


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


class JaxFloat64(RecordedAdapter):
    """JAX, each scalar a :class:`~autograd.testing.adapters.recorded.Recorded` 0-d ``float64``
    array; gradients by :func:`jax.grad` of the replayed computation.

    Gradients accumulate across ``backward`` calls (PyTorch's convention, which the stateful
    check reports as a fact); an interior value's gradient is d(output)/d(value) of the latest
    output a backward went through it (``read``).
    """

    name = "jax (0-d float64 arrays)"
    convention = "the output passed to backward (jax.grad of the recorded computation)"
    ops: ClassVar[dict[str, Callable[..., Any]]] = {
        **operators(),
        **{name: recorded_op(fn) for name, fn in with_functions(_TABLE_SOURCES).items()},
        **{name: recorded_op(fn) for name, fn in JAX_FUNCTIONS.items()},
    }

    def differentiate(self, f: Callable[..., Any], argnums: tuple[int, ...]) -> Derivatives:
        derivatives: Derivatives = jax.grad(f, argnums=argnums)
        return derivatives

    def standalone(self, expr: str, leaves: Sequence[tuple[str, float]], order: int = 1) -> str:
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
                *derivatives_lines("jax.grad(f, argnums=tuple(range(len(args))))", "jax.grad", order),
            ]
        )

    def make(self, x: Any) -> Recorded:
        return Recorded(jnp.asarray(x, dtype=jnp.float64))


#: The adapter of JAX float64 scalars (``--adapter autograd.testing.adapters.jax:jax_float64``).
jax_float64 = JaxFloat64()
