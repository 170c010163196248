"""A copy of our engine that flushes subnormal numbers to zero, as XLA does on the CPU, and keeps
its second order: every number a Value holds, given or computed, below the smallest normal float
becomes 0.  The edge probes must report it as one engine-wide fact, at second order too."""

import math

from tests.wrong_engines import engine_copy

_engine = engine_copy("tests.engines.flushes_subnormals_higher")
SMALLEST_NORMAL = 2.2250738585072014e-308


def flush(x):
    return 0.0 * x if isinstance(x, float) and math.isfinite(x) and abs(x) < SMALLEST_NORMAL else x


_node, _init = _engine._node, _engine.Value.__init__


def _flushing_node(data, a, b, back):
    return _node(flush(data), a, b, back)


def _flushing_init(self, data, *args, **kwargs):
    _init(self, flush(data), *args, **kwargs)


_engine._node = _flushing_node
_engine.Value.__init__ = _flushing_init

Value = _engine.Value
vsum = _engine.vsum
dot = _engine.dot
Value.__module__ = __name__
