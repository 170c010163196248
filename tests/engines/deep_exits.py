"""An engine that ends the interpreter without a signal: backward() of a graph deeper than ``DEPTH``
nodes calls ``os._exit(3)``, as a C library's ``exit()`` on an internal error does.  No program can
catch it: the depth probe must report a ``crash`` with the exit status, like a signal's death (only
a child that dies before its first chain, e.g. on importing the engine, is not the chain's doing)."""

import os

from tests.engines import sound

# nodes in the topological order (a chain of n steps has 2 n + 3); a test's child may be given another
DEPTH = int(os.environ.get("DEEP_EXITS_DEPTH", "3000"))


class Value(sound.Value):
    def _topological_order(self):
        order = super()._topological_order()
        if len(order) > DEPTH:
            os._exit(3)
        return order
