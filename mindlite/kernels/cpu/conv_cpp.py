"""C++-loop kernels for conv_ops (float32, float64): Conv2D, Conv2DBackpropFilter,
Conv2DBackpropInput / Conv2DTranspose, any stride, dilation, padding and group. The padding,
im2col / col2im and transposes are mindlite._C's conv_* loops (csrc/kernels/conv_loops.cc,
entry points in csrc/bind/conv_bind.cc); the GEMMs are numpy's (BLAS). No numba: the first
call with a new dtype used to spend ~10 ms loading the numba loops' cached overloads.

One column matrix per launch instead of conv_numpy's per-sample im2col: cols (C kh kw, N P),
P = OH * OW, gathered from a zero-padded copy of x through a per-geometry offset table, so
each group is ONE GEMM over the whole batch (Og = O / group, Kg = C / group * kh * kw):
  Conv2D         out_t[g] (Og, N P) = W[g] (Og, Kg) @ cols[g] (Kg, N P), out = out_t as NCHW
  BackpropFilter dW[g] (Og, Kg) = dout_t[g] (Og, N P) @ cols[g].T
  BackpropInput  dcols[g] (Kg, N P) = W[g].T @ dout_t[g], then col2im (scatter-add)
with dout_t = dout as (O, N P). The column matrix: row (c * kh + i) * kw + j, column
n * P + y * OW + x (sample-major): cols[r, n P + y OW + x] = xp[n, c, y sh + i dh, x sw + j dw]
with xp the zero-padded input. A table tab (kh * kw, P) holds, per kernel offset, the flat
index into an (Hp, Wp) plane that each output position reads, so a copy is one loop of P per
(c, offset, n) whatever the stride, dilation or padding; col2im sums each element's terms in
kernel-offset order. The N P columns are ordered batch-innermost (p N + n) when the plane is
smaller than the batch (every copy then runs along n), else sample-major (n P + p), where
wide planes use one GEMM per sample straight on the NCHW tensors (_batch_inner,
_per_sample). Every GEMM runs on one BLAS thread (_gemm).
Measured (with the numba loops this replaced, same structure), thread CPU time per launch,
float32, the digits CNN (batch 64, 3 x 3 'same'), old per-sample numba kernels -> these,
medians of 3 alternating runs on the loaded 2-core machine:
  layer 2 (16 -> 32 channels, 4 x 4): forward 386 -> 240 us, filter gradient 544 -> 229 us,
  input gradient 448 -> 235 us;
  layer 1 (1 -> 16 channels, 8 x 8): forward 44 -> 53 us, filter 60 -> 71 us, input 51 ->
  59 us (slower in 2 of 3 runs, faster in 1: the per-sample GEMMs were already fine there).
"""
import functools

from ...common import dtype as mstype
from ..registry import register_kernel
from . import _blas
from . import conv_numpy as base
from ._cext import _C

np = base.np
FLOATS = (mstype.float32, mstype.float64)


def _c(a):
    """`a` as an aligned C-contiguous array (what the _C.conv_* loops require of inputs)."""
    return a if a.flags.c_contiguous and a.flags.aligned else np.array(a, order="C")


# NOTE: OpenBLAS (numpy's 0.3.31 here) runs a GEMM of M N K >= 2**19 on both cores (measured:
# 64 x 128 x 64 = 2**19 on 2 threads, 32 x 144 x 113 on one). On the loaded 2-core machine a
# 2-thread GEMM stalls: 32 x 1024 x 144 took 2-28 ms per call instead of 0.12 on one thread,
# so every GEMM here below 2**24 multiply-adds runs on one BLAS thread (_blas.matmul); where
# no OpenBLAS is attached, it is cut into pieces below 2**19 multiply-adds instead.
_ST_MNK = 1 << 19
_CONV_ST_MNK = 1 << 24


