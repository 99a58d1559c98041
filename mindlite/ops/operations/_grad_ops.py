"""Gradient primitives (MindSpore's ops.operations._grad_ops): fused backward kernels with
MindSpore's names and argument orders, each with its own bprop so grad(grad(f)) works.
Kernels: kernels/cpu/grad_*.py."""
from ...common import dtype as mstype
from ...ir.rules import bprop_for
from ...ir.primitive import Primitive, prim_attr_register
from ..validator import check_axis, check_dtype, check_same_dtype, tensor

__all__ = ["ReluGrad", "ReLU6Grad", "SigmoidGrad", "TanhGrad", "SqrtGrad", "SoftmaxGrad",
           "LogSoftmaxGrad", "BiasAddGrad", "EluGrad"]


class _ElementwiseGrad(Primitive):
    """Two same-shape, same-dtype inputs -> one output of that shape. In graph mode a dynamic
    dim (-1) matches any size, the other input's size kept (as MindSpore)."""
    valid_types = mstype.FLOAT_TYPES

    @prim_attr_register
    def __init__(self):
        pass

    def infer(self, a, b):
        n0, n1 = self.input_names
        check_dtype(self, n0, a, self.valid_types)
        check_same_dtype(self, [(n0, a), (n1, b)])
        if a.shape == b.shape:
            return a
        if len(a.shape) != len(b.shape) or any(
                d != e and d != -1 and e != -1 for d, e in zip(a.shape, b.shape)):
            raise ValueError(f"For '{self.name}', '{n0}' and '{n1}' must have the same shape, "
                             f"but got {list(a.shape)} and {list(b.shape)}")
        return tensor(a.dtype, tuple(e if d == -1 else d for d, e in zip(a.shape, b.shape)))


class ReluGrad(_ElementwiseGrad):
    """dx = dy * (x > 0)  (the subgradient at 0 is 0)."""
    input_names = ("y_backprop", "x")
    valid_types = mstype.SIGNED_TYPES + mstype.BF16_TYPES


class ReLU6Grad(_ElementwiseGrad):
    """dx = dy * (0 < x <= 6): at x = 6 the gradient passes, at x = 0 it does not (as
    MindSpore 2.10's ReLU6Grad and the gradient of its ReLU6)."""
    input_names = ("y_grad", "x")


class SigmoidGrad(_ElementwiseGrad):
    """dx = dy * y * (1 - y), y = sigmoid(x)."""
    valid_types = mstype.FLOAT_TYPES + mstype.BF16_TYPES
    input_names = ("y", "dy")


class TanhGrad(_ElementwiseGrad):
    """dx = dy * (1 - y^2), y = tanh(x)."""
    valid_types = mstype.FLOAT_TYPES + mstype.BF16_TYPES
    input_names = ("y", "dy")


class SqrtGrad(_ElementwiseGrad):
    """dx = dy / (2 y), y = sqrt(x)."""
    valid_types = mstype.FLOAT_TYPES + mstype.BF16_TYPES
    input_names = ("y", "dy")


class _SoftmaxGradBase(_ElementwiseGrad):
    valid_types = mstype.FLOAT_TYPES + mstype.BF16_TYPES

    @prim_attr_register
    def __init__(self, axis=-1):
        pass

    def kernel_params(self, y, dy):
        return {"axis": check_axis(self, "axis", self.attrs["axis"], len(y.shape))}

    def infer(self, y, dy):
        check_axis(self, "axis", self.attrs["axis"], len(y.shape))
        return super().infer(y, dy)


class SoftmaxGrad(_SoftmaxGradBase):
    """dx = y * (dy - sum(dy * y, axis)), y = softmax(x, axis)."""
    input_names = ("y", "dy")


class LogSoftmaxGrad(_SoftmaxGradBase):
    """dx = dy - exp(y) * sum(dy, axis), y = log_softmax(x, axis)."""
    input_names = ("y", "dy")


class BiasAddGrad(Primitive):
    """db = sum of dout over every axis but the channel axis (1 for NCHW, last for NHWC)."""
    input_names = ("dout",)

    @prim_attr_register
    def __init__(self, data_format="NCHW"):
        if data_format not in ("NCHW", "NHWC", "NCDHW"):
            raise ValueError(f"For 'BiasAddGrad', 'data_format' must be 'NCHW', 'NHWC' or "
                             f"'NCDHW', but got {data_format!r}")

    def _channel(self, dout):
        return len(dout.shape) - 1 if self.attrs["data_format"] == "NHWC" else 1

    def infer(self, dout):
        check_dtype(self, "dout", dout, mstype.NUMBER_BF16_COMPLEX_TYPES)
        if len(dout.shape) < 2:
            raise ValueError(f"For 'BiasAddGrad', 'dout' must have rank >= 2, but got shape "
                             f"{list(dout.shape)}")
        return tensor(dout.dtype, (dout.shape[self._channel(dout)],))

    def kernel_params(self, dout):
        c = self._channel(dout)
        return {"axis": tuple(i for i in range(len(dout.shape)) if i != c)}


