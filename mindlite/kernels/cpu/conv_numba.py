"""numba kernels for conv_ops (float32, float64): Conv2D, Conv2DBackpropFilter,
Conv2DBackpropInput / Conv2DTranspose.

The GEMMs stay conv_numpy's (BLAS); numba replaces the two memory-bound steps where it was
measured faster (single-threaded BLAS, min of interleaved runs, float32):
- im2col for stride 1 and dilation 1 (the common 3x3 'same' / 'valid' layer): a compiled
  copy whose inner loop is a contiguous row. LeNet-like 64 x 6 x 8 x 8 (16 filters 3 x 3,
  'same'): 145 -> 39 us; 32 x 32 x 32 x 32: 6.9 -> 1.7 ms. With runtime strides the compiled
  gather was slower than numpy's strided copy, so other strides use conv_numpy's path.
- col2im (input gradient, any geometry): a compiled scatter-add straight into the cropped
  output instead of kh * kw strided numpy adds with short inner runs: same LeNet case
  1036 -> 334 us for the whole input gradient, 16 x 64 x 28 x 28: 33 -> 18 ms.
numba is imported, and the loops compiled (cache=True), on the first launch only.
"""
from ...common import dtype as mstype
from ..registry import register_kernel
from . import conv_numpy as base

FLOATS = (mstype.float32, mstype.float64)
_JIT = {}


def _jit():
    if not _JIT:
        import numba
        njit = numba.njit(cache=True, nogil=True)

        @njit
        def im2col_s1(xp, cols, kh, kw, oh, ow):
            """cols[n, r, y * ow + x] = xp[n, c, y + i, x + j], r = (c kh + i) kw + j."""
            for n in range(xp.shape[0]):
                for c in range(xp.shape[1]):
                    for i in range(kh):
                        for j in range(kw):
                            r = (c * kh + i) * kw + j
                            for y in range(oh):
                                for x in range(ow):
                                    cols[n, r, y * ow + x] = xp[n, c, y + i, x + j]

        @njit
        def col2im(dcols, out, sh, sw, dh, dw, top, left):
            n_, c_, kh, kw, oh, ow = dcols.shape
            h, w = out.shape[2], out.shape[3]
            for n in range(n_):
                for c in range(c_):
                    plane = out[n, c]
                    for i in range(kh):
                        for j in range(kw):
                            cols = dcols[n, c, i, j]
                            for y in range(oh):
                                r = y * sh + i * dh - top
                                if r < 0 or r >= h:
                                    continue
                                row = plane[r]
                                src = cols[y]
                                for x in range(ow):
                                    q = x * sw + j * dw - left
                                    if 0 <= q < w:
                                        row[q] += src[x]
        _JIT.update(im2col_s1=im2col_s1, col2im=col2im)
    return _JIT


def _unit(stride, dilation):
    return stride == (1, 1) and dilation == (1, 1)


def _columns(x, kernel, out_hw, pads):
    """im2col (N, C_in kh kw, P) of x for stride 1, dilation 1."""
    n, c = x.shape[:2]
    kh, kw = kernel
    xp = base._padded(x, pads, x.dtype)
    cols = base.np.empty((n, c * kh * kw, out_hw[0] * out_hw[1]), dtype=x.dtype)
    _jit()["im2col_s1"](xp, cols, kh, kw, out_hw[0], out_hw[1])
    return cols


@register_kernel("Conv2D", provider="numba", dtypes=FLOATS)
def conv2d_numba(x, w, out, stride, dilation, pads, group):
    if not _unit(stride, dilation):
        return base.conv2d_numpy(x, w, out, stride, dilation, pads, group)
    n = x.shape[0]
    o, cg, kh, kw = w.shape
    oh, ow = out.shape[2:]
    cols = _columns(x, (kh, kw), (oh, ow), pads).reshape(n, group, cg * kh * kw, oh * ow)
    base.np.matmul(w.reshape(group, o // group, cg * kh * kw), cols,
                   out=out.reshape(n, group, o // group, oh * ow))


@register_kernel("Conv2DBackpropFilter", provider="numba", dtypes=FLOATS)
def conv2d_backprop_filter_numba(dout, x, out, stride, dilation, pads, group):
    if not _unit(stride, dilation):
        return base.conv2d_backprop_filter_numpy(dout, x, out, stride, dilation, pads, group)
    n, _, oh, ow = dout.shape
    _, cg, kh, kw = out.shape
    cols = _columns(x, (kh, kw), (oh, ow), pads)
    base.filter_grad(dout, cols.reshape(n, group, cg * kh * kw, oh * ow), out, group)


def _backprop_input(dout, w, out, stride, dilation, pads, group):
    dcols = base.input_columns(dout, w, group)
    out[...] = 0
    _jit()["col2im"](dcols, out, stride[0], stride[1], dilation[0], dilation[1], pads[0],
                     pads[2])


@register_kernel("Conv2DBackpropInput", provider="numba", dtypes=FLOATS)
def conv2d_backprop_input_numba(dout, w, out, stride, dilation, pads, group):
    _backprop_input(dout, w, out, stride, dilation, pads, group)


@register_kernel("Conv2DTranspose", provider="numba", dtypes=FLOATS)
def conv2d_transpose_numba(dout, w, out, stride, dilation, pads, group):
    _backprop_input(dout, w, out, stride, dilation, pads, group)
