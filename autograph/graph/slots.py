"""Where a concrete function's outputs go in the structure it returns.

A traced function's result is kept as a template: its structure, with each
graph output replaced by a slot naming the output's index.  Calling the
compiled graph fills the slots (concrete.py); saving writes the template as
data (saving.py, reading.py).
"""

import numpy as np


class Slot:
    """An array output: the result is the graph's output `index`."""
    __slots__ = ("index",)

    def __init__(self, index):
        self.index = index


class ListSlot:
    """A staged list (TensorList) output: returned as a Python list of its items."""
    __slots__ = ("index",)

    def __init__(self, index):
        self.index = index

    @staticmethod
    def items(linked):
        items = []
        while linked is not None:  # (rest, last item, length); see ops/lists.py
            item = linked[1]
            if type(item) is np.ndarray:
                # like any output: a scalar is a numpy scalar, and an array may
                # be a graph constant the caller must not be able to mutate
                item = item[()] if item.ndim == 0 else item.copy()
            items.append(item)
            linked = linked[0]
        items.reverse()
        return items
