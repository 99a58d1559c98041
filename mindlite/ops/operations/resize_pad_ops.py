"""Padding and resizing primitives of issue 13 (behind ops.pad and ops.interpolate), each
with its gradient primitive and bprops (the gradients are linear maps whose adjoints are
the forward ops, so gradients of gradients come for free):
PadV3 <-> PadV3Grad, ResizeNearestNeighborV2 <-> ResizeNearestNeighborV2Grad,
ResizeBilinearV2 <-> ResizeBilinearGrad, ResizeLinear1D <-> ResizeLinear1DGrad.
Kernels: kernels/cpu/resize_pad_numpy.py. Functional names: ops/function/pool_resize_func.py.

PadV3 pads the trailing len(paddings) // 2 axes; paddings (a constant input) are given as
MindSpore's paddings_contiguous=True form (left_last, right_last, left_second_last, ...);
a negative padding crops. Modes: 'constant' (constant_value, cast to x's dtype), 'reflect'
(padding < the axis size), 'edge' (replicate), 'circular' (padding <= the axis size).
The resize ops map each output coordinate of a spatial axis (the axes after N, C) to the
input as MindSpore's CPU kernels do: asymmetric dst * in / out (both flags False; nearest
floors it, as MindSpore's ops.interpolate), align_corners dst * (in - 1) / (out - 1) (nearest
rounds it half up), or half-pixel centres ((dst + 0.5) * in / out, floored by nearest; minus
0.5 and clamped at 0 for the linear ones). align_corners and half_pixel_centers together
are an error.
"""
import numbers

from ...common import dtype as mstype
from ...ir.rules import bprop_for
from ...ir.primitive import Primitive, prim_attr_register
from ..validator import check_bool, check_dtype, check_output_size, tensor
from ._base import cached_prim

__all__ = ["PadV3", "ResizeNearestNeighborV2", "ResizeBilinearV2", "ResizeLinear1D"]

_PAD_MODES = ("constant", "reflect", "edge", "circular")


def _is_int(v):
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _int_tuple(prim, arg, value):
    if isinstance(value, list):
        value = tuple(value)
    if not isinstance(value, tuple) or not all(_is_int(v) for v in value):
        raise TypeError(f"For '{prim.name}', '{arg}' must be a tuple or list of ints, but got "
                        f"{type(value).__name__}: {value!r}")
    return tuple(int(v) for v in value)


class PadV3(Primitive):
    """y = x padded on its trailing axes (see the module docstring). x: any number or bool
    dtype for 'constant', numbers for the other modes. Gradient: PadV3Grad (constant_value
    gets none, as MindSpore)."""
    input_names = ("x", "paddings", "constant_value")
    const_inputs = (1, 2)

    @prim_attr_register
    def __init__(self, mode="constant", paddings_contiguous=True):
        if not isinstance(mode, str) or mode not in _PAD_MODES:
            raise ValueError(f"For '{self.name}', the 'mode' must be str and must be in "
                             f"{list(_PAD_MODES)}, but got {mode!r}")
        check_bool(self, "paddings_contiguous", paddings_contiguous)
        if not paddings_contiguous:
            raise ValueError(f"For '{self.name}', only 'paddings_contiguous'=True is supported, "
                             f"but got False")

    def pads(self, shape, paddings):
        """[(before, after)] for every axis of `shape`, validated."""
        p = _int_tuple(self, "paddings", paddings)
        rank, mode = len(shape), self.attrs["mode"]
        if len(p) % 2:
            raise ValueError(f"For '{self.name}', the size of 'paddings' must be divisible by 2, "
                             f"but got {len(p)}")
        pairs = len(p) // 2
        if pairs > rank:
            raise ValueError(f"For '{self.name}', 'paddings' pads {pairs} axes, but 'x' has "
                             f"only {rank}: paddings {list(p)}, x shape {list(shape)}")
        if mode != "constant" and not (pairs <= 3 and rank in (pairs + 1, pairs + 2)):
            raise ValueError(f"For '{self.name}', {mode} mode pads 1 to 3 trailing axes of a "
                             f"tensor with one or two more axes, but got {pairs} padded axes "
                             f"for an input of rank {rank}")
        out = [(0, 0)] * rank
        for i in range(pairs):
            axis = rank - 1 - i
            lo, hi = p[2 * i], p[2 * i + 1]
            n = shape[axis]
            if mode == "reflect" and (max(lo, hi) >= n):
                raise ValueError(f"For '{self.name}' reflect mode, padding size must be less "
                                 f"than the corresponding input dimension, but got padding "
                                 f"({lo},{hi}) at dimension {axis} of input:{list(shape)}")
            if mode in ("edge", "circular") and max(lo, hi) > 0 and n == 0:
                raise ValueError(f"For '{self.name}' {mode} mode, axis {axis} of 'x' is empty "
                                 f"and cannot be padded: padding ({lo},{hi})")
            if mode == "circular" and max(lo, hi) > n:
                raise ValueError(f"For '{self.name}' circular mode, padding ({lo},{hi}) at "
                                 f"dimension {axis} must not exceed its size {n}")
            if n + lo + hi < 0 or (mode != "constant" and n + min(lo, 0) + min(hi, 0) <= 0
                                   and n > 0):
                raise ValueError(f"For '{self.name}', padding ({lo},{hi}) at dimension {axis} "
                                 f"of input:{list(shape)} leaves no elements")
            out[axis] = (lo, hi)
        return out

    def infer(self, x, paddings, constant_value=None):
        types = (mstype.bool_,) + mstype.NUMBER_TYPES
        check_dtype(self, "x", x, types if self.attrs["mode"] == "constant"
                    else mstype.NUMBER_TYPES)
        if constant_value is not None and not isinstance(constant_value, numbers.Number):
            raise TypeError(f"For '{self.name}', 'constant_value' must be a number or None, "
                            f"but got {type(constant_value).__name__}: {constant_value!r}")
        shape = tuple(n + lo + hi for n, (lo, hi) in zip(x.shape, self.pads(x.shape, paddings)))
        check_output_size(self, "the padded output", shape)
        return tensor(x.dtype, shape)

    def kernel_params(self, x, paddings, constant_value=None):
        return {"pads": tuple(self.pads(x.shape, paddings)), "mode": self.attrs["mode"],
                "value": 0 if constant_value is None else constant_value}


