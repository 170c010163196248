"""The reverse sweep of the fixtures whose nodes keep ``parents`` and local ``partials``
(``functional``'s module function ``grad`` and ``grad_on_read``'s ``x.grad(y)``): one
place, so that the two engines differ only in how the gradient is asked for."""


def adjoints(output):
    """``{id(node): d(output)/d(node)}`` for every node ``output`` depends on (iterative: no
    recursion, so any depth), by reverse accumulation in topological order."""
    order, seen, stack = [], set(), [(output, False)]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
        elif id(node) not in seen:
            seen.add(id(node))
            stack.append((node, True))
            stack.extend((p, False) for p in node.parents)
    adjoint = {id(output): 1}
    for node in reversed(order):
        for parent, partial in zip(node.parents, node.partials):
            adjoint[id(parent)] = adjoint.get(id(parent), 0) + partial * adjoint.get(id(node), 0)
    return adjoint
