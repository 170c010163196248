"""Adapters for engines whose API is not a scalar class with a backward method.

An adapter is any object with ``make``, ``data``, ``backward`` and ``grad`` (the
protocol :class:`~autograd.testing.engines.Adapter`).  The frameworks people train with,
each seen through 0-d ``float64`` scalars, one module a framework:

* :mod:`~autograd.testing.adapters.pytorch`: ``--adapter autograd.testing.adapters:torch_float64``
  (torch is imported when the adapter is first used);
* :mod:`~autograd.testing.adapters.jax`: ``--adapter autograd.testing.adapters.jax:jax_float64``
  (importing the module imports JAX and enables its float64);
* :mod:`~autograd.testing.adapters.mygrad`: ``--adapter autograd.testing.adapters.mygrad:mygrad_float64``;
* :mod:`~autograd.testing.adapters.tinygrad`:
  ``--adapter autograd.testing.adapters.tinygrad:tinygrad_float64`` (on tinygrad's PYTHON device,
  which needs no compiler);
* :mod:`~autograd.testing.adapters.hips`: ``--adapter autograd.testing.adapters.hips:hips_float64``
  (HIPS autograd, installed apart: its import name is this package's; ``HIPS_AUTOGRAD`` names where).

JAX and HIPS autograd are functional; their adapters share :mod:`~autograd.testing.adapters.recorded`.
No framework is a dependency of this package: each has an optional extra
(``pip install 'verified-autograd[jax]'``), and an adapter whose framework is missing says which.
"""

from autograd.testing.adapters.pytorch import TorchFloat64, torch_float64

__all__ = ["TorchFloat64", "torch_float64"]
