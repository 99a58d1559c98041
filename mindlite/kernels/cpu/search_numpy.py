"""numpy kernel of SearchSorted (ops/operations/search_ops.py): np.searchsorted per row."""
import numpy as np

from ..registry import register_kernel


@register_kernel("SearchSorted", provider="numpy")
def search_sorted_numpy(seq, values, out, right=False):
    side = "right" if right else "left"
    if seq.ndim == 1:
        out[...] = np.searchsorted(seq, values, side=side)
        return
    rows_s = seq.reshape(-1, seq.shape[-1])
    rows_v = values.reshape(-1, values.shape[-1])
    flat = out.reshape(-1, out.shape[-1])
    for k in range(rows_s.shape[0]):
        flat[k] = np.searchsorted(rows_s[k], rows_v[k], side=side)
