"""numpy kernels for resize_pad_ops: PadV3 / PadV3Grad and the resize ops with their
gradients (ResizeNearestNeighborV2, ResizeBilinearV2, ResizeLinear1D and *Grad).

Padding is separable: each padded axis maps output position p (from -before to
n + after) to an input index (reflect, edge, circular) or to the constant. The kept block
is copied once; then, axis by axis, the border slabs are filled with the constant or
gathered from the already written part of the output (so corners come out right), which
moves each output element once. Where a mode reads a cropped-away input position (negative
padding) the modes gather from the input axis by axis instead. The gradient copies the
identity block back and adds each padded position's slice onto the input index it was read
from (one vectorised add per padded position).
Resizing is separable too: per spatial axis, output position j reads i0[j] and i1[j] with
weights 1 - w[j] and w[j] (nearest: i0 only); the last axis writes into the output. Small
finite inputs use the tables as matrices instead (two matmuls). Both index tables are
non-decreasing, so the gradient sums each run of equal indices with np.add.reduceat.
Index tables are cached per geometry. float16 computes in float32.
"""
import functools

import numpy as np

from ..registry import register_kernel
from ._rows import split_rows


@functools.lru_cache(maxsize=256)
def _pad_index(n, lo, hi, mode):
    """Input index of every output position of one axis (read-only, cached); constant mode:
    -1 outside the input (where the value goes)."""
    p = np.arange(-lo, n + hi)
    if mode == "constant":
        return _frozen(np.where((p >= 0) & (p < n), p, -1))
    if mode == "reflect":
        if n == 1:
            return _frozen(np.zeros_like(p))
        q = np.mod(p, 2 * n - 2)
        return _frozen(np.where(q < n, q, 2 * n - 2 - q))
    if mode == "edge":
        return _frozen(np.clip(p, 0, n - 1))
    return _frozen(np.mod(p, n))          # circular


def _frozen(a):
    a.flags.writeable = False
    return a


def _kept(n, lo, hi):
    """(source slice of x, destination slice of y) of the block padding keeps."""
    src = slice(max(0, -lo), n - max(0, -hi))
    dst = slice(max(0, lo), max(0, lo) + max(0, src.stop - src.start))
    return src, dst


def _blocks(shape, pads):
    kept = [_kept(n, lo, hi) for n, (lo, hi) in zip(shape, pads)]
    return tuple(k[0] for k in kept), tuple(k[1] for k in kept)


_SMALL_FILL = 1 << 16      # elements


def _axis_slice(ndim, axis, sl):
    return (slice(None),) * axis + (sl,)


def _copy_block(out, dst, x, src):
    """out[dst] = x[src], split along axis 0 across two threads when large (numpy's copy
    releases the GIL: 2048 x 2048 float32 padded by 2, 1.2-1.7 ms on one thread)."""
    if not dst or dst[0].stop - dst[0].start < 2:
        out[dst] = x[src]
        return
    d0, s0 = dst[0], src[0]

    def part(lo, hi):
        out[(slice(d0.start + lo, d0.start + hi),) + dst[1:]] = \
            x[(slice(s0.start + lo, s0.start + hi),) + src[1:]]
    split_rows(part, d0.stop - d0.start, out.size)


def fill_value(value, dtype):
    """PadV3's constant as an element of dtype, cast as MindSpore casts it: floats round,
    other values truncate to an integer that wraps into an integer dtype (-3 -> 253 in
    uint8, 300 -> 44 in int8), bools stay bools."""
    if dtype.kind != "f" and not isinstance(value, bool):
        value = int(value)
        if dtype.kind in "iu":                 # modulo 2**64, then the dtype's own wrap
            return np.array(value % (1 << 64), np.uint64).astype(dtype)[()]
    with np.errstate(over="ignore"):       # 1e5 -> float16 is inf, as fill() gives
        return np.array(value).astype(dtype)[()]


