"""Functional nn ops of MindSpore 2.10 on images and embeddings: pixel_shuffle,
pixel_unshuffle, channel_shuffle, unfold (im2col), fold (col2im), embedding, group_norm,
rms_norm, normalize, grid_sample, affine_grid.

unfold reads the zero-padded input with one GatherD at precomputed positions and fold adds
with one TensorScatterElements("add") at the same positions (the positions depend only on
shapes and are cached per signature), so the two are each other's adjoint and differentiable
through those primitives. grid_sample composes GatherD reads of the four (bilinear) or one
(nearest) neighbours with weights computed from the grid, differentiable in input and grid.
"""
import functools
import numbers

import numpy as np

from ...common import dtype as mstype
from ...common.tensor import Tensor

__all__ = ['pixel_shuffle', 'pixel_unshuffle', 'channel_shuffle', 'unfold', 'fold', 'fold_ext',
           'embedding', 'group_norm', 'rms_norm', 'normalize', 'grid_sample', 'affine_grid']


def _F():
    from .. import functional as F
    return F


def _tensor(op, arg, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{op}', '{arg}' must be a Tensor, but got {type(x).__name__}")
    return x


def _pair(op, name, v, minimum=0):
    v = (v, v) if isinstance(v, numbers.Integral) else tuple(v)
    if len(v) != 2 or any(not isinstance(e, numbers.Integral) or isinstance(e, bool) or
                          e < minimum for e in v):
        raise ValueError(f"For '{op}', '{name}' must be an int or a pair of ints >= {minimum}, "
                         f"but got {v!r}")
    return int(v[0]), int(v[1])


def pixel_shuffle(input, upscale_factor):
    """(*, C r^2, H, W) -> (*, C, H r, W r)."""
    F = _F()
    _tensor("pixel_shuffle", "input", input)
    r = upscale_factor
    if input.ndim < 3 or input.shape[-3] % (r * r):
        raise ValueError(f"For 'pixel_shuffle', the input must have rank >= 3 and channels "
                         f"divisible by {r * r}, but got shape {list(input.shape)}")
    *lead, c, h, w = input.shape
    y = F.reshape(input, (-1, c // (r * r), r, r, h, w))
    y = F.transpose(y, (0, 1, 4, 2, 5, 3))
    return F.reshape(y, tuple(lead) + (c // (r * r), h * r, w * r))


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H r, W r) -> (*, C r^2, H, W)."""
    F = _F()
    _tensor("pixel_unshuffle", "input", input)
    r = downscale_factor
    if input.ndim < 3 or input.shape[-1] % r or input.shape[-2] % r:
        raise ValueError(f"For 'pixel_unshuffle', the input must have rank >= 3 and H, W "
                         f"divisible by {r}, but got shape {list(input.shape)}")
    *lead, c, h, w = input.shape
    y = F.reshape(input, (-1, c, h // r, r, w // r, r))
    y = F.transpose(y, (0, 1, 3, 5, 2, 4))
    return F.reshape(y, tuple(lead) + (c * r * r, h // r, w // r))


def channel_shuffle(x, groups):
    """(N, C, ...) with its channels regrouped: (g, C/g) -> (C/g, g)."""
    F = _F()
    _tensor("channel_shuffle", "x", x)
    n, c = x.shape[0], x.shape[1]
    if c % groups:
        raise ValueError(f"For 'channel_shuffle', the channels {c} must be divisible by "
                         f"'groups' {groups}")
    rest = x.shape[2:]
    y = F.reshape(x, (n, groups, c // groups) + rest)
    y = F.swapaxes(y, 1, 2)
    return F.reshape(y, x.shape)


@functools.lru_cache(maxsize=128)
def _patch_positions(h, w, kernel, dilation, padding, stride):
    """Flat positions in the padded (H + 2p) x (W + 2p) image of every (kernel offset, output
    position): shape (kh kw, L); and the output grid (out_h, out_w)."""
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = kernel, dilation, padding, stride
    hp, wp = h + 2 * ph, w + 2 * pw
    oh = (hp - dh * (kh - 1) - 1) // sh + 1
    ow = (wp - dw * (kw - 1) - 1) // sw + 1
    if oh <= 0 or ow <= 0:
        raise ValueError(f"For 'unfold'/'fold', the kernel {kernel} with dilation {dilation} "
                         f"does not fit the padded input {hp} x {wp}")
    i = np.arange(kh)[:, None, None, None] * dh + np.arange(oh)[None, None, :, None] * sh
    j = np.arange(kw)[None, :, None, None] * dw + np.arange(ow)[None, None, None, :] * sw
    pos = (i * wp + j).reshape(kh * kw, oh * ow)
    return pos, (oh, ow), (hp, wp)


def _unfold_args(op, kernel_size, dilation, padding, stride):
    return (_pair(op, "kernel_size", kernel_size, 1), _pair(op, "dilation", dilation, 1),
            _pair(op, "padding", padding, 0), _pair(op, "stride", stride, 1))


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """im2col: (N, C, H, W) -> (N, C kh kw, L), the patches' elements in (c, i, j) order."""
    F = _F()
    _tensor("unfold", "input", input)
    if input.ndim != 4:
        raise ValueError(f"For 'unfold', 'input' must be 4-D (N, C, H, W), but got shape "
                         f"{list(input.shape)}")
    k, d, p, s = _unfold_args("unfold", kernel_size, dilation, padding, stride)
    n, c, h, w = input.shape
    pos, (oh, ow), (hp, wp) = _patch_positions(h, w, k, d, p, s)
    x = F.pad(input, (p[1], p[1], p[0], p[0])) if any(p) else input
    flat = F.reshape(x, (n, c, hp * wp))
    index = Tensor(np.broadcast_to(pos.reshape(1, 1, -1), (n, c, pos.size)).astype(np.int64))
    cols = F.gather_elements(flat, 2, index)
    return F.reshape(cols, (n, c * k[0] * k[1], oh * ow))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """col2im: (N, C kh kw, L) -> (N, C, H, W), overlapping patch elements summed;
    output_size a 1-D int Tensor of 2 (as MindSpore's Col2Im)."""
    if not isinstance(output_size, Tensor):
        raise TypeError(f"For Primitive[Col2Im], the type of input argument[output_size] must "
                        f"be Tensor but got {type(output_size).__name__}")
    size = tuple(int(v) for v in output_size.asnumpy().reshape(-1))
    return fold_ext(input, size, kernel_size, dilation, padding, stride)


def fold_ext(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """fold with output_size an int or a pair of ints (mint.nn.functional.fold)."""
    F = _F()
    _tensor("fold", "input", input)
    k, d, p, s = _unfold_args("fold", kernel_size, dilation, padding, stride)
    h, w = _pair("fold", "output_size", output_size, 1)
    if input.ndim != 3 or input.shape[1] % (k[0] * k[1]):
        raise ValueError(f"For 'fold', 'input' must be (N, C kh kw, L), but got shape "
                         f"{list(input.shape)}")
    n = input.shape[0]
    c = input.shape[1] // (k[0] * k[1])
    pos, (oh, ow), (hp, wp) = _patch_positions(h, w, k, d, p, s)
    if input.shape[2] != oh * ow:
        raise ValueError(f"For 'fold', 'input' must have {oh * ow} blocks (L) for this output "
                         f"size, but got {input.shape[2]}")
    index = Tensor(np.broadcast_to(pos.reshape(1, 1, -1), (n, c, pos.size)).astype(np.int64))
    upd = F.reshape(input, (n, c, pos.size))
    out = F.scatter_add_ext(F.zeros((n, c, hp * wp), input.dtype), 2, index, upd)
    out = F.reshape(out, (n, c, hp, wp))
    if any(p):
        out = out[:, :, p[0]:p[0] + h, p[1]:p[1] + w]
    return out


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False):
    """weight's rows at the int `input` indices; rows with a norm above max_norm are scaled
    down to it (in weight too, as PyTorch); the padding_idx row gets no gradient."""
    F = _F()
    _tensor("embedding", "input", input)
    _tensor("embedding", "weight", weight)
    if input.dtype not in mstype.INT_TYPES:
        raise TypeError(f"For 'embedding', 'input' must be an int Tensor, but got {input.dtype}")
    if max_norm is not None:
        idx = np.unique(input.asnumpy().reshape(-1))
        rows = F.gather(weight, Tensor(idx), 0)
        norms = F.vector_norm(rows, norm_type, 1, True)
        scale = F.where(F.greater(norms, max_norm), F.div(max_norm, F.add(norms, 1e-7)),
                        F.ones_like(norms))
        weight.copy_(F.tensor_scatter_update(weight, Tensor(idx.reshape(-1, 1)),
                                             F.stop_gradient(F.mul(rows, scale))))
    out = F.gather(weight, input, 0)
    if padding_idx is not None:
        pad = F.expand_dims(F.equal(input, padding_idx), -1)
        out = F.where(pad, F.stop_gradient(out), out)
    return out


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):
    """(x - mean) / sqrt(var + eps) over each group of channels (and all other dims), then
    scaled by weight and shifted by bias per channel."""
    F = _F()
    _tensor("group_norm", "input", input)
    n, c = input.shape[0], input.shape[1]
    if c % num_groups:
        raise ValueError(f"For 'group_norm', the channels {c} must be divisible by "
                         f"'num_groups' {num_groups}")
    x = F.reshape(input, (n, num_groups, -1))
    mean = F.mean(x, 2, True)
    var = F.mean(F.square(F.sub(x, mean)), 2, True)
    y = F.reshape(F.div(F.sub(x, mean), F.sqrt(F.add(var, eps))), input.shape)
    shape = (1, c) + (1,) * (input.ndim - 2)
    if weight is not None:
        y = F.mul(y, F.reshape(weight, shape))
    if bias is not None:
        y = F.add(y, F.reshape(bias, shape))
    return y


def rms_norm(x, gamma, epsilon=1e-06):
    """(x / sqrt(mean(x^2 over gamma's dims) + eps) * gamma, the reciprocal RMS)."""
    F = _F()
    _tensor("rms_norm", "x", x)
    _tensor("rms_norm", "gamma", gamma)
    dims = tuple(range(x.ndim - gamma.ndim, x.ndim))
    rstd = F.rsqrt(F.add(F.mean(F.square(x), dims, True), epsilon))
    return F.mul(F.mul(x, rstd), gamma), rstd


def normalize(input, p=2.0, dim=1, eps=1e-12):
    """input / max(||input||_p along dim, eps)."""
    F = _F()
    _tensor("normalize", "input", input)
    norm = F.vector_norm(input, p, dim, True)
    return F.div(input, F.maximum(norm, eps))


def _unnormalize(F, coord, size, align_corners):
    if align_corners:
        return F.mul(F.add(coord, 1.0), (size - 1) / 2.0)
    return F.div(F.sub(F.mul(F.add(coord, 1.0), float(size)), 1.0), 2.0)


def _reflect(F, coord, size, align_corners):
    lo, span = (0.0, float(size - 1)) if align_corners else (-0.5, float(size))
    if span <= 0:
        return F.zeros_like(coord)
    c = F.abs(F.sub(coord, lo))
    flips = F.floor(F.div(c, span))
    extra = F.sub(c, F.mul(flips, span))
    even = F.equal(F.floor_mod(flips, 2.0), 0.0)
    out = F.where(even, F.add(extra, lo), F.sub(span + lo, extra))
    return F.clamp(out, 0.0, float(size - 1))


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Samples of the 4-D input (N, C, H, W) at the normalized (x, y) locations of grid
    (N, Ho, Wo, 2) ([-1, 1] spans the input), bilinear or nearest; outside the input:
    zeros, the border value, or the reflection."""
    F = _F()
    _tensor("grid_sample", "input", input)
    _tensor("grid_sample", "grid", grid)
    if input.ndim != 4 or grid.ndim != 4 or grid.shape[-1] != 2 or \
            grid.shape[0] != input.shape[0]:
        raise ValueError(f"For 'grid_sample', 'input' must be (N, C, H, W) and 'grid' "
                         f"(N, Ho, Wo, 2), but got {list(input.shape)} and {list(grid.shape)}")
    if mode not in ("bilinear", "nearest") or \
            padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"For 'grid_sample', 'mode' must be 'bilinear' or 'nearest' and "
                         f"'padding_mode' 'zeros', 'border' or 'reflection', but got {mode!r} "
                         f"and {padding_mode!r}")
    ac = bool(align_corners)
    n, c, h, w = input.shape
    ho, wo = grid.shape[1], grid.shape[2]
    gx = _unnormalize(F, grid[..., 0], w, ac)
    gy = _unnormalize(F, grid[..., 1], h, ac)
    if padding_mode == "border":
        gx, gy = F.clamp(gx, 0.0, w - 1.0), F.clamp(gy, 0.0, h - 1.0)
    elif padding_mode == "reflection":
        gx, gy = _reflect(F, gx, w, ac), _reflect(F, gy, h, ac)
    flat = F.reshape(input, (n, c, h * w))

    def tap(ix, iy, weight):
        inside = F.logical_and(F.logical_and(F.greater_equal(ix, 0), F.less(ix, w)),
                               F.logical_and(F.greater_equal(iy, 0), F.less(iy, h)))
        pos = F.add(F.mul(F.clamp(iy, 0, h - 1), w), F.clamp(ix, 0, w - 1))
        index = F.broadcast_to(F.reshape(F.cast(pos, mstype.int64), (n, 1, ho * wo)),
                               (n, c, ho * wo))
        vals = F.reshape(F.gather_elements(flat, 2, index), (n, c, ho, wo))
        wgt = F.where(inside, weight, F.zeros_like(weight))
        return F.mul(vals, F.expand_dims(wgt, 1))

    if mode == "nearest":
        ix, iy = F.round(gx), F.round(gy)
        return tap(ix, iy, F.ones_like(gx))
    x0, y0 = F.floor(gx), F.floor(gy)
    x1, y1 = F.add(x0, 1.0), F.add(y0, 1.0)
    wx1, wy1 = F.sub(gx, x0), F.sub(gy, y0)
    wx0, wy0 = F.sub(1.0, wx1), F.sub(1.0, wy1)
    out = tap(x0, y0, F.mul(wx0, wy0))
    out = F.add(out, tap(x1, y0, F.mul(wx1, wy0)))
    out = F.add(out, tap(x0, y1, F.mul(wx0, wy1)))
    return F.add(out, tap(x1, y1, F.mul(wx1, wy1)))


def affine_grid(theta, size, align_corners=False):
    """The (N, H, W, 2) sampling grid of the 2-D affine maps theta (N, 2, 3) for an output
    of size (N, C, H, W)."""
    F = _F()
    _tensor("affine_grid", "theta", theta)
    n, _, h, w = size

    def base(k):
        if align_corners:
            return np.linspace(-1.0, 1.0, k) if k > 1 else np.zeros(1)
        return (np.arange(k) * 2.0 + 1.0) / k - 1.0
    ys, xs = np.meshgrid(base(h), base(w), indexing="ij")
    coords = np.stack([xs, ys, np.ones_like(xs)], -1).reshape(1, h * w, 3)
    coords = Tensor(np.broadcast_to(coords, (n, h * w, 3)).astype(theta.dtype.np))
    out = F.bmm(coords, F.swapaxes(theta, 1, 2))
    return F.reshape(out, (n, h, w, 2))
