"""The graph walks the fixture engines share, so that they differ only in how the gradient is
asked for: :func:`depth_first_order` (iterative: no recursion, so any depth) and the reverse sweep
of the fixtures whose nodes keep ``parents`` and local ``partials`` (``functional``'s module
function ``grad``, ``grad_on_read``'s ``x.grad(y)``, ``output_read``'s ``y.der(x)``,
``retained_interior``'s backward)."""


def depth_first_order(root, neighbours):
    """Every node reachable from ``root`` through ``neighbours(node)``, each after all the nodes
    it reaches (so ``reversed`` gives each before them)."""
    order, seen, stack = [], set(), [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
        elif id(node) not in seen:
            seen.add(id(node))
            stack.append((node, True))
            stack.extend((n, False) for n in neighbours(node))
    return order


def adjoints(output, order=None):
    """``{id(node): d(output)/d(node)}`` for every node ``output`` depends on, by reverse
    accumulation in topological order (``order``: :func:`depth_first_order` over the parents,
    when the caller has it already)."""
    if order is None:
        order = depth_first_order(output, lambda node: node.parents)
    adjoint = {id(output): 1}
    for node in reversed(order):
        for parent, partial in zip(node.parents, node.partials):
            adjoint[id(parent)] = adjoint.get(id(parent), 0) + partial * adjoint.get(id(node), 0)
    return adjoint
