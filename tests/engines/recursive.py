"""micrograd's recursive topological sort: a chain deeper than ~500 steps raises RecursionError."""

from tests.engines import sound


class Value(sound.Value):
    def _topological_order(self):
        order, seen = [], set()

        def visit(node):
            if node not in seen:
                seen.add(node)
                for parent in node._prev:
                    visit(parent)
                order.append(node)

        visit(self)
        return order
