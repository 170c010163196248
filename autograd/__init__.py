"""autograd: a scalar reverse-mode autograd engine with a small neural-network layer.

The engine (:mod:`autograd.engine`) has no dependencies.  The verification
helpers live in :mod:`autograd.testing` and need the ``testing`` extra.
"""

from autograd.compiler import Compiled, TraceError, compile
from autograd.engine import Value, dot, grad, hessian, hvp, vsum

__all__ = ["Compiled", "TraceError", "Value", "compile", "dot", "grad", "hessian", "hvp", "vsum"]
__version__ = "0.1.0"
