"""MyGrad's convention: a value that enters a new operation has its gradient cleared.

``x.backward(); y = x * 2`` leaves ``x.grad`` at 0 (MyGrad: None).  A convention, not a defect:
the stateful check must model it, not call the cleared gradient wrong.
"""

from tests.engines import sound


class Value(sound.Value):
    def _with_partials(self, data, parents, partials):
        for parent in parents:
            parent.grad = 0
        return super()._with_partials(data, parents, partials)
