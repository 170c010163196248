"""PyTorch's default (``retain_graph=False``): a backward() pass frees the graph it went through,
and a later pass over any node of it raises.  A convention, not a defect: the stateful check must
never make such a pass, and still judge the passes a program may make."""

from tests.engines import sound


def _freed():
    raise RuntimeError("backward through a graph that a previous backward() freed")


class Value(sound.Value):
    freed = staticmethod(_freed)  # what a node of a freed graph does in a later pass

    def backward(self):
        order = self._topological_order()
        super().backward()
        for node in order:
            if node._prev:
                node._backward = self.freed
