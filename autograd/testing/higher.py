""":mod:`autograd.testing.oracles.higher` under the name audit.py imports it by."""

from autograd.testing.oracles.higher import *  # noqa: F403
from autograd.testing.oracles.higher import __all__  # noqa: F401
