"""TensorCopySlices (MindSpore's _inner_ops.TensorCopySlices): x with x[begin:end:strides] set
to value, as a new tensor (x unchanged). begin / end / strides are constant tuples, read as
StridedSlice reads them without masks (slice_ops.strided_slice_spec; shorter than x's rank:
the remaining axes whole); value has x's dtype and broadcasts to the slice's shape (MindSpore's
CPU kernel copies value's bytes unchecked: a smaller value reads past its end there, and
strides other than 1 are refused; here both are defined). Kernel:
kernels/cpu/copy_slices_numpy.py.

Gradient (MindSpore's): dx = dout with the slice zeroed, dvalue = dout's slice (summed over
the axes value was broadcast along).
"""
from ...ir.primitive import Primitive, prim_attr_register
from ...ir.rules import bprop_for
from ..validator import broadcast_shape, check_same_dtype, check_tensor
from ._base import cached_prim, needs_grad
from .slice_ops import strided_slice_spec

__all__ = ["TensorCopySlices"]


class TensorCopySlices(Primitive):
    """See the module docstring."""
    input_names = ("x", "value", "begin", "end", "strides")
    const_inputs = (2, 3, 4)

    @prim_attr_register
    def __init__(self):
        pass

    def _slices(self, shape, begin, end, strides):
        for name, v in (("begin", begin), ("end", end), ("strides", strides)):
            if not isinstance(v, tuple) or not all(isinstance(e, int) and not isinstance(e, bool)
                                                   for e in v):
                raise TypeError(f"For '{self.name}', '{name}' must be a tuple of ints, but got "
                                f"{v!r}")
        slices, _ = strided_slice_spec(self, tuple(shape), begin, end, strides, (0,) * 5)
        return slices

    def infer(self, x, value, begin, end, strides):
        check_tensor(self, "x", x)
        check_same_dtype(self, [("x", x), ("value", value)])
        slices = self._slices(x.shape, begin, end, strides)
        target = tuple(len(range(*s.indices(d))) for s, d in zip(slices, x.shape))
        if broadcast_shape(self, value.shape, target, ("value", "slice")) != target:
            raise ValueError(f"For '{self.name}', 'value' of shape {list(value.shape)} must "
                             f"broadcast to the slice's shape {list(target)}")
        return x

    def kernel_params(self, x, value, begin, end, strides):
        return {"slices": tuple(self._slices(x.shape, begin, end, strides))}


@bprop_for(TensorCopySlices)
def tensor_copy_slices_bprop(prim, x, value, begin, end, strides, out, dout):
    from .. import functional as F
    dx = cached_prim(TensorCopySlices)(dout, F.zeros((), dout.dtype), begin, end, strides) \
        if needs_grad(x) else None
    dv = None
    if needs_grad(value):
        part = F.strided_slice(dout, begin, end, strides)
        lead = part.ndim - value.ndim
        axes = tuple(range(lead)) + tuple(lead + i for i, d in enumerate(value.shape)
                                          if d == 1 and part.shape[lead + i] != 1)
        dv = F.reshape(F.sum(part, axes) if axes else part, value.shape)
    return dx, dv, None, None, None
