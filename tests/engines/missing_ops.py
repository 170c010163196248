"""Arithmetic only: no relu, exp, log, tanh, sigmoid, and no reflected ops (``2 * x`` fails).

An audit must never feed such an engine an op it lacks; the missing ops are facts.
"""

from tests.engines import sound


class Value(sound.Core):
    """+ - * / ** and negation, with the Value on the left."""
