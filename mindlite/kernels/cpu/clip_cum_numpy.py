"""numpy reference kernels for clip_cum_ops: IsNan / IsInf / IsFinite / IsClose (bool out)
and CumSum / CumProd / CumProdGrad along one axis with MindSpore's exclusive / reverse.

alloc="runtime" kernels writing into the preallocated output. Cumulative kernels compute in
the input dtype (np.cumsum's dtype= keeps int8 wrapping as C rather than widening);
reverse runs on flipped views of the input and output, exclusive on the shifted slices.
"""
import numpy as np

from ..registry import register_kernel


def _check_into(fn, fill):
    def kernel(x, out):
        if x.dtype.kind == "f":
            fn(x, out=out)
        else:
            out.fill(fill)          # ints and bools: finite, never nan or inf
    return kernel


register_kernel("IsNan", provider="numpy", kernel=_check_into(np.isnan, False))
register_kernel("IsInf", provider="numpy", kernel=_check_into(np.isinf, False))
register_kernel("IsFinite", provider="numpy", kernel=_check_into(np.isfinite, True))


@register_kernel("IsClose", provider="numpy")
def isclose_numpy(x, y, out, rtol, atol, equal_nan):
    with np.errstate(all="ignore"):
        if x.dtype.kind != "f":
            x, y = x.astype(np.float64), y.astype(np.float64)
        np.copyto(out, np.isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan))


def _along(a, axis, start, stop):
    index = [slice(None)] * a.ndim
    index[axis] = slice(start, stop)
    return a[tuple(index)]


def _cumulative(fn, identity, x, out, axis, exclusive, reverse):
    if x.size == 0:
        return
    if reverse:
        x, out = np.flip(x, axis), np.flip(out, axis)
    with np.errstate(all="ignore"):
        if exclusive:
            _along(out, axis, 0, 1).fill(identity)
            fn(_along(x, axis, 0, -1), axis=axis, dtype=x.dtype, out=_along(out, axis, 1, None))
        else:
            fn(x, axis=axis, dtype=x.dtype, out=out)


@register_kernel("CumSum", provider="numpy")
def cumsum_numpy(x, out, axis, exclusive, reverse):
    _cumulative(np.cumsum, 0, x, out, axis, exclusive, reverse)


@register_kernel("CumProd", provider="numpy")
def cumprod_numpy(x, out, axis, exclusive, reverse):
    _cumulative(np.cumprod, 1, x, out, axis, exclusive, reverse)


def _inclusive_cumprod_grad(x, d):
    """dx of y = cumprod(x, -1) for dy = d, with no division by x (exact with zeros, tiny
    or subnormal x and products that underflow): dx_i = P_i * S_i, where P_i is the product
    of the x_k before i and S_i = sum_{j >= i} d_j prod_{i < k <= j} x_k, i.e. the reverse
    recurrence S_i = d_i + x_{i+1} S_{i+1}.
    NOTE: one vectorised step per position along the axis (the recurrence is sequential)."""
    n = x.shape[-1]
    g = np.empty(np.broadcast_shapes(x.shape, d.shape), np.result_type(x, d))
    s = g[..., n - 1] = d[..., n - 1]
    for i in range(n - 2, -1, -1):
        s = g[..., i] = d[..., i] + x[..., i + 1] * s
    g[..., 1:] *= np.cumprod(x[..., :-1], -1)
    return g.astype(x.dtype, copy=False)


@register_kernel("CumProdGrad", provider="numpy")
def cumprod_grad_numpy(x, dout, out, axis, exclusive, reverse):
    if x.size == 0:
        return
    x, d, o = (np.moveaxis(a, axis, -1) for a in (x, dout, out))
    if reverse:
        x, d, o = x[..., ::-1], d[..., ::-1], o[..., ::-1]
    with np.errstate(all="ignore"):
        if exclusive:     # y = cumprod([1, x_0, ..., x_{n-2}]): x_i is factor i + 1 there
            shifted = np.concatenate([np.ones_like(x[..., :1]), x[..., :-1]], -1)
            g = _inclusive_cumprod_grad(shifted, d)
            o[..., :-1] = g[..., 1:]
            o[..., -1] = 0
        else:
            o[...] = _inclusive_cumprod_grad(x, d)
