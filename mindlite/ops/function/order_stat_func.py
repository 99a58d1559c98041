"""Functional order statistics, counts and NaN-aware reductions of MindSpore 2.10: median,
nanmedian, quantile, nanquantile, kthvalue, msort, searchsorted, bucketize,
unique_consecutive, histc, bincount, argwhere, nansum, nanmean, aminmax, logcumsumexp, cov,
renorm, take.

The order statistics read a Sort along the axis (NaN sorts last) and pick or interpolate
positions with GatherD, so values are differentiable through Sort's bprop; the counting ops
(searchsorted, histc, bincount, unique_consecutive) run search_ops' primitives.
"""
import builtins
import numbers

import numpy as np

from ...common import dtype as mstype
from ...common.tensor import Tensor
from ..operations import search_ops as SR
from ._typed_prims import typed_prim as _prim

__all__ = ['median', 'nanmedian', 'quantile', 'nanquantile', 'kthvalue', 'msort',
           'searchsorted', 'bucketize', 'unique_consecutive', 'histc', 'bincount', 'argwhere',
           'nansum', 'nanmean', 'aminmax', 'logcumsumexp', 'cov', 'renorm', 'take', 'unique_ext']


def _F():
    from .. import functional as F
    return F


def _tensor(op, arg, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{op}', '{arg}' must be a Tensor, but got {type(x).__name__}")
    return x


def _axis(op, axis, ndim):
    if not isinstance(axis, numbers.Integral) or isinstance(axis, bool):
        raise TypeError(f"For '{op}', 'axis' must be an int, but got {axis!r}")
    lim = builtins.max(ndim, 1)
    if not -lim <= axis < lim:
        raise ValueError(f"For '{op}', 'axis' must be in [{-lim}, {lim}), but got {axis}")
    return int(axis) % lim


def _pick(F, sorted_x, idx, axis, pos, keepdims):
    """The sorted values (and original int64 indices) at the per-row positions `pos`."""
    values = F.gather_elements(sorted_x, axis, pos)
    index = F.cast(F.gather_elements(idx, axis, pos), mstype.int64)
    if not keepdims:
        values, index = F.squeeze(values, axis), F.squeeze(index, axis)
    return values, index


def _position(F, x, axis, k):
    shape = list(x.shape)
    shape[axis] = 1
    return F.fill(mstype.int64, tuple(shape), k) if isinstance(k, int) else k


def median(input, axis=-1, keepdims=False):
    """(values, indices) of the median along axis (the lower of the two middle values for an
    even count); a 0-D input is its own median."""
    F = _F()
    _tensor("median", "input", input)
    if input.ndim == 0:
        return input, Tensor(0, mstype.int64)
    axis = _axis("median", axis, input.ndim)
    sx, idx = F.sort(input, axis)
    return _pick(F, sx, idx, axis, _position(F, input, axis, (input.shape[axis] - 1) // 2),
                 keepdims)


def _valid_count(F, x, axis):
    return F.sum(F.cast(F.logical_not(F.isnan(x)), mstype.int64), axis, True)


def nanmedian(input, axis=-1, keepdims=False):
    """median ignoring NaN (NaN where a row is all NaN)."""
    F = _F()
    _tensor("nanmedian", "input", input)
    if input.ndim == 0:
        return input, Tensor(0, mstype.int64)
    axis = _axis("nanmedian", axis, input.ndim)
    sx, idx = F.sort(input, axis)
    k = _valid_count(F, input, axis)
    pos = F.floor_divide(F.maximum(F.sub(k, 1), 0), 2)
    return _pick(F, sx, idx, axis, pos, keepdims)


def _quantile(op, input, q, axis, keepdims, ignore_nan):
    F = _F()
    _tensor(op, "input", input)
    if input.dtype not in (mstype.float32, mstype.float64):
        raise TypeError(f"For '{op}', 'input' must be float32 or float64, but got {input.dtype}")
    qs = q.asnumpy() if isinstance(q, Tensor) else np.asarray(q, np.float64)
    if qs.ndim > 1 or np.any((qs < 0) | (qs > 1)):
        raise ValueError(f"For '{op}', 'q' must be a scalar or 1-D with values in [0, 1], but "
                         f"got {q!r}")
    x = F.reshape(input, (-1,)) if axis is None else input
    ax = 0 if axis is None else _axis(op, axis, input.ndim)
    sx, _ = F.sort(x, ax)
    n = _valid_count(F, x, ax) if ignore_nan else x.shape[ax]
    outs = []
    for qv in np.atleast_1d(qs).astype(np.float64):
        if ignore_nan:
            pos = F.mul(F.cast(F.maximum(F.sub(n, 1), 0), x.dtype), float(qv))
        else:
            pos = F.fill(x.dtype, tuple(1 if i == ax else d for i, d in enumerate(x.shape)),
                         float(qv) * builtins.max(n - 1, 0))
        lo = F.cast(F.floor(pos), mstype.int64)
        hi = F.cast(F.ceil(pos), mstype.int64)
        frac = F.sub(pos, F.floor(pos))
        vlo, vhi = F.gather_elements(sx, ax, lo), F.gather_elements(sx, ax, hi)
        val = F.add(vlo, F.mul(F.sub(vhi, vlo), frac))
        if axis is None:
            val = F.reshape(val, (1,) * input.ndim if keepdims else ())
        elif not keepdims:
            val = F.squeeze(val, ax)
        outs.append(val)
    return outs[0] if np.ndim(qs) == 0 else F.stack(outs, 0)


def quantile(input, q, axis=None, keepdims=False):
    """The q-th quantiles (linear interpolation between the sorted values), over the
    flattened input for axis None; a 1-D q adds a leading dim."""
    return _quantile("quantile", input, q, axis, keepdims, False)


def nanquantile(input, q, axis=None, keepdims=False):
    return _quantile("nanquantile", input, q, axis, keepdims, True)


def kthvalue(input, k, dim=-1, keepdim=False):
    """(values, int64 indices) of the k-th smallest element along dim (k from 1)."""
    F = _F()
    _tensor("kthvalue", "input", input)
    dim = _axis("kthvalue", dim, input.ndim)
    n = input.shape[dim] if input.ndim else 1
    if not isinstance(k, int) or not 1 <= k <= n:
        raise ValueError(f"For 'kthvalue', 'k' must be in [1, {n}], but got {k!r}")
    x = input if input.ndim else F.reshape(input, (1,))
    sx, idx = F.sort(x, dim)
    values, index = _pick(F, sx, idx, dim, _position(F, x, dim, k - 1), keepdim)
    if input.ndim == 0:
        return F.reshape(values, ()), F.reshape(index, ())
    return values, index


def msort(input):
    """input sorted along dim 0."""
    return _F().sort(_tensor("msort", "input", input), 0)[0]


def searchsorted(sorted_sequence, values, *, out_int32=False, right=False, side=None,
                 sorter=None):
    """For each value, the index where it goes into its row of sorted_sequence (after equal
    entries with right=True or side='right'); `sorter` sorts the sequence first."""
    F = _F()
    _tensor("searchsorted", "sorted_sequence", sorted_sequence)
    if side is not None:
        if side not in ("left", "right"):
            raise ValueError(f"For 'searchsorted', 'side' must be 'left' or 'right', but got "
                             f"{side!r}")
        if right and side == "left":
            raise ValueError("For 'searchsorted', 'right' and side='left' contradict each other")
        right = side == "right"
    if sorter is not None:
        sorted_sequence = F.gather_elements(sorted_sequence, sorted_sequence.ndim - 1, sorter)
    scalar = not isinstance(values, Tensor)
    v = Tensor(np.asarray(values, sorted_sequence.dtype.np)) if scalar else values
    dtype = mstype.int32 if out_int32 else mstype.int64
    if v.dtype is not sorted_sequence.dtype:
        v = F.cast(v, sorted_sequence.dtype)
    return _prim(SR.SearchSorted, dtype, bool(right))(sorted_sequence, v)


def bucketize(input, boundaries, *, right=False):
    """The bucket (an index into the sorted `boundaries`, a list of numbers) of each element;
    int32."""
    bounds = Tensor(np.asarray(boundaries, np.float64)).astype(
        input.dtype if input.dtype.kind == "f" else mstype.float32)
    return searchsorted(bounds, input if input.dtype.kind == "f" else
                        input.astype(mstype.float32), out_int32=True, right=right)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """input with runs of equal consecutive values (or slices along axis) kept once; with
    return_idx / return_counts also the inverse indices / run lengths."""
    _tensor("unique_consecutive", "input", input)
    out, inv, counts = _prim(SR.UniqueConsecutive, dim)(input)
    if return_inverse and return_counts:
        return out, inv, counts
    if return_inverse:
        return out, inv
    if return_counts:
        return out, counts
    return out


def histc(input, bins=100, min=0.0, max=0.0):
    """Counts of input's elements in `bins` equal-width bins over [min, max] (both 0: the
    data's range)."""
    _tensor("histc", "input", input)
    return _prim(SR.Histogram, bins, float(min), float(max))(input)


def bincount(input, weights=None, minlength=0):
    """As MindSpore 2.10's ops.bincount: y[v] (float32) counts the elements of the 1-D input
    equal to v (or sums their weights) for v < max(max(input) + 1, minlength); negative and
    non-integral values (float input) count nowhere."""
    F = _F()
    _tensor("bincount", "input", input)
    if weights is not None and not isinstance(weights, Tensor):
        raise TypeError(f"For 'bincount', 'weights' must be a Tensor, but got "
                        f"{type(weights).__name__}")
    if not isinstance(minlength, numbers.Integral) or isinstance(minlength, bool):
        raise TypeError(f"For 'bincount', 'minlength' must be an int, but got {minlength!r}")
    if input.ndim != 1:
        raise ValueError(f"For 'bincount', 'input' must be 1-D, but got shape "
                         f"{list(input.shape)}")
    if input.shape[0] == 0:
        return F.zeros((0,), mstype.float32)
    if minlength < 0:
        raise ValueError(f"For 'bincount', 'minlength' must be >= 0, but got {minlength}")
    weighted = weights is not None
    return _prim(SR.Bincount, int(minlength), weighted, True)(input,
                                                                weights if weighted else input)


def argwhere(input):
    """The (N, ndim) int64 coordinates of the nonzero elements."""
    return _F().nonzero(_tensor("argwhere", "input", input))


def nansum(input, axis=None, keepdims=False, *, dtype=None):
    """sum treating NaN as 0."""
    F = _F()
    _tensor("nansum", "input", input)
    x = F.cast(input, dtype) if dtype is not None else input
    if x.dtype.kind in "fc":
        x = F.masked_fill(x, F.isnan(x), 0.0)
    return F.sum(x, () if axis is None else axis, keepdims)


def nanmean(input, axis=None, keepdims=False, *, dtype=None):
    """mean over the non-NaN elements."""
    F = _F()
    _tensor("nanmean", "input", input)
    x = F.cast(input, dtype) if dtype is not None else input
    total = nansum(x, axis, keepdims)
    count = F.sum(F.cast(F.logical_not(F.isnan(x)), x.dtype), () if axis is None else axis,
                  keepdims)
    return F.div(total, count)


def aminmax(input, *, axis=0, keepdims=False):
    """(minimum, maximum) along axis."""
    F = _F()
    _tensor("aminmax", "input", input)
    return F.amin(input, axis, keepdims), F.amax(input, axis, keepdims)


def logcumsumexp(input, axis):
    """log(cumsum(exp(input))) along axis, shifted by the axis maximum against overflow."""
    F = _F()
    _tensor("logcumsumexp", "input", input)
    axis = _axis("logcumsumexp", axis, input.ndim)
    m = F.stop_gradient(F.amax(input, axis, True))
    m = F.masked_fill(m, F.isinf(m), 0.0)
    return F.add(F.log(F.cumsum(F.exp(F.sub(input, m)), axis)), m)


def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the variables in input's rows (observations in columns),
    with frequency / analytic weights."""
    F = _F()
    _tensor("cov", "input", input)
    x = F.reshape(input, (1, -1)) if input.ndim < 2 else input
    if x.dtype.kind not in "fc":
        x = F.cast(x, mstype.float32)
    n = x.shape[1]
    w = None
    if fweights is not None:
        w = F.cast(fweights, x.dtype)
    if aweights is not None:
        a = F.cast(aweights, x.dtype)
        w = a if w is None else F.mul(w, a)
    if w is None:
        wsum = float(n)
        mean = F.mean(x, 1, True)
        norm = wsum - correction
    else:
        wsum = F.sum(w)
        mean = F.div(F.sum(F.mul(x, w), 1, True), wsum)
        if aweights is None or correction == 0:
            norm = F.sub(wsum, correction)
        else:
            norm = F.sub(wsum, F.div(F.mul(F.sum(F.mul(w, F.cast(aweights, x.dtype))),
                                           correction), wsum))
    xc = F.sub(x, mean)
    xw = xc if w is None else F.mul(xc, w)
    c = F.div(F.matmul(xw, F.conj(F.transpose(xc, (1, 0))) if xc.dtype.kind == "c"
                       else F.transpose(xc, (1, 0))), F.maximum(norm, 0) if isinstance(
                           norm, Tensor) else builtins.max(norm, 0))
    return F.reshape(c, ()) if input.ndim < 2 else c


def renorm(input, p, axis, maxnorm):
    """Each slice along axis whose p-norm exceeds maxnorm scaled down to norm maxnorm."""
    F = _F()
    _tensor("renorm", "input", input)
    axis = _axis("renorm", axis, input.ndim)
    others = tuple(d for d in range(input.ndim) if d != axis)
    norm = F.pow(F.sum(F.pow(F.abs(input), float(p)), others, True), 1.0 / float(p))
    scale = F.where(F.greater(norm, maxnorm), F.div(maxnorm, F.add(norm, 1e-7)),
                    F.ones_like(norm))
    return F.mul(input, scale)


def take(input, index):
    """input read flat at `index` (any int shape; negative counts from the end)."""
    F = _F()
    _tensor("take", "input", input)
    _tensor("take", "index", index)
    flat = F.reshape(input, (-1,))
    n = flat.shape[0]
    idx = F.cast(index, mstype.int64)
    if index.size:
        lo, hi = int(index.asnumpy().min()), int(index.asnumpy().max())
        if lo < -n or hi >= n:
            raise IndexError(f"For 'take', 'index' values must be in [{-n}, {n}), but got "
                             f"{lo if lo < -n else hi}")
        if lo < 0:
            idx = F.where(F.less(idx, 0), F.add(idx, n), idx)
    return F.gather(flat, idx, 0)


def unique_ext(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct elements (dim None: of the flattened input, sorted unless sorted=False:
    then in order of first appearance) or distinct slices along dim (always sorted), with
    the inverse indices and counts (int64) on request (Tensor.unique)."""
    F = _F()
    _tensor("unique", "input", input)
    if dim is None:
        y, inv = F.unique(F.reshape(input, (-1,)))
        inv = F.cast(inv, mstype.int64)
        if sorted:
            order = F.argsort(y)
            y = F.gather(y, order, 0)
            inv = F.gather(F.cast(F.argsort(order), mstype.int64), inv, 0)
        inv = F.reshape(inv, input.shape)
        counts = None
        if return_counts:
            counts = F.cast(bincount(F.reshape(inv, (-1,)), minlength=y.shape[0]), mstype.int64)
    else:
        axis = _axis("unique", dim, input.ndim)
        _, first, inv_np, counts_np = np.unique(input.asnumpy(), return_index=True,
                                                return_inverse=True, return_counts=True,
                                                axis=axis)
        y = F.gather(input, Tensor(first.astype(np.int64)), axis)
        inv = Tensor(inv_np.reshape(-1).astype(np.int64))
        counts = Tensor(counts_np.astype(np.int64))
    out = (y,)
    if return_inverse:
        out += (inv,)
    if return_counts:
        out += (counts,)
    return out[0] if len(out) == 1 else out
