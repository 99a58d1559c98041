"""MindSpore's older nn primitives that 2.10 still exports and model zoos call (mindcv's
RepMLP / CMT / XCiT, Swin V2, EdgeNeXt, ConvNeXt V2's GRN, HaloNet, HRNet, its JSD loss):
Identity, LpNorm, Pad, ResizeNearestNeighbor, with MindSpore 2.10's
arguments, checks, results and gradients. Kernels: kernels/cpu/classic_nn_numpy.py (Pad and
ResizeNearestNeighbor run PadV3's and ResizeNearestNeighborV2's kernels, registered under
their names too).

Identity: a copy of x (any dtype); gradient dout.
LpNorm(axis, p=2, keep_dims=False, epsilon=1e-12): max(||x||_p over axis, epsilon) (p = 0
counts the non-zeros); gradient dout x |x|^(p-2) / max(norm, epsilon)^(p-1) (sign(x) for
p = 1, zero for p = 0).
(L2Normalize and KLDivLoss, which mindcv also calls, live in local_norm_ops.py and
loss_pointwise_ops.py.)
Pad(paddings): zeros around x, paddings ((before, after), ...) one pair of ints >= 0 per axis;
gradient the matching slice of dout.
ResizeNearestNeighbor(size, align_corners=False, half_pixel_centers=False): x (N, C, H, W)
to (N, C, *size), ResizeNearestNeighborV2's coordinate rules; numbers of any dtype but bool.
float16 inputs compute in float32 (MindSpore's float16 L2Normalize overflows where the sum of
squares passes 65504; this one does not).
"""
import numbers

from ...common import dtype as mstype
from ...ir.primitive import Primitive, prim_attr_register
from ...ir.rules import bprop_for
from ..validator import check_axes, check_bool, check_dtype, check_output_size, tensor
from ._base import cached_prim, needs_grad
from .array_ops import Reshape
from .creation_ops import ZerosLike
from .elementwise_ops import Abs, Pow, Sign
from .math_ops import Div, Maximum, Mul, Neg, Sub
from .reduce_ops import ReduceSum
from .resize_pad_ops import PadV3, ResizeNearestNeighborV2Grad

__all__ = ["Identity", "LpNorm", "Pad", "ResizeNearestNeighbor"]

_mul, _sub, _div, _neg, _abs, _sign = Mul(), Sub(), Div(), Neg(), Abs(), Sign()
_maximum, _pow, _reshape, _zeros_like = Maximum(), Pow(), Reshape(), ZerosLike()
_sum_keep = ReduceSum(True)
_FLOATS = (mstype.float16, mstype.float32, mstype.float64)


def _is_int(v):
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _check_eps(prim, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"For '{prim.name}', 'epsilon' must be a float, but got "
                        f"{type(value).__name__}: {value!r}")
    return float(value)


# ---- Identity ------------------------------------------------------------------------------
class Identity(Primitive):
    """y = a copy of x."""
    input_names = ("x",)

    @prim_attr_register
    def __init__(self):
        pass

    def infer(self, x):
        return x


@bprop_for(Identity)
def identity_bprop(prim, x, out, dout):
    return (dout,)


# ---- LpNorm --------------------------------------------------------------------------------
class LpNorm(Primitive):
    """max(||x||_p over axis, epsilon)."""
    input_names = ("input",)

    @prim_attr_register
    def __init__(self, axis, p=2, keep_dims=False, epsilon=1e-12):
        if _is_int(axis):
            axis = (axis,)
        if not isinstance(axis, (tuple, list)) or not all(_is_int(a) for a in axis):
            raise TypeError(f"For '{self.name}', 'axis' must be an int or a list/tuple of ints, "
                            f"but got {axis!r}")
        self.add_prim_attr("axis", tuple(int(a) for a in axis))
        if not _is_int(p):
            raise TypeError(f"For '{self.name}', the type of 'p' should be 'int', but got type "
                            f"'{type(p).__name__}'.")
        if p < 0:
            raise ValueError(f"For '{self.name}', the 'p' must be int and must >= 0, but got "
                             f"'{p}' with type 'int'.")
        check_bool(self, "keep_dims", keep_dims)
        _check_eps(self, epsilon)

    def axes(self, x):
        axes, ndim = self.attrs["axis"], len(x.shape)
        if not 0 < len(axes) < ndim + 1:
            raise ValueError(f"For primitive[{self.name}], the axis size must be in "
                             f"(0,{ndim + 1}), but got {len(axes)}.")
        return check_axes(self, "axis", tuple(axes), ndim)     # in range, no duplicates

    def infer(self, x):
        check_dtype(self, "input", x, _FLOATS)
        axes = self.axes(x)
        keep = self.attrs["keep_dims"]
        shape = tuple(1 if i in axes else n for i, n in enumerate(x.shape) if keep or i not in axes)
        return tensor(x.dtype, shape)

    def kernel_params(self, x):
        return {"axes": self.axes(x), "p": int(self.attrs["p"]),
                "keep_dims": self.attrs["keep_dims"], "epsilon": float(self.attrs["epsilon"])}


