"""Parents kept in a set, as micrograd does, with a hash that depends on PYTHONHASHSEED.

The topological order, and so the order in which a node's gradient shares are
added up, follows the set's iteration order.  Float sums depend on that order, so
the same graph gives different gradients under different hash seeds, and only
then (micrograd's Values hash by address, which varies from one build to the next).
"""

from tests.engines import sound


class Value(sound.Value):
    def __init__(self, data, parents=()):
        super().__init__(data, parents)
        self._prev = set(self._prev)

    def __hash__(self):
        # a str's hash changes with PYTHONHASHSEED, and only with it: the same graph built
        # twice in one process is summed in the same order, under another seed in another
        return hash(repr(self.data))
