"""What the harness needs to know about an engine, whatever form it is given in.

* :mod:`~autograd.testing.engines.engine`: :class:`Engine`, the one interface every harness
  path uses to reach an engine;
* :mod:`~autograd.testing.engines.numbers`: :func:`as_number` (a number kept as a 0-d array,
  read as the number) and the gradient written in the engine's own kind;
* :mod:`~autograd.testing.engines.discover`: :func:`resolve_engine` (a module's scalar class,
  found by behaviour: :mod:`~autograd.testing.engines.fit` tries each class);
* :mod:`~autograd.testing.engines.adapter`: the :class:`Adapter` protocol (an engine of any
  other API) and :func:`scalar_class` (an adapter as a scalar class);
* :mod:`~autograd.testing.engines.apis`: gradient APIs other than a backward method
  (:class:`GradientOnRead`), and a backward whose number or gradient is behind a method
  (:class:`Accessors`); :mod:`~autograd.testing.engines.forms` makes their Engines.
"""

from autograd.testing.engines.adapter import Adapter, scalar_class
from autograd.testing.engines.apis import READ_CONVENTIONS, Accessors, GradientOnRead
from autograd.testing.engines.discover import resolve_engine
from autograd.testing.engines.engine import Engine, EngineNotFound
from autograd.testing.engines.fit import BACKWARD_NAMES, DATA_NAMES, GRAD_NAMES, PROBE_NUMBER
from autograd.testing.engines.numbers import as_number

__all__ = [
    "BACKWARD_NAMES",
    "DATA_NAMES",
    "GRAD_NAMES",
    "PROBE_NUMBER",
    "READ_CONVENTIONS",
    "Accessors",
    "Adapter",
    "Engine",
    "EngineNotFound",
    "GradientOnRead",
    "as_number",
    "resolve_engine",
    "scalar_class",
]
