"""Data and gradient are properties of the class (as in a pybind11 class): the instance holds
them in a list, so no instance attribute or slot is a number.  Otherwise ``sound.Value``.
"""

from tests.engines import sound


class Value(sound.Value):
    @property
    def data(self):
        return self._cells[0]

    @data.setter
    def data(self, x):
        self.__dict__.setdefault("_cells", [None, 0])[0] = x

    @property
    def grad(self):
        return self._cells[1]

    @grad.setter
    def grad(self, g):
        self.__dict__.setdefault("_cells", [None, 0])[1] = g
