"""GRAPH_MODE Cells: `Cell.__call__` runs `construct` as a compiled graph (a JitFunction of
jit/api.py per cell, kept in the cell's own __dict__); a construct the parser cannot compile
yet runs eagerly with one warning. Fills common/api.py's GRAPH slot (cell_call, run_eagerly).
"""
import warnings

from ..common import api
from .api import JitFunction
from .errors import UnsupportedSyntaxError


class _Holder:
    """A cell's compiled construct (a JitFunction, or _EAGER), kept in the cell's own __dict__
    so that it goes with the cell (a cycle the collector frees; as the value of a
    WeakKeyDictionary keyed by the cell it referred back to its key through its guards and
    cache, and every cell ever called under GRAPH_MODE stayed alive). copy.deepcopy, copy and
    pickling of the cell give an empty holder: a copy compiles its own graphs."""
    __slots__ = ("value",)

    def __init__(self, value=None):
        self.value = value

    def __deepcopy__(self, memo):
        return _Holder()

    def __copy__(self):
        return _Holder()

    def __reduce__(self):
        return (_Holder, ())


class _CellGraphs:
    """cell -> its compiled construct: `get(cell)`, `graphs[cell]`, `graphs[cell] = value`."""
    KEY = "_ml_graphs"

    def get(self, cell, default=None):
        holder = cell.__dict__.get(self.KEY)
        return default if holder is None or holder.value is None else holder.value

    def __getitem__(self, cell):
        value = self.get(cell)
        if value is None:
            raise KeyError(cell)
        return value

    def __contains__(self, cell):
        return self.get(cell) is not None

    def __setitem__(self, cell, value):
        holder = cell.__dict__.get(self.KEY)
        if holder is None:
            object.__setattr__(cell, self.KEY, _Holder(value))
        else:
            holder.value = value


_CELL_JIT = _CellGraphs()
_EAGER = "eager"        # a cell whose construct cannot be compiled (yet): runs eagerly


def cell_graph_call(cell, args, kwargs):
    """GRAPH_MODE: Cell.__call__ runs its construct as a compiled graph. A construct that
    uses what the parser does not support yet (UnsupportedSyntaxError: e.g. a training step
    calling value_and_grad, until graph autodiff exists) runs eagerly instead, with one
    warning naming the construct and the line; @jit itself never falls back."""
    jf = _CELL_JIT.get(cell)
    if jf is _EAGER:
        return cell.construct(*args, **kwargs)
    sig = getattr(cell, "_dynamic_shape_inputs", None)
    if jf is None or jf.fn is not type(cell).construct or jf.input_signature is not sig:
        jf = _CELL_JIT[cell] = JitFunction(type(cell).construct, sig)
    try:
        return jf(cell, *args, **kwargs)
    except UnsupportedSyntaxError as err:
        if jf.cache and not getattr(err, "recompiling", False):
            raise                          # compiled before for another signature: strict
        _CELL_JIT[cell] = _EAGER
        warnings.warn(f"mindlite: GRAPH_MODE could not compile {type(cell).__name__}.construct"
                      f", so it runs eagerly (its sub-cells are still compiled): {err}",
                      stacklevel=3)
        return cell.construct(*args, **kwargs)


def run_eagerly(cell):
    """Under GRAPH_MODE, `cell` runs its construct eagerly (amp: it holds mixed-precision
    cells whose casts a compiled graph would not keep)."""
    _CELL_JIT[cell] = _EAGER


api.GRAPH.fill(cell_call=cell_graph_call, run_eagerly=run_eagerly)
