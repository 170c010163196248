"""The working precisions an engine may compute in, and their rounding units.

An engine's ``Engine.precision`` is ``"float64"`` or ``"float32"``; the oracles judge it with that
precision's rounding: ``eps`` (the relative rounding unit) and ``TINY`` (the smallest subnormal,
what one op can lose to underflow, absolutely).
"""

from __future__ import annotations

import math
import struct
import sys
from typing import Any

__all__ = [
    "EPS",
    "PRECISIONS",
    "PRECISION_RANGES",
    "TINY",
    "in_precision_range",
    "to_precision",
    "working_precision",
]

EPS = 2.0**-52
TINY = 2.0**-1074  # the smallest subnormal: what one op can lose to underflow, absolutely
#: (eps, TINY) of each working precision an engine may compute in (``Engine.precision``).
PRECISIONS = {"float64": (EPS, TINY), "float32": (2.0**-23, 2.0**-149)}


#: (smallest normal, largest finite) of each working precision: outside, a number is a range limit.
PRECISION_RANGES = {
    "float64": (2.0**-1022, sys.float_info.max),
    "float32": (2.0**-126, 3.4028234663852886e38),
}


def to_precision(x: float, precision: str) -> float:
    """``x`` as an engine of ``precision`` holds it (rounded to nearest; beyond the range: infinite)."""
    if precision == "float64" or not math.isfinite(x):
        return x
    try:
        return float(struct.unpack("f", struct.pack("f", x))[0])
    except OverflowError:
        return math.copysign(math.inf, x)


def in_precision_range(precision: str, *xs: Any) -> bool:
    """Whether every number is 0 or a normal number of ``precision`` (no overflow, no underflow)."""
    low, high = PRECISION_RANGES[precision]
    return all(x == 0 or low <= abs(float(x)) <= high for x in xs)


def working_precision(precision: str = "float64") -> tuple[float, float]:
    """(eps, TINY) of ``precision`` (an engine's :attr:`~autograd.testing.engines.Engine.precision`):
    a float32 engine is judged with float32's rounding, a float64 one with float64's.  In float32
    a leaf is rounded too (``Value(0.1)`` holds 0.10000000149011612), so
    :func:`symbolic_tolerances` then also moves each leaf by its rounding."""
    return PRECISIONS[precision]
