"""Functional ops of issue 13 over resize_pad_ops, pool_nd_ops and pool_ops, with MindSpore
2.10's signatures: ops.pad, ops.interpolate, ops.adaptive_avg_pool1d / adaptive_avg_pool2d /
adaptive_max_pool2d, ops.avg_pool1d / avg_pool3d, ops.max_pool1d (PyTorch's signature:
MindSpore 2.10 has no ops.max_pool1d) / max_pool3d.

interpolate supports the modes 'nearest' (3-, 4- and 5-D input), 'linear' (3-D),
'bilinear' (4-D) and 'area' (3- and 4-D, adaptive average pooling); 'bicubic', 'trilinear'
and 'nearest-exact' raise NotImplementedError. As MindSpore 2.10, scale_factor needs
recompute_scale_factor=True (the output size is floor(in * scale) and the mapping uses
in / out) except for 5-D 'nearest' and 'area'.
"""
import math
import numbers

from ...cache_limits import remember
from ...common.tensor import Tensor
from ..operations import pool_nd_ops as PN
from ..operations import pool_ops as P
from ..operations import resize_pad_ops as R
from ..operations.array_ops import ExpandDims, Squeeze
from ._typed_prims import typed_prim as _prim

__all__ = ["pad", "interpolate", "adaptive_avg_pool1d", "adaptive_avg_pool2d",
           "adaptive_max_pool2d", "avg_pool1d", "avg_pool3d", "max_pool1d", "max_pool3d"]

_PAD_MODES = {"constant": "constant", "reflect": "reflect", "replicate": "edge",
              "circular": "circular"}
_expand = ExpandDims()


def _is_int(v):
    return type(v) is int or (isinstance(v, numbers.Integral) and not isinstance(v, bool))


def _tensor(fn, arg, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{fn}', the type of '{arg}' must be Tensor, but got "
                        f"{type(x)}.")
    return x


def _unsqueeze(x, axis):
    return _expand(x, axis)


def _squeeze(x, axis):
    return _prim(Squeeze, (axis,))(x)


# ---- pad -----------------------------------------------------------------------------------
def pad(input_x, padding, mode="constant", value=None):
    """input_x padded on its trailing len(padding) // 2 axes: padding = (left_last,
    right_last, left_second_last, ...) (negative values crop). mode 'constant' (with value,
    default 0, cast to input_x's dtype), 'reflect', 'replicate' or 'circular'."""
    _tensor("pad", "input_x", input_x)
    if isinstance(padding, Tensor):
        padding = tuple(int(v) for v in padding.asnumpy().reshape(-1))
    if type(padding) is tuple and not len(padding) % 2 and all(type(v) is int for v in padding):
        if mode == "constant" and (value is None or type(value) in (float, int)):
            return _pad_constant(input_x, padding, value)        # the common calls
        if value is None and type(mode) is str and mode in _PAD_PRIMS:
            return _PAD_PRIMS[mode](input_x, padding, None)
    if not isinstance(padding, (tuple, list)) or not all(_is_int(v) for v in padding):
        raise TypeError(f"For 'pad', the paddings value must be tuple of int or list of int, but "
                        f"got {padding!r}")
    if len(padding) % 2:
        raise ValueError(f"For 'pad', the size of padding must be divisible by 2, but got "
                         f"{len(padding)}")
    if mode not in _PAD_MODES:
        raise ValueError(f"For 'pad', the 'mode' must be one of {list(_PAD_MODES)}, but got "
                         f"{mode!r}")
    if mode != "constant" and value is not None:
        raise ValueError(f"For 'pad', the padding mode '{mode}' can not set value, but got "
                         f"value {value}.")
    if isinstance(value, Tensor):
        value = value.asnumpy().item()
    return _prim(R.PadV3, _PAD_MODES[mode], True)(input_x, tuple(int(v) for v in padding),
                                                  value)


_pad_constant = R.PadV3("constant", True)
_PAD_PRIMS = {mode: R.PadV3(prim_mode, True) for mode, prim_mode in _PAD_MODES.items()}


# ---- interpolate ---------------------------------------------------------------------------
_NEAREST = R.ResizeNearestNeighborV2(False, False)
_BILINEAR = {False: R.ResizeBilinearV2(False, True), True: R.ResizeBilinearV2(True, False)}
_MODES = ("nearest", "linear", "bilinear", "bicubic", "area", "nearest-exact", "trilinear")
_RANKS = {"nearest": (3, 4, 5), "linear": (3,), "bilinear": (4,), "area": (3, 4)}


