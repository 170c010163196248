"""Our engine, except that ``backward(create_graph=True)`` never forgets a leaf's gradient.

Each create_graph pass remembers the gradient it gave every leaf and adds the one the previous
create_graph pass gave it, in a store of its own that ``leaf.grad = 0`` does not reach; a plain
``backward()`` clears the store.  So a derivative taken inside a function being differentiated
leaks into the outer derivative (perturbation confusion), while first derivatives and the
Hessians of ``create_graph`` then ``backward()`` stay right.
"""

from pathlib import Path

import autograd.engine

# a copy of the engine's source in this module (so reproducers import it from here)
exec(compile(Path(autograd.engine.__file__).read_text(encoding="utf-8"), autograd.engine.__file__, "exec"))

_STORE = {}  # id(leaf) -> (leaf, the gradient the latest create_graph pass gave it)
_correct_backward = Value.backward  # noqa: F821  (defined by the exec above)


def _leaves(root):
    seen, stack, leaves = set(), [root], []
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if node._prev:
            stack.extend(node._prev)
        else:
            leaves.append(node)
    return leaves


def _backward(self, create_graph=False):
    if not create_graph:
        _STORE.clear()
        return _correct_backward(self)
    leaves = _leaves(self)
    before = [leaf.grad for leaf in leaves]
    _correct_backward(self, create_graph=True)
    for leaf, earlier in zip(leaves, before):
        share = leaf.grad - earlier  # this pass's own gradient
        kept = _STORE.get(id(leaf))
        if kept is not None:
            leaf.grad = leaf.grad + kept[1]
        _STORE[id(leaf)] = (leaf, share)
    return None


Value.backward = _backward  # noqa: F821
