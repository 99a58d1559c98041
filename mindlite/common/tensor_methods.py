"""Tensor's reduction and shape methods (`x.sum()`, `x.max(dim)`, `x.transpose(0, 1)`, ...):
each calls the functional op, so it is recorded for autograd and parsed by graph mode like any
op. Tensor inherits `METHODS`; more families live in sibling `tensor_methods_*.py` modules
listed in tensor.py's `_METHOD_MODULES`.

MindSpore 2.10 gives many of these methods several signatures (a PyTorch-style one and the
older MindSpore one); those are `overloaded` (common/tensor_overload.py): the signatures are
tried in MindSpore's order and the first the call fits runs, so `x.transpose(0, 1)` swaps two
dims while `x.transpose((1, 0))` permutes, `x.max(1)` returns (values, indices) while
`x.max(axis=1)` returns the values, as in MindSpore.
"""
from . import dtype as mstype
from .tensor_overload import overloaded

F = None      # mindlite.ops.functional, bound by tensor.py (functional imports Tensor)


def _sum_ext(self, dim, keepdim, dtype):
    return F.sum(self, dim, keepdim, dtype=dtype)


def _sum_old(self, axis, dtype, keepdims, initial):
    """MindSpore's older Tensor.sum: `initial` added, a bool dtype gives a bool result."""
    out = F.sum(self, axis, keepdims, dtype=None if dtype is mstype.bool_ else dtype)
    if initial is not None:
        out = F.add(out, initial)
    return F.cast(out, dtype) if dtype is mstype.bool_ else out


def _mean_ext(self, dim, keepdim, dtype):
    out = F.mean(self, dim, keepdim)
    return out if dtype is None else F.cast(out, dtype)


def _mean_old(self, axis, keep_dims):
    return F.mean(self, axis, keep_dims)


def _prod(self, dim, keepdim, dtype):
    return F.prod(self, dim, keepdim, dtype=dtype)


def _extreme_all(name):
    return lambda self: (F.amax if name == "max" else F.amin)(self)


def _extreme_dim(name):
    def impl(self, dim, keepdim):
        return (F.max if name == "max" else F.min)(self, dim, keepdim)
    return impl


def _extreme_old(name):
    """MindSpore's older Tensor.max / min: values over `axis` (a tuple reduces several),
    `initial` taking part, `where` masking elements out; indices too with return_indices."""
    def impl(self, axis, keepdims, initial, where, return_indices):
        reduce = F.amax if name == "max" else F.amin
        if isinstance(axis, (tuple, list)) or not return_indices:
            return reduce(self, axis, keepdims, initial=initial, where=where)
        values, indices = (F.max if name == "max" else F.min)(self, axis, keepdims)
        if initial is not None:
            values = (F.maximum if name == "max" else F.minimum)(values, initial)
        return values, indices
    return impl


def _all_any(name, new=False):
    def reduce(self, axis, keep):
        x = self if self.dtype is mstype.bool_ else F.cast(self, mstype.bool_)
        return (F.all if name == "all" else F.any)(x, axis, keep)
    if new:
        return lambda self, dim, keepdim: reduce(self, dim, keepdim)
    return lambda self, axis, keep_dims: reduce(self, axis, keep_dims)


def _argext(name, new=False):
    def arg(self, axis, keep):
        return (F.argmax if name == "argmax" else F.argmin)(self, axis, keep)
    if new:
        return lambda self, dim, keepdim: arg(self, dim, keepdim)
    return lambda self, axis, keepdims: arg(self, axis, keepdims)


def _transpose_dims(self, dim0, dim1):
    return F.swapaxes(self, dim0, dim1)


def _transpose_axes(self, axes):
    if not axes:
        axes = tuple(range(self.ndim - 1, -1, -1))
    return F.transpose(self, axes)


def _permute(self, dims):
    """No dims: the reversed order, as transpose()."""
    return F.transpose(self, dims if dims else tuple(range(self.ndim - 1, -1, -1)))


