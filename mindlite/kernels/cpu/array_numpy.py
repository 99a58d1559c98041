"""numpy reference kernels for array_ops and slice_ops.

Reshape, ExpandDims, Squeeze and Flatten return numpy views (alloc="kernel"), registered
with common/views.py so that in-place writers copy on write; Assign and
AssignAdd write into the variable's own array and return it (alloc="kernel"); Unique and
MaskedSelect allocate their dynamic-shape outputs. Everything else writes into the
preallocated C-contiguous outputs (alloc="runtime"). Inputs may be 0-d, empty or
non-contiguous.
"""
import numpy as np

from ..kernel_def import IndexValueError
from ..registry import register_kernel
from ...common.views import share


# ---- views -------------------------------------------------------------------------------
@register_kernel("Reshape", provider="numpy", alloc="kernel")
def reshape_numpy(x, shape):
    return share(x.reshape(shape))


@register_kernel("ExpandDims", provider="numpy", alloc="kernel")
def expand_dims_numpy(x, shape):
    return share(x.reshape(shape))


@register_kernel("Squeeze", provider="numpy", alloc="kernel")
def squeeze_numpy(x, shape):
    return share(x.reshape(shape))


@register_kernel("Flatten", provider="numpy", alloc="kernel")
def flatten_numpy(x, shape):
    return share(x.reshape(shape))


# ---- copies into preallocated outputs -------------------------------------------------------
@register_kernel("Transpose", provider="numpy")
def transpose_numpy(x, out, perm):
    np.copyto(out, np.transpose(x, perm))


@register_kernel("Concat", provider="numpy")
def concat_numpy(xs, out, axis):
    np.concatenate(xs, axis=axis, out=out)


@register_kernel("Stack", provider="numpy")
def stack_numpy(xs, out, axis):
    np.stack(xs, axis=axis, out=out)


@register_kernel("Split", provider="numpy")
def split_numpy(x, *outs, axis, output_num):
    step = x.shape[axis] // output_num
    lead = (slice(None),) * axis
    for i, out in enumerate(outs):
        np.copyto(out, x[lead + (slice(i * step, (i + 1) * step),)])


@register_kernel("Tile", provider="numpy")
def tile_numpy(x, out, multiples):
    """out viewed as (m0, d0, m1, d1, ...) receives x viewed as (1, d0, 1, d1, ...)."""
    shape = (1,) * (len(multiples) - x.ndim) + x.shape
    view = out.view()
    view.shape = tuple(v for m, d in zip(multiples, shape) for v in (m, d))
    np.copyto(view, np.reshape(x, tuple(v for d in shape for v in (1, d))))


@register_kernel("BroadcastTo", provider="numpy")
def broadcast_to_numpy(x, out):
    np.copyto(out, x)


@register_kernel("Cast", provider="numpy")
def cast_numpy(x, out, quiet):
    if quiet:                                # float -> int/bool: NaN and inf are unspecified
        with np.errstate(invalid="ignore", over="ignore"):
            np.copyto(out, x, casting="unsafe")
    else:
        np.copyto(out, x, casting="unsafe")


@register_kernel("ZerosLike", provider="numpy")
def zeros_like_numpy(x, out):
    out.fill(0)


@register_kernel("OnesLike", provider="numpy")
def ones_like_numpy(x, out):
    out.fill(1)


# ---- const prims: no tensor inputs, run once per signature ------------------------------------
@register_kernel("Fill", provider="numpy")
def fill_numpy(out, value):
    out.fill(value)


@register_kernel("Zeros", provider="numpy")
def zeros_numpy(out):
    out.fill(0)


@register_kernel("Ones", provider="numpy")
def ones_numpy(out):
    out.fill(1)


@register_kernel("Eye", provider="numpy")
def eye_numpy(out):
    out.fill(0)
    np.fill_diagonal(out, 1)


