"""Helpers of backward and bprops, written with primitives so they are differentiable too:
sum_to (undo broadcasting), accumulate (fan-out), zeros_like_tensor."""
import numpy as np

from ...common.tensor import Tensor
from ..operations import array_ops, math_ops, reduce_ops
from ..operations.array_ops import sum_to  # noqa: F401  (defined below the bprops)

__all__ = ["sum_to", "accumulate", "zeros_like_tensor"]

_add = math_ops.Add()
_reduce_sum_flat = reduce_ops.ReduceSum(keep_dims=False)     # pynative/grad.py's


def zeros_like_tensor(t):
    return Tensor.from_numpy(np.zeros(t.shape, dtype=t.dtype.np))


def accumulate(grads, x, dx):
    """grads[id(x)] += dx, with dx summed to x's shape and cast to x's dtype.
    Integer and bool inputs get no gradient (as MindSpore)."""
    if x.dtype.kind not in "fc":
        return
    if not isinstance(dx, Tensor):
        dx = Tensor.from_numpy(np.full(x.shape, dx, dtype=x.dtype.np))
    if dx.shape != x.shape:
        dx = sum_to(dx, x.shape)
    if dx.dtype is not x.dtype:
        dx = _cast()(dx, x.dtype)
    prev = grads.get(id(x))
    grads[id(x)] = dx if prev is None else _add(prev, dx)


def _cast():
    return array_ops.Cast()
