"""ViewDtype: a tensor's bytes read as another dtype (Tensor.view(dtype), MindSpore's
bitcast): the same shape for an equal item size, else the last dim scaled by the ratio of
the item sizes (it must divide evenly, and the last dim's bytes must be contiguous). Not
differentiable (the values are reinterpreted bits). Kernel: kernels/cpu/reinterpret_numpy.py.
"""
from ...common import dtype as mstype
from ...ir.rules import non_differentiable
from ...ir.primitive import Primitive, prim_attr_register
from ..validator import check_tensor, tensor

__all__ = ["ViewDtype"]


class ViewDtype(Primitive):
    """y = x's bytes as `dtype`."""
    input_names = ("x",)

    @prim_attr_register
    def __init__(self, dtype):
        if not isinstance(dtype, mstype.Type):
            raise TypeError(f"For '{self.name}', 'dtype' must be a mindlite dtype, but got "
                            f"{dtype!r}")

    def infer(self, x):
        check_tensor(self, "x", x)
        new = self.attrs["dtype"]
        a, b = x.dtype.itemsize, new.itemsize
        if a == b:
            return tensor(new, x.shape)
        if not x.shape:
            raise ValueError(f"For '{self.name}', a 0-d tensor of {x.dtype} cannot be viewed as "
                             f"{new} (item sizes {a} and {b} differ)")
        last = x.shape[-1] * a
        if last % b:
            raise ValueError(f"For '{self.name}', the last dimension ({x.shape[-1]} x {a} bytes) "
                             f"must be divisible by {new}'s item size {b}")
        return tensor(new, x.shape[:-1] + (last // b,))


non_differentiable(ViewDtype)
