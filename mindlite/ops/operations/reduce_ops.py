"""Reductions: ReduceSum/Mean/Max/Min/Prod/All/Any, Argmax/Argmin, ArgMaxWithValue,
ArgMinWithValue.

Called as MindSpore's `ReduceSum(keep_dims=False)(x, axis)`, axis an int, tuple or ()
(= all axes; may be left out). Kernels get `axis` as a sorted tuple of non-negative ints
(() for a 0-d input) and `keep_dims`; Argmax/Argmin/ArgM*WithValue get one non-negative
int `axis` (0 for a 0-d input). Kernels: kernels/cpu/reduce_*.py.

Each differentiable reduction has its bprop below it, built from primitives (reshape,
broadcast, compare, select, multiply, ...) so gradients are differentiable again; the
boolean reductions and the index-valued Argmax / Argmin are non-differentiable.
"""
from ...common import dtype as mstype
from ...ir.rules import bprop_for, non_differentiable
from ...ir.primitive import Primitive, const_value, prim_attr_register
from ..validator import (check_axes, check_axis, check_bool, check_dtype, check_index_type,
                         check_int, tensor)
from ._base import needs_grad

__all__ = ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceAll",
           "ReduceAny", "Argmax", "Argmin", "ArgMaxWithValue", "ArgMinWithValue"]


_FUNCTIONAL = []


def _F():
    """ops.functional (bprops only: functional imports this module), imported at first use."""
    if not _FUNCTIONAL:
        from .. import functional
        _FUNCTIONAL.append(functional)
    return _FUNCTIONAL[0]


class _Reduce(Primitive):
    const_inputs = (1,)
    valid_types = mstype.NUMBER_BF16_TYPES
    needs_elements = False            # max / min: no identity, so no empty reduced axes

    @prim_attr_register
    def __init__(self, keep_dims=False):
        check_bool(self, "keep_dims", keep_dims)

    def _axes(self, x, axis, extra):
        if extra:
            raise TypeError(f"For '{self.name}', expected the inputs (x, axis), but got "
                            f"{2 + len(extra)} inputs")
        check_dtype(self, "x", x, self.valid_types)
        axes = check_axes(self, "axis", axis, len(x.shape))
        if self.needs_elements and any(x.shape[a] == 0 for a in axes):
            raise ValueError(f"For '{self.name}', the reduced axes {list(axes)} of 'x' must not "
                             f"have size 0 (no identity for this reduction), but got shape "
                             f"{list(x.shape)}")
        return axes

    def infer(self, x, axis=(), *extra):
        axes = self._axes(x, axis, extra)
        if self.attrs["keep_dims"]:
            shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
        else:
            shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
        return tensor(x.dtype, shape)

    def kernel_params(self, x, axis=(), *extra):
        return {"axis": self._axes(x, axis, extra), "keep_dims": self.attrs["keep_dims"]}


def _reduce_args(prim, x, rest):
    """(axes, keep-dims shape, out, dout) of a reduction's bprop; rest = ([axis,] out, dout)."""
    axes = prim._axes(x._abs, const_value(rest[0]) if len(rest) == 3 else (), ())
    kshape = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
    return axes, kshape, rest[-2], rest[-1]


def _grads(rest, dx):
    """dx followed by None for the constant axis input, if the call had one."""
    return (dx,) + (None,) * (len(rest) - 2)


def _keep(t, kshape):
    return t if t.shape == kshape else _F().reshape(t, kshape)


def _spread(dx, kshape, shape):
    """dx (the reduction's output gradient) back at x's shape: reshaped to the keep-dims
    shape, then broadcast. A 0-d dx (every axis reduced) broadcasts as it is."""
    if kshape == shape:
        return _keep(dx, kshape)
    return _F().broadcast_to(dx if dx.shape == () else _keep(dx, kshape), shape)


class ReduceSum(_Reduce):
    """sum over `axis` (all axes for ()); the sum of an empty set is 0."""
    valid_types = mstype.NUMBER_BF16_COMPLEX_TYPES


@bprop_for(ReduceSum)
def reduce_sum_bprop(prim, x, *rest):
    """dx = dout broadcast back over the reduced axes."""
    if not needs_grad(x):
        return _grads(rest, None)
    axes, kshape, out, dout = _reduce_args(prim, x, rest)
    return _grads(rest, _spread(dout, kshape, x.shape))


class ReduceMean(_Reduce):
    """mean over `axis`; the mean of an empty set is NaN for floats.
    NOTE: integer inputs keep their dtype (as MindSpore): the mean is taken in float64 and
    truncated toward zero; the mean of an empty set is 0 for them."""
    valid_types = mstype.NUMBER_BF16_COMPLEX_TYPES


@bprop_for(ReduceMean)
def reduce_mean_bprop(prim, x, *rest):
    """dx = dout / count broadcast back over the reduced axes (count = reduced elements)."""
    if not needs_grad(x):
        return _grads(rest, None)
    axes, kshape, out, dout = _reduce_args(prim, x, rest)
    count = 1
    for a in axes:
        count *= x.shape[a]
    return _grads(rest, _spread(_F().div(dout, count) if count > 1 else dout, kshape, x.shape))