@register_kernel("Range", provider="numpy")
def range_numpy(out, start, delta):
    """start + i * delta computed in float64 (exactly in int64 for ints), then cast."""
    n = out.shape[0]
    if out.dtype.kind in "iu" and isinstance(start, int) and isinstance(delta, int):
        np.copyto(out, start + delta * np.arange(n, dtype=np.int64), casting="unsafe")
    else:
        with np.errstate(invalid="ignore", over="ignore"):
            np.copyto(out, start + delta * np.arange(n, dtype=np.float64), casting="unsafe")


# ---- in place ------------------------------------------------------------------------------
def _check_writeable(op, var):
    if not var.flags.writeable:
        raise ValueError(f"For '{op}', 'variable' is backed by a read-only array and cannot be "
                         f"written in place")


@register_kernel("Assign", provider="numpy", alloc="kernel")
def assign_numpy(var, value):
    _check_writeable("Assign", var)
    np.copyto(var, value)
    return var


@register_kernel("AssignAdd", provider="numpy", alloc="kernel")
def assign_add_numpy(var, value):
    _check_writeable("AssignAdd", var)
    np.add(var, value, out=var)
    return var


@register_kernel("AssignSub", provider="numpy", alloc="kernel")
def assign_sub_numpy(var, value):
    _check_writeable("AssignSub", var)
    np.subtract(var, value, out=var)
    return var


# ---- slicing and gathering -------------------------------------------------------------------
@register_kernel("Slice", provider="numpy")
def slice_numpy(x, out, slices):
    np.copyto(out, x[slices])


@register_kernel("StridedSlice", provider="numpy")
def strided_slice_numpy(x, out, slices, shape):
    np.copyto(out, np.reshape(x[slices], shape))


def _check_indices(op, indices, n):
    """Indices in [-n, n), negative ones counting from the end (as MindSpore's CPU kernel);
    returns them in [0, n). NOTE: index values are only known here, so this runs before
    anything is written; the message is MindSpore's (its value after the wrap, as there)."""
    if indices.size:
        lo, hi = indices.min(), indices.max()
        if lo < -n or hi >= n:
            bad = lo + n if lo < -n else hi
            raise IndexValueError(f"For '{op}', the 'input_indices' should be in the range "
                                  f"[0, {n}), but got {bad}")
        if lo < 0:
            return np.where(indices < 0, indices + n, indices)
    return indices


@register_kernel("Gather", provider="numpy")
def gather_numpy(x, indices, out, axis, batch_dims):
    indices = _check_indices("Gather", indices, x.shape[axis])
    if batch_dims == 0:
        np.take(x, indices, axis=axis, out=out, mode="clip")
        return
    for b in np.ndindex(*x.shape[:batch_dims]):
        np.copyto(out[b + (Ellipsis,)], np.take(x[b], indices[b], axis=axis - batch_dims))


@register_kernel("OneHot", provider="numpy")
def one_hot_numpy(indices, on_value, off_value, out, axis, depth):
    shape = [1] * out.ndim
    shape[axis] = depth
    hot = np.expand_dims(indices, axis) == np.arange(depth).reshape(shape)
    out.fill(off_value)
    np.copyto(out, on_value, where=hot)


@register_kernel("Unique", provider="numpy", alloc="kernel")
def unique_numpy(x):
    """The distinct values in order of first appearance (MindSpore's CPU kernel: not sorted;
    -0.0 equals 0.0, each NaN is its own value), idx with x == y[idx]."""
    flat = x.reshape(-1)
    _, first, inv = np.unique(flat, return_index=True, return_inverse=True, equal_nan=False)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    idx_type = np.int64 if x.dtype == np.int64 else np.int32
    return flat[first[order]], rank[inv.reshape(-1)].reshape(x.shape).astype(idx_type)


@register_kernel("MaskedSelect", provider="numpy", alloc="kernel")
def masked_select_numpy(x, mask):
    xb, mb = np.broadcast_arrays(x, mask)
    return xb[mb]
