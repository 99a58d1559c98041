"""Functional adaptive pooling and unpooling of MindSpore 2.10: adaptive_avg_pool3d,
adaptive_max_pool1d, max_unpool1d, max_unpool2d, max_unpool3d, lp_pool1d, lp_pool2d.

Adaptive average pooling is separable: along each pooled axis it is a product with an
(out, in) averaging matrix (window i spans [floor(i in / out), ceil((i + 1) in / out))), so
adaptive_avg_pool3d is three MatMuls. Adaptive max pooling gathers each window (padded to the
longest with -inf) and reduces it. Unpooling scatters the values to their flat indices in a
zero output. All compose primitives, so gradients are theirs.
"""
import functools

import numpy as np

from ...common import dtype as mstype
from ...common.tensor import Tensor

__all__ = ['adaptive_avg_pool3d', 'adaptive_max_pool1d', 'adaptive_max_pool1d_ext',
           'max_unpool1d', 'max_unpool2d', 'max_unpool3d', 'lp_pool1d', 'lp_pool2d']


def _F():
    from .. import functional as F
    return F


def _tensor(op, arg, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{op}', '{arg}' must be a Tensor, but got {type(x).__name__}")
    return x


@functools.lru_cache(maxsize=256)
def _windows(n_in, n_out):
    starts = [(i * n_in) // n_out for i in range(n_out)]
    ends = [-(-((i + 1) * n_in) // n_out) for i in range(n_out)]
    return tuple(starts), tuple(ends)


def _avg_matrix(n_in, n_out, dtype):
    starts, ends = _windows(n_in, n_out)
    m = np.zeros((n_out, n_in), dtype)
    for i, (s, e) in enumerate(zip(starts, ends)):
        m[i, s:e] = 1.0 / (e - s)
    return Tensor(m)


def _sizes(op, output_size, spatial, k):
    size = (output_size,) * k if isinstance(output_size, int) else tuple(output_size)
    if len(size) != k:
        raise ValueError(f"For '{op}', 'output_size' must be an int or {k} ints, but got "
                         f"{output_size!r}")
    return tuple(spatial[i] if s is None else int(s) for i, s in enumerate(size))


def adaptive_avg_pool3d(input, output_size):
    """(N, C, D, H, W) or (C, D, H, W) averaged over adaptive windows to output_size."""
    F = _F()
    _tensor("adaptive_avg_pool3d", "input", input)
    if input.ndim not in (4, 5):
        raise ValueError(f"For 'adaptive_avg_pool3d', 'input' must be 4-D or 5-D, but got "
                         f"{input.ndim}-D")
    if input.dtype.kind != "f":
        raise TypeError(f"For 'adaptive_avg_pool3d', 'input' must be float, but got "
                        f"{input.dtype}")
    out = _sizes("adaptive_avg_pool3d", output_size, input.shape[-3:], 3)
    x = input
    for axis, n_out in zip((-3, -2, -1), out):
        n_in = x.shape[axis]
        x = F.swapaxes(x, axis, -1)
        x = F.matmul(x, F.transpose(_avg_matrix(n_in, n_out, input.dtype.np), (1, 0)))
        x = F.swapaxes(x, axis, -1)
    return x


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """ops.adaptive_max_pool1d: as adaptive_max_pool1d_ext, with MindSpore 2.10's demand that
    output_size divide the length."""
    if isinstance(input, Tensor) and isinstance(output_size, int) and input.ndim and \
            input.shape[-1] % output_size:
        raise ValueError(f"For adaptive_max_pool1d input's last dimension must be divisible by "
                         f"output size {output_size}, but got {input.shape[-1]}.")
    return adaptive_max_pool1d_ext(input, output_size, return_indices)


def adaptive_max_pool1d_ext(input, output_size, return_indices=False):
    """(N, C, L) or (C, L) -> the maximum of each adaptive window (and its int64 index)."""
    F = _F()
    _tensor("adaptive_max_pool1d", "input", input)
    if input.ndim not in (2, 3):
        raise ValueError(f"For 'adaptive_max_pool1d', 'input' must be 2-D or 3-D, but got "
                         f"{input.ndim}-D")
    n_in = input.shape[-1]
    n_out = _sizes("adaptive_max_pool1d", output_size, (n_in,), 1)[0]
    starts, ends = _windows(n_in, n_out)
    k = max(e - s for s, e in zip(starts, ends))
    idx = np.array([[min(s + j, e - 1) for j in range(k)] for s, e in zip(starts, ends)],
                   np.int64)
    lead = input.shape[:-1]
    index = Tensor(np.broadcast_to(idx.reshape(-1), lead + (idx.size,)).copy())
    vals = F.reshape(F.gather_elements(input, input.ndim - 1, index), lead + (n_out, k))
    values, pos = F.max(vals, vals.ndim - 1)
    if not return_indices:
        return values
    where = F.gather_elements(F.reshape(index, lead + (n_out, k)), vals.ndim - 1,
                              F.expand_dims(pos, -1))
    return values, F.squeeze(where, -1)


def _unpool(op, x, indices, kernel_size, stride, padding, output_size, k):
    F = _F()
    _tensor(op, "x", x)
    _tensor(op, "indices", indices)
    ks = (kernel_size,) * k if isinstance(kernel_size, int) else tuple(kernel_size)
    st = ks if stride is None else ((stride,) * k if isinstance(stride, int) else tuple(stride))
    pd = (padding,) * k if isinstance(padding, int) else tuple(padding)
    spatial = x.shape[-k:]
    if output_size is None:
        out = tuple((spatial[i] - 1) * st[i] - 2 * pd[i] + ks[i] for i in range(k))
    else:
        out = tuple(output_size)[-k:]
    lead = x.shape[:-k]
    flat_n = int(np.prod(out))
    vals = F.reshape(x, lead + (-1,))
    idx = F.reshape(F.cast(indices, mstype.int64), lead + (-1,))
    zeros = F.zeros(lead + (flat_n,), x.dtype)
    res = F.scatter_reduce_ext(zeros, vals.ndim - 1, idx, vals)
    return F.reshape(res, lead + out)


def max_unpool1d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of max_pool1d: x's values placed at their flat `indices` in zeros."""
    return _unpool("max_unpool1d", x, indices, kernel_size, stride, padding, output_size, 1)


def max_unpool2d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _unpool("max_unpool2d", x, indices, kernel_size, stride, padding, output_size, 2)


def max_unpool3d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    return _unpool("max_unpool3d", x, indices, kernel_size, stride, padding, output_size, 3)


def lp_pool1d(x, norm_type, kernel_size, stride=None, ceil_mode=False):
    """(sum over each window of x^p)^(1/p)."""
    F = _F()
    s = kernel_size if stride is None else stride
    pooled = F.avg_pool1d(F.pow(x, float(norm_type)), kernel_size, s, 0, ceil_mode)
    return F.pow(F.mul(pooled, float(kernel_size)), 1.0 / float(norm_type))


def lp_pool2d(x, norm_type, kernel_size, stride=None, ceil_mode=False):
    F = _F()
    ks = (kernel_size, kernel_size) if isinstance(kernel_size, int) else tuple(kernel_size)
    s = ks if stride is None else stride
    pooled = F.avg_pool2d(F.pow(x, float(norm_type)), ks, s, 0, ceil_mode)
    return F.pow(F.mul(pooled, float(ks[0] * ks[1])), 1.0 / float(norm_type))
