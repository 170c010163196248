"""An extra op that takes a plain number, not a Value: ``v.scaled(k)`` is ``k * v``.

Called with a Value, it gives a Value whose data is another Value (nothing reads it as a
number), so the op can only be judged when it is called with a number.  Its gradient is
wrong: ``2 * k`` for ``k``, which self-consistency sees at once.  ``v.smudge()`` gives a
Value whose data is no number, with a Value or a number: nothing can judge it.
"""

from tests.engines import sound


class Value(sound.Value):
    def scaled(self, k):
        out = type(self)(0.0)
        out.data = self.data * k  # with a Value k, a Value: no number at all
        out._prev = (self,)

        def backward():
            self.grad += 2 * k * out.grad

        out._backward = backward
        return out

    def smudge(self):  # a Value whose data is no number: nothing can judge it
        out = type(self)(0.0)
        out.data = "smudged"
        return out
