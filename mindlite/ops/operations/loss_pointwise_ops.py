"""Pointwise loss primitives (MindSpore's names and input orders): L2Loss and
SigmoidCrossEntropyWithLogits, with inference and bprops. Kernels: kernels/cpu/
loss_pointwise_numpy.py (float16 computed in float32, rounded once).

    L2Loss(x)                            sum(x ** 2) / 2, a 0-d tensor of x's dtype
    SigmoidCrossEntropyWithLogits(x, y)  max(x, 0) - x y + log(1 + exp(-|x|)) elementwise,
                                         stable for any |x|; y has x's shape and dtype

Gradients: d L2Loss / dx = x; d SCE / dx = sigmoid(x) - y and d SCE / dy = -x (the true
gradient of a float label, as loss_ops.py gives it; MindSpore 2.10's bprop returns zeros).
"""
from ...common import dtype as mstype
from ...pynative.grad import bprop_for
from ..primitive import Primitive, prim_attr_register
from ..validator import check_dtype, check_same_dtype, tensor
from . import math_ops as M
from . import nn_ops as N

__all__ = ["L2Loss", "SigmoidCrossEntropyWithLogits"]


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


_mul, _sub, _neg, _sigmoid = M.Mul(), M.Sub(), M.Neg(), N.Sigmoid()


@bprop_for(L2Loss)
def l2_loss_bprop(prim, x, out, dout):
    return (_mul(x, dout),)


@bprop_for(SigmoidCrossEntropyWithLogits)
def sigmoid_cross_entropy_with_logits_bprop(prim, logits, label, out, dout):
    return _mul(_sub(_sigmoid(logits), label), dout), _neg(_mul(logits, dout))
