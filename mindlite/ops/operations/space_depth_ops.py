"""SpaceToDepth and DepthToSpace (MindSpore's NCHW primitives), each the other's gradient.
Kernels: kernels/cpu/space_depth_numpy.py.

    SpaceToDepth(b)(x)   (N, C, H, W) -> (N, C b b, H / b, W / b): output channel
                         (i b + j) C + c holds x[n, c, h b + i, w b + j]
    DepthToSpace(b)(x)   the inverse: (N, C, H, W) -> (N, C / (b b), H b, W b)

block_size is an int >= 2; x must be 4-D with H and W divisible by b (SpaceToDepth) or C by
b * b (DepthToSpace), as MindSpore checks. Every number dtype (MindSpore's CPU kernels also
refuse float64; bool is a TypeError in both).
"""
from ...common import dtype as mstype
from ...ir.rules import bprop_for
from ...ir.primitive import Primitive, prim_attr_register
from ..validator import check_dtype, check_int, tensor
from ._base import cached_prim

__all__ = ["SpaceToDepth", "DepthToSpace"]

_TYPES = mstype.NUMBER_TYPES + mstype.COMPLEX_TYPES


def _dim(d, f):
    return -1 if d == -1 else f(d)


class _Rearrange(Primitive):
    input_names = ("x",)

    @prim_attr_register
    def __init__(self, block_size):
        if isinstance(block_size, bool) or not isinstance(block_size, int):
            raise TypeError(f"For '{self.name}', the type of 'block_size' should be 'int', but "
                            f"got type '{type(block_size).__name__}'")
        check_int(self, "block_size", block_size, lo=2)

    def _x(self, x):
        check_dtype(self, "x", x, _TYPES)
        if len(x.shape) != 4:
            raise ValueError(f"For '{self.name}', the x rank must be equal to 4, but got "
                             f"{len(x.shape)}")
        return x.shape

    def kernel_params(self, x):
        return {"block": self.attrs["block_size"]}


class SpaceToDepth(_Rearrange):
    def infer(self, x):
        n, c, h, w = self._x(x)
        b = self.attrs["block_size"]
        for i, d in ((2, h), (3, w)):
            if d != -1 and d % b:
                raise ValueError(f"For '{self.name}', the x_shape[{i}] % block_size must be "
                                 f"equal to 0, but got {d % b}")
        return tensor(x.dtype, (n, _dim(c, lambda d: d * b * b), _dim(h, lambda d: d // b),
                                _dim(w, lambda d: d // b)))


class DepthToSpace(_Rearrange):
    def infer(self, x):
        n, c, h, w = self._x(x)
        b = self.attrs["block_size"]
        if c != -1 and c % (b * b):
            raise ValueError(f"For '{self.name}', the input channel {c} must be divisible by "
                             f"the square of block_size {b * b}")
        return tensor(x.dtype, (n, _dim(c, lambda d: d // (b * b)), _dim(h, lambda d: d * b),
                                _dim(w, lambda d: d * b)))


@bprop_for(SpaceToDepth)
def space_to_depth_bprop(prim, x, out, dout):
    return (cached_prim(DepthToSpace, prim.attrs["block_size"])(dout),)


@bprop_for(DepthToSpace)
def depth_to_space_bprop(prim, x, out, dout):
    return (cached_prim(SpaceToDepth, prim.attrs["block_size"])(dout),)
