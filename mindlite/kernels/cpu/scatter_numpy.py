"""numpy reference kernels for scatter_ops (StridedSliceGrad, UnsortedSegmentSum,
MaskedSelectGrad, ScatterNd): each writes its input into a zeroed, preallocated output;
ScatterNdUpdate writes into input_x itself."""
import numpy as np

from ..kernel_def import IndexValueError
from ..registry import register_kernel


@register_kernel("StridedSliceGrad", provider="numpy")
def strided_slice_grad_numpy(dy, out, slices, shape):
    """`slices` are the per-axis slices of StridedSlice; `shape` is out[slices].shape."""
    out.fill(0)
    out[slices] = np.reshape(dy, shape)


@register_kernel("UnsortedSegmentSum", provider="numpy")
def unsorted_segment_sum_numpy(x, ids, out):
    """np.add.at accumulates repeated ids; ids outside [0, num_segments) are dropped."""
    out.fill(0)
    n = out.shape[0]
    ids = np.reshape(ids, -1)
    data = np.reshape(x, (ids.size,) + out.shape[1:])
    valid = (ids >= 0) & (ids < n)
    if not valid.all():
        ids, data = ids[valid], data[valid]
    np.add.at(out, ids, data)


@register_kernel("MaskedSelectGrad", provider="numpy")
def masked_select_grad_numpy(x, mask, grad, out):
    """NOTE: the count of True elements is only known here, so it is checked before writing."""
    m = np.broadcast_to(mask, out.shape)
    n = int(np.count_nonzero(m))
    if n != grad.shape[0]:
        raise ValueError(f"For 'MaskedSelectGrad', 'grad' must have one value per True element "
                         f"of 'mask' ({n}), but got {grad.shape[0]} values")
    out.fill(0)
    out[m] = grad


@register_kernel("ScatterNd", provider="numpy")
def scatter_nd_numpy(indices, updates, out):
    """NOTE: index values are only known here; they are checked before anything is written."""
    k = indices.shape[-1]
    if indices.size:
        flat = indices.reshape(-1, k)
        if flat.min() < 0:
            raise IndexValueError(f"For 'ScatterNd', each element in 'indice' must be greater "
                                  f"than or equal to 0, but got {flat.min()}")
        over = flat >= np.asarray(out.shape[:k])
        if over.any():
            row, col = np.argwhere(over)[0]
            raise IndexValueError(f"For 'ScatterNd', each element in 'indices' should be "
                                  f"smaller than the value of shape, but got {flat[row, col]} "
                                  f"and got the value of shape {out.shape[col]}")
    out[...] = 0
    if indices.size:
        np.add.at(out, tuple(indices[..., j] for j in range(k)), updates)


@register_kernel("ScatterNdUpdate", provider="numpy", alloc="kernel")
def scatter_nd_update_numpy(x, indices, updates):
    """NOTE: index values are only known here; they are checked before anything is written
    (MindSpore's messages; it ends a kernel error with the sentence below)."""
    if not x.flags.writeable:
        raise ValueError("For 'ScatterNdUpdate', 'input_x' is backed by a read-only array and "
                         "cannot be written in place")
    k = indices.shape[-1]
    flat = indices.reshape(-1, k)
    if flat.size:
        if flat.min() < 0:
            raise IndexValueError(f"The int value({flat.min()}) is less than 0.")
        over = flat >= np.asarray(x.shape[:k])
        if over.any():
            row = np.argwhere(over)[0][0]
            raise IndexValueError(f"For 'ScatterNdUpdate', the index {flat[row].tolist()} is "
                                  f"out of range for 'input_x' of shape {list(x.shape)}. Some "
                                  f"errors occurred! The error message is as above")
        x[tuple(flat[:, j] for j in range(k))] = updates.reshape((len(flat),) + x.shape[k:])
    return x
