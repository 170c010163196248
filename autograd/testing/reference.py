""":mod:`autograd.testing.oracles.reference` under the name checks.py imports it by."""

from autograd.testing.oracles.reference import *  # noqa: F403
from autograd.testing.oracles.reference import __all__  # noqa: F401
