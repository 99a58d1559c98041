"""mindlite.numpy's set operations: `unique` (in order of first appearance, as MindSpore's
numpy; `return_inverse`), `in1d`, `isin`, `intersect1d` and `setdiff1d` (sorted), and
`argwhere`, on the Unique / Sort / Equal / MaskedSelect primitives."""
from ..common import dtype as mstype
from ..ops import functional as F
from .dtypes import to_tensor

__all__ = ["unique", "in1d", "isin", "intersect1d", "setdiff1d", "argwhere"]


def unique(x, return_inverse=False):
    """The distinct values of the flattened x, in the order they first appear (the Unique
    primitive's order, as MindSpore's); with return_inverse, each element's int32 index
    among them."""
    x = F.reshape(to_tensor(x), (-1,))
    if x.shape[0] == 0:
        return (x, F.zeros((0,), mstype.int32)) if return_inverse else x
    values, inverse = F.unique(x)
    return (values, inverse) if return_inverse else values


def _sorted_unique(a):
    return F.sort(F.unique(F.reshape(to_tensor(a), (-1,)))[0])[0]


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
    a = _sorted_unique(ar1)
    return F.masked_select(a, in1d(a, _sorted_unique(ar2)))


def setdiff1d(ar1, ar2, assume_unique=False):
    """The sorted unique values of ar1 not in ar2."""
    a = _sorted_unique(ar1) if not assume_unique else F.reshape(to_tensor(ar1), (-1,))
    return F.masked_select(a, in1d(a, ar2, invert=True))


def argwhere(a):
    """(N, ndim) int64 indices of the nonzero elements."""
    return F.nonzero(to_tensor(a))
