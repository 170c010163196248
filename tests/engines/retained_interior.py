"""An engine with PyTorch's convention for retained interior gradients (``retain_grad``):
every backward() propagates fresh adjoints and adds them to what each node shows, so an
interior gradient accumulates across passes but a stale one never flows on into the leaves
(unlike micrograd's).  A convention, not a defect: the stateful check must model it."""

from tests.engines.reverse_sweep import adjoints, depth_first_order


class Value:
    def __init__(self, data, parents=(), partials=()):
        self.data, self.grad = data, 0
        self.parents, self.partials = parents, partials

    @staticmethod
    def _wrap(x):
        return x if isinstance(x, Value) else Value(x)

    def __add__(self, other):
        other = self._wrap(other)
        return Value(self.data + other.data, (self, other), (1, 1))

    def __mul__(self, other):
        other = self._wrap(other)
        return Value(self.data * other.data, (self, other), (other.data, self.data))

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        return self + (-self._wrap(other))

    __radd__ = __add__
    __rmul__ = __mul__

    def backward(self):
        order = depth_first_order(self, lambda node: node.parents)
        adjoint = adjoints(self, order)  # this pass's adjoints, fresh
        for node in order:
            node.grad += adjoint.get(id(node), 0)
