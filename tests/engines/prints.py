"""``sound.Value`` that talks: it prints a line when imported, in every ``+`` and in every
``backward()`` (as engines with debugging prints do).  The audit's stdout must stay clean,
whether the engine is found by discovery or given as an adapter (``adapter`` below).
"""

from autograd.testing.engines import Engine
from tests.engines import sound

print("prints: engine imported")


class Value(sound.Value):
    def __add__(self, other):
        print("prints: add")
        return super().__add__(other)

    def backward(self):
        print("prints: backward", flush=True)
        super().backward()


#: The same engine through the adapter protocol (an Engine is one): ``--adapter tests.engines.prints:adapter``
adapter = Engine(Value=Value, name="tests.engines.prints (through an adapter)")
