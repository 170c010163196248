"""backward() of a graph deeper than ``SLOW`` nodes takes longer than the depth probe waits, and of
one deeper than ``RAISES`` nodes raises: the probe's bisection meets a chain that times out between
one that survives and one that raises, and must keep the raise as the finding."""

import time

from tests.engines import sound

SLOW, RAISES = 3000, 6000  # nodes in the topological order (a chain step is two nodes)


class Value(sound.Value):
    def _topological_order(self):
        order = super()._topological_order()
        if len(order) > RAISES:
            raise RecursionError(f"{len(order)} nodes: too deep")
        if len(order) > SLOW:
            time.sleep(3600)  # the probe's child is ended long before
        return order
