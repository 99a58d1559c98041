"""numpy reference kernels for scatter_index_ops (TensorScatterElements, TensorScatterUpdate,
TensorScatterAdd, GatherNd, ScatterAdd, IndexAdd) and mask_ops (MaskedFill, NonZero,
CountNonZero, Unstack).

alloc="runtime" except NonZero (dynamic shape: it allocates its output). Every scatter
copies input_x into the output and writes there: inputs are never modified. Index values
are checked before anything is written; repeated indices: the last write wins for the
update kernels (numpy's assignment order), adds accumulate (np.add.at).
"""
import numpy as np

from ..registry import register_kernel
from .sort_numpy import _along_index, _full_index


def _check_range(op, arg, index, n):
    if index.size:
        lo, hi = int(index.min()), int(index.max())
        if lo < 0 or hi >= n:
            raise ValueError(f"For '{op}', the values of '{arg}' must be in [0, {n}), but got "
                             f"{lo if lo < 0 else hi}")


@register_kernel("TensorScatterElements", provider="numpy")
def tensor_scatter_elements_numpy(x, indices, updates, out, axis, reduction):
    idx = _full_index("TensorScatterElements", indices, axis, x.shape[axis])
    np.copyto(out, x)
    if indices.size == 0:
        return
    where = _along_index(idx, axis)
    if reduction == "add":
        np.add.at(out, where, updates)
    else:
        out[where] = updates


def _nd_index(op, x, indices):
    """(..., N) indices -> a tuple of N flat index arrays, each checked against its axis."""
    n = indices.shape[-1]
    flat = indices.reshape(-1, n)
    for k in range(n):
        _check_range(op, "indices", flat[:, k], x.shape[k])
    return tuple(flat[:, k] for k in range(n))


def _tensor_scatter(op, x, indices, updates, out, add):
    where = _nd_index(op, x, indices)
    np.copyto(out, x)
    n = indices.shape[-1]
    upd = updates.reshape((-1,) + x.shape[n:])
    if add:
        np.add.at(out, where, upd)
    else:
        out[where] = upd


@register_kernel("TensorScatterUpdate", provider="numpy")
def tensor_scatter_update_numpy(x, indices, updates, out):
    _tensor_scatter("TensorScatterUpdate", x, indices, updates, out, False)


@register_kernel("TensorScatterAdd", provider="numpy")
def tensor_scatter_add_numpy(x, indices, updates, out):
    _tensor_scatter("TensorScatterAdd", x, indices, updates, out, True)


@register_kernel("GatherNd", provider="numpy")
def gather_nd_numpy(x, indices, out):
    where = _nd_index("GatherNd", x, indices)
    np.copyto(out, x[where].reshape(out.shape))


@register_kernel("ScatterAdd", provider="numpy")
def scatter_add_numpy(x, indices, updates, out):
    _check_range("ScatterAdd", "indices", indices, x.shape[0])
    np.copyto(out, x)
    np.add.at(out, indices.reshape(-1), updates.reshape((-1,) + x.shape[1:]))


@register_kernel("IndexAdd", provider="numpy")
def index_add_numpy(x, indices, updates, out, axis):
    _check_range("IndexAdd", "indices", indices, x.shape[axis])
    np.copyto(out, x)
    lead = (slice(None),) * axis
    np.add.at(out, lead + (indices,), updates)


@register_kernel("MaskedFill", provider="numpy")
def masked_fill_numpy(x, mask, value, out):
    np.copyto(out, np.where(mask, value, x))


@register_kernel("NonZero", provider="numpy", alloc="kernel")
def non_zero_numpy(x):
    return np.argwhere(x).astype(np.int64)


@register_kernel("CountNonZero", provider="numpy")
def count_non_zero_numpy(x, out, axes):
    np.copyto(out, np.count_nonzero(x, axis=axes).reshape(out.shape), casting="unsafe")


@register_kernel("Unstack", provider="numpy")
def unstack_numpy(x, *outs, axis):
    lead = (slice(None),) * axis
    for i, out in enumerate(outs):
        np.copyto(out, x[lead + (i,)])


@register_kernel("EmbeddingLookup", provider="numpy")
def embedding_lookup_numpy(params, indices, out, offset):
    ids = indices.astype(np.int64) - offset
    inside = (ids >= 0) & (ids < params.shape[0])
    np.copyto(out, params[np.where(inside, ids, 0)])
    out[~inside] = 0
