"""Every Value ever made stays alive: a class-level registry (kept "for debugging") holds them all.

Gradients are right; memory grows with every graph built, whatever is dropped or collected.
"""

from tests.engines import sound

REGISTRY = []


class Value(sound.Value):
    def __init__(self, data, parents=()):
        super().__init__(data, parents)
        REGISTRY.append(self)
