"""A renamed table op with a defect: ``ln`` is a log that clamps its argument to 1e-10.

Identified by its values as log, ``ln`` must be checked as log: its edge points find it."""

import math

from tests.engines import extra_ops


class Value(extra_ops.Value):
    def ln(self):
        x = max(self.data, 1e-10)
        return self._with_partials(math.log(x), (self,), (1 / x,))
