"""Pointwise loss primitives (MindSpore's names and input orders): L2Loss,
SigmoidCrossEntropyWithLogits and KLDivLoss, with inference and bprops. Kernels: kernels/cpu/
loss_pointwise_numpy.py (float16 computed in float32, rounded once).

    L2Loss(x)                            sum(x ** 2) / 2, a 0-d tensor of x's dtype
    SigmoidCrossEntropyWithLogits(x, y)  max(x, 0) - x y + log(1 + exp(-|x|)) elementwise,
                                         stable for any |x|; y has x's shape and dtype
    KLDivLoss(reduction)(x, y)           y (log y - x) where y > 0, else 0 (x holds log
                                         probabilities); reduced by 'none', 'sum', 'mean' (over
                                         every element) or 'batchmean' (the sum over x.shape[0];
                                         a 0-d x is a RuntimeError, as MindSpore's); y has x's
                                         shape (no broadcasting) and dtype

Gradients: d L2Loss / dx = x; d SCE / dx = sigmoid(x) - y and d SCE / dy = -x (the true
gradient of a float label, as loss_ops.py gives it; MindSpore 2.10's bprop returns zeros);
d KLDivLoss / dx = -y (MindSpore's, also where y <= 0), d / dy = log y - x + 1 where y > 0
(the true gradient; MindSpore's is zeros), both scaled by the reduction.
"""
from ...common import dtype as mstype
from ...ir.rules import bprop_for
from ._base import cached_prim
from ...ir.primitive import Primitive, prim_attr_register
from ..validator import check_dtype, check_same_dtype, tensor
from . import math_ops as M
from . import nn_ops as N

__all__ = ["L2Loss", "SigmoidCrossEntropyWithLogits", "SigmoidCrossEntropyWithLogitsGrad",
           "KLDivLoss"]


class L2Loss(Primitive):
    input_names = ("input_x",)

    @prim_attr_register
    def __init__(self):
        pass

    def infer(self, x):
        check_dtype(self, "input_x", x, mstype.FLOAT_TYPES)
        return tensor(x.dtype, ())


class SigmoidCrossEntropyWithLogits(Primitive):
    input_names = ("logits", "label")

    @prim_attr_register
    def __init__(self):
        pass

    def infer(self, logits, label):
        check_dtype(self, "logits", logits, mstype.FLOAT_TYPES)
        check_same_dtype(self, [("logits", logits), ("label", label)])
        if label.shape != logits.shape:
            raise ValueError(f"For '{self.name}', 'label' must have the same shape as 'logits' "
                             f"{list(logits.shape)}, but got {list(label.shape)}")
        return logits


class SigmoidCrossEntropyWithLogitsGrad(Primitive):
    """(logits, label, dout) -> (sigmoid(logits) - label) * dout (MindSpore's
    _grad_ops.SigmoidCrossEntropyWithLogitsGrad); the three have one shape and float dtype."""
    input_names = ("logits", "label", "dout")

    @prim_attr_register
    def __init__(self):
        pass

    def infer(self, logits, label, dout):
        check_dtype(self, "logits", logits, mstype.FLOAT_TYPES)
        check_same_dtype(self, [("logits", logits), ("label", label), ("dout", dout)])
        for name, t in (("label", label), ("dout", dout)):
            if t.shape != logits.shape:
                raise ValueError(f"For '{self.name}', '{name}' must have the shape of 'logits' "
                                 f"{list(logits.shape)}, but got {list(t.shape)}")
        return logits


class KLDivLoss(Primitive):
    input_names = ("logits", "labels")

    @prim_attr_register
    def __init__(self, reduction="mean"):
        if reduction not in ("none", "mean", "batchmean", "sum"):
            raise ValueError(f"For '{self.name}', the 'reduction' must be str and must be in "
                             f"['none', 'mean', 'batchmean', 'sum'], but got {reduction!r}")

    def infer(self, x, y):
        check_dtype(self, "x", x, mstype.FLOAT_TYPES)
        check_same_dtype(self, [("x", x), ("target", y)])
        if y.shape != x.shape:
            raise ValueError(f"For '{self.name}', the x shape: {list(x.shape)} must be equal to "
                             f"{list(y.shape)}")
        reduction = self.attrs["reduction"]
        if reduction == "none":
            return x
        if reduction == "batchmean" and not x.shape:
            raise RuntimeError(f"For {self.name}, can not do batchmean with x shape = []")
        return tensor(x.dtype, ())

    def kernel_params(self, x, y):
        return {"reduction": self.attrs["reduction"]}


_mul, _sub, _neg, _sigmoid = M.Mul(), M.Sub(), M.Neg(), N.Sigmoid()


@bprop_for(L2Loss)
def l2_loss_bprop(prim, x, out, dout):
    return (_mul(x, dout),)


@bprop_for(SigmoidCrossEntropyWithLogits)
def sigmoid_cross_entropy_with_logits_bprop(prim, logits, label, out, dout):
    return _mul(_sub(_sigmoid(logits), label), dout), _neg(_mul(logits, dout))


@bprop_for(SigmoidCrossEntropyWithLogitsGrad)
def sigmoid_cross_entropy_with_logits_grad_bprop(prim, logits, label, dy, out, dout):
    s = _sigmoid(logits)
    d_logits = _mul(_mul(_mul(s, _sub(1.0, s)), dy), dout)
    return d_logits, _neg(_mul(dy, dout)), _mul(_sub(s, label), dout)


def _kl_scale(prim, x, dout):
    """dout spread over x's elements: 1 / n for 'mean', 1 / x.shape[0] for 'batchmean'."""
    reduction = prim.attrs["reduction"]
    n = x.size if reduction == "mean" else x.shape[0] if reduction == "batchmean" else 1
    return _mul(dout, 1.0 / n) if n != 1 else dout


@bprop_for(KLDivLoss)
def kl_div_loss_bprop(prim, x, y, out, dout):
    from .logic_ops import Greater, Select
    from .elementwise_ops import Log
    d = _kl_scale(prim, x, dout)
    dx = _mul(_neg(y), d)
    positive = cached_prim(Greater)(y, 0.0)
    safe = cached_prim(Select)(positive, y, 1.0)
    dy = _mul(cached_prim(Select)(positive, _sub(_sub(cached_prim(Log)(safe), x), -1.0), 0.0), d)
    return dx, dy
