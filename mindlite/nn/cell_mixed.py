"""Mixed precision on a Cell (MindSpore's Cell.to_float, used by mindlite.amp).

`cell.to_float(float16)` marks the cell and its sub-cells; its Parameters keep their dtype
(float32 master weights). While a marked cell runs: its floating-point Tensor inputs are cast
to the mark, and every floating-point Parameter it reads (`self.weight`) comes back cast to
it, through a recorded Cast, so gradients reach the float32 Parameter in float32 (the
Cast's bprop casts them back). So a to_float(float16) Dense computes and returns float16, as
MindSpore's PyNative mode does. A cell may also carry an output dtype (amp's O1 sets float32
for its white-list cells), its results cast to it. Mixed-precision cells run eagerly, also
under GRAPH_MODE (the graph parser reads Parameters directly).
"""
import threading

from ..common import dtype as mstype
from ..common.tensor import Tensor

__all__ = ["mark", "mixed_call", "cast_param"]

_STATE = threading.local()           # depth: how many mixed-precision calls are running


def active():
    return getattr(_STATE, "depth", 0) > 0


def mark(cell, dtype, output_dtype=None, recursive=True):
    """Set the compute dtype (None clears it) of `cell` (and its sub-cells)."""
    if dtype is not None:
        dtype = mstype.to_type(dtype)
        if dtype not in mstype.float_type:          # float16/32/64 and bfloat16
            raise ValueError(f"For 'to_float', 'dst_type' must be a float type, but got {dtype}")
    cells = [c for _, c in cell.cells_and_names()] if recursive else [cell]
    for c in cells:
        object.__setattr__(c, "_mp_dtype", dtype)
    if output_dtype is not None:
        object.__setattr__(cell, "_mp_output", mstype.to_type(output_dtype))
    return cell


def _cast(value, dtype):
    from .. import ops
    if isinstance(value, Tensor) and value.dtype in mstype.FLOAT_TYPES and value.dtype != dtype:
        return ops.cast(value, dtype)
    if isinstance(value, tuple):
        return tuple(_cast(v, dtype) for v in value)
    if isinstance(value, list):
        return [_cast(v, dtype) for v in value]
    return value


def cast_param(cell, param):
    """`param` as cell's compute dtype, while a mixed-precision call runs (else unchanged)."""
    dtype = cell.__dict__.get("_mp_dtype")
    if dtype is None or not active():
        return param
    return _cast(param, dtype)


def mixed_call(cell, args, kwargs):
    dtype = cell._mp_dtype
    if dtype is not None:
        args = _cast(args, dtype)
        kwargs = {k: _cast(v, dtype) for k, v in kwargs.items()}
    _STATE.depth = getattr(_STATE, "depth", 0) + 1
    try:
        if cell._hooks is not None:
            from .cell_hooks import hooked_call
            out = hooked_call(cell, args, kwargs, eager=True)
        else:
            out = cell._call(args, kwargs, eager=True)
    finally:
        _STATE.depth -= 1
    out_dtype = cell.__dict__.get("_mp_output")
    return _cast(out, out_dtype) if out_dtype is not None else out