class PadV3Grad(PadV3):
    """dx of PadV3: (dout, paddings, x_shape) -> dout summed back onto x's positions (the
    adjoint of PadV3 with a zero constant)."""
    input_names = ("x", "paddings", "x_shape")
    const_inputs = (1, 2)

    def infer(self, dout, paddings, x_shape):
        check_dtype(self, "x", dout, mstype.NUMBER_TYPES)
        want = tuple(n + lo + hi for n, (lo, hi) in zip(x_shape, self.pads(x_shape, paddings)))
        if tuple(dout.shape) != want:
            raise ValueError(f"For '{self.name}', 'x' must have the padded shape {list(want)}, "
                             f"but got {list(dout.shape)}")
        return tensor(dout.dtype, x_shape)

    def kernel_params(self, dout, paddings, x_shape):
        return {"pads": tuple(self.pads(x_shape, paddings)), "mode": self.attrs["mode"]}


@bprop_for(PadV3)
def pad_v3_bprop(prim, x, paddings, value, out, dout):
    return cached_prim(PadV3Grad, prim.attrs["mode"], True)(dout, paddings, x.shape), None, None


@bprop_for(PadV3Grad)
def pad_v3_grad_bprop(prim, dout, paddings, x_shape, out, g):
    return cached_prim(PadV3, prim.attrs["mode"], True)(g, paddings, 0), None, None


# ---- resizing -----------------------------------------------------------------------------
class _Resize(Primitive):
    """(x, size) -> x resized on its spatial axes to `size` (a constant tuple of positive
    ints, one per spatial axis). Float inputs only."""
    input_names = ("x", "size")
    const_inputs = (1,)
    ranks = (4,)
    linear = True

    def _size(self, x, size):
        check_dtype(self, "x", x, mstype.FLOAT_TYPES)
        if len(x.shape) not in self.ranks:
            raise ValueError(f"For '{self.name}', 'x' must be a tensor of rank "
                             f"{' or '.join(map(str, self.ranks))}, but got shape "
                             f"{list(x.shape)}")
        if 0 in tuple(x.shape[2:]):
            raise ValueError(f"For '{self.name}', the spatial axes of 'x' must be non-empty, "
                             f"but got shape {list(x.shape)}")
        size = (size,) if _is_int(size) else _int_tuple(self, "size", size)
        if len(size) != len(x.shape) - 2 or any(s <= 0 for s in size):
            raise ValueError(f"For '{self.name}', 'size' must hold {len(x.shape) - 2} positive "
                             f"ints, but got {list(size)}")
        return size

    def infer(self, x, size):
        shape = tuple(x.shape[:2]) + self._size(x, size)
        check_output_size(self, "the resized output", shape)
        return tensor(x.dtype, shape)

    def kernel_params(self, x, size):
        a = self.attrs
        return {"linear": self.linear, "align_corners": a.get("align_corners", False),
                "half_pixel": a.get("half_pixel_centers", False)}