class EluGrad(_ElementwiseGrad):
    """dx = dy where y > 0, dy * (y + 1) elsewhere: the gradient of Elu (alpha 1) from its
    output y (MindSpore's EluGrad(dy, y))."""
    input_names = ("dy", "y")


# ---- bprops of the gradient primitives (for higher-order gradients) -----------------------
def _ops():
    from .. import functional as F
    return F


@bprop_for(ReluGrad)
def relu_grad_bprop(prim, dy, x, out, dout):
    return ReluGrad()(dout, x), None


@bprop_for(ReLU6Grad)
def relu6_grad_bprop(prim, dy, x, out, dout):
    return ReLU6Grad()(dout, x), None


@bprop_for(EluGrad)
def elu_grad_bprop(prim, dy, y, out, dout):
    F = _ops()
    return EluGrad()(dout, y), F.select(y > 0, F.zeros_like(y), dy * dout)


@bprop_for(SigmoidGrad)
def sigmoid_grad_bprop(prim, y, dy, out, dout):
    F = _ops()
    return F.mul(F.mul(dout, dy), F.sub(1, F.mul(2, y))), SigmoidGrad()(y, dout)


@bprop_for(TanhGrad)
def tanh_grad_bprop(prim, y, dy, out, dout):
    F = _ops()
    return F.mul(F.mul(-2, y), F.mul(dy, dout)), TanhGrad()(y, dout)


@bprop_for(SqrtGrad)
def sqrt_grad_bprop(prim, y, dy, out, dout):
    F = _ops()
    return F.neg(F.div(F.mul(dout, dy), F.mul(2, F.mul(y, y)))), SqrtGrad()(y, dout)


@bprop_for(SoftmaxGrad)
def softmax_grad_bprop(prim, y, dy, out, dout):
    F = _ops()
    axis = prim.attrs["axis"]
    s = F.sum(F.mul(dy, y), axis, True)
    t = F.sum(F.mul(dout, y), axis, True)
    dy_y = F.sub(F.mul(dout, F.sub(dy, s)), F.mul(t, dy))
    return dy_y, SoftmaxGrad(axis)(y, dout)


@bprop_for(LogSoftmaxGrad)
def log_softmax_grad_bprop(prim, y, dy, out, dout):
    F = _ops()
    axis = prim.attrs["axis"]
    e = F.exp(y)
    d_y = F.neg(F.mul(F.mul(dout, e), F.sum(dy, axis, True)))
    d_dy = F.sub(dout, F.sum(F.mul(dout, e), axis, True))
    return d_y, d_dy


@bprop_for(BiasAddGrad)
def bias_add_grad_bprop(prim, dout_in, out, dout):
    F = _ops()
    shape = [1] * len(dout_in.shape)
    c = prim._channel(dout_in)
    shape[c] = dout_in.shape[c]
    return (F.broadcast_to(F.reshape(dout, tuple(shape)), dout_in.shape),)



# ---- gradient primitives defined next to their forward ops are reachable here too, where
# MindSpore keeps them; resolved lazily (PEP 562) because those modules import this one.
_ELSEWHERE = {
    "Conv2DBackpropFilter": "conv_ops", "Conv2DBackpropInput": "conv_ops",
    "AvgPool2DGrad": "pool_ops", "AvgPoolGrad": "pool_ops", "MaxPoolGrad": "pool_ops",
    "MaxPoolGradGrad": "pool_ops", "MaxPoolGradGradWithArgmax": "pool_ops",
    "MaxPoolGradWithArgmaxV2": "pool_ops", "BatchNormGrad": "norm_ops",
    "DropoutGrad": "norm_ops", "LayerNormGrad": "norm_ops", "NLLLossGrad": "loss_ops",
    "StridedSliceGrad": "scatter_ops", "SigmoidCrossEntropyWithLogitsGrad": "loss_pointwise_ops",
    "LRNGrad": "local_norm_ops",
}


def __getattr__(name):
    module = _ELSEWHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib
    return getattr(importlib.import_module(f"{__package__}.{module}"), name)
