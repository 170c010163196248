"""+ - * / only: no negation, no powers, no relu, exp, log, tanh, sigmoid, no reflected ops
(``2 * x`` fails), like pyfit 1.0.2's Scalar (which has the reflected ops).

An audit must never feed such an engine an op it lacks; the missing ops are facts.  The
audit's stateful and linearity checks did (a crash reported on pyfit 1.0.2): the test of
that is in tests/test_testing_probes.py.
"""

from tests.engines import sound


class Value(sound.Core):
    """+ - * /, with the Value on the left."""
