"""An adapter without the optional ``set_grad`` (over ``sound.Value``): the harness cannot write a
gradient, so the stateful check must leave zero_grad out rather than crash."""

from tests.engines import sound


class Adapter:
    name = "tests.engines.no_set_grad"

    def make(self, x):
        return sound.Value(x)

    def data(self, v):
        return v.data

    def backward(self, output, leaves, create_graph=False):
        if create_graph:
            raise TypeError("no create_graph")
        output.backward()

    def grad(self, leaf):
        return leaf.grad


adapter = Adapter()
