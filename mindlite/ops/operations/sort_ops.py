"""Sorting and searching primitives of issue 13: Sort, TopK, Cummax, Cummin, GatherD and
GatherDGradV2 (the scatter-add along one axis that their gradients share), each with its
bprop below it.

Ordering: NaN sorts as the largest value (last ascending, first descending, taken first by
TopK), as numpy and PyTorch; equal values keep their index order (stable). NOTE: MindSpore
2.10's CPU Sort / TopK compare with `<`, so with NaN in a row its order is whatever its
comparator leaves; mindlite gives the defined order above instead. Index dtypes are
MindSpore's: Sort / TopK int32, Cummax int64, Cummin int32.
Kernels: kernels/cpu/sort_numpy.py. Functional names: ops/function/sort_index_func.py.
"""
import numbers

from ...common import dtype as mstype
from ...ir.rules import bprop_for
from ...ir.primitive import Primitive, prim_attr_register
from ..validator import check_axis, check_bool, check_dtype, check_int, tensor
from ._base import cached_prim, needs_grad

__all__ = ["Sort", "TopK", "Cummax", "Cummin", "GatherD", "GatherDGradV2"]

_SORT_TYPES = mstype.NUMBER_TYPES


def _rank1(prim, arg, x):
    if not x.shape:
        raise ValueError(f"For '{prim.name}', the rank of '{arg}' must be greater than 0, but "
                         f"got a 0-d tensor")


class Sort(Primitive):
    """(values, indices): x sorted along `axis`, ascending unless `descending`; stable, NaN
    largest. indices int32. Gradient: dvalues scattered back to the positions they came
    from (GatherDGradV2)."""
    input_names = ("x",)

    @prim_attr_register
    def __init__(self, axis=-1, descending=False):
        check_int(self, "axis", axis)
        check_bool(self, "descending", descending)

    def _axis(self, x):
        check_dtype(self, "x", x, _SORT_TYPES)
        _rank1(self, "x", x)
        return check_axis(self, "axis", self.attrs["axis"], len(x.shape))

    def infer(self, x):
        self._axis(x)
        return x, tensor(mstype.int32, x.shape)

    def kernel_params(self, x):
        return {"axis": self._axis(x), "descending": self.attrs["descending"]}


@bprop_for(Sort)
def sort_bprop(prim, x, out, dout):
    if not needs_grad(x):
        return (None,)
    axis = prim._axis(x._abs)
    return (cached_prim(GatherDGradV2, axis)(x, out[1], dout[0]),)


class TopK(Primitive):
    """(values, indices): the k largest entries along the last axis, largest first (NaN
    counts as largest; equal values by index). `sorted=False`: MindSpore leaves the order
    unspecified (its 2.10 CPU kernel gives x itself for k = n); mindlite returns the k in
    the order they stand in x. k: a constant int in [1, x.shape[-1]]. indices int32."""
    input_names = ("input_x", "k")
    const_inputs = (1,)

    @prim_attr_register
    def __init__(self, sorted=True):
        check_bool(self, "sorted", sorted)

    def _k(self, x, k):
        check_dtype(self, "input_x", x, _SORT_TYPES)
        _rank1(self, "input_x", x)
        if not isinstance(k, numbers.Integral) or isinstance(k, bool):
            raise TypeError(f"For '{self.name}', 'k' must be an int, but got "
                            f"{type(k).__name__}: {k!r}")
        n = x.shape[-1]
        if not 0 < k <= n:
            raise ValueError(f"For '{self.name}', 'k' must be in (0, {n}] (the last dimension "
                             f"of 'input_x'), but got {k}")
        return int(k)

    def infer(self, x, k):
        shape = x.shape[:-1] + (self._k(x, k),)
        return tensor(x.dtype, shape), tensor(mstype.int32, shape)

    def kernel_params(self, x, k):
        return {"k": self._k(x, k), "sorted": self.attrs["sorted"]}


@bprop_for(TopK)
def topk_bprop(prim, x, k, out, dout):
    if not needs_grad(x):
        return None, None
    return cached_prim(GatherDGradV2, len(x.shape) - 1)(x, out[1], dout[0]), None


