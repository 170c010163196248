"""backward() of a graph deeper than ``DEPTH`` nodes raises a ValueError whose message names an
object by its address and runs on for 400 characters, as some engines' errors do: the depth probe
must show it without the address (it differs between runs) and cut to one short line."""

import os

from tests.engines import sound

# nodes in the topological order (a chain step is two nodes); a test's child may be given fewer
DEPTH = int(os.environ.get("DEEP_RAISES_DEPTH", "3000"))


class Value(sound.Value):
    def _topological_order(self):
        order = super()._topological_order()
        if len(order) > DEPTH:
            raise ValueError(f"graph too deep at {object()!r}: {len(order)} nodes " + "x" * 400)
        return order
