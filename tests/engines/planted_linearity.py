"""Planted for ``linearity``: the tape of ``planted_build_order``.  ``Value(a) * f + Value(b) * g``
makes the coefficients a and b after f's and g's nodes, so backward() skips f's and g's nodes."""

from tests.engines.planted_build_order import Value

__all__ = ["Value"]
