"""The operations the harness knows, one row each with named fields.

* :mod:`~autograd.testing.ops.row`: the row type :class:`OpSpec` (what each field means), how
  an op is applied (:class:`Call`), a variadic op's operand counts (:class:`Variadic`), and the
  domain vocabulary (``REALS``, ``POSITIVE``, ``PARTNER``, the margins);
* :mod:`~autograd.testing.ops.table`: ``OPS``, the table of the ops every engine is checked on;
* :mod:`~autograd.testing.ops.catalogue`: ``CATALOGUE``, known functions an engine's extra
  methods are identified as, rows of the same type.
"""

from autograd.testing.ops.catalogue import (
    CATALOGUE,
    EXACT_FUNCTIONS,
    FIT,
    INTERVAL_FUNCTIONS,
    catalogue_names,
    known,
)
from autograd.testing.ops.row import (
    AWAY_FROM_ZERO,
    BOUND,
    FLOAT_MODULES,
    KINK_MARGIN,
    MP_MODULES,
    PARTNER,
    POSITIVE,
    REALS,
    Call,
    OpSpec,
    Relu,
    Step,
    Variadic,
    const_source,
    sym_const,
)
from autograd.testing.ops.table import OPS, by_op_name, display, rational_binary, rational_unary, registered

__all__ = [
    "AWAY_FROM_ZERO",
    "BOUND",
    "CATALOGUE",
    "EXACT_FUNCTIONS",
    "FIT",
    "FLOAT_MODULES",
    "INTERVAL_FUNCTIONS",
    "KINK_MARGIN",
    "MP_MODULES",
    "OPS",
    "PARTNER",
    "POSITIVE",
    "REALS",
    "Call",
    "OpSpec",
    "Relu",
    "Step",
    "Variadic",
    "by_op_name",
    "catalogue_names",
    "const_source",
    "display",
    "known",
    "rational_binary",
    "rational_unary",
    "registered",
    "sym_const",
]
