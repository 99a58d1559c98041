"""Loss primitives (MindSpore's names and argument orders) with inference and bprops:
SoftmaxCrossEntropyWithLogits, SparseSoftmaxCrossEntropyWithLogits, NLLLoss (+ NLLLossGrad)
and BCEWithLogitsLoss. Kernels are fused and numerically stable (kernels/cpu/loss_*.py).

Integer labels carry no gradient. Float labels (SoftmaxCrossEntropyWithLogits,
BCEWithLogitsLoss) get their true gradient; class weights and pos_weight are treated as
constants (None: the grad APIs report zeros, as MindSpore's bprops do).
"""
from ...cache_limits import remember
from ...common import dtype as mstype
from ...common.api import PYNATIVE
from ...ir.rules import bprop_for
from ...ir.primitive import Primitive, prim_attr_register
from ..validator import (
    broadcast_shape,
    check_bool,
    check_dtype,
    check_int,
    check_same_dtype,
    tensor,
)
from . import _grad_ops as G
from . import array_ops as A
from . import math_ops as M
from . import nn_ops as N

__all__ = [
    "BCEWithLogitsLoss",
    "NLLLoss",
    "SoftmaxCrossEntropyWithLogits",
    "SparseSoftmaxCrossEntropyWithLogits",
]

REDUCTIONS = ("none", "mean", "sum")


def check_reduction(prim_name, reduction):
    if not isinstance(reduction, str):
        raise TypeError(f"For '{prim_name}', 'reduction' must be a str, but got "
                        f"{type(reduction).__name__}: {reduction!r}")
    if reduction not in REDUCTIONS:
        raise ValueError(f"For '{prim_name}', 'reduction' must be one of {list(REDUCTIONS)}, but "
                         f"got '{reduction}'")
    return reduction


def _check_logits_2d(prim, logits):
    check_dtype(prim, "logits", logits, mstype.FLOAT_TYPES)
    if len(logits.shape) != 2:
        raise ValueError(f"For '{prim.name}', 'logits' must have shape (N, C) (rank 2), but got "
                         f"shape {list(logits.shape)}")


def _check_sparse_labels(prim, logits, labels):
    check_dtype(prim, "labels", labels, mstype.INDEX_TYPES)
    if labels.shape != logits.shape[:1]:
        raise ValueError(f"For '{prim.name}', 'labels' must have shape (N,) = "
                         f"{list(logits.shape[:1])} for 'logits' of shape {list(logits.shape)}, "
                         f"but got {list(labels.shape)}")


class SoftmaxCrossEntropyWithLogits(Primitive):
    """(loss, backprop) for logits and probability labels of shape (N, C):
    loss[n] = -sum_c labels[n, c] * log_softmax(logits)[n, c]    shape (N,)
    backprop = softmax(logits) - labels                           shape (N, C)
    Gradients: d logits = dloss[:, None] * backprop + SoftmaxGrad(softmax, dbackprop),
    d labels = -dloss[:, None] * log_softmax(logits) - dbackprop."""
    input_names = ("logits", "labels")

    @prim_attr_register
    def __init__(self):
        pass

    def infer(self, logits, labels):
        _check_logits_2d(self, logits)
        check_same_dtype(self, [("logits", logits), ("labels", labels)])
        if labels.shape != logits.shape:
            raise ValueError(f"For '{self.name}', 'labels' must have the same shape as 'logits' "
                             f"{list(logits.shape)}, but got {list(labels.shape)}")
        return tensor(logits.dtype, logits.shape[:1]), logits


class SparseSoftmaxCrossEntropyWithLogits(Primitive):
    """Mean cross entropy of logits (N, C) against class indices labels (N,) (int32/int64,
    each in [0, C): the kernel checks and raises ValueError before writing anything):
    is_grad=False: loss = mean_n -log_softmax(logits)[n, labels[n]]   shape ()
    is_grad=True:  its gradient (softmax(logits) - one_hot(labels)) / N   shape (N, C)
    The mean of no rows (N = 0) is NaN, as a mean of nothing."""
    input_names = ("logits", "labels")

    @prim_attr_register
    def __init__(self, is_grad=False):
        check_bool(self, "is_grad", is_grad)

    def infer(self, logits, labels):
        _check_logits_2d(self, logits)
        _check_sparse_labels(self, logits, labels)
        return logits if self.attrs["is_grad"] else tensor(logits.dtype, ())

    def kernel_params(self, logits, labels):
        return {"is_grad": self.attrs["is_grad"]}