@bprop_for(LpNorm)
def lp_norm_bprop(prim, x, out, dout):
    p, axes = int(prim.attrs["p"]), prim.axes(x)
    if p == 0:
        return (_zeros_like(x),)
    keep = tuple(1 if i in axes else n for i, n in enumerate(x.shape))
    norm, d = _reshape(out, keep), _reshape(dout, keep)
    if p == 1:
        return (_mul(_sign(x), d),)
    num = x if p == 2 else _mul(x, _pow(_abs(x), float(p - 2)))
    den = _maximum(norm, float(prim.attrs["epsilon"]))
    den = den if p == 2 else _pow(den, float(p - 1))
    return (_mul(_div(num, den), d),)


# ---- Pad -----------------------------------------------------------------------------------
class Pad(Primitive):
    """x padded with zeros: paddings ((before, after), ...) per axis."""
    input_names = ("input_x",)

    @prim_attr_register
    def __init__(self, paddings):
        if not isinstance(paddings, tuple):
            raise TypeError(f"For '{self.name}', the type of 'paddings' should be 'tuple', but "
                            f"got type '{type(paddings).__name__}'.")
        for i, pair in enumerate(paddings):
            if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                raise ValueError(f"For '{self.name}', the shape of 'paddings' must be (n, 2), "
                                 f"but got paddings[{i}] = {pair!r}")
            for j, v in enumerate(pair):
                if not _is_int(v):
                    raise TypeError(f"For '{self.name}', paddings[{i}][{j}] must be an int, "
                                    f"but got {v!r}")
                if v < 0:
                    raise ValueError(f"For '{self.name}', all elements of 'paddings' must be "
                                     f">= 0, but got paddings[{i}][0] = {pair[0]}, "
                                     f"paddings[{i}][1] = {pair[1]}")

    def pairs(self, x):
        p = self.attrs["paddings"]
        if len(p) != len(x.shape):
            raise ValueError(f"For '{self.name}', the length of 'paddings' must be equal to the "
                             f"rank of 'input_x', but got {len(p)} vs {len(x.shape)}")
        return tuple((int(a), int(b)) for a, b in p)

    def infer(self, x):
        check_dtype(self, "input_x", x, (mstype.bool_,) + mstype.NUMBER_TYPES)
        shape = tuple(n + a + b for n, (a, b) in zip(x.shape, self.pairs(x)))
        check_output_size(self, "the padded output", shape)
        return tensor(x.dtype, shape)

    def kernel_params(self, x):
        return {"pads": self.pairs(x), "mode": "constant", "value": 0}


@bprop_for(Pad)
def pad_bprop(prim, x, out, dout):
    crop = tuple(v for a, b in reversed(prim.pairs(x)) for v in (-a, -b))
    return (cached_prim(PadV3, "constant", True)(dout, crop, 0),)


# ---- ResizeNearestNeighbor -----------------------------------------------------------------
class ResizeNearestNeighbor(Primitive):
    """x (N, C, H, W) -> (N, C, size[0], size[1]) by nearest neighbour."""
    input_names = ("input_x",)

    @prim_attr_register
    def __init__(self, size, align_corners=False, half_pixel_centers=False):
        if not isinstance(size, (tuple, list)) or not all(_is_int(s) for s in size):
            raise TypeError(f"For '{self.name}', 'size' must be a tuple or list of ints, but "
                            f"got {size!r}")
        if len(size) != 2:
            raise ValueError(f"For primitive[{self.name}], the number of size must be equal to "
                             f"2, but got {len(size)}.")
        if min(size) <= 0:
            raise ValueError(f"For '{self.name}', 'size' must be positive, but got {list(size)}")
        self.add_prim_attr("size", tuple(int(s) for s in size))
        check_bool(self, "align_corners", align_corners)
        check_bool(self, "half_pixel_centers", half_pixel_centers)
        if align_corners and half_pixel_centers:
            raise ValueError(f"For '{self.name}', 'half_pixel_centers' must be False when "
                             f"'align_corners' is True, but got True")

    def infer(self, x):
        check_dtype(self, "input_x", x, mstype.NUMBER_TYPES)
        if len(x.shape) != 4:
            raise ValueError(f"For primitive[{self.name}], the image rank must be equal to 4, "
                             f"but got {len(x.shape)}.")
        if 0 in tuple(x.shape[2:]):
            raise ValueError(f"For '{self.name}', the spatial axes of 'input_x' must be "
                             f"non-empty, but got shape {list(x.shape)}")
        shape = tuple(x.shape[:2]) + self.attrs["size"]
        check_output_size(self, "the resized output", shape)
        return tensor(x.dtype, shape)

    def kernel_params(self, x):
        return {"linear": False, "align_corners": self.attrs["align_corners"],
                "half_pixel": self.attrs["half_pixel_centers"]}


@bprop_for(ResizeNearestNeighbor)
def resize_nearest_neighbor_bprop(prim, x, out, dout):
    if not needs_grad(x):
        return (None,)
    grad = cached_prim(ResizeNearestNeighborV2Grad, prim.attrs["align_corners"],
                       prim.attrs["half_pixel_centers"])
    return (grad(dout, tuple(x.shape)),)
