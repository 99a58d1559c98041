"""Functional losses and dense: ops.cross_entropy, nll_loss, mse_loss, l1_loss,
binary_cross_entropy_with_logits, dense (MindSpore's signatures and defaults).

Compositions of primitives (differentiable through their bprops). The common cases go to a
fused loss primitive (ops/operations/loss_ops.py): cross entropy of (N, C) logits against
class indices with mean reduction and nothing ignored is one
SparseSoftmaxCrossEntropyWithLogits; against probabilities, one SoftmaxCrossEntropyWithLogits.
Inputs with extra spatial dims (N, C, d1, ...) are moved to (N * d1 * ..., C) first.
"""
import numpy as np

from ...common import dtype as mstype
from ...common.tensor import Tensor
from ..operations import array_ops as A
from ..operations import loss_ops as L
from ..operations import math_ops as M
from ..operations import nn_ops as N
from ..operations import reduce_ops as R

__all__ = [
    'binary_cross_entropy_with_logits',
    'cross_entropy',
    'dense',
    'l1_loss',
    'mse_loss',
    'nll_loss',
]

_reshape, _transpose = A.Reshape(), A.Transpose()
_mul, _add, _sub, _div, _neg = M.Mul(), M.Add(), M.Sub(), M.Div(), M.Neg()
_square, _abs = M.Square(), M.Abs()
_sum, _sum_keep, _mean = R.ReduceSum(False), R.ReduceSum(True), R.ReduceMean(False)
_log_softmax = {}
_sce = L.SoftmaxCrossEntropyWithLogits()
_sparse_sce = L.SparseSoftmaxCrossEntropyWithLogits()
_matmul_t = M.MatMul(False, True)
_bias_add = N.BiasAdd()
_cast_prim = A.Cast()
_prims = {}


def _cast(x, dtype):
    return x if x.dtype == dtype else _cast_prim(x, dtype)


def _cached(cls, *attrs):
    key = (cls, attrs)
    prim = _prims.get(key)
    if prim is None:
        prim = _prims[key] = cls(*attrs)
    return prim


def _check_tensor(api, name, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{api}', '{name}' must be a Tensor, but got {type(x).__name__}")


def _check_reduction(api, reduction):
    return L.check_reduction(api, reduction)


def _reduce(x, reduction):
    if reduction == "mean":
        return _mean(x, ())
    if reduction == "sum":
        return _sum(x, ())
    return x


def _ones(n, dtype):
    return Tensor.from_numpy(np.ones(n, dtype=dtype.np))


def _to_rows(api, inputs, target=None):
    """(N, C, d1...) -> (M, C) rows, class axis last; target (N, d1...) -> (M,).
    Returns rows, target rows and the shape of one loss per row."""
    shape = inputs.shape
    if len(shape) == 0:
        raise ValueError(f"For '{api}', 'input' must have rank >= 1 (classes on axis 1, or axis "
                         f"0 for a single sample), but got a 0-d tensor")
    if len(shape) == 1:
        rows = _reshape(inputs, (1, shape[0]))
        return rows, (None if target is None else _reshape(target, (1,))), ()
    c = shape[1]
    if len(shape) > 2:
        perm = (0,) + tuple(range(2, len(shape))) + (1,)
        rows = _reshape(_transpose(inputs, perm), (-1, c))
    else:
        rows = inputs
    out_shape = (shape[0],) + shape[2:]
    if target is not None:
        if target.shape != out_shape:
            raise ValueError(f"For '{api}', 'target' must have shape {list(out_shape)} for "
                             f"'input' of shape {list(shape)}, but got {list(target.shape)}")
        target = _reshape(target, (-1,)) if len(out_shape) != 1 else target
    return rows, target, out_shape


def nll_loss(inputs, target, weight=None, ignore_index=-100, reduction='mean',
             label_smoothing=0.0):
    """Negative log-likelihood of log-probabilities `inputs` (N, C), (C,) or (N, C, d1, ...)
    at class indices `target` (int32/int64), weighted by `weight` (C,); 'mean' divides by
    the total weight of the non-ignored targets. label_smoothing mixes in the uniform
    target: (1 - ls) * nll + ls / C * sum_c -weight[c] * inputs[..., c]."""
    _check_tensor("nll_loss", "inputs", inputs)
    _check_tensor("nll_loss", "target", target)
    _check_reduction("nll_loss", reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"For 'nll_loss', 'label_smoothing' must be in [0, 1], but got "
                         f"{label_smoothing}")
    if weight is not None and isinstance(weight, Tensor) and weight.dtype != inputs.dtype:
        # as MindSpore's functional: a weight of another float dtype promotes both
        common = mstype.promote(inputs.dtype, weight.dtype)
        inputs, weight = _cast(inputs, common), _cast(weight, common)
    rows, t, out_shape = _to_rows("nll_loss", inputs, target)
    c = rows.shape[1]
    w = _ones(c, inputs.dtype) if weight is None else weight
    if label_smoothing == 0.0:
        loss = _cached(L.NLLLoss, reduction, ignore_index)(rows, t, w)[0]
        return _reshape(loss, out_shape) if reduction == "none" else loss
    red = "none" if reduction == "none" else "sum"
    loss, total = _cached(L.NLLLoss, red, ignore_index)(rows, t, w)
    keep = Tensor.from_numpy((t.asnumpy() != ignore_index).astype(inputs.dtype.np))
    smooth = _mul(_neg(_sum(_mul(rows, w), 1)), keep)
    if reduction != "none":
        smooth = _sum(smooth, ())
    loss = _add(_mul(loss, 1.0 - label_smoothing), _mul(smooth, label_smoothing / c))
    if reduction == "mean":
        return _div(loss, total)
    return _reshape(loss, out_shape) if reduction == "none" else loss


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction='mean',
                  label_smoothing=0.0):
    """Cross entropy of unnormalised `input` (classes on axis 1, or axis 0 for a 1-D input)
    against class indices (int target: log_softmax + nll_loss) or class probabilities
    (float target of input's shape: -sum_c weight[c] target[c] log_softmax(input)[c], 'mean'
    dividing by the number of samples)."""
    _check_tensor("cross_entropy", "input", input)
    _check_tensor("cross_entropy", "target", target)
    _check_reduction("cross_entropy", reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"For 'cross_entropy', 'label_smoothing' must be in [0, 1], but got "
                         f"{label_smoothing}")
    if target.dtype in mstype.FLOAT_TYPES:
        return _cross_entropy_probs(input, target, weight, reduction, label_smoothing)
    if (len(input.shape) == 2 and weight is None and label_smoothing == 0.0
            and reduction == "mean" and target.shape == input.shape[:1]
            and target.dtype in mstype.INDEX_TYPES
            and not (target.asnumpy() == ignore_index).any()):
        return _sparse_sce(input, target)
    axis = 0 if len(input.shape) == 1 else 1
    logp = _cached(N.LogSoftmax, axis)(input)
    return nll_loss(logp, target, weight, ignore_index, reduction, label_smoothing)


