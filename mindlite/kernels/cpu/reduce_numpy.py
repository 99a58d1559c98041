"""numpy reference kernels for reduce_ops (the oracle for the numba kernels).

Reductions get `axis` (sorted tuple of non-negative ints, () for a 0-d input) and
`keep_dims`; the arg-reductions get one non-negative int `axis` (0 for a 0-d input).
Inference has already rejected max/min/arg* over empty axes.
"""
import numpy as np

from ..registry import register_kernel


def _count(x, axis):
    n = 1
    for a in axis:
        n *= x.shape[a]
    return n


@register_kernel("ReduceSum", provider="numpy")
def reduce_sum_numpy(x, out, axis, keep_dims):
    np.sum(x, axis=axis, keepdims=keep_dims, out=out)


@register_kernel("ReduceMean", provider="numpy")
def reduce_mean_numpy(x, out, axis, keep_dims):
    """floats: numpy's mean (float16 accumulates in float32), NaN for an empty set;
    integers: float64 mean truncated toward zero, 0 for an empty set."""
    if _count(x, axis) == 0:
        out.fill(np.nan if out.dtype.kind == "f" else 0)
    elif x.dtype.kind == "f":
        acc = np.float32 if x.dtype == np.float16 else x.dtype
        np.copyto(out, np.mean(x, axis=axis, keepdims=keep_dims, dtype=acc), casting="unsafe")
    else:
        mean = np.mean(x, axis=axis, keepdims=keep_dims, dtype=np.float64)
        np.copyto(out, np.trunc(mean), casting="unsafe")


@register_kernel("ReduceMax", provider="numpy")
def reduce_max_numpy(x, out, axis, keep_dims):
    np.amax(x, axis=axis, keepdims=keep_dims, out=out)


@register_kernel("ReduceMin", provider="numpy")
def reduce_min_numpy(x, out, axis, keep_dims):
    np.amin(x, axis=axis, keepdims=keep_dims, out=out)


@register_kernel("ReduceProd", provider="numpy")
def reduce_prod_numpy(x, out, axis, keep_dims):
    np.prod(x, axis=axis, keepdims=keep_dims, out=out)


@register_kernel("ReduceAll", provider="numpy")
def reduce_all_numpy(x, out, axis, keep_dims):
    np.all(x, axis=axis, keepdims=keep_dims, out=out)


@register_kernel("ReduceAny", provider="numpy")
def reduce_any_numpy(x, out, axis, keep_dims):
    np.any(x, axis=axis, keepdims=keep_dims, out=out)


@register_kernel("Argmax", provider="numpy")
def argmax_numpy(x, out, axis):
    if x.ndim == 0:
        out[...] = 0
    else:
        np.copyto(out, np.argmax(x, axis=axis), casting="unsafe")


@register_kernel("Argmin", provider="numpy")
def argmin_numpy(x, out, axis):
    if x.ndim == 0:
        out[...] = 0
    else:
        np.copyto(out, np.argmin(x, axis=axis), casting="unsafe")


def _arg_with_value(arg, x, out_index, out_values, axis, keep_dims):
    if x.ndim == 0:
        out_index[...] = 0
        out_values[...] = x
        return
    idx = np.expand_dims(arg(x, axis=axis), axis)
    np.copyto(out_index, idx if keep_dims else np.squeeze(idx, axis), casting="unsafe")
    vals = np.take_along_axis(x, idx, axis=axis)
    np.copyto(out_values, vals if keep_dims else np.squeeze(vals, axis))


@register_kernel("ArgMaxWithValue", provider="numpy")
def arg_max_with_value_numpy(x, out_index, out_values, axis, keep_dims):
    _arg_with_value(np.argmax, x, out_index, out_values, axis, keep_dims)


@register_kernel("ArgMinWithValue", provider="numpy")
def arg_min_with_value_numpy(x, out_index, out_values, axis, keep_dims):
    _arg_with_value(np.argmin, x, out_index, out_values, axis, keep_dims)
