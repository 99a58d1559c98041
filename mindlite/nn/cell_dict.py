"""nn.CellDict (MindSpore's): an ordered mapping of names to Cells whose parameters belong to
the owning cell (names prefixed with the key, `b.weight`). Not callable itself (its construct
raises NotImplementedError, as MindSpore's); index it from the owner's construct."""
from collections import OrderedDict

from .cell import Cell

__all__ = ["CellDict"]


class CellDict(Cell):
    """CellDict(cells=None): cells a dict, OrderedDict, CellDict or iterable of (key, cell)."""

    def __init__(self, *args, **kwargs):
        super().__init__()
        if len(args) > 1:
            raise TypeError(f"For 'CellDict', at most one positional argument (the cells) is "
                            f"allowed, but got {len(args)}")
        if args and args[0] is not None:
            self.update(args[0])
        if kwargs:
            self.update(kwargs)

    @staticmethod
    def _check(key, cell):
        if not isinstance(key, str):
            raise TypeError(f"For 'CellDict', the type of key should be string but got "
                            f"{type(key).__name__}.")
        if not isinstance(cell, Cell):
            raise TypeError(f"For 'CellDict', the type of cell should be Cell, but got "
                            f"{type(cell).__name__}.")

    def __getitem__(self, key):
        return self._cells[key]

    def __setitem__(self, key, cell):
        self._check(key, cell)
        setattr(self, key, cell)

    def __delitem__(self, key):
        del self._cells[key]

    def __len__(self):
        return len(self._cells)

    def __iter__(self):
        return iter(self._cells)

    def __contains__(self, key):
        return key in self._cells

    def clear(self):
        self._cells.clear()

    def pop(self, key):
        cell = self._cells[key]
        del self._cells[key]
        return cell

    def keys(self):
        return self._cells.keys()

    def values(self):
        return self._cells.values()

    def items(self):
        return self._cells.items()

    def update(self, cells):
        if isinstance(cells, (dict, OrderedDict, CellDict)):
            pairs = list(cells.items())
        else:
            pairs = []
            for item in cells:
                if not isinstance(item, (tuple, list)) or len(item) != 2:
                    raise TypeError(f"For 'CellDict', update needs (key, cell) pairs, but got "
                                    f"{item!r}")
                pairs.append(tuple(item))
        for key, cell in pairs:
            self[key] = cell

    def construct(self, *inputs):
        raise NotImplementedError("CellDict is not callable: index it by key in the owner's "
                                  "construct")
