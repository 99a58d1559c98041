"""numpy reference kernels for reorder_ops: ReverseV2, Roll, Triu, Tril (every dtype).

alloc="runtime" kernels copying into the preallocated output; Triu / Tril build the
triangle mask once for the last two axes and broadcast it over the batch.
"""
import numpy as np

from ..registry import register_kernel


@register_kernel("ReverseV2", provider="numpy")
def reverse_v2_numpy(x, out, axis):
    np.copyto(out, np.flip(x, axis) if axis else x)


@register_kernel("Roll", provider="numpy")
def roll_numpy(x, out, shifts, dims):
    if x.size == 0:
        return
    if dims is None:
        np.copyto(out, np.roll(x.reshape(-1), shifts[0]).reshape(x.shape))
    else:
        np.copyto(out, np.roll(x, shifts, dims))


def _triangle(x, out, diagonal, upper):
    rows, cols = x.shape[-2:]
    keep = np.arange(cols)[None, :] - np.arange(rows)[:, None]
    keep = keep >= diagonal if upper else keep <= diagonal
    np.copyto(out, np.where(keep, x, np.zeros((), x.dtype)))


@register_kernel("Triu", provider="numpy")
def triu_numpy(x, out, diagonal):
    _triangle(x, out, diagonal, True)


@register_kernel("Tril", provider="numpy")
def tril_numpy(x, out, diagonal):
    _triangle(x, out, diagonal, False)
