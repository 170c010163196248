"""A compiled engine's destructor played: freeing a graph deeper than ``DEPTH`` nodes kills the
interpreter with SIGSEGV, after a line on stderr, as a C++ engine whose node destructors recurse
down the graph does.  ``backward()`` frees the graph's closures, as PyTorch does without
``retain_graph``, so the graph is freed the moment its output is (no cycle waits for the collector).
The depth probe must report the death where it happens: freeing the graph, not in backward()."""

import os
import signal
import sys

from tests.engines import sound

DEPTH = 3000  # nodes on the longest path from the output (a chain step is two nodes)


class Value(sound.Value):
    def __init__(self, data, parents=()):
        super().__init__(data, parents)
        self.depth = 1 + max((p.depth for p in self._prev), default=0)

    def backward(self):
        super().backward()
        for node in self._topological_order():
            node._backward = None  # the graph is freed with its output

    def __del__(self):
        if self.depth > DEPTH:
            print(f"destructor recursion {self.depth} nodes deep", file=sys.stderr, flush=True)
            os.kill(os.getpid(), signal.SIGSEGV)
