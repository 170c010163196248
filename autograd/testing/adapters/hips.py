"""The HIPS autograd adapter: :data:`hips_float64` audits HIPS autograd through NumPy ``float64``.

``HIPS_AUTOGRAD=DIR python -m autograd.testing audit --adapter autograd.testing.adapters.hips:hips_float64``.
HIPS autograd's import name is ``autograd``, this package's own, so it cannot be installed
beside it: install it apart (``pip install --no-deps --target DIR autograd==1.9.1``; it needs
NumPy, and SciPy for ``autograd.scipy.special``) and name that directory in the environment
variable ``HIPS_AUTOGRAD``.  Importing this module loads HIPS autograd from there under the name
``hips_autograd`` and gives ``autograd`` back to this package (HIPS autograd imports nothing of
its own later).

HIPS autograd is functional, as JAX is: it differentiates a function (``autograd.grad``), so each
scalar records how it was computed (:mod:`autograd.testing.adapters.recorded`) and a backward
replays the computation under ``grad``; gradients made with ``create_graph=True`` differentiate
again.  The ops are HIPS autograd's: Python's operators on NumPy floats, ``autograd.numpy``'s
functions and ``autograd.scipy.special``'s (:data:`HIPS_SOURCES`), which the audit identifies by
their values against the catalogue of known functions and judges there.  Reproducers import
``autograd`` as a user of HIPS autograd does: they run in ``HIPS_AUTOGRAD``
(:attr:`HipsFloat64.standalone_directory`).
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, ClassVar

from autograd.testing.adapters.common import derivatives_lines, function, standalone_lines
from autograd.testing.adapters.recorded import Derivatives, Recorded, RecordedAdapter, operators, recorded_op

__all__ = ["HIPS_FUNCTIONS", "HIPS_SOURCES", "HipsFloat64", "hips_float64", "load_hips"]

#: The environment variable naming the directory HIPS autograd is installed in.
ENVIRONMENT = "HIPS_AUTOGRAD"
_NAME = "hips_autograd"  # the name HIPS autograd's modules get in this process


def _ours(name: str) -> bool:
    return name == "autograd" or name.startswith("autograd.")


def load_hips(directory: str | Path) -> Any:
    """HIPS autograd, imported from ``directory`` with its ``numpy``, ``scipy.special`` and
    ``extend``, its modules renamed ``hips_autograd.*``; this package's ``autograd`` modules are
    put back as they were, whatever happens."""
    directory = str(Path(directory).resolve())
    if not (Path(directory) / "autograd" / "__init__.py").is_file():
        raise ModuleNotFoundError(
            f"the HIPS autograd adapter needs HIPS autograd in {directory} (from {ENVIRONMENT}), "
            "which has no autograd package: pip install --no-deps --target DIR autograd==1.9.1"
        )
    ours = {name: sys.modules.pop(name) for name in [n for n in sys.modules if _ours(n)]}
    sys.path.insert(0, directory)
    try:
        hips = importlib.import_module("autograd")
        for module in ("autograd.numpy", "autograd.scipy.special", "autograd.extend"):
            importlib.import_module(module)
    finally:
        sys.path.remove(directory)
        theirs = {name: sys.modules.pop(name) for name in [n for n in sys.modules if _ours(n)]}
        sys.modules.update(ours)
    sys.modules.update({_NAME + name.removeprefix("autograd"): module for name, module in theirs.items()})
    return hips


def _directory() -> str:
    found = os.environ.get(ENVIRONMENT)
    if not found:
        raise ModuleNotFoundError(
            f"the HIPS autograd adapter needs HIPS autograd installed apart (its import name is "
            f"autograd, this package's own): pip install --no-deps --target DIR autograd==1.9.1, "
            f"then {ENVIRONMENT}=DIR"
        )
    return found


hips_autograd = load_hips(_directory())

#: HIPS autograd's elementwise functions of one or two numbers that have a derivative rule, by the
#: name the scalar class gives them (the catalogue's names: ``asin`` is ``autograd.numpy.arcsin``,
#: ``lgamma`` is ``autograd.scipy.special.gammaln``), as a user of HIPS autograd writes them: the
#: audit calls what this text names and reproducers write the same text.
_OF_NUMPY = (
    "sqrt reciprocal square sin cos tan sinh cosh log1p expm1 log2 log10 exp2 sinc hypot logaddexp "
    "maximum minimum"
)
HIPS_SOURCES: dict[str, str] = {
    **{name: f"autograd.numpy.{name}" for name in _OF_NUMPY.split()},
    **{name: f"autograd.numpy.arc{name[1:]}" for name in ["asin", "acos", "atan", "asinh", "acosh", "atanh"]},
    "atan2": "autograd.numpy.arctan2",
    **{name: f"autograd.scipy.special.{name}" for name in ["erf", "erfc", "digamma", "logit", "gamma"]},
    "lgamma": "autograd.scipy.special.gammaln",
}
#: The table's functions (NumPy floats have no methods for them), for the adapter and reproducers.
_TABLE_SOURCES = {
    "exp": "autograd.numpy.exp",
    "log": "autograd.numpy.log",
    "tanh": "autograd.numpy.tanh",
    "sigmoid": "autograd.scipy.special.expit",
}


def _here(source: str) -> str:
    """``source`` (``autograd.numpy.sinh``) as this process names it (``hips_autograd.numpy.sinh``)."""
    return _NAME + source.removeprefix("autograd")


def _resolved(sources: dict[str, str]) -> dict[str, Callable[..., Any]]:
    """Each source resolved in this process, where HIPS autograd is ``hips_autograd``."""
    return {name: function(_here(source)) for name, source in sources.items()}


HIPS_FUNCTIONS: dict[str, Callable[..., Any]] = _resolved(HIPS_SOURCES)
_np = sys.modules[f"{_NAME}.numpy"]


class HipsFloat64(RecordedAdapter):
    """HIPS autograd, each scalar a :class:`~autograd.testing.adapters.recorded.Recorded` NumPy
    ``float64``; gradients by ``autograd.grad`` of the replayed computation (accumulated across
    backward calls, as :class:`~autograd.testing.adapters.recorded.RecordedAdapter` says)."""

    name = "HIPS autograd (NumPy float64)"
    convention = "the output passed to backward (autograd.grad of the recorded computation)"
    ops: ClassVar[dict[str, Callable[..., Any]]] = {
        **operators(),
        **{name: recorded_op(fn) for name, fn in _resolved(_TABLE_SOURCES).items()},
        **{name: recorded_op(fn) for name, fn in HIPS_FUNCTIONS.items()},
    }

    @property
    def standalone_directory(self) -> str:
        """Where a reproducer runs (``python -c`` puts it first on the path): HIPS autograd's."""
        return _directory()

    def differentiate(self, f: Callable[..., Any], argnums: tuple[int, ...]) -> Derivatives:
        derivatives: Derivatives = hips_autograd.grad(f, argnums)
        return derivatives

    def standalone(self, expr: str, leaves: Sequence[tuple[str, float]], order: int = 1) -> str:
        """A program importing only HIPS autograd (as ``autograd``, its own name) that computes
        ``expr`` (the harness's method syntax) at ``leaves`` (name, number) in NumPy float64 as the
        adapter does, and prints its value and gradients (one ``autograd.grad`` over every leaf)."""
        # resolved here, where HIPS autograd is hips_autograd (autograd is this package), then
        # written under its own name
        sources = {name: _here(source) for name, source in {**_TABLE_SOURCES, **HIPS_SOURCES}.items()}
        binds, call = standalone_lines(expr, sources)
        binds = [b.replace(_NAME, "autograd") for b in binds]
        names = ", ".join(n for n, _ in leaves)
        head = ["import autograd", "import autograd.numpy"]
        return "\n".join(
            [
                *head,
                *(b for b in binds if b not in head),
                f"def f({names}):",
                f"    return {call}",
                f"args = [autograd.numpy.float64(x) for x in {[x for _, x in leaves]!r}]",
                *derivatives_lines("autograd.grad(f, tuple(range(len(args))))", "autograd.grad", order),
            ]
        )

    def make(self, x: Any) -> Recorded:
        return Recorded(_np.float64(x))


#: The adapter of HIPS autograd float64 scalars (``--adapter autograd.testing.adapters.hips:hips_float64``).
hips_float64 = HipsFloat64()
