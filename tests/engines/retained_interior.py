"""An engine with PyTorch's convention for retained interior gradients (``retain_grad``):
every backward() propagates fresh adjoints and adds them to what each node shows, so an
interior gradient accumulates across passes but a stale one never flows on into the leaves
(unlike micrograd's).  A convention, not a defect: the stateful check must model it."""


class Value:
    def __init__(self, data, _parents=(), _partials=()):
        self.data, self.grad = data, 0
        self._parents, self._partials = _parents, _partials

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
        order, seen, stack = [], set(), [(self, False)]
        while stack:
            node, done = stack.pop()
            if done:
                order.append(node)
            elif id(node) not in seen:
                seen.add(id(node))
                stack.append((node, True))
                stack.extend((p, False) for p in node._parents)
        adjoint = {id(self): 1}
        for node in reversed(order):
            for parent, partial in zip(node._parents, node._partials):
                adjoint[id(parent)] = adjoint.get(id(parent), 0) + partial * adjoint.get(id(node), 0)
        for node in order:
            node.grad += adjoint.get(id(node), 0)