@register_kernel("PadV3", provider="numpy")
def pad_v3_numpy(x, out, pads, mode, value):
    if out.size == 0:
        return
    src, dst = _blocks(x.shape, pads)
    if mode != "constant" and any(lo < 0 or hi < 0 for lo, hi in pads):
        y = x
        for axis, (lo, hi) in enumerate(pads):
            if lo or hi:
                y = np.take(y, _pad_index(x.shape[axis], lo, hi, mode), axis=axis)
        out[...] = y
        return
    if mode == "constant":
        value = fill_value(value, out.dtype)
        if out.size <= _SMALL_FILL:        # two numpy calls beat a loop over the borders
            out.fill(value)
            out[dst] = x[src]
            return
    _copy_block(out, dst, x, src)
    for axis, (lo, hi) in enumerate(pads):
        size = out.shape[axis]
        for border in (slice(0, max(lo, 0)), slice(size - max(hi, 0), size)):
            if border.start == border.stop:
                continue
            where = _axis_slice(out.ndim, axis, border)
            if mode == "constant":
                out[where] = value
            else:
                idx = _pad_index(x.shape[axis], lo, hi, mode)[border] + lo
                np.take(out, idx, axis=axis, out=out[where])


register_kernel("Pad", provider="numpy", kernel=pad_v3_numpy)      # ops.Pad: zeros only


@register_kernel("PadV3Grad", provider="numpy")
def pad_v3_grad_numpy(dout, out, pads, mode):
    if mode == "constant":
        out.fill(0)
        src, dst = _blocks(out.shape, pads)
        out[src] = dout[dst]
        return
    g = dout
    for axis in range(len(pads) - 1, -1, -1):
        lo, hi = pads[axis]
        if not (lo or hi):
            continue
        n = out.shape[axis]
        idx = _pad_index(n, lo, hi, mode)
        gm = np.moveaxis(g, axis, 0)
        acc = np.zeros((n,) + gm.shape[1:], dtype=_compute_dtype(g))
        src, dst = _kept(n, lo, hi)
        acc[src] = gm[dst]
        for j in (*range(dst.start), *range(dst.stop, len(idx))):
            acc[idx[j]] += gm[j]
        g = np.moveaxis(acc, 0, axis)
    out[...] = g


# ---- resizing -----------------------------------------------------------------------------
@functools.lru_cache(maxsize=256)
def _axis_table(n_in, n_out, linear, align_corners, half_pixel):
    """(i0, i1, w) for one axis: y[j] = (1 - w[j]) x[i0[j]] + w[j] x[i1[j]]. As MindSpore's
    CPU kernels: the scale is a float32 ((in - 1) / (out - 1) with align_corners, else
    in / out); the source is j * scale (asymmetric), (j + 0.5) * scale with half-pixel
    centres (minus 0.5 and clamped at 0 for the linear ones); nearest rounds it half away
    from zero with align_corners (roundf), else floors it."""
    j = np.arange(n_out, dtype=np.float32)
    corners = align_corners and n_out > 1
    scale = np.float32((n_in - 1) / (n_out - 1) if corners else n_in / n_out)
    pos = (j + np.float32(0.5)) * scale if half_pixel else j * scale
    pos = pos.astype(np.float64)
    if not linear:
        src = np.floor(pos + 0.5) if align_corners else np.floor(pos)
        return _frozen(np.minimum(src.astype(np.int64), n_in - 1)), None, None
    if half_pixel:
        pos = np.maximum(pos - 0.5, 0.0)
    i0 = np.minimum(np.floor(pos).astype(np.int64), n_in - 1)
    i1 = np.minimum(i0 + 1, n_in - 1)
    return _frozen(i0), _frozen(i1), _frozen(pos - i0)


def _bcast(w, axis, ndim, dtype):
    shape = [1] * ndim
    shape[axis] = -1
    return w.astype(dtype).reshape(shape)


def _compute_dtype(a):
    return np.float32 if a.dtype == np.float16 else a.dtype


@functools.lru_cache(maxsize=256)
def _axis_matrix(n_in, n_out, linear, align_corners, half_pixel, dtype):
    """(n_out, n_in) matrix of one axis' table, and its transpose (C-contiguous, cached)."""
    i0, i1, w = _axis_table(n_in, n_out, linear, align_corners, half_pixel)
    m = np.zeros((n_out, n_in), dtype=dtype)
    rows = np.arange(n_out)
    if i1 is None:
        m[rows, i0] = 1
    else:
        np.add.at(m, (rows, i0), 1 - w)
        np.add.at(m, (rows, i1), w)
    return _frozen(m), _frozen(np.ascontiguousarray(m.T))


