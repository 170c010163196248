"""The oracles: what an engine's values and derivatives are compared with, never using its rules.

* :mod:`~autograd.testing.oracles.reference`: ``certify``, the one certified reference (exact
  Fractions, or mpmath intervals settled to one float) every oracle, probe and check calls.
* :mod:`~autograd.testing.oracles.precision`: the working precisions (eps, TINY) an engine may
  compute in.
* :mod:`~autograd.testing.oracles.mismatch`: the per-leaf report, ``GradientMismatch``,
  ``OracleInconclusive`` and the one message a mismatch carries.
* :mod:`~autograd.testing.oracles.derivatives`: the engine's side: its gradient and its higher
  derivatives, read through the Engine adapter.
* :mod:`~autograd.testing.oracles.exact`: ``assert_grads_exact`` (rational graphs, zero tolerance).
* :mod:`~autograd.testing.oracles.sweep`: the float reference sweep the derived bounds are built on.
* :mod:`~autograd.testing.oracles.symbolic`: ``assert_grads_symbolic`` and its derived tolerance
  (``symbolic_tolerances``, ``kink_check``).
* :mod:`~autograd.testing.oracles.fd`: finite differences: ``assert_grads_fd``, ``fd_vote`` (the
  second vote), ``gradcheck``.
* :mod:`~autograd.testing.oracles.higher` (with
  :mod:`~autograd.testing.oracles.hessian_bound`): second and third derivatives.
"""

from autograd.testing.oracles.exact import assert_grads_exact
from autograd.testing.oracles.fd import FD_ATOL, FD_RTOL, assert_grads_fd, fd_vote, gradcheck
from autograd.testing.oracles.mismatch import (
    GradcheckReport,
    GradientMismatch,
    LeafComparison,
    OracleInconclusive,
)
from autograd.testing.oracles.precision import (
    EPS,
    PRECISIONS,
    TINY,
    in_precision_range,
    to_precision,
    working_precision,
)
from autograd.testing.oracles.symbolic import (
    SYMBOLIC_SAFETY,
    assert_grads_symbolic,
    kink_check,
    symbolic_tolerances,
)

__all__ = [
    "EPS",
    "FD_ATOL",
    "FD_RTOL",
    "PRECISIONS",
    "SYMBOLIC_SAFETY",
    "TINY",
    "GradcheckReport",
    "GradientMismatch",
    "LeafComparison",
    "OracleInconclusive",
    "assert_grads_exact",
    "assert_grads_fd",
    "assert_grads_symbolic",
    "fd_vote",
    "gradcheck",
    "in_precision_range",
    "kink_check",
    "symbolic_tolerances",
    "to_precision",
    "working_precision",
]