def _interp_size(input, size, scale_factor, mode, recompute_scale_factor):
    rank = input.ndim
    spatial = rank - 2
    if size is not None and scale_factor is not None:
        raise ValueError("For 'interpolate', 'size' and 'scale_factor' cannot be set "
                         "simultaneously")
    if size is None and scale_factor is None:
        raise ValueError("For 'interpolate', 'size' and 'scale_factor' cannot be both empty")
    if size is not None:
        if recompute_scale_factor:
            raise ValueError("For 'interpolate', it is incorrect to set "
                             "'recompute_scale_factor' to True after specifying an explicit "
                             "'size'.")
        size = (size,) * spatial if _is_int(size) else size
        if not isinstance(size, (tuple, list)):
            raise TypeError(f"For 'interpolate', the 'size' must be int, but got "
                            f"'{type(size).__name__}'")
        if len(size) != spatial:
            raise ValueError(f"For 'interpolate', 'input' and 'size' must have the same spatial "
                             f"dimensions, but got 'input' is {spatial}D, 'size' is "
                             f"{len(size)}D")
        for i, s in enumerate(size):
            if not _is_int(s):
                raise TypeError(f"For 'interpolate', the 'size' must be int, but got "
                                f"'{type(s).__name__}'")
            if s <= 0:
                raise ValueError(f"For 'interpolate', the 'size[{i}]' must be int and must > 0, "
                                 f"but got '{s}' with type 'int'.")
        return tuple(int(s) for s in size)
    if not (recompute_scale_factor or mode == "area" or (mode == "nearest" and rank == 5)):
        raise ValueError(f"For 'interpolate', 'scale_factor' option cannot currently be set "
                         f"with the mode = {mode} and dim = {rank}D.")
    sf = (scale_factor,) * spatial if isinstance(scale_factor, numbers.Real) else scale_factor
    if not isinstance(sf, (tuple, list)) or len(sf) != spatial or not all(
            isinstance(s, numbers.Real) and not isinstance(s, bool) and s > 0 for s in sf):
        raise ValueError(f"For 'interpolate', 'scale_factor' must be a positive float or a "
                         f"tuple of {spatial} positive floats, but got {scale_factor!r}")
    out = tuple(int(math.floor(n * s)) for n, s in zip(input.shape[2:], sf))
    if min(out) <= 0:
        raise ValueError(f"For 'interpolate', 'scale_factor' {scale_factor!r} gives the empty "
                         f"output size {list(out)} for input {list(input.shape)}")
    return out


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None):
    """input (N, C, *spatial) resized to `size` (or floor(spatial * scale_factor)); see the
    module docstring for the modes. align_corners (linear modes only): map the corner pixels'
    centres onto each other; default False (half-pixel centres)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"For 'interpolate', 'input' must be a tensor, but got {type(input)}")
    key = _interp_key(input.shape, size, scale_factor, mode, align_corners,
                      recompute_scale_factor)
    plan = _INTERP_PLANS.get(key) if key is not None else None
    if plan is None:
        plan = _interp_plan(input, size, scale_factor, mode, align_corners,
                            recompute_scale_factor)
        if key is not None:
            remember(_INTERP_PLANS, key, plan)
    fn, arg = plan
    if arg is None:
        return fn(input)
    return fn(input, arg)


_INTERP_PLANS = {}      # the validated call of each argument combination (the checks run once)
_NUMBER_TYPES = (int, float)
_FLAG_TYPES = (bool, int, float, str, type(None))


def _interp_key(shape, size, scale_factor, mode, align_corners, recompute):
    """The plan cache key, or None where equal keys could behave differently (True == 1 and
    8 == 8.0, but a bool or float size is an error) or a flag of another type."""
    for v, types in ((size, (int,)), (scale_factor, _NUMBER_TYPES)):   # 8 == 8.0: an int size
        t = type(v)
        if t is tuple:
            for e in v:
                if type(e) not in types:
                    return None
        elif v is not None and t not in types:
            return None
    if type(mode) is not str or type(align_corners) not in _FLAG_TYPES or \
            type(recompute) not in _FLAG_TYPES:
        return None
    return (shape, size, type(scale_factor), scale_factor, mode, type(align_corners),
            align_corners, type(recompute), recompute)


def _interp_plan(input, size, scale_factor, mode, align_corners, recompute_scale_factor):
    """(fn, arg): interpolate's call as fn(input, arg) (fn(input) when arg is None), after
    every check of the call."""
    if mode not in _MODES:
        raise ValueError(f"For 'interpolate', 'mode' must be in '{list(_MODES)}', but got "
                         f"{mode}")
    if mode not in _RANKS:
        raise NotImplementedError(f"For 'interpolate', mode '{mode}' is not implemented in "
                                  f"mindlite (supported: {list(_RANKS)})")
    if input.ndim not in _RANKS[mode]:
        raise ValueError(f"For 'interpolate', {mode} only support '{list(_RANKS[mode])}'D, but "
                         f"got {input.ndim}D")
    if align_corners is not None and mode in ("nearest", "area"):
        raise ValueError(f"For 'interpolate', 'align_corners' option cannot currently be set "
                         f"with the mode = {mode}, and dim = {input.ndim}D")
    size = _interp_size(input, size, scale_factor, mode, recompute_scale_factor)
    corners = bool(align_corners)
    if mode == "nearest":
        return _NEAREST, size
    if mode == "bilinear":
        return _BILINEAR[corners], size
    if mode == "linear":
        return _prim(R.ResizeLinear1D, "align_corners" if corners else "half_pixel"), size
    if input.ndim == 3:
        return _adaptive_avg_1d, size[0]
    return _prim(PN.AdaptiveAvgPool2D, size), None


# ---- adaptive pooling ----------------------------------------------------------------------
def _adaptive_avg_1d(input, output_size):
    return _squeeze(_prim(PN.AdaptiveAvgPool2D, (1, output_size))(_unsqueeze(input, 2)), 2)


def adaptive_avg_pool1d(input, output_size):
    """Adaptive average pooling of input (N, C, L) to length output_size (cell i averages
    [floor(i L / out), ceil((i + 1) L / out)); MindSpore 2.10 demands out to divide L)."""
    _tensor("adaptive_avg_pool1d", "input", input)
    if input.ndim != 3:
        raise ValueError(f"For adaptive_avg_pool1d input must have 3 dim, but got "
                         f"{input.ndim}.")
    if not _is_int(output_size) or output_size < 1:
        raise ValueError(f"For 'adaptive_avg_pool1d', the 'output_size' must be int and must "
                         f">= 1, but got '{output_size}' with type "
                         f"'{type(output_size).__name__}'.")
    if input.shape[-1] % output_size:
        raise ValueError(f"For adaptive_avg_pool1d input's last dimension must be divisible by "
                         f"output size {output_size}, but got {input.shape[-1]}.")
    return _adaptive_avg_1d(input, int(output_size))


def adaptive_avg_pool2d(input, output_size):
    """Adaptive average pooling of input (C, H, W) or (N, C, H, W); output_size an int or a
    pair whose None entries keep that axis."""
    _tensor("adaptive_avg_pool2d", "input", input)
    if isinstance(output_size, list):
        output_size = tuple(output_size)
    return _prim(PN.AdaptiveAvgPool2D, output_size)(input)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Adaptive max pooling of input (C, H, W) or (N, C, H, W); with return_indices, also
    the int64 flat index h * W + w of each maximum."""
    _tensor("adaptive_max_pool2d", "input", input)
    if isinstance(output_size, list):
        output_size = tuple(output_size)
    out, argmax = _prim(PN.AdaptiveMaxPool2D, output_size)(input)
    return (out, argmax) if return_indices else out


