"""Parents kept in a set, as micrograd does, with a hash that depends on PYTHONHASHSEED.

The topological order, and so the order in which a node's gradient shares are
added up, follows the set's iteration order.  Float sums depend on that order, so
the same graph gives different gradients under different hash seeds (micrograd's
Values hash by address, which varies too, but not as reproducibly).
"""

import itertools

from engines import sound

_labels = itertools.count()


class Value(sound.Value):
    def __init__(self, data, parents=()):
        super().__init__(data, parents)
        self._prev = set(self._prev)
        self._label = f"v{next(_labels)}"

    def __hash__(self):
        return hash(self._label)  # a str's hash changes with PYTHONHASHSEED