class _NLLLossBase(Primitive):
    @prim_attr_register
    def __init__(self, reduction="mean", ignore_index=-100):
        check_reduction(self.name, reduction)
        check_int(self, "ignore_index", ignore_index)

    def _check(self, logits, labels, weight):
        _check_logits_2d(self, logits)
        _check_sparse_labels(self, logits, labels)
        check_same_dtype(self, [("logits", logits), ("weight", weight)])
        if weight.shape != logits.shape[1:]:
            raise ValueError(f"For '{self.name}', 'weight' must have shape (C,) = "
                             f"{list(logits.shape[1:])}, but got {list(weight.shape)}")

    def kernel_params(self, *inputs):
        return {"reduction": self.attrs["reduction"], "ignore_index": self.attrs["ignore_index"]}


class NLLLoss(_NLLLossBase):
    """(loss, total_weight) for log-probabilities logits (N, C), class indices labels (N,)
    and class weights weight (C,). With w[n] = weight[labels[n]] (0 where labels[n] ==
    ignore_index): loss[n] = -w[n] * logits[n, labels[n]]; reduction 'none' gives (N,),
    'sum' the sum, 'mean' the sum / total_weight; total_weight = sum_n w[n] (shape ()).
    Labels other than ignore_index must lie in [0, C) (the kernel checks)."""
    input_names = ("logits", "labels", "weight")

    def infer(self, logits, labels, weight):
        self._check(logits, labels, weight)
        dt = logits.dtype
        shape = logits.shape[:1] if self.attrs["reduction"] == "none" else ()
        return tensor(dt, shape), tensor(dt, ())


class NLLLossGrad(_NLLLossBase):
    """d logits of NLLLoss (MindSpore's _grad_ops.NLLLossGrad): zeros except
    dlogits[n, labels[n]] = -w[n] * g, g = loss_grad[n] ('none'), loss_grad ('sum') or
    loss_grad / total_weight ('mean')."""
    input_names = ("logits", "loss_grad", "labels", "weight", "total_weight")

    def infer(self, logits, loss_grad, labels, weight, total_weight):
        self._check(logits, labels, weight)
        check_same_dtype(self, [("logits", logits), ("loss_grad", loss_grad),
                                ("total_weight", total_weight)])
        want = logits.shape[:1] if self.attrs["reduction"] == "none" else ()
        if loss_grad.shape != want:
            raise ValueError(f"For '{self.name}', 'loss_grad' must have shape {list(want)}, but "
                             f"got {list(loss_grad.shape)}")
        if total_weight.shape != ():
            raise ValueError(f"For '{self.name}', 'total_weight' must be a 0-d tensor, but got "
                             f"shape {list(total_weight.shape)}")
        return logits


class BCEWithLogitsLoss(Primitive):
    """Binary cross entropy on logits, stable for any |x| (log-sigmoid via softplus):
    l = weight * (pos_weight * y * softplus(-x) + (1 - y) * softplus(x)),
    reduced by 'none' (x's shape), 'mean' or 'sum' (shape ()). label has x's shape; weight
    and pos_weight broadcast to it. Gradients: d x = weight * ((1 + (pos_weight - 1) y)
    sigmoid(x) - pos_weight y), d y = weight * (pos_weight softplus(-x) - softplus(x))."""
    input_names = ("logits", "label", "weight", "pos_weight")

    @prim_attr_register
    def __init__(self, reduction="mean"):
        check_reduction(self.name, reduction)

    def infer(self, logits, label, weight, pos_weight):
        check_dtype(self, "logits", logits, mstype.FLOAT_TYPES)
        check_same_dtype(self, [("logits", logits), ("label", label), ("weight", weight),
                                ("pos_weight", pos_weight)])
        if label.shape != logits.shape:
            raise ValueError(f"For '{self.name}', 'label' must have the same shape as 'logits' "
                             f"{list(logits.shape)}, but got {list(label.shape)}")
        for name, w in (("weight", weight), ("pos_weight", pos_weight)):
            if broadcast_shape(self, logits.shape, w.shape, ("logits", name)) != logits.shape:
                raise ValueError(f"For '{self.name}', '{name}' of shape {list(w.shape)} must "
                                 f"broadcast to 'logits' shape {list(logits.shape)}")
        return logits if self.attrs["reduction"] == "none" else tensor(logits.dtype, ())

    def kernel_params(self, *inputs):
        return {"reduction": self.attrs["reduction"]}


