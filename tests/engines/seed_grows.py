"""A second backward() on one output sends back seven times the gradient: a backward()
convention no model knows (not a defect the stateful check may claim, nor one it can model)."""

from tests.engines import sound


class Value(sound.Value):
    def backward(self):
        super().backward()
        if getattr(self, "_done", False):
            self.grad = 7
            for node in reversed(self._topological_order()):
                node._backward()
        self._done = True