# ---- 1-D pooling over a unit axis, 3-D pooling ---------------------------------------------
def _one(fn, arg, value, minimum):
    if isinstance(value, (tuple, list)) and len(value) == 1:
        value = value[0]
    if not _is_int(value) or value < minimum:
        raise ValueError(f"For '{fn}', '{arg}' must be an int >= {minimum} or a tuple of one, "
                         f"but got {value!r}")
    return int(value)


def _check_rank(fn, arg, x, rank):
    _tensor(fn, arg, x)
    if x.ndim != rank:
        raise ValueError(f"For '{fn}', '{arg}' must be a {rank}-D tensor, but got shape "
                         f"{list(x.shape)}")


def avg_pool1d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False,
               count_include_pad=True):
    """Average pooling of input_x (N, C, L), as avg_pool2d over a unit height."""
    _check_rank("avg_pool1d", "input_x", input_x, 3)
    k = _one("avg_pool1d", "kernel_size", kernel_size, 1)
    s = _one("avg_pool1d", "stride", stride, 1)
    p = _one("avg_pool1d", "padding", padding, 0)
    prim = _prim(P.AvgPool2D, (1, k), (1, s), (0, p), ceil_mode, count_include_pad, None)
    return _squeeze(prim(_unsqueeze(input_x, 2)), 2)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Max pooling of input (N, C, L) with -inf padding, as max_pool2d over a unit height;
    with return_indices also the int64 index of each maximum along L."""
    _check_rank("max_pool1d", "input", input, 3)
    k = _one("max_pool1d", "kernel_size", kernel_size, 1)
    s = k if stride is None else _one("max_pool1d", "stride", stride, 1)
    p = _one("max_pool1d", "padding", padding, 0)
    d = _one("max_pool1d", "dilation", dilation, 1)
    prim = _prim(P.MaxPoolWithArgmaxV2, (1, k), (1, s), (0, p), (1, d), ceil_mode)
    out, argmax = prim(_unsqueeze(input, 2))
    out = _squeeze(out, 2)
    return (out, _squeeze(argmax, 2)) if return_indices else out


def avg_pool3d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=0):
    """Average pooling of input_x (N, C, D, H, W); padding an int or 6 ints (head, tail,
    top, bottom, left, right)."""
    _check_rank("avg_pool3d", "input_x", input_x, 5)
    if isinstance(padding, list):
        padding = tuple(padding)
    return _prim(PN.AvgPool3D, kernel_size, stride, "pad", padding, ceil_mode,
                 count_include_pad, divisor_override or 0)(input_x)


def max_pool3d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Max pooling of x (N, C, D, H, W) with -inf padding; with return_indices also the int64
    flat index d * H * W + h * W + w of each maximum."""
    _check_rank("max_pool3d", "x", x, 5)
    args = [tuple(v) if isinstance(v, list) else v for v in (kernel_size, stride, padding,
                                                             dilation)]
    out, argmax = _prim(PN.MaxPool3DWithArgmax, *args, ceil_mode)(x)
    return (out, argmax) if return_indices else out
