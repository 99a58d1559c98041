"""Functional losses of issue 13 with MindSpore 2.10's signatures and defaults, as loss
primitives or compositions of elementwise and reduction primitives (differentiable through
their bprops):
ops.smooth_l1_loss, huber_loss, binary_cross_entropy, kl_div, cosine_embedding_loss,
margin_ranking_loss, triplet_margin_loss.

smooth_l1_loss and binary_cross_entropy run one primitive each (SmoothL1Loss,
BinaryCrossEntropy of pointwise_loss_ops); binary_cross_entropy clamps the logs' arguments at
1e-12 (MindSpore's CPU kernel: 27.631 for a wrong certain prediction). Huber uses
m = min(|d|, delta): 0.5 m^2 + delta (|d| - m), which equals the textbook branches and has
their gradient. kl_div takes log-probabilities and probabilities (0 * log 0 = 0; a negative
label gives NaN). cosine_embedding_loss reduces over axis 1 (a zero vector gives NaN, as
MindSpore); triplet_margin_loss uses PyTorch's pairwise distance ||a - b + eps||_p over the
last axis (MindSpore 2.10's CPU kernel fails to run).
"""
import numbers

import numpy as np

from ...common import dtype as mstype
from ...common.tensor import Tensor
from ..operations import array_ops as A
from ..operations import pointwise_loss_ops as LX
from ..operations import logic_ops as LG
from ..operations import math_ops as M
from ..operations import reduce_ops as R
from ..operations.loss_ops import check_reduction
from ._typed_prims import typed_prim as _prim

__all__ = ["smooth_l1_loss", "huber_loss", "binary_cross_entropy", "kl_div",
           "cosine_embedding_loss", "margin_ranking_loss", "triplet_margin_loss"]

_add, _sub, _mul, _div, _neg = M.Add(), M.Sub(), M.Mul(), M.Div(), M.Neg()
_abs, _square, _log, _sqrt, _pow = M.Abs(), M.Square(), M.Log(), M.Sqrt(), M.Pow()
_minimum, _maximum = M.Minimum(), M.Maximum()
_equal = LG.Equal()
_cast = A.Cast()
_sum, _mean = R.ReduceSum(False), R.ReduceMean(False)


