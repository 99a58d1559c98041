"""mindlite.numpy's set operations: `unique` (in order of first appearance, as MindSpore's
numpy; `return_inverse`), `in1d`, `isin`, `intersect1d`, `setdiff1d`, and `argwhere`.
Values go through the Unique / Gather / Equal primitives; the order of first appearance
is worked out from Unique's int32 inverse indices."""
import numpy as onp

from ..common import dtype as mstype
from ..common.tensor import Tensor
from ..ops import functional as F
from .dtypes import to_tensor

__all__ = ["unique", "in1d", "isin", "intersect1d", "setdiff1d", "argwhere"]


def unique(x, return_inverse=False):
    """The distinct values of the flattened x, in the order they first appear."""
    x = F.reshape(to_tensor(x), (-1,))
    if x.shape[0] == 0:
        return (x, F.zeros((0,), mstype.int32)) if return_inverse else x
    values, inverse = F.unique(x)
    inv = inverse.asnumpy()
    first = onp.full(values.shape[0], inv.shape[0], onp.int64)
    onp.minimum.at(first, inv, onp.arange(inv.shape[0]))
    order = onp.argsort(first, kind="stable")
    out = F.gather(values, Tensor(order.astype(onp.int32)), 0)
    if not return_inverse:
        return out
    rank = onp.empty_like(order)
    rank[order] = onp.arange(order.shape[0])
    return out, Tensor(rank[inv].astype(onp.int32))


def in1d(ar1, ar2, invert=False):
    """For each element of the flattened ar1: is it in ar2?"""
    a = F.reshape(to_tensor(ar1), (-1, 1))
    b = F.reshape(to_tensor(ar2), (1, -1))
    hit = F.any(F.equal(a, b), 1) if b.shape[1] else F.zeros((a.shape[0],), mstype.bool_)
    return F.logical_not(hit) if invert else hit


def isin(element, test_elements, invert=False):
    """in1d shaped like `element`."""
    e = to_tensor(element)
    return F.reshape(in1d(e, test_elements, invert), e.shape)


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """The sorted values in both (unique)."""
    if return_indices:
        raise ValueError("For 'mindlite.numpy.intersect1d', return_indices=True is not "
                         "supported (as MindSpore)")
    a = F.unique(F.reshape(to_tensor(ar1), (-1,)))[0]
    b = F.unique(F.reshape(to_tensor(ar2), (-1,)))[0]
    return F.masked_select(a, in1d(a, b))


def setdiff1d(ar1, ar2, assume_unique=False):
    """The sorted unique values of ar1 not in ar2."""
    a = F.reshape(to_tensor(ar1), (-1,))
    if not assume_unique:
        a = F.unique(a)[0]
    return F.masked_select(a, in1d(a, ar2, invert=True))


def argwhere(a):
    """(N, ndim) int64 indices of the nonzero elements."""
    return F.nonzero(to_tensor(a))
