"""backward() of a graph deeper than ``DEPTH`` nodes takes longer than the depth probe waits (as a
framework's adapter that replays the graph can): slow is not a crash, so the probe must say how
deep the chains that finished went and leave the longer ones inconclusive."""

import time

from tests.engines import sound

DEPTH = 3000  # nodes in the topological order (a chain step is two nodes)


class Value(sound.Value):
    def _topological_order(self):
        order = super()._topological_order()
        if len(order) > DEPTH:
            time.sleep(3600)  # the probe's child is ended long before
        return order
