"""Planted for ``mlp``: on floats, the third and later uses of a leaf get no gradient.

A network's weights are used once per sample (three samples: three uses); the exact
properties (chain_sweep's w is used 60 times) run on Fractions, which are right.  The
small float graphs of the per-op searches may use a leaf three times too: this defect is
not the MLP's alone, but the MLP check must report it.
"""

from tests.engines import sound

USES = 2


class Value(sound.Value):
    def _with_partials(self, data, parents, partials):
        kept = []
        for parent, partial in zip(parents, partials):
            parent._uses = getattr(parent, "_uses", 0) + 1
            dropped = isinstance(parent.data, float) and not parent._prev and parent._uses > USES
            kept.append(0 * partial if dropped else partial)
        return super()._with_partials(data, parents, tuple(kept))
