"""Masking, counting and unstacking primitives of issue 13: MaskedFill, NonZero, CountNonZero
and Unstack, and MindSpore's EmbeddingLookup, each with its bprop or non-differentiable mark
below it.
Kernels: kernels/cpu/sort_scatter_numpy.py. Functional names: ops/function/sort_index_func.py.
"""
from ...common import dtype as mstype
from ...ir.rules import bprop_for, non_differentiable
from ...ir.primitive import Primitive, prim_attr_register
from ..validator import (broadcast_shape, check_axes, check_axis, check_dtype, check_int,
                         check_tensor, tensor)
from ._base import cached_prim, needs_grad
from .join_ops import Stack
from .logic_ops import Select
from .reduce_ops import ReduceSum

__all__ = ["MaskedFill", "NonZero", "CountNonZero", "Unstack", "EmbeddingLookup"]

_select = Select()
_sum_all = ReduceSum(keep_dims=False)


class MaskedFill(Primitive):
    """y = value where mask else input (input and mask broadcast); value a 0-d tensor of
    input's dtype. Gradient: dinput = dout where not mask, dvalue = sum of dout where mask."""
    input_names = ("input", "mask", "value")

    @prim_attr_register
    def __init__(self):
        pass

    def infer(self, x, mask, value):
        check_dtype(self, "input", x, mstype.ALL_TYPES)
        check_dtype(self, "mask", mask, (mstype.bool_,))
        check_tensor(self, "value", value)
        if value.shape:
            raise ValueError(f"For '{self.name}', 'value' must be a 0-d tensor or a number, but "
                             f"got shape {list(value.shape)}")
        if value.dtype is not x.dtype:
            raise TypeError(f"For '{self.name}', the type of 'value' should be same as 'input' "
                            f"{x.dtype}, but got {value.dtype}")
        return tensor(x.dtype, broadcast_shape(self, x.shape, mask.shape, ("input", "mask")))


@bprop_for(MaskedFill)
def masked_fill_bprop(prim, x, mask, value, out, dout):
    dx = _select(mask, 0.0, dout) if needs_grad(x) else None
    dv = None
    if needs_grad(value):
        dv = _sum_all(_select(mask, dout, 0.0), ())
    return dx, None, dv


class NonZero(Primitive):
    """y (int64, shape (count, rank)): the indices of x's nonzero elements in C order.
    Dynamic shape: count is known after the kernel ran. Not differentiable."""
    input_names = ("x",)
    dynamic_shape = True

    @prim_attr_register
    def __init__(self):
        pass

    def infer(self, x):
        check_dtype(self, "x", x, mstype.ALL_TYPES)
        if not x.shape:
            raise ValueError(f"For '{self.name}', the rank of 'x' must be >= 1, but got a 0-d "
                             f"tensor")
        return tensor(mstype.int64, (-1, len(x.shape)))


class CountNonZero(Primitive):
    """y (int64): the number of nonzero elements of x over `dims` (None or (): all axes),
    those axes removed. Not differentiable."""
    input_names = ("x",)

    @prim_attr_register
    def __init__(self, dims=None):
        if dims is not None:
            check_axes(self, "dims", dims, 64)

    def _axes(self, x):
        check_dtype(self, "x", x, mstype.ALL_TYPES)
        return check_axes(self, "dims", self.attrs["dims"], len(x.shape))

    def infer(self, x):
        axes = self._axes(x)
        shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
        return tensor(mstype.int64, shape)

    def kernel_params(self, x):
        return {"axes": self._axes(x)}


non_differentiable(NonZero, CountNonZero)


class Unstack(Primitive):
    """(y_0, ..., y_{n-1}): x cut along `axis` into its n = x.shape[axis] slices, that axis
    removed (n > 0: ops.unstack / unbind give () for an empty axis). `num`, when given,
    must equal n. Gradient: the douts stacked along axis."""
    input_names = ("input_x",)

    @prim_attr_register
    def __init__(self, axis=0, num=None):
        check_int(self, "axis", axis)
        if num is not None:
            check_int(self, "num", num, lo=1)

    def _axis(self, x):
        check_tensor(self, "input_x", x)
        if not x.shape:
            raise ValueError(f"For '{self.name}', the rank of 'input_x' must be >= 1, but got a "
                             f"0-d tensor")
        axis = check_axis(self, "axis", self.attrs["axis"], len(x.shape))
        if not x.shape[axis]:
            raise ValueError(f"For '{self.name}', input_x.shape[{axis}] must be > 0 (one output "
                             f"per slice), but got shape {list(x.shape)}")
        num = self.attrs["num"]
        if num is not None and num != x.shape[axis]:
            raise ValueError(f"For '{self.name}', 'num' must equal input_x.shape[{axis}] "
                             f"({x.shape[axis]}), but got {num}")
        return axis

    def infer(self, x):
        axis = self._axis(x)
        part = tensor(x.dtype, x.shape[:axis] + x.shape[axis + 1:])
        return (part,) * x.shape[axis]

    def kernel_params(self, x):
        return {"axis": self._axis(x)}


@bprop_for(Unstack)
def unstack_bprop(prim, x, out, dout):
    return (cached_prim(Stack, prim._axis(x._abs))(tuple(dout)),)


class EmbeddingLookup(Primitive):
    """y = input_params[input_indices - offset] along axis 0, rows of zeros where
    input_indices - offset is outside [0, input_params.shape[0]) (MindSpore's
    EmbeddingLookup); y has shape input_indices.shape + input_params.shape[1:]. Indices
    int32/int64, offset an int. Gradient: dout's rows added into zeros of input_params'
    shape at the in-range positions (a dense gradient)."""
    input_names = ("input_params", "input_indices", "offset")
    const_inputs = (2,)

    @prim_attr_register
    def __init__(self):
        pass

    def infer(self, params, indices, offset):
        check_tensor(self, "input_params", params)
        check_dtype(self, "input_indices", indices, mstype.INDEX_TYPES)
        check_int(self, "offset", offset)
        if not params.shape:
            raise ValueError(f"For '{self.name}', 'input_params' must have rank >= 1, but got a "
                             f"0-d tensor")
        return tensor(params.dtype, tuple(indices.shape) + tuple(params.shape[1:]))

    def kernel_params(self, params, indices, offset):
        return {"offset": int(offset)}


@bprop_for(EmbeddingLookup)
def embedding_lookup_bprop(prim, params, indices, offset, out, dout):
    if not needs_grad(params):
        return None, None, None
    from .. import functional as F
    ids = F.reshape(indices - offset, (-1,))
    rows = params.shape[0]
    ids = F.select((ids >= 0) & (ids < rows), ids, F.fill(ids.dtype, ids.shape, rows))
    flat = F.reshape(dout, (ids.shape[0],) + tuple(params.shape[1:]))
    from .scatter_ops import UnsortedSegmentSum
    return cached_prim(UnsortedSegmentSum)(flat, ids, rows), None, None