# ---- bprops ---------------------------------------------------------------------------------
_mul, _add, _sub, _div, _neg = M.Mul(), M.Add(), M.Sub(), M.Div(), M.Neg()
_expand_dims = A.ExpandDims()
_softmax, _log_softmax, _softmax_grad = N.Softmax(-1), N.LogSoftmax(-1), G.SoftmaxGrad(-1)
_sigmoid, _softplus = N.Sigmoid(), N.Softplus()
_sparse_grad = SparseSoftmaxCrossEntropyWithLogits(is_grad=True)
_PRIMS = {}


def _prim(cls, *attrs):
    """One primitive per (class, attrs) for the bprops (building one costs more than a call)."""
    p = _PRIMS.get((cls, attrs))
    if p is None:
        p = remember(_PRIMS, (cls, attrs), cls(*attrs))
    return p


def _maybe_nonzero(t):
    """False only for a tensor known to be all zeros and not itself being differentiated
    (the zeros the tape fills in for an unused output), so its term can be skipped."""
    return PYNATIVE.grad.recording or bool(t.asnumpy().any())


@bprop_for(SoftmaxCrossEntropyWithLogits)
def softmax_cross_entropy_with_logits_bprop(prim, logits, labels, out, dout):
    dloss, dbackprop = dout
    dl = _expand_dims(dloss, -1)
    dlogits = _mul(out[1], dl)
    dlabels = _neg(_mul(_log_softmax(logits), dl))
    if _maybe_nonzero(dbackprop):
        dlogits = _add(dlogits, _softmax_grad(_softmax(logits), dbackprop))
        dlabels = _sub(dlabels, dbackprop)
    return dlogits, dlabels


@bprop_for(SparseSoftmaxCrossEntropyWithLogits)
def sparse_softmax_cross_entropy_with_logits_bprop(prim, logits, labels, out, dout):
    if not prim.attrs["is_grad"]:
        return _mul(_sparse_grad(logits, labels), dout), None
    # out = (softmax - one_hot) / N: its derivative is the softmax Jacobian / N
    n = logits.shape[0]
    return _div(_softmax_grad(_softmax(logits), dout), float(max(n, 1))), None


@bprop_for(NLLLoss)
def nll_loss_bprop(prim, logits, labels, weight, out, dout):
    a = prim.attrs
    dlogits = _prim(NLLLossGrad, a["reduction"], a["ignore_index"])(logits, dout[0], labels,
                                                                    weight, out[1])
    return dlogits, None, None


@bprop_for(NLLLossGrad)
def nll_loss_grad_bprop(prim, logits, loss_grad, labels, weight, total_weight, out, dout):
    # NLLLossGrad is linear in loss_grad: its transpose is an NLLLoss of dout
    red, ignore = prim.attrs["reduction"], prim.attrs["ignore_index"]
    if red != "mean":
        return None, _prim(NLLLoss, red, ignore)(dout, labels, weight)[0], None, None, None
    s = _prim(NLLLoss, "sum", ignore)(dout, labels, weight)[0]
    d_grad = _div(s, total_weight)
    d_total = _neg(_div(_mul(d_grad, loss_grad), total_weight))
    return None, d_grad, None, None, d_total


@bprop_for(BCEWithLogitsLoss)
def bce_with_logits_loss_bprop(prim, logits, label, weight, pos_weight, out, dout):
    red = prim.attrs["reduction"]
    if red == "mean":
        dout = _div(dout, float(max(logits.size, 1)))
    wd = _mul(weight, dout)
    # (1 + (pw - 1) y) sigmoid(x) - pw y
    pw_y = _mul(pos_weight, label)
    coef = _sub(_add(pw_y, 1.0), label)
    dx = _mul(_sub(_mul(coef, _sigmoid(logits)), pw_y), wd)
    dy = _mul(_sub(_mul(pos_weight, _softplus(_neg(logits))), _softplus(logits)), wd)
    return dx, dy, None, None