class _ResizeGrad(_Resize):
    """(dout, x_shape) -> dx: dout summed back onto the input positions it was read from."""
    input_names = ("grads", "x_shape")

    def infer(self, dout, x_shape):
        x = tensor(dout.dtype, x_shape)
        want = tuple(x_shape[:2]) + self._size(x, tuple(dout.shape[2:]))
        if tuple(dout.shape) != want:
            raise ValueError(f"For '{self.name}', 'grads' must have the shape {list(want)}, but "
                             f"got {list(dout.shape)}")
        return x


def _check_flags(prim, align_corners, half_pixel_centers):
    check_bool(prim, "align_corners", align_corners)
    check_bool(prim, "half_pixel_centers", half_pixel_centers)
    if align_corners and half_pixel_centers:
        raise ValueError(f"For '{prim.name}', 'half_pixel_centers' must be False when "
                         f"'align_corners' is True, but got True")


class ResizeNearestNeighborV2(_Resize):
    """Nearest-neighbour resize of x (N, C, *spatial), 1 to 3 spatial axes."""
    ranks = (3, 4, 5)
    linear = False

    @prim_attr_register
    def __init__(self, align_corners=False, half_pixel_centers=False):
        _check_flags(self, align_corners, half_pixel_centers)


class ResizeNearestNeighborV2Grad(ResizeNearestNeighborV2, _ResizeGrad):
    """dx of ResizeNearestNeighborV2."""
    input_names = _ResizeGrad.input_names
    infer = _ResizeGrad.infer


class ResizeBilinearV2(_Resize):
    """Bilinear resize of x (N, C, H, W)."""

    @prim_attr_register
    def __init__(self, align_corners=False, half_pixel_centers=False):
        _check_flags(self, align_corners, half_pixel_centers)


class ResizeBilinearGrad(ResizeBilinearV2, _ResizeGrad):
    """dx of ResizeBilinearV2."""
    input_names = _ResizeGrad.input_names
    infer = _ResizeGrad.infer


class ResizeLinear1D(_Resize):
    """Linear resize of x (N, C, W); coordinate_transformation_mode 'align_corners' or
    'half_pixel'."""
    ranks = (3,)

    @prim_attr_register
    def __init__(self, coordinate_transformation_mode="align_corners"):
        if coordinate_transformation_mode not in ("align_corners", "half_pixel"):
            raise ValueError(f"For '{self.name}', 'coordinate_transformation_mode' must be "
                             f"'align_corners' or 'half_pixel', but got "
                             f"{coordinate_transformation_mode!r}")

    def kernel_params(self, x, size):
        corners = self.attrs["coordinate_transformation_mode"] == "align_corners"
        return {"linear": True, "align_corners": corners, "half_pixel": not corners}


class ResizeLinear1DGrad(ResizeLinear1D, _ResizeGrad):
    """dx of ResizeLinear1D."""
    input_names = _ResizeGrad.input_names
    infer = _ResizeGrad.infer


_GRADS = {ResizeNearestNeighborV2: ResizeNearestNeighborV2Grad,
          ResizeBilinearV2: ResizeBilinearGrad, ResizeLinear1D: ResizeLinear1DGrad}
_FORWARD = {g: f for f, g in _GRADS.items()}


def _attrs(prim):
    return tuple(prim.init_args[k] for k in prim.init_args if k != "self")


@bprop_for(ResizeNearestNeighborV2, ResizeBilinearV2, ResizeLinear1D)
def resize_bprop(prim, x, size, out, dout):
    return cached_prim(_GRADS[type(prim)], *_attrs(prim))(dout, x.shape), None


@bprop_for(ResizeNearestNeighborV2Grad, ResizeBilinearGrad, ResizeLinear1DGrad)
def resize_grad_bprop(prim, dout, x_shape, out, g):
    return cached_prim(_FORWARD[type(prim)], *_attrs(prim))(g, tuple(dout.shape[2:])), None