def _flatten(self, start_dim, end_dim):
    return F.flatten(self, start_dim=start_dim, end_dim=end_dim)


def _flatten_order(self, order, start_dim, end_dim):
    return F.flatten(self, order, start_dim=start_dim, end_dim=end_dim)


def _gather_dim(self, dim, index):
    return F.gather_elements(self, dim, index)


def _gather_old(self, input_indices, axis, batch_dims):
    return F.gather(self, input_indices, axis, batch_dims)


def _cumsum_dim(self, dim, dtype):
    return F.cumsum(self, dim, dtype)


def _cumsum_old(self, axis, dtype):
    """axis None: over the flattened tensor; summed in self's dtype, then cast (as MindSpore's
    older Tensor.cumsum)."""
    x = F.reshape(self, (-1,)) if axis is None else self
    out = F.cumsum(x, 0 if axis is None else axis)
    return out if dtype is None else F.cast(out, dtype)


def _view_shape(self, shape):
    return F.reshape(self, shape)


def _view_dtype(self, dtype):
    return F.view_dtype(self, dtype)


class TensorMethods:
    """Reductions, shape changes and the most common arithmetic."""
    __slots__ = ()

    @property
    def T(self):
        return F.transpose(self, tuple(range(self.ndim - 1, -1, -1)))

    def add(self, other, *, alpha=1):
        return F.add(self, other) if alpha == 1 else F.add(self, F.mul(other, alpha))

    def sub(self, other=None, *, alpha=1, y=None):
        other = y if other is None else other
        return F.sub(self, other) if alpha == 1 else F.sub(self, F.mul(other, alpha))

    def mul(self, other): return F.mul(self, other)

    def div(self, other, *, rounding_mode=None):
        return F.div(self, other, rounding_mode=rounding_mode)

    def pow(self, exponent): return F.pow(self, exponent)
    def matmul(self, other=None, *, tensor2=None):
        """matmul(other) or matmul(tensor2=...) (MindSpore 2.10's two spellings)."""
        return F.matmul(self, tensor2 if other is None else other)
    def maximum(self, other): return F.maximum(self, other)
    def minimum(self, other): return F.minimum(self, other)
    def abs(self): return F.abs(self)
    def neg(self): return F.neg(self)
    def exp(self): return F.exp(self)
    def log(self): return F.log(self)
    def sqrt(self): return F.sqrt(self)
    def square(self): return F.square(self)
    def sigmoid(self): return F.sigmoid(self)
    def tanh(self): return F.tanh(self)
    def relu(self): return F.relu(self)
    def clamp(self, min=None, max=None): return F.clamp(self, min, max)
    def clip(self, min=None, max=None): return F.clamp(self, min, max)

    sum = overloaded(
        "sum", ("dim: ints? = None, keepdim: bool = False, *, dtype: dtype? = None", _sum_ext),
        ("axis: ints? = None, dtype: dtype? = None, keepdims: bool = False, initial: any = None",
         _sum_old))
    mean = overloaded(
        "mean", ("dim: ints? = None, keepdim: bool = False, *, dtype: dtype? = None", _mean_ext),
        ("axis: ints? = None, keep_dims: bool = False", _mean_old))
    prod = overloaded(
        "prod", ("dim: int? = None, keepdim: bool = False, dtype: dtype? = None", _prod))
    max = overloaded(
        "max", ("", _extreme_all("max")), ("dim: int, keepdim: bool = False", _extreme_dim("max")),
        ("axis: ints? = None, keepdims: bool = False, *, initial: any = None, where: any = True, "
         "return_indices: bool = False", _extreme_old("max")))
    min = overloaded(
        "min", ("", _extreme_all("min")), ("dim: int, keepdim: bool = False", _extreme_dim("min")),
        ("axis: ints? = None, keepdims: bool = False, *, initial: any = None, where: any = True, "
         "return_indices: bool = False", _extreme_old("min")))
    all = overloaded("all", ("axis: ints? = None, keep_dims: bool = False", _all_any("all")),
                     ("dim: ints? = None, keepdim: bool = False", _all_any("all", True)))
    any = overloaded("any", ("axis: ints? = None, keep_dims: bool = False", _all_any("any")),
                     ("dim: ints? = None, keepdim: bool = False", _all_any("any", True)))
    argmax = overloaded("argmax", ("axis: int? = None, keepdims: bool = False", _argext("argmax")),
                        ("dim: int? = None, keepdim: bool = False", _argext("argmax", True)))
    argmin = overloaded("argmin", ("axis: int? = None, keepdims: bool = False", _argext("argmin")),
                        ("dim: int? = None, keepdim: bool = False", _argext("argmin", True)))
    transpose = overloaded("transpose", ("dim0: int, dim1: int", _transpose_dims),
                           ("*axes: int", _transpose_axes))
    permute = overloaded("permute", ("*dims: int", _permute), ("*axis: int", _permute))
    flatten = overloaded("flatten", ("start_dim: int = 0, end_dim: int = -1", _flatten),
                         ("order: str = 'C', start_dim: int = 0, end_dim: int = -1",
                          _flatten_order))
    gather = overloaded("gather", ("dim: int, index: tensor", _gather_dim),
                        ("input_indices: tensor, axis: int, batch_dims: int = 0", _gather_old))
    cumsum = overloaded("cumsum", ("dim: int, *, dtype: dtype? = None", _cumsum_dim),
                        ("axis: int? = None, dtype: dtype? = None", _cumsum_old))
    view = overloaded("view", ("*shape: int", _view_shape), ("dtype: dtype", _view_dtype))

    def amax(self, axis=None, keepdims=False, *, initial=None, where=None):
        return F.amax(self, axis, keepdims, initial=initial, where=where)

    def amin(self, axis=None, keepdims=False, *, initial=None, where=None):
        return F.amin(self, axis, keepdims, initial=initial, where=where)

    def softmax(self, axis=-1, dtype=None):
        x = self if dtype is None else F.cast(self, dtype)
        return F.softmax(x, axis)

    def reshape(self, *shape): return F.reshape(self, _shape_args(shape))
    def ravel(self): return F.reshape(self, (-1,))

    def squeeze(self, *axis, **kwargs):
        """squeeze(*axis) or squeeze(axis=...): axes whose size is not 1 are left as they are
        (as MindSpore 2.10)."""
        if kwargs:
            if axis or set(kwargs) - {"axis", "dim"}:
                raise TypeError(f"Failed calling squeeze with {axis!r} and {kwargs!r}")
            axis = (next(iter(kwargs.values())),)
            if axis == (None,):
                axis = ()
        axis = _shape_args(axis)
        return F.squeeze(self, axis if axis else None)

    def expand_dims(self, axis): return F.expand_dims(self, axis)
    def unsqueeze(self, dim=None, *, axis=None):
        return F.expand_dims(self, axis if dim is None else dim)

    def tile(self, dims=None, *, reps=None):
        return F.tile(self, reps if dims is None else dims)

    def broadcast_to(self, *shape): return F.broadcast_to(self, _shape_args(shape))
    def expand_as(self, other=None, *, x=None):
        return F.broadcast_to(self, (x if other is None else other).shape)

    def isnan(self): return F.isnan(self)
    def isinf(self): return F.isinf(self)
    def isfinite(self): return F.isfinite(self)
    def flip(self, dims): return F.flip(self, dims)
    def roll(self, shifts, dims=None): return F.roll(self, shifts, dims)
    def triu(self, diagonal=0): return F.triu(self, diagonal)
    def tril(self, diagonal=0): return F.tril(self, diagonal)
    def cumprod(self, dim, dtype=None): return F.cumprod(self, dim, dtype)

    def isclose(self, other=None, rtol=1e-05, atol=1e-08, equal_nan=False, *, x2=None):
        return F.isclose(self, x2 if other is None else other, rtol, atol, equal_nan)

    def allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        return F.allclose(self, other, rtol, atol, equal_nan)


METHODS = TensorMethods


def _shape_args(args):
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        return tuple(args[0])
    return tuple(args)
