"""A float-only engine whose tanh rule is off by a factor WRONG: finite differences must confirm
a 1e-4 slip; a 1e-12 slip (below what finite differences resolve, about 1e-10) must stay inconclusive."""

import os

from tests.engines.audit_minimal import scalar_class

WRONG = float(os.environ.get("WRONG_TANH", "1.0001"))
Value = scalar_class("Value", numbers="float", wrong=("tanh", WRONG))
Value.__module__ = __name__
