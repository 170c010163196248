"""Data and gradient are descriptor objects of the class that are not properties, as the
getset/member descriptors of a C extension (Cython ``cdef public``, pybind11) are: ``Cell``
below.  The instance holds the numbers in a list, so no instance attribute is a number.
"""

from tests.engines import sound


class Cell:
    """A data descriptor storing into slot ``index`` of the instance's ``_cells`` list."""

    def __init__(self, index):
        self.index = index

    def __get__(self, obj, owner=None):
        return self if obj is None else obj._cells[self.index]

    def __set__(self, obj, value):
        obj.__dict__.setdefault("_cells", [None, 0])[self.index] = value


class Value(sound.Value):
    data = Cell(0)
    grad = Cell(1)
