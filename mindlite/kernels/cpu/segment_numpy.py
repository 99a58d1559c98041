"""numpy kernels for ops/operations/segment_ops.py (UnsortedSegmentMax / Min / Prod): the
output starts at the reduction's identity (the dtype's lowest / highest value, 1), then
ufunc.at folds every row in; negative ids are dropped, ids >= num_segments raise."""
import numpy as np

from ..registry import register_kernel


def _limits(dtype):
    if dtype.kind == "f":
        info = np.finfo(dtype)
    else:
        info = np.iinfo(dtype)
    return info.min, info.max


def _segment(name, ufunc, start):
    def kernel(x, ids, out):
        n = out.shape[0]
        ids = np.reshape(ids, -1)
        data = np.reshape(x, (ids.size,) + out.shape[1:])
        if ids.size and ids.max() >= n:
            raise ValueError(f"For '{name}', 'segment_ids' must be less than num_segments "
                             f"{n}, but got {int(ids.max())}")
        out.fill(start(out.dtype))
        keep = ids >= 0
        if not keep.all():
            ids, data = ids[keep], data[keep]
        ufunc.at(out, ids, data)
    kernel.__name__ = kernel.__qualname__ = f"{name.lower()}_numpy"
    return kernel


for _name, _ufunc, _start in (
        ("UnsortedSegmentMax", np.maximum, lambda dt: _limits(dt)[0]),
        ("UnsortedSegmentMin", np.minimum, lambda dt: _limits(dt)[1]),
        ("UnsortedSegmentProd", np.multiply, lambda dt: 1)):
    register_kernel(_name, provider="numpy")(_segment(_name, _ufunc, _start))