def _float(fn, arg, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{fn}', '{arg}' must be a Tensor, but got {type(x).__name__}")
    if x.dtype not in mstype.FLOAT_TYPES:
        raise TypeError(f"For '{fn}', '{arg}' must be a float16, float32 or float64 tensor, but "
                        f"got {x.dtype}")
    return x


def _number(fn, arg, value, lo=None, lo_open=False):
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise TypeError(f"For '{fn}', '{arg}' must be a float, but got "
                        f"{type(value).__name__}: {value!r}")
    if lo is not None and (value < lo or (lo_open and value == lo)):
        raise ValueError(f"For '{fn}', the argument '{arg}' must "
                         f"{'>' if lo_open else '>='} {lo}, but got {value}.")
    return float(value)


def _same_shape(fn, a_name, a, b_name, b):
    if tuple(a.shape) != tuple(b.shape):
        raise ValueError(f"For '{fn}', '{b_name}' must have the shape of '{a_name}' "
                         f"{list(a.shape)}, but got {list(b.shape)}")


def _reduce(fn, x, reduction, allowed=("none", "mean", "sum")):
    if reduction not in allowed:
        raise ValueError(f"For '{fn}', 'reduction' must be one of {list(allowed)}, but got "
                         f"{reduction!r}")
    if reduction == "mean":
        return _mean(x, ())
    if reduction == "sum":
        return _sum(x, ())
    return x


def _promote(*tensors):
    """The tensors cast to the widest float dtype among them."""
    dtype = max((t.dtype for t in tensors), key=lambda t: t.np.itemsize)
    return tuple(t if t.dtype is dtype else _cast(t, dtype) for t in tensors)


def _mask(cond, dtype):
    return _cast(cond, dtype)


def smooth_l1_loss(input, target, beta=1.0, reduction="none"):
    """0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta (d = input - target, same shape);
    beta = 0 is the L1 loss."""
    _float("smooth_l1_loss", "input", input)
    _float("smooth_l1_loss", "target", target)
    _same_shape("smooth_l1_loss", "input", input, "target", target)
    beta = _number("smooth_l1_loss", "beta", beta, 0.0)
    check_reduction("smooth_l1_loss", reduction)
    input, target = _promote(input, target)
    return _prim(LX.SmoothL1Loss, beta, reduction)(input, target)


def huber_loss(input, target, reduction="mean", delta=1.0):
    """0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta); input and target broadcast."""
    _float("huber_loss", "input", input)
    if not isinstance(target, Tensor):
        raise TypeError(f"For 'huber_loss', 'target' must be a Tensor, but got "
                        f"{type(target).__name__}")
    delta = _number("huber_loss", "delta", delta, 0.0, lo_open=True)
    check_reduction("huber_loss", reduction)
    d = _abs(_sub(input, target))
    m = _minimum(d, delta)
    loss = _add(_mul(_square(m), 0.5), _mul(_sub(d, m), delta))
    return _reduce("huber_loss", loss, reduction)


def binary_cross_entropy(logits, labels, weight=None, reduction="mean"):
    """-weight (labels log(logits) + (1 - labels) log(1 - logits)); logits are probabilities
    (the logs' arguments clamped at 1e-12); weight broadcasts to logits."""
    _float("binary_cross_entropy", "logits", logits)
    _float("binary_cross_entropy", "labels", labels)
    _same_shape("binary_cross_entropy", "logits", logits, "labels", labels)
    check_reduction("binary_cross_entropy", reduction)
    if weight is None:
        weight = Tensor(np.ones((), logits.dtype.np))
    else:
        _float("binary_cross_entropy", "weight", weight)
    logits, labels, weight = _promote(logits, labels, weight)
    probs = logits.asnumpy()
    if probs.size and (np.nanmin(probs) < 0 or np.nanmax(probs) > 1):
        bad = probs[(probs < 0) | (probs > 1)].reshape(-1)[0]
        raise ValueError(f"For 'BinaryCrossEntropy', the value of 'input_x' must be between 0 "
                         f"and 1, but got value: {bad}")
    return _prim(LX.BinaryCrossEntropy, reduction)(logits, labels, weight)


def kl_div(logits, labels, reduction="mean"):
    """labels (log(labels) - logits) elementwise (logits: log-probabilities); reduction
    'none', 'sum', 'mean' (over all elements) or 'batchmean' (sum / shape[0])."""
    _float("kl_div", "logits", logits)
    _float("kl_div", "labels", labels)
    _same_shape("kl_div", "logits", logits, "labels", labels)
    if reduction not in ("none", "mean", "sum", "batchmean"):
        raise ValueError(f"For 'kl_div', the 'reduction' must be 'none', 'mean', 'sum' or "
                         f"'batchmean', but got {reduction!r}")
    safe = _add(labels, _mask(_equal(labels, 0.0), labels.dtype))     # log(1) = 0 at zeros
    loss = _mul(labels, _sub(_log(safe), logits))
    if reduction == "batchmean":
        batch = logits.shape[0] if logits.ndim else 1
        return _div(_sum(loss, ()), float(batch))
    return _reduce("kl_div", loss, reduction)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """1 - cos(input1, input2) where target is 1, max(0, cos - margin) where it is -1, 0
    elsewhere; cos over axis 1, margin in [-1, 1]."""
    _float("cosine_embedding_loss", "input1", input1)
    _float("cosine_embedding_loss", "input2", input2)
    if not isinstance(target, Tensor):
        raise TypeError(f"For 'cosine_embedding_loss', 'target' must be a Tensor, but got "
                        f"{type(target).__name__}")
    margin = _number("cosine_embedding_loss", "margin", margin)
    if not -1 <= margin <= 1:
        raise ValueError(f"For ops.cosine_embedding_loss, the value of 'margin' should be in "
                         f"[-1, 1],but got {margin}.")
    _same_shape("cosine_embedding_loss", "input1", input1, "input2", input2)
    reduced = tuple(input1.shape[:1]) + tuple(input1.shape[2:])
    if input1.ndim < 2 or tuple(target.shape) != reduced:
        raise ValueError(f"For 'ops.cosine_embedding_loss', the shape of parameter 'input1' "
                         f"reduce on 'axis': (1,) must be equal to the shape of 'target': "
                         f"{tuple(target.shape)}, but got {reduced if input1.ndim >= 2 else ()}.")
    check_reduction("cosine_embedding_loss", reduction)
    prod = _sum(_mul(input1, input2), (1,))
    mag = _mul(_sum(_square(input1), (1,)), _sum(_square(input2), (1,)))
    cos = _div(prod, _sqrt(mag))
    t = target if target.dtype is input1.dtype else _cast(target, input1.dtype)
    pos = _mul(_sub(1.0, cos), _mask(_equal(t, 1.0), cos.dtype))
    neg = _mul(_maximum(_sub(cos, margin), 0.0), _mask(_equal(t, -1.0), cos.dtype))
    return _reduce("cosine_embedding_loss", _add(pos, neg), reduction)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """max(0, -target (input1 - input2) + margin); target has input1's dtype."""
    _float("margin_ranking_loss", "input1", input1)
    _float("margin_ranking_loss", "input2", input2)
    if not isinstance(target, Tensor) or target.dtype is not input1.dtype:
        got = target.dtype if isinstance(target, Tensor) else type(target).__name__
        raise TypeError(f"For margin_ranking_loss, the target dtype should be equal to input1 "
                        f"dtype, but got target dtype:{got}, input1 dtype:{input1.dtype}.")
    margin = _number("margin_ranking_loss", "margin", margin)
    check_reduction("margin_ranking_loss", reduction)
    loss = _maximum(_add(_neg(_mul(target, _sub(input1, input2))), margin), 0.0)
    return _reduce("margin_ranking_loss", loss, reduction)


def _distance(a, b, p, eps):
    d = _add(_sub(a, b), eps)
    axis = (a.ndim - 1,) if a.ndim else ()
    if p == 2:
        return _sqrt(_sum(_square(d), axis))
    if p == 1:
        return _sum(_abs(d), axis)
    return _pow(_sum(_pow(_abs(d), float(p)), axis), 1.0 / p)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False,
                        reduction="mean"):
    """max(d(anchor, positive) - d(anchor, negative) + margin, 0) with d the p-norm distance
    ||a - b + eps|| over the last axis; swap: d(anchor, negative) becomes the smaller of it
    and d(positive, negative)."""
    fn = "triplet_margin_loss"
    for name, t in (("anchor", anchor), ("positive", positive), ("negative", negative)):
        _float(fn, name, t)
    _same_shape(fn, "anchor", anchor, "positive", positive)
    _same_shape(fn, "anchor", anchor, "negative", negative)
    if anchor.ndim < 1:
        raise ValueError(f"For '{fn}', 'anchor' must have at least 1 dimension, but got 0")
    margin = _number(fn, "margin", margin, 0.0)
    eps = _number(fn, "eps", eps)
    if not isinstance(p, numbers.Real) or isinstance(p, bool) or p <= 0:
        raise ValueError(f"For '{fn}', 'p' must be a positive number, but got {p!r}")
    if not isinstance(swap, bool):
        raise TypeError(f"For '{fn}', 'swap' must be a bool, but got {type(swap).__name__}")
    check_reduction(fn, reduction)
    d_ap = _distance(anchor, positive, p, eps)
    d_an = _distance(anchor, negative, p, eps)
    if swap:
        d_an = _minimum(d_an, _distance(positive, negative, p, eps))
    loss = _maximum(_add(_sub(d_ap, d_an), margin), 0.0)
    return _reduce(fn, loss, reduction)
