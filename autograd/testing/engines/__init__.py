"""What the harness needs to know about an engine, whatever form it is given in.

* :mod:`~autograd.testing.engines.adapter`: :class:`Engine` (the one interface every harness
  path uses), the :class:`Adapter` protocol, :func:`scalar_class` (an adapter as a class) and
  :func:`as_number` (a number kept as a 0-d array, read as the number);
* :mod:`~autograd.testing.engines.discover`: :func:`resolve_engine` (a module's scalar class,
  found by behaviour);
* :mod:`~autograd.testing.engines.apis`: gradient APIs other than a backward method
  (:class:`GradientOnRead`), and a backward whose number or gradient is behind a method
  (:class:`Accessors`).
"""

from autograd.testing.engines.adapter import (
    WORKING_PRECISION,
    Adapter,
    Engine,
    EngineNotFound,
    as_number,
    engine_call,
    scalar_class,
)
from autograd.testing.engines.apis import READ_CONVENTIONS, Accessors, GradientOnRead
from autograd.testing.engines.discover import (
    BACKWARD_NAMES,
    DATA_NAMES,
    GRAD_NAMES,
    PROBE_NUMBER,
    resolve_engine,
)

__all__ = [
    "BACKWARD_NAMES",
    "DATA_NAMES",
    "GRAD_NAMES",
    "PROBE_NUMBER",
    "READ_CONVENTIONS",
    "WORKING_PRECISION",
    "Accessors",
    "Adapter",
    "Engine",
    "EngineNotFound",
    "GradientOnRead",
    "as_number",
    "engine_call",
    "resolve_engine",
    "scalar_class",
]
