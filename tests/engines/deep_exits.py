"""An engine that ends the interpreter without a signal: backward() of a graph deeper than ``DEPTH``
nodes calls ``os._exit(3)``, as a C library's ``exit()`` on an internal error does.  No program can
catch it: the depth probe must report a ``crash`` with the exit status, like a signal's death (only
a child that dies before its first chain, e.g. on importing the engine, is not the chain's doing)."""

import os

from tests.engines import sound

DEPTH = 3000  # nodes in the topological order (a chain step is two nodes)


class Value(sound.Value):
    def _topological_order(self):
        order = super()._topological_order()
        if len(order) > DEPTH:
            os._exit(3)
        return order