def _gemm(a, b, out):
    """out = a @ b for 2-D operands (any BLAS-compatible strides) on one BLAS thread: one
    GEMM (_blas.matmul), or without an attached OpenBLAS, pieces below 2**19 multiply-adds
    (the larger of M and N is split, so no piece needs a sum; a piece of one row or column
    with K >= 2**19 / the other dim may still thread)."""
    m, k = a.shape
    n = b.shape[1]
    if _blas.ATTACHED or m * n * k < _ST_MNK:
        _blas.matmul(a, b, out, _CONV_ST_MNK)
    elif n >= m:
        step = max(1, (_ST_MNK - 1) // (m * k))
        for s in range(0, n, step):
            np.matmul(a, b[:, s:s + step], out=out[:, s:s + step])
    else:
        step = max(1, (_ST_MNK - 1) // (n * k))
        for s in range(0, m, step):
            np.matmul(a[s:s + step], b, out=out[s:s + step])


@functools.lru_cache(maxsize=256)
def _plan(x_shape, kernel, stride, dilation, pads, out_hw):
    """(padded plane shape, offset table) of one geometry (see above); read-only."""
    kh, kw = kernel
    oh, ow = out_hw
    # the plane covers x plus its pads and every position a window reaches
    hp = max(x_shape[2] + pads[0] + pads[1], (oh - 1) * stride[0] + (kh - 1) * dilation[0] + 1)
    wp = max(x_shape[3] + pads[2] + pads[3], (ow - 1) * stride[1] + (kw - 1) * dilation[1] + 1)
    i = np.arange(kh).reshape(kh, 1, 1, 1) * dilation[0]
    j = np.arange(kw).reshape(1, kw, 1, 1) * dilation[1]
    y = np.arange(oh).reshape(1, 1, oh, 1) * stride[0]
    q = np.arange(ow).reshape(1, 1, 1, ow) * stride[1]
    tab = ((y + i) * wp + q + j).reshape(kh * kw, oh * ow).astype(np.intp)
    tab.flags.writeable = False
    return (hp, wp), tab


def _batch_inner(n, p):
    """The column order: p * N + n (batch innermost) when the output plane is smaller than the
    batch, else n * P + p. Measured per launch, sample-major -> batch-innermost, digits CNN
    layer 2 (N 64, P 16): forward 287 -> 241 us, filter gradient 266 -> 222 us, input gradient
    313 -> 206 us (im2col alone 48 -> 11 us); layer 1 (P 64): forward 53 -> 96 us, the
    batch-innermost transposes of the NCHW tensors cost more than the longer runs save."""
    return p < n


def _per_sample(m, k, p):
    """Sample-major columns: per-sample GEMMs (m x k @ k x p) read and write the NCHW tensors
    in place (no transposed copies), for planes wide enough that a GEMM per sample runs near
    full speed and small enough that each stays single-threaded. Digits CNN layer 1 (16 x 9
    @ 9 x 64): forward 79 -> 61 us, input gradient 88 -> 63 us; with planes of 16 (layer 2)
    the per-sample GEMMs lost to one GEMM and a copy."""
    return p >= 64 and m * k * p < _ST_MNK


def _cols(x, plan, pads, batch_inner):
    """The column matrix (C kh kw, N OH OW) of x (see above)."""
    (hp, wp), tab = plan
    n, c = x.shape[:2]
    x = _c(x)
    cols = np.empty((c * tab.shape[0], n * tab.shape[1]), dtype=x.dtype)
    if batch_inner:
        xt = np.empty((c, hp * wp, n), dtype=x.dtype)
        _C.conv_pad_t(x, xt, pads[0], pads[2], wp)
        _C.conv_im2col_t(xt, cols, tab)
    else:
        xp = np.empty((n, c, hp, wp), dtype=x.dtype)
        _C.conv_pad(x, xp, pads[0], pads[2])
        _C.conv_im2col(xp.reshape(n, c, hp * wp), cols, tab)
    return cols


def _channels_first(dout, batch_inner):
    """dout (N, O, OH, OW) as a C-contiguous (O, N OH OW) matrix in the column order."""
    n, o = dout.shape[:2]
    p = dout.shape[2] * dout.shape[3]
    dt = np.empty((o, n * p), dtype=dout.dtype)
    if batch_inner:
        _C.conv_to_batch_inner(_c(dout).reshape(n, o, p), dt)
    else:
        np.copyto(dt.reshape(o, n, p), dout.reshape(n, o, p).transpose(1, 0, 2))
    return dt


def _empty(*arrays):
    return not all(a.size for a in arrays)


@register_kernel("Conv2D", provider="cpp", dtypes=FLOATS)
def conv2d_cpp(x, w, out, stride, dilation, pads, group):
    if _empty(x, w, out):
        return base.conv2d_numpy(x, w, out, stride, dilation, pads, group)
    n, o, oh, ow = out.shape
    inner = _batch_inner(n, oh * ow)
    cols = _cols(x, _plan(x.shape, w.shape[2:], stride, dilation, pads, (oh, ow)), pads, inner)
    p, og = oh * ow, o // group
    w3 = w.reshape(group, og, -1)
    cols3 = cols.reshape(group, -1, cols.shape[1])
    if not inner and _per_sample(og, w3.shape[2], p):
        # straight into out: one small GEMM per sample, no transposed copy
        out4 = out.reshape(n, group, og, p)
        for g in range(group):
            _blas.matmul(w3[g], cols3[g].reshape(-1, n, p).transpose(1, 0, 2), out4[:, g],
                         _CONV_ST_MNK)
        return
    out_t = np.empty((o, n * p), dtype=out.dtype)
    out3 = out_t.reshape(group, og, -1)
    for g in range(group):
        _gemm(w3[g], cols3[g], out3[g])
    if inner:
        _C.conv_from_batch_inner(out_t, out.reshape(n, o, p))
    else:
        np.copyto(out.reshape(n, o, p), out_t.reshape(o, n, p).transpose(1, 0, 2))


@functools.lru_cache(maxsize=256)
def _live_plan(x_shape, kernel, stride, dilation, pads, out_hw):
    """(plan over the live taps only, their indices) of one geometry, or None when every tap
    reads the image somewhere. A tap is dead when every output position reads padding with it
    (the 3 x 3 'same' convolutions of ResNet18's 1 x 1 planes at 32 x 32: 8 of 9 taps)."""
    (hp, wp), tab = _plan(x_shape, kernel, stride, dilation, pads, out_hw)
    row, col = tab // wp, tab % wp
    inside = ((row >= pads[0]) & (row < pads[0] + x_shape[2]) & (col >= pads[2])
              & (col < pads[2] + x_shape[3]))
    live = np.flatnonzero(inside.any(axis=1))
    if live.size == tab.shape[0]:
        return None
    live_tab = np.ascontiguousarray(tab[live])
    live_tab.flags.writeable = False
    live.flags.writeable = False
    return ((hp, wp), live_tab), live


# NOTE: a filter gradient GEMM of long K (the batch x output positions) and a small dW runs as
# dW^T = cols @ dout^T with dout transposed channels-last first: OpenBLAS's NN product beat the
# NT one dW = dout_t @ cols^T there (one thread, ResNet18's 7 x 7 stem at 32 x 32, 64 x 4096 x
# 147: 1078 -> 815 us; 128 x 256 x 576 gained nothing once the transposes were paid).
_LONG_K = 2048
_LONG_K_OUT = 1 << 16


@register_kernel("Conv2DBackpropFilter", provider="cpp", dtypes=FLOATS)
def conv2d_backprop_filter_cpp(dout, x, out, stride, dilation, pads, group):
    """dW = dout @ im2col(x).T per group. 3 x 3 stride-1 undilated one-group convolutions of
    output planes from 2 x 2 run as Winograd F(2x2, 3x3) instead (_C.conv_winograd_filter,
    csrc/kernels/conv_winograd_filter.h; finite inputs only, else the GEMM below): ResNet18's
    3 x 3 layers of a 32 x 32 train step, one thread, 64 @ 8 x 8 1.19-1.25 -> 0.44 ms, 128 @
    4 x 4 0.96 -> 0.42 ms, 256 @ 2 x 2 0.84 -> 0.58 ms (two threads 0.82 -> 0.28, 0.62 ->
    0.25, 0.48 -> 0.32 ms). Taps that read only padding get 0 without a GEMM over them (as the
    engine's filter gradient, csrc/kernels/conv_backward.cc): ResNet18's 512 -> 512 3 x 3
    layers on 1 x 1 planes (batch 16) spent 1.1-1.4 ms each in a GEMM of K = 9 x 512 whose
    rows were 8/9 zeros."""
    if _empty(dout, x, out):
        return base.conv2d_backprop_filter_numpy(dout, x, out, stride, dilation, pads, group)
    if out.shape[2:] == (3, 3) and out.flags.c_contiguous and out.flags.aligned and \
            _C.conv_winograd_filter(_c(dout), _c(x), out, stride, dilation, pads, group):
        return
    o = out.shape[0]
    inner = _batch_inner(dout.shape[0], dout.shape[2] * dout.shape[3])
    key = (x.shape, out.shape[2:], stride, dilation, pads, dout.shape[2:])
    live = _live_plan(*key)
    cols = _cols(x, _plan(*key) if live is None else live[0], pads, inner)
    n, p = dout.shape[0], dout.shape[2] * dout.shape[3]
    if live is None and group == 1 and not inner and n * p >= _LONG_K and \
            o * cols.shape[0] <= _LONG_K_OUT and out.flags.c_contiguous:
        # dW^T (C T, O) = cols (C T, N P) @ dout as (N P, O): both operands row-major
        d_last = np.empty((n, p, o), dtype=out.dtype)
        _C.conv_channels_last(_c(dout).reshape(n, o, p), d_last)
        dw_t = np.empty((cols.shape[0], o), dtype=out.dtype)
        _gemm(cols, d_last.reshape(n * p, o), dw_t)
        np.copyto(out.reshape(o, -1), dw_t.T)
        return
    d3 = _channels_first(dout, inner).reshape(group, o // group, -1)
    cols3 = cols.reshape(group, -1, cols.shape[1])
    dst = out if live is None else np.empty((o, cols.shape[0] // group), out.dtype)
    out3 = dst.reshape(group, o // group, -1)
    for g in range(group):
        _gemm(d3[g], cols3[g].T, out3[g])
    if live is not None:
        taps = out.reshape(o, out.shape[1], -1)
        if out.flags.c_contiguous and out.flags.aligned:
            _C.conv_expand_taps(dst, out, live[1])
        else:
            taps[...] = 0
            taps[:, :, live[1]] = dst.reshape(o, out.shape[1], live[1].size)
        # a dead tap's sum is dout's row times zeros: NaN where that row holds NaN or inf
        bad = ~np.isfinite(d3.reshape(o, -1)).all(axis=1)
        if bad.any():
            dead = np.setdiff1d(np.arange(taps.shape[2]), live[1])
            sub = taps[bad]
            sub[:, :, dead] = np.nan
            taps[bad] = sub


def _backprop_input(dout, w, out, stride, dilation, pads, group):
    if _empty(dout, w, out):
        return base.conv2d_backprop_input_numpy(dout, w, out, stride, dilation, pads, group)
    o = w.shape[0]
    n, c, h, w_ = out.shape
    inner = _batch_inner(n, dout.shape[2] * dout.shape[3])
    (hp, wp), tab = _plan(out.shape, w.shape[2:], stride, dilation, pads, dout.shape[2:])
    dcols = np.empty((c * tab.shape[0], n * tab.shape[1]), dtype=out.dtype)
    p, og = dout.shape[2] * dout.shape[3], o // group
    w3 = w.reshape(group, og, -1)
    dcols3 = dcols.reshape(group, -1, dcols.shape[1])
    if not inner and _per_sample(og, w3.shape[2], p):
        d4 = dout.reshape(n, group, og, p)
        for g in range(group):
            _blas.matmul(w3[g].T, d4[:, g], dcols3[g].reshape(-1, n, p).transpose(1, 0, 2),
                         _CONV_ST_MNK)
    else:
        d3 = _channels_first(dout, inner).reshape(group, og, -1)
        for g in range(group):
            _gemm(w3[g].T, d3[g], dcols3[g])
    if inner:
        dxt = np.empty((c, hp * wp, n), dtype=out.dtype)
        _C.conv_col2im_t(dcols, dxt, tab)
        _C.conv_crop_t(dxt, out, pads[0], pads[2], wp)
    else:
        dxp = np.empty((n, c, hp, wp), dtype=out.dtype)
        _C.conv_col2im(dcols, dxp.reshape(n, c, hp * wp), tab)
        np.copyto(out, dxp[:, :, pads[0]:pads[0] + h, pads[2]:pads[2] + w_])


@register_kernel("Conv2DBackpropInput", provider="cpp", dtypes=FLOATS)
def conv2d_backprop_input_cpp(dout, w, out, stride, dilation, pads, group):
    _backprop_input(dout, w, out, stride, dilation, pads, group)


@register_kernel("Conv2DTranspose", provider="cpp", dtypes=FLOATS)
def conv2d_transpose_cpp(dout, w, out, stride, dilation, pads, group):
    _backprop_input(dout, w, out, stride, dilation, pads, group)