class _CumExtreme(Primitive):
    """(values, indices): the running extreme along `axis` and the index where it was
    taken; on ties the later index, and a NaN propagates (with its own index) as PyTorch.
    Gradient: dvalues scattered to those indices (GatherDGradV2)."""
    input_names = ("x",)
    index_type = mstype.int64

    @prim_attr_register
    def __init__(self, axis):
        check_int(self, "axis", axis)

    def _axis(self, x):
        check_dtype(self, "x", x, _SORT_TYPES)
        _rank1(self, "x", x)
        return check_axis(self, "axis", self.attrs["axis"], len(x.shape))

    def infer(self, x):
        self._axis(x)
        return x, tensor(self.index_type, x.shape)

    def kernel_params(self, x):
        return {"axis": self._axis(x)}


class Cummax(_CumExtreme):
    """Running maximum; indices int64 (as MindSpore)."""


class Cummin(_CumExtreme):
    """Running minimum; indices int32 (as MindSpore 2.10's Cummin)."""
    index_type = mstype.int32


@bprop_for(Cummax, Cummin)
def cum_extreme_bprop(prim, x, out, dout):
    if not needs_grad(x):
        return (None,)
    return (cached_prim(GatherDGradV2, prim._axis(x._abs))(x, out[1], dout[0]),)


def _check_index_shape(prim, x, index, dim, names):
    """index has x's rank and, off `dim`, no dimension larger than x's (GatherD's rule)."""
    check_dtype(prim, names[1], index, mstype.INDEX_TYPES)
    if len(index.shape) != len(x.shape):
        raise ValueError(f"For '{prim.name}', '{names[1]}' must have the rank of '{names[0]}' "
                         f"({len(x.shape)}), but got shape {list(index.shape)}")
    for d, (a, b) in enumerate(zip(x.shape, index.shape)):
        if d != dim and b > a:
            raise ValueError(f"For '{prim.name}', '{names[1]}'.shape[{d}] must be <= "
                             f"'{names[0]}'.shape[{d}] ({a}), but got shape "
                             f"{list(index.shape)}")


class GatherD(Primitive):
    """y[i][j][k] = x[index[i][j][k]][j][k] for dim 0 (likewise for any dim); y has index's
    shape. Indices in [-n, n) (negative from the end), checked by the kernel before writing.
    Gradient: dout scattered back (GatherDGradV2); index gets none."""
    input_names = ("x", "dim", "index")
    const_inputs = (1,)

    @prim_attr_register
    def __init__(self):
        pass

    def _dim(self, x, dim, index):
        check_dtype(self, "x", x, mstype.ALL_TYPES)
        dim = check_axis(self, "dim", dim, len(x.shape))
        _check_index_shape(self, x, index, dim, ("x", "index"))
        return dim

    def infer(self, x, dim, index):
        self._dim(x, dim, index)
        return tensor(x.dtype, index.shape)

    def kernel_params(self, x, dim, index):
        return {"dim": self._dim(x, dim, index)}


@bprop_for(GatherD)
def gather_d_bprop(prim, x, dim, index, out, dout):
    if not needs_grad(x):
        return None, None, None
    d = prim._dim(x._abs, dim, index._abs)
    return cached_prim(GatherDGradV2, d)(x, index, dout), None, None


class GatherDGradV2(Primitive):
    """dx = zeros of x's shape with grad added at index along `dim` (repeated indices
    accumulate): the gradient of GatherD, Sort, TopK, Cummax. x is read for its shape only.
    Gradient: d grad = GatherD(d dx, dim, index)."""
    input_names = ("x", "index", "grad")

    @prim_attr_register
    def __init__(self, dim=0):
        check_int(self, "dim", dim)

    def _dim(self, x, index, grad):
        check_dtype(self, "grad", grad, mstype.NUMBER_TYPES)
        dim = check_axis(self, "dim", self.attrs["dim"], len(x.shape))
        _check_index_shape(self, x, index, dim, ("x", "index"))
        if grad.shape != index.shape or grad.dtype is not x.dtype:
            raise ValueError(f"For '{self.name}', 'grad' must have the shape of 'index' "
                             f"{list(index.shape)} and the dtype of 'x' {x.dtype}, but got "
                             f"{list(grad.shape)} and {grad.dtype}")
        return dim

    def infer(self, x, index, grad):
        self._dim(x, index, grad)
        return x

    def kernel_params(self, x, index, grad):
        return {"dim": self._dim(x, index, grad)}


@bprop_for(GatherDGradV2)
def gather_d_grad_bprop(prim, x, index, grad, out, dout):
    dim = prim._dim(x._abs, index._abs, grad._abs)
    return None, None, cached_prim(GatherD)(dout, dim, index)
