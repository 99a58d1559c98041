"""numpy reference kernels for the gradient primitives (ops/operations/_grad_ops.py)."""
import numpy as np

from ..registry import register_kernel


@register_kernel("ReluGrad", provider="numpy")
def relu_grad_numpy(dy, x, out):
    np.multiply(dy, x > 0, out=out)


@register_kernel("ReLU6Grad", provider="numpy")
def relu6_grad_numpy(dy, x, out):
    np.multiply(dy, (x > 0) & (x <= 6), out=out)


@register_kernel("EluGrad", provider="numpy")
def elu_grad_numpy(dy, y, out):
    np.multiply(dy, np.where(y > 0, 1, y + 1), out=out)


@register_kernel("SigmoidGrad", provider="numpy")
def sigmoid_grad_numpy(y, dy, out):
    np.multiply(dy, y * (1 - y), out=out)


@register_kernel("TanhGrad", provider="numpy")
def tanh_grad_numpy(y, dy, out):
    np.multiply(dy, 1 - y * y, out=out)


@register_kernel("SqrtGrad", provider="numpy")
def sqrt_grad_numpy(y, dy, out):
    with np.errstate(divide="ignore", invalid="ignore"):
        np.divide(dy, 2 * y, out=out)


@register_kernel("SoftmaxGrad", provider="numpy")
def softmax_grad_numpy(y, dy, out, axis):
    np.multiply(y, dy - np.sum(dy * y, axis=axis, keepdims=True), out=out)


@register_kernel("LogSoftmaxGrad", provider="numpy")
def log_softmax_grad_numpy(y, dy, out, axis):
    np.subtract(dy, np.exp(y) * np.sum(dy, axis=axis, keepdims=True), out=out)


@register_kernel("BiasAddGrad", provider="numpy")
def bias_add_grad_numpy(dout, out, axis):
    np.sum(dout, axis=axis, out=out)
