"""mint's reductions, scans, sorting and statistics (mint.sum, mint.max, mint.std, mint.sort,
mint.topk, mint.median, ...): PyTorch-style `dim` / `keepdim` / `correction` and tuple returns
((values, int64 indices)) over the same primitives as ops (ops/functional.py). mint.max /
mint.min take three forms, resolved as MindSpore does (common/tensor_overload.py).
"""
from ..common import dtype as mstype
from ..common.tensor_overload import overloaded_function
from ..ops import functional as F
from ..ops.function._typed_prims import typed_prim as _prim
from ..ops.operations.search_ops import Bincount

__all__ = ['all', 'amax', 'amin', 'any', 'argmax', 'argmin', 'argsort', 'bincount',
           'count_nonzero', 'cummax', 'cummin', 'cumprod', 'cumsum', 'histc', 'kthvalue',
           'logsumexp', 'max', 'mean', 'median', 'min', 'nansum', 'norm', 'prod', 'softmax',
           'sort', 'std', 'std_mean', 'sum', 'topk', 'trace', 'unique_consecutive', 'var',
           'var_mean']


def softmax(input, dim, *, dtype=None):
    """mint.softmax: dim is required here (mint.nn.functional.softmax defaults it)."""
    x = input if dtype is None else F.cast(input, dtype)
    return F.softmax(x, dim)


def sum(input, dim=None, keepdim=False, *, dtype=None):
    return F.sum(input, dim, keepdim, dtype=dtype)


def mean(input, dim=None, keepdim=False, *, dtype=None):
    x = input if dtype is None else F.cast(input, dtype)
    return F.mean(x, dim, keepdim)


def prod(input, dim=None, keepdim=False, *, dtype=None):
    x = input if dtype is None else F.cast(input, dtype)
    return F.prod(x, dim, keepdim)


def _extreme(name):
    reduce, pair, elementwise = ((F.amax, F.max, F.maximum) if name == "max" else
                                 (F.amin, F.min, F.minimum))

    def all_(input):
        return reduce(input)

    def dim_(input, dim, keepdim):
        return pair(input, dim, keepdim)

    def other_(input, other):
        return elementwise(input, other)
    return overloaded_function(name, ("input: tensor", all_),
                               ("input: tensor, dim: int, keepdim: bool = False", dim_),
                               ("input: tensor, other: tensor", other_))


max = _extreme("max")
min = _extreme("min")


def amax(input, dim=(), keepdim=False):
    return F.amax(input, dim, keepdim)


def amin(input, dim=(), keepdim=False):
    return F.amin(input, dim, keepdim)


def all(input, dim=None, keepdim=False):
    return F.all(input, dim, keepdim)


def any(input, dim=None, keepdim=False):
    return F.any(input, dim, keepdim)


def argmax(input, dim=None, keepdim=False):
    return F.argmax(input, dim, keepdim)


def argmin(input, dim=None, keepdim=False):
    """Index (int64) of the first minimum along dim (over the flattened input for None)."""
    return F.cast(F.argmin(input, dim, keepdim), mstype.int64)


def sort(input, *, dim=-1, descending=False, stable=False):
    """(values, int64 indices) sorted along dim (always stable)."""
    values, index = F.sort(input, dim, descending)
    return values, F.cast(index, mstype.int64)


def argsort(input, dim=-1, descending=False, stable=False):
    return F.cast(F.argsort(input, dim, descending), mstype.int64)


def topk(input, k, dim=-1, largest=True, sorted=True):
    values, index = F.topk(input, k, dim, largest, sorted)
    return values, F.cast(index, mstype.int64)


def _corrected(input, dim, correction, keepdim):
    return dim, correction, keepdim


def std(input, dim=None, *, correction=1, keepdim=False):
    return F.std(input, *_corrected(input, dim, correction, keepdim))


def var(input, dim=None, *, correction=1, keepdim=False):
    return F.var(input, *_corrected(input, dim, correction, keepdim))


def std_mean(input, dim=None, *, correction=1, keepdim=False):
    return F.std_mean(input, *_corrected(input, dim, correction, keepdim))


def var_mean(input, dim=None, *, correction=1, keepdim=False):
    return F.var_mean(input, *_corrected(input, dim, correction, keepdim))


def median(input, dim=None, keepdim=False):
    """The median of all elements (0-D) for dim None, else (values, int64 indices)."""
    if dim is None:
        return F.median(F.reshape(input, (-1,)), 0)[0]
    return F.median(input, dim, keepdim)


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    return F.nansum(input, dim, keepdim, dtype=dtype)


def logsumexp(input, dim, keepdim=False):
    return F.logsumexp(input, dim, keepdim)


def cumsum(input, dim, dtype=None):
    return F.cumsum(input, dim, dtype)


def cumprod(input, dim, dtype=None):
    return F.cumprod(input, dim, dtype)


def cummax(input, dim):
    values, index = F.cummax(input, dim)
    return values, F.cast(index, mstype.int64)


def cummin(input, dim):
    values, index = F.cummin(input, dim)
    return values, F.cast(index, mstype.int64)


def count_nonzero(input, dim=None):
    """The number of nonzero elements (int64) over dim (all for None)."""
    return F.cast(F.count_nonzero(input, () if dim is None else dim), mstype.int64)


def histc(input, bins=100, min=0, max=0):
    return F.histc(input, bins, min, max)


def bincount(input, weights=None, minlength=0):
    """Counts (int64) or summed weights of each value of the 1-D non-negative int input
    (a negative value is a ValueError, as torch's)."""
    if weights is None:
        return _prim(Bincount, minlength, False)(input, input)
    return _prim(Bincount, minlength, True)(input, weights)


def kthvalue(input, k, dim=-1, keepdim=False):
    return F.kthvalue(input, k, dim, keepdim)


def norm(input, p="fro", dim=None, keepdim=False, *, dtype=None):
    """The vector p-norm over dim (all elements for None), or a matrix norm ('fro', 'nuc')
    over two dims."""
    if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) == 1):
        p = 2
    if isinstance(p, str):
        return F.matrix_norm(input, p, (-2, -1) if dim is None else dim, keepdim, dtype=dtype)
    return F.vector_norm(input, p, dim, keepdim, dtype=dtype)


def trace(input):
    return F.trace(input)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    return F.unique_consecutive(input, return_inverse, return_counts, dim)

