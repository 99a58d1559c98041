"""Graph-mode versions of eager functions whose eager form keeps runtime state
(MindSpore's standard_method.py plays this role): the parser calls these instead.

`x[index]` in a graph: ints, slices, None and Ellipsis become one StridedSlice (the
plan is computed at compile time from the constant index); one int index array (a
constant list/ndarray/Tensor, or a Tensor computed in the graph used alone) adds a
Gather. Bool masks are not supported in graphs yet (their output shape depends on data).

`ops.cross_entropy` with class indices: eager takes a fused SparseSoftmaxCrossEntropy fast
path after looking at the target's values (no ignored index present); a graph cannot look
at data at compile time, so it always takes the general LogSoftmax + NLLLoss path (equal
to eager's up to float rounding).
"""
import numpy as np

from ..common.tensor import Tensor
from ..common import dtype as mstype
from ..ops.function import index_func, loss_func
from ..ops.operations._base import cached_prim
from ..ops.operations import array_ops as A
from ..ops.operations import slice_ops as S


def _strided(basic):
    """(begin, end, strides, masks) of a planned basic index (ints already non-negative)."""
    begin, end, strides = [], [], []
    masks = [0, 0, 0, 0, 0]
    for i, b in enumerate(basic):
        bit = 1 << i
        if b is None:
            masks[3] |= bit
            begin.append(0), end.append(1), strides.append(1)
        elif b is Ellipsis:
            masks[2] |= bit
            begin.append(0), end.append(0), strides.append(1)
        elif isinstance(b, slice):
            begin.append(0 if b.start is None else b.start)
            end.append(0 if b.stop is None else b.stop)
            strides.append(1 if b.step is None else b.step)
            masks[0] |= bit if b.start is None else 0
            masks[1] |= bit if b.stop is None else 0
        else:
            masks[4] |= bit
            begin.append(int(b)), end.append(int(b) + 1), strides.append(1)
    return tuple(begin), tuple(end), tuple(strides), tuple(masks)


def _adv_plan(shape, index):
    try:
        basic, adv = index_func._plan(shape, index)
    except IndexError:
        if -1 in shape:                  # x._abs.shape: -1 for a dynamic dimension
            raise IndexError(f"graph mode: an int or tensor index on a dynamic dimension "
                             f"(shape {list(shape)}) needs its size, known only at run time; "
                             f"use a slice (x[i:i + 1]) instead") from None
        raise
    if adv is None:
        return basic, None
    _, arr, axis, out_axis, front = adv
    if arr.dtype == np.bool_:
        raise IndexError("graph mode does not support bool mask indices yet (the output shape "
                         "depends on the data)")
    idx = Tensor.from_numpy(index_func._check_int_index(arr, shape[axis], axis))
    trivial = all(b is Ellipsis or (isinstance(b, slice) and b == slice(None)) for b in basic)
    return basic, (idx, out_axis, front, arr.ndim, trivial)


def _perm(out_axis, k, ndim):
    return tuple(range(out_axis, out_axis + k)) + tuple(range(out_axis)) \
        + tuple(range(out_axis + k, ndim))


def tensor_getitem(x, index):
    """x[index] in a graph (see the module docstring)."""
    if isinstance(index, Tensor):
        return cached_prim(S.Gather, 0)(x, index, 0)
    basic, adv = _adv_plan(x._abs.shape, index)
    if adv is None:
        begin, end, strides, masks = _strided(basic)
        return cached_prim(S.StridedSlice, *masks)(x, begin, end, strides)
    idx, out_axis, front, k, trivial = adv
    if not trivial:
        begin, end, strides, masks = _strided(basic)
        x = cached_prim(S.StridedSlice, *masks)(x, begin, end, strides)
    y = cached_prim(S.Gather, 0)(x, idx, out_axis)
    if front and out_axis:
        y = cached_prim(A.Transpose)(y, _perm(out_axis, k, y.ndim))
    return y


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction='mean',
                  label_smoothing=0.0):
    """ops.cross_entropy in a graph (see the module docstring)."""
    loss_func._check_tensor("cross_entropy", "input", input)
    loss_func._check_tensor("cross_entropy", "target", target)
    loss_func._check_reduction("cross_entropy", reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"For 'cross_entropy', 'label_smoothing' must be in [0, 1], but got "
                         f"{label_smoothing}")
    if target.dtype in mstype.FLOAT_TYPES:
        return loss_func._cross_entropy_probs(input, target, weight, reduction, label_smoothing)
    axis = 0 if len(input.shape) == 1 else 1
    logp = cached_prim(loss_func.N.LogSoftmax, axis)(input)
    return loss_func.nll_loss(logp, target, weight, ignore_index, reduction, label_smoothing)


GRAPH_OVERRIDES = {index_func.tensor_getitem: tensor_getitem,
                   loss_func.cross_entropy: cross_entropy}


def _constexpr():
    """Helpers that build or memoize primitives from constants (or, reduce_ops._F, import the
    functional module once): called directly at compile time (their only side effect is a
    bounded cache entry). Anything else that would mutate
    a Python object outside the graph code is an error in graph mode."""
    from .. import cache_limits
    from ..ops.function import conv_func, nn_func
    from ..ops.operations import _base, loss_ops, norm_ops, reduce_ops
    found = [getattr(m, n, None) for m, n in (
        (cache_limits, "remember"), (_base, "cached_prim"), (nn_func, "_prim"),
        (conv_func, "_prim"), (loss_func, "_cached"), (loss_ops, "_prim"), (norm_ops, "_prim"),
        (reduce_ops, "_F"))]
    return frozenset([f for f in found if f is not None]
                     + [_strided, _adv_plan, _perm, Tensor.from_numpy.__func__])


CONSTEXPR = _constexpr()
# Modules of framework internals that only compute values (dtypes, abstracts, cache limits,
# the functional API's shared primitive table): their functions run directly on constants.
CONSTEXPR_MODULES = frozenset(("mindlite.abstract", "mindlite.common.dtype",
                               "mindlite.cache_limits", "mindlite.ops.function._typed_prims"))
