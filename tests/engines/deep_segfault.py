"""A compiled engine's stack overflow, played: backward() of a graph deeper than ``DEPTH`` nodes
kills the interpreter with SIGSEGV, as nanograd-bgriebel and simplegrad (pybind11) do near
50,000 steps.  The audit must survive it and report a ``crash``."""

import os
import signal

from tests.engines import sound

DEPTH = 3000  # nodes in the topological order (a chain step is two nodes)


class Value(sound.Value):
    def _topological_order(self):
        order = super()._topological_order()
        if len(order) > DEPTH:
            os.kill(os.getpid(), signal.SIGSEGV)
        return order