class ReduceMax(_Reduce):
    """maximum over `axis` (NaN propagates); a reduced axis of size 0 is a ValueError.
    Gradient: to the positions equal to the result, shared equally among ties."""
    needs_elements = True


@bprop_for(ReduceMax)
def reduce_extreme_bprop(prim, x, *rest):
    """ReduceMax / ReduceMin: dout goes to the positions equal to the result, shared equally
    among ties (MindSpore's and TensorFlow's convention: k tied maxima get dout / k each).
    A slice holding NaN has no position equal to its NaN result and gets NaN."""
    if not needs_grad(x):
        return _grads(rest, None)
    axes, kshape, out, dout = _reduce_args(prim, x, rest)
    F = _F()
    hit = F.cast(F.equal(x, _keep(out, kshape)), x.dtype)
    share = F.div(hit, F.sum(hit, axes, True))
    return _grads(rest, F.mul(share, _keep(dout, kshape)))


class ReduceMin(_Reduce):
    """minimum over `axis` (NaN propagates); a reduced axis of size 0 is a ValueError.
    Gradient: to the positions equal to the result, shared equally among ties."""
    needs_elements = True


bprop_for(ReduceMin)(reduce_extreme_bprop)


class ReduceProd(_Reduce):
    """product over `axis`; the product of an empty set is 1 (integers wrap around). Its
    bprop (two CumProds, no division) is in clip_cum_ops.py, beside CumProd."""
    valid_types = mstype.NUMBER_BF16_COMPLEX_TYPES


class ReduceAll(_Reduce):
    """logical and over `axis` (bool only); True for an empty set."""
    valid_types = (mstype.bool_,)


class ReduceAny(_Reduce):
    """logical or over `axis` (bool only); False for an empty set."""
    valid_types = (mstype.bool_,)


non_differentiable(ReduceAll, ReduceAny)


class _ArgReduce(Primitive):
    """Index of the first extreme value along one axis (the first NaN if there is one)."""
    input_names = ("x",)

    @prim_attr_register
    def __init__(self, axis=-1, output_type=mstype.int32):
        check_int(self, "axis", axis)
        t = check_index_type(self, "output_type", output_type)
        self.add_prim_attr("output_type", t)

    def _axis(self, x):
        check_dtype(self, "x", x, mstype.NUMBER_TYPES)
        axis = check_axis(self, "axis", self.attrs["axis"], len(x.shape))
        if x.shape and x.shape[axis] == 0:
            raise ValueError(f"For '{self.name}', 'x' must not be empty along 'axis' {axis}, but "
                             f"got shape {list(x.shape)}")
        return axis

    def _out_shape(self, x, axis, keep_dims):
        if not x.shape:
            return ()
        if keep_dims:
            return x.shape[:axis] + (1,) + x.shape[axis + 1:]
        return x.shape[:axis] + x.shape[axis + 1:]

    def infer(self, x):
        axis = self._axis(x)
        return tensor(self.attrs["output_type"], self._out_shape(x, axis, False))

    def kernel_params(self, x):
        return {"axis": self._axis(x)}


class Argmax(_ArgReduce):
    """index of the maximum along `axis`, as `output_type` (int32 or int64)."""


class Argmin(_ArgReduce):
    """index of the minimum along `axis`, as `output_type` (int32 or int64)."""


non_differentiable(Argmax, Argmin)


class ArgMaxWithValue(_ArgReduce):
    """(index int64, value): the first maximum along `axis` and where it is (the index is
    int64 as MindSpore 2.10's)."""

    @prim_attr_register
    def __init__(self, axis=0, keep_dims=False):
        check_int(self, "axis", axis)
        check_bool(self, "keep_dims", keep_dims)

    def infer(self, x):
        axis = self._axis(x)
        shape = self._out_shape(x, axis, self.attrs["keep_dims"])
        return (tensor(mstype.int64, shape), tensor(x.dtype, shape))

    def kernel_params(self, x):
        return {"axis": self._axis(x), "keep_dims": self.attrs["keep_dims"]}


@bprop_for(ArgMaxWithValue)
def arg_max_with_value_bprop(prim, x, out, dout):
    """ArgMaxWithValue / ArgMinWithValue: dx = the values' gradient at the selected index
    along `axis` (one position per slice: the first extreme); the index output carries none."""
    if not needs_grad(x):
        return (None,)
    dv = dout[1]
    if not x.shape:
        return (dv,)
    F, axis, index = _F(), prim._axis(x._abs), out[0]
    if prim.attrs["keep_dims"]:
        index = F.squeeze(index, axis)
    else:
        dv = F.expand_dims(dv, axis)
    hot = F.one_hot(index, x.shape[axis], 1.0, 0.0, axis)
    return (F.mul(F.cast(hot, x.dtype) if hot.dtype is not x.dtype else hot, dv),)


class ArgMinWithValue(ArgMaxWithValue):
    """(index int32, value): the first minimum along `axis` and where it is."""


bprop_for(ArgMinWithValue)(arg_max_with_value_bprop)