def _cross_entropy_probs(input, target, weight, reduction, label_smoothing):
    if target.shape != input.shape:
        raise ValueError(f"For 'cross_entropy', class-probability 'target' must have the shape "
                         f"of 'input' {list(input.shape)}, but got {list(target.shape)}")
    rows, _, out_shape = _to_rows("cross_entropy", input)
    c = rows.shape[1]
    t = target
    if label_smoothing > 0.0:
        t = _add(_mul(t, 1.0 - label_smoothing), label_smoothing / c)
    t_rows = _to_rows("cross_entropy", t)[0]
    if weight is None:
        loss = _sce(rows, t_rows)[0]
    else:
        loss = _neg(_sum(_mul(_mul(_cached(N.LogSoftmax, -1)(rows), t_rows), weight), 1))
    if reduction == "none":
        return _reshape(loss, out_shape)
    return _reduce(loss, reduction)


def mse_loss(input, target, reduction='mean'):
    """(input - target)**2 (broadcast), reduced."""
    _check_tensor("mse_loss", "input", input)
    _check_reduction("mse_loss", reduction)
    return _reduce(_square(_sub(input, target)), reduction)


def l1_loss(input, target, reduction='mean'):
    """|input - target| (broadcast), reduced; the subgradient at 0 is 0."""
    _check_tensor("l1_loss", "input", input)
    _check_reduction("l1_loss", reduction)
    return _reduce(_abs(_sub(input, target)), reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None,
                                     reduction='mean'):
    """The BCEWithLogitsLoss primitive; weight / pos_weight default to 1."""
    _check_tensor("binary_cross_entropy_with_logits", "input", input)
    _check_reduction("binary_cross_entropy_with_logits", reduction)
    if weight is None:
        weight = _ones((), input.dtype)
    if pos_weight is None:
        pos_weight = _ones((), input.dtype)
    return _cached(L.BCEWithLogitsLoss, reduction)(input, target, weight, pos_weight)


def dense(input, weight, bias=None):
    """input @ weight.T + bias for input (*, in), weight (out, in) or (in,), bias (out,) or
    (); the result is (*, out) (or (*,) for a 1-D weight)."""
    _check_tensor("dense", "input", input)
    _check_tensor("dense", "weight", weight)
    sx, sw = input.shape, weight.shape
    if not sx or len(sw) not in (1, 2) or sx[-1] != sw[-1]:
        raise ValueError(f"For 'dense', 'input' (*, in_channels) and 'weight' (out_channels, "
                         f"in_channels) must agree on in_channels, but got shapes {list(sx)} "
                         f"and {list(sw)}")
    x = input if len(sx) == 2 else _reshape(input, (-1, sx[-1]))
    w = weight if len(sw) == 2 else _reshape(weight, (1, sw[0]))
    y = _matmul_t(x, w)
    if bias is not None:
        y = _bias_add(y, bias) if len(bias.shape) == 1 else _add(y, bias)
    out_shape = sx[:-1] + sw[:-1]
    return y if y.shape == out_shape else _reshape(y, out_shape)