_SMALL_AXIS = 4096        # n_in * n_out of each axis at most this: small enough for matmuls


def _resize_small(y, out, linear, align_corners, half_pixel):
    """Small 3-D / 4-D inputs: y @ A_w^T (and A_h @ .) with cached matrices, 2 numpy calls
    instead of 10. Only for finite y: a matmul spreads NaN / inf over zero weights."""
    sp_in, sp_out = y.shape[2:], out.shape[2:]
    if y.ndim not in (3, 4) or any(a * b > _SMALL_AXIS for a, b in zip(sp_in, sp_out)) or \
            not np.isfinite(y).all():
        return False
    key = (linear, align_corners, half_pixel, y.dtype)
    mats = [_axis_matrix(a, b, *key) for a, b in zip(sp_in, sp_out)]
    r = y @ mats[-1][1]
    if y.ndim == 4:
        r = mats[0][0] @ r
    out[...] = r
    return True


def _resize(x, out, linear, align_corners, half_pixel):
    """x resized into `out` (same dtype), one separable pass per spatial axis."""
    dt = _compute_dtype(x)
    y = x.astype(dt, copy=False)
    if _resize_small(y, out, linear, align_corners, half_pixel):
        return
    last = x.ndim - 1
    for axis in range(2, x.ndim):
        i0, i1, w = _axis_table(x.shape[axis], out.shape[axis], linear, align_corners,
                                half_pixel)
        if x.shape[axis] == out.shape[axis] and (i1 is None or not w.any()):
            if axis == last:
                out[...] = y
                y = out
            continue                      # the identity along this axis
        target = out if axis == last and out.dtype == dt else None
        if i1 is None:
            y = np.take(y, i0, axis=axis, out=target)
            continue
        lo = np.take(y, i0, axis=axis)
        hi = np.take(y, i1, axis=axis, out=target)
        hi -= lo
        hi *= _bcast(w, axis, y.ndim, dt)
        hi += lo
        y = hi
    if y is not out:
        out[...] = y


def _adjoint(g, idx, w, n_in, axis):
    """sum over j of w[j] g[..., j, ...] onto position idx[j] (idx non-decreasing)."""
    vals = g if w is None else g * _bcast(w, axis, g.ndim, g.dtype)
    vals = np.moveaxis(vals, axis, 0)
    starts = np.flatnonzero(np.diff(idx, prepend=-1))
    acc = np.zeros((n_in,) + vals.shape[1:], dtype=g.dtype)
    acc[idx[starts]] = np.add.reduceat(vals, starts, axis=0)
    return np.moveaxis(acc, 0, axis)


def _resize_grad(dout, in_shape, linear, align_corners, half_pixel):
    g = dout.astype(_compute_dtype(dout), copy=False)
    for k in range(len(in_shape) - 3, -1, -1):
        axis = 2 + k
        n_in = in_shape[axis]
        i0, i1, w = _axis_table(n_in, dout.shape[axis], linear, align_corners, half_pixel)
        if i1 is None:
            g = _adjoint(g, i0, None, n_in, axis)
        else:
            g = _adjoint(g, i0, 1 - w, n_in, axis) + _adjoint(g, i1, w, n_in, axis)
    return g


def _forward_kernel(x, out, linear, align_corners, half_pixel):
    if out.size:
        _resize(x, out, linear, align_corners, half_pixel)


def _grad_kernel(dout, out, linear, align_corners, half_pixel):
    if out.size:
        out[...] = _resize_grad(dout, out.shape, linear, align_corners, half_pixel)


for _name in ("ResizeNearestNeighborV2", "ResizeBilinearV2", "ResizeLinear1D",
              "ResizeNearestNeighbor"):
    register_kernel(_name, provider="numpy", kernel=_forward_kernel)
for _name in ("ResizeNearestNeighborV2Grad", "ResizeBilinearGrad", "ResizeLinear1DGrad"):
    register_kernel(_name, provider="numpy", kernel=_grad_kernel)
