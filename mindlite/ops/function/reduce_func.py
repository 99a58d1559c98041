"""Functional reductions (MindSpore 2.x): ops.sum, mean, amax, amin, prod, all, any, argmax,
argmin, max, min. Each uses a module-level primitive per attribute combination (keep_dims,
axis, output type), so repeated calls hit the runner cache. axis=None means all axes.
"""
from ...cache_limits import remember
from ...common import dtype as mstype
from ...common.tensor import Tensor
from ..operations import array_ops as A
from ..operations import reduce_ops as P

__all__ = ['sum', 'mean', 'amax', 'amin', 'prod', 'all', 'any', 'argmax', 'argmin', 'max',
           'min']


def _pair(cls):
    return {False: cls(False), True: cls(True)}


_sum = _pair(P.ReduceSum)
_mean = _pair(P.ReduceMean)
_max = _pair(P.ReduceMax)
_min = _pair(P.ReduceMin)
_prod = _pair(P.ReduceProd)
_all = _pair(P.ReduceAll)
_any = _pair(P.ReduceAny)
_cast = A.Cast()
_reshape = A.Reshape()
_expand_dims = A.ExpandDims()
_ARGS = {}


def _arg_prim(cls, *attrs):
    key = (cls, attrs)
    prim = _ARGS.get(key)
    if prim is None:
        prim = remember(_ARGS, key, cls(*attrs))
    return prim


def _keep(keep):
    if keep is not True and keep is not False:
        raise TypeError(f"'keepdims' / 'keep_dims' must be a bool, but got {keep!r}")
    return keep


def _reduce(prims, input, axis, keep):
    """All axes (None or ()) call the primitive with x alone: the one-lookup fast path."""
    prim = prims[_keep(keep)]
    if axis is None or (type(axis) is tuple and not axis):
        return prim(input)
    return prim(input, tuple(axis) if isinstance(axis, list) else axis)


def sum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum over `dim` (all for None); bool inputs are summed as int64 (as MindSpore)."""
    if dtype is not None:
        input = _cast(input, dtype)
    elif getattr(input, "dtype", None) is mstype.bool_:
        input = _cast(input, mstype.int64)
    return _reduce(_sum, input, dim, keepdim)


def mean(x, axis=None, keep_dims=False):
    return _reduce(_mean, x, axis, keep_dims)


def _masked_extreme(prims, extreme, input, axis, keepdims, initial, where):
    """amax / amin with numpy's `initial` (taking part in every reduction) and `where` (a bool
    mask broadcast to input: masked-out elements take `initial`'s place, so `initial` is
    then required, as numpy)."""
    if where is not None and where is not True:
        if initial is None:
            raise ValueError("For 'amax'/'amin', 'initial' must be given together with "
                             "'where' (the value of the masked-out elements)")
        from .math_func import where as _where_fn
        input = _where_fn(where, input, _cast(Tensor(initial), input.dtype))
    out = _reduce(prims, input, axis, keepdims)
    if initial is not None:
        out = extreme(out, _cast(Tensor(initial), out.dtype))
    return out


def amax(input, axis=None, keepdims=False, *, initial=None, where=None):
    if initial is None and where is None:
        return _reduce(_max, input, axis, keepdims)
    from .math_func import maximum
    return _masked_extreme(_max, maximum, input, axis, keepdims, initial, where)


def amin(input, axis=None, keepdims=False, *, initial=None, where=None):
    if initial is None and where is None:
        return _reduce(_min, input, axis, keepdims)
    from .math_func import minimum
    return _masked_extreme(_min, minimum, input, axis, keepdims, initial, where)


def prod(input, axis=None, keep_dims=False, dtype=None):
    """The product over `axis` (all for None); with axis None, keep_dims must be False (as
    MindSpore 2.10's ProdExt); `dtype` casts the input first."""
    if axis is None and keep_dims is True:
        raise ValueError("For ProdExt, when axis is None, keep_dims can only set to false, but "
                         "got keep_dims=True.")
    if dtype is not None:
        input = _cast(input, dtype)
    return _reduce(_prod, input, axis, keep_dims)


def _as_bool(input):
    return input if getattr(input, "dtype", None) is mstype.bool_ or \
        not isinstance(input, Tensor) else _cast(input, mstype.bool_)


def all(input, axis=None, keep_dims=False):
    """Whether every element along `axis` is nonzero (non-bool inputs are tested != 0)."""
    return _reduce(_all, _as_bool(input), axis, keep_dims)


def any(input, axis=None, keep_dims=False):
    """Whether any element along `axis` is nonzero (non-bool inputs are tested != 0)."""
    return _reduce(_any, _as_bool(input), axis, keep_dims)


def _arg(cls, input, axis, keepdims, out_type):
    _keep(keepdims)
    if getattr(input, "dtype", None) is mstype.bool_:
        input = _cast(input, mstype.int32)
    if axis is None:
        return _arg_prim(cls, 0, out_type)(_reshape(input, (-1,)))
    out = _arg_prim(cls, axis, out_type)(input)
    if keepdims and input.ndim:
        out = _expand_dims(out, axis)
    return out


def argmax(input, dim=None, keepdim=False):
    """Index (int64) of the first maximum along `dim`; over the flattened input for None
    (then `keepdim` is ignored, as MindSpore)."""
    return _arg(P.Argmax, input, dim, keepdim, mstype.int64)


def argmin(input, axis=None, keepdims=False):
    """Index (int32, as MindSpore's ops.argmin) of the first minimum along `axis`; over the
    flattened input for None (then `keepdims` is ignored)."""
    return _arg(P.Argmin, input, axis, keepdims, mstype.int32)


def _extreme(cls, reduce, input, axis, keepdims):
    if axis is None:
        return reduce[False](input), _zero_index()
    if getattr(input, "dtype", None) is mstype.bfloat16:      # no bfloat16 arg kernels: the
        values = _reduce(reduce, input, axis, keepdims)       # values in bfloat16, the index
        index, _ = _arg_prim(cls, axis, _keep(keepdims))(_cast(input, mstype.float32))
        return values, index                                  # of the exactly widened values
    index, values = _arg_prim(cls, axis, _keep(keepdims))(input)
    return values, index


def _zero_index():
    return Tensor(0, mstype.int64)


def max(input, axis=None, keepdims=False, *, initial=None, where=None):
    """(values, indices int64) of the maximum along `axis` (ArgMaxWithValue); for axis=None
    the maximum of all elements and index 0, as MindSpore documents. `initial` / `where`: as
    amax (the values only; the indices are those of the unmasked maximum)."""
    values, index = _extreme(P.ArgMaxWithValue, _max, input, axis, keepdims)
    if initial is not None or where is not None:
        values = amax(input, axis, keepdims, initial=initial, where=where)
    return values, index


def min(input, axis=None, keepdims=False, *, initial=None, where=None):
    """(values, indices int64) of the minimum along `axis` (ArgMinWithValue); see max."""
    values, index = _extreme(P.ArgMinWithValue, _min, input, axis, keepdims)
    if initial is not None or where is not None:
        values = amin(input, axis, keepdims, initial=initial, where=where)
    return values, index
