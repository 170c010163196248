"""An engine without weak references whose first Value builds a table the engine then keeps
for good (as an engine may precompute constants, or import a module, at first use); otherwise
:mod:`tests.engines.slots_cycles` (reference cycles: a dropped graph is freed by gc.collect()).

The table is memory of the first graph only, never of a graph: a reproducer run in a fresh
Python must build one graph before it takes its baseline, or every row shows the table.
"""

from tests.engines import slots_cycles

TABLE = None  # built by the first Value made


class Value(slots_cycles.Value):
    __slots__ = ()

    def __init__(self, data, parents=(), rule=None):
        global TABLE
        if TABLE is None:
            TABLE = [float(i) for i in range(20_000)]  # ~0.6 MB, once
        super().__init__(data, parents, rule)
