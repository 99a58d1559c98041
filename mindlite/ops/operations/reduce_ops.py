"""Reductions: ReduceSum/Mean/Max/Min/Prod/All/Any, Argmax/Argmin, ArgMaxWithValue.
Called as MindSpore's `ReduceSum(keep_dims=False)(x, axis)`, axis an int, tuple or ()
(= all axes). Kernels: kernels/cpu/reduce_*.py."""
from ...common import dtype as mstype
from ..primitive import Primitive, prim_attr_register
from ..validator import check_axes, check_bool, check_dtype, tensor

__all__ = ["ReduceSum"]


class _Reduce(Primitive):
    input_names = ("x", "axis")
    const_inputs = (1,)
    valid_types = mstype.NUMBER_TYPES

    @prim_attr_register
    def __init__(self, keep_dims=False):
        check_bool(self, "keep_dims", keep_dims)

    def _axes(self, x, axis):
        return check_axes(self, "axis", axis, len(x.shape))

    def infer(self, x, axis=()):
        check_dtype(self, "x", x, self.valid_types)
        axes = self._axes(x, axis)
        if self.attrs["keep_dims"]:
            shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
        else:
            shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
        return tensor(self._out_type(x.dtype), shape)

    def _out_type(self, t):
        return t

    def kernel_params(self, x, axis=()):
        return {"axis": self._axes(x, axis), "keep_dims": self.attrs["keep_dims"]}


class ReduceSum(_Reduce):
    """sum over `axis` (all axes for ()); the sum of an empty set is 0."""
