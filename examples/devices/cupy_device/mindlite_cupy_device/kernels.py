"""The GPU plugin's kernels: functions over an array module `xp` (CuPy on the GPU).

KERNELS maps an op name to (kernel, dtypes): `kernel(xp, ins, out, params)` reads the input
arrays `ins` (device views), writes the output view `out` in place and takes the
primitive's kernel params (transpose_a, axis, keep_dims, ...), as mindlite's CPU kernels
do (mindlite/kernels/cpu/*_numpy.py is the reference for each formula). `dtypes` are the
output dtypes the kernel takes; inputs of another dtype are cast to it first (the implicit
conversion MindSpore does before the kernel). The KernelExecutor (__init__.py) selects from
this table; an op not in it, or a dtype not listed, runs on CPU.
"""
import numpy as np

FLOATS = frozenset(map(np.dtype, (np.float32, np.float64)))
NUMBERS = FLOATS | frozenset(map(np.dtype, (np.int32, np.int64)))


def _binary(name):
    def kernel(xp, ins, out, params):
        a, b = ins
        if np.broadcast_shapes(a.shape, b.shape) == out.shape:
            getattr(xp, name)(a, b, out=out)
        else:                   # a 1-element operand of another rank (a packed scalar)
            out[...] = getattr(xp, name)(a, b).reshape(out.shape)
    return kernel


def _unary(name):
    def kernel(xp, ins, out, params):
        getattr(xp, name)(ins[0], out=out)
    return kernel


def relu(xp, ins, out, params):
    xp.maximum(ins[0], 0, out=out)


def sigmoid(xp, ins, out, params):
    xp.negative(ins[0], out=out)
    xp.exp(out, out=out)
    out += 1
    xp.reciprocal(out, out=out)


def relu_grad(xp, ins, out, params):           # (dy, x)
    xp.multiply(ins[0], ins[1] > 0, out=out)


def sigmoid_grad(xp, ins, out, params):        # (y, dy)
    y, dy = ins
    xp.multiply(dy, y * (1 - y), out=out)


def tanh_grad(xp, ins, out, params):           # (y, dy)
    y, dy = ins
    xp.multiply(dy, 1 - y * y, out=out)


def _operand(x, transpose):
    return x.swapaxes(-1, -2) if transpose else x


def matmul(xp, ins, out, params):
    a = _operand(ins[0], params.get("transpose_a", False))
    b = _operand(ins[1], params.get("transpose_b", False))
    xp.matmul(a, b, out=out)


def bias_add(xp, ins, out, params):
    x, bias = ins
    if params.get("data_format", "NCHW") != "NHWC":
        bias = bias.reshape((-1,) + (1,) * (x.ndim - 2))
    xp.add(x, bias, out=out)


def bias_add_grad(xp, ins, out, params):
    xp.sum(ins[0], axis=params["axis"], out=out)


def reduce_sum(xp, ins, out, params):
    xp.sum(ins[0], axis=params["axis"], keepdims=params["keep_dims"], out=out)


def reduce_mean(xp, ins, out, params):
    xp.mean(ins[0], axis=params["axis"], keepdims=params["keep_dims"], out=out)


def softmax(xp, ins, out, params):
    axis = params["axis"]
    x = ins[0]
    xp.subtract(x, xp.max(x, axis=axis, keepdims=True), out=out)
    xp.exp(out, out=out)
    out /= xp.sum(out, axis=axis, keepdims=True)


def broadcast_to(xp, ins, out, params):
    out[...] = ins[0]


KERNELS = {
    "Add": (_binary("add"), NUMBERS),
    "Sub": (_binary("subtract"), NUMBERS),
    "Mul": (_binary("multiply"), NUMBERS),
    "Div": (_binary("divide"), FLOATS),
    "RealDiv": (_binary("divide"), FLOATS),
    "Maximum": (_binary("maximum"), FLOATS),
    "Minimum": (_binary("minimum"), FLOATS),
    "Neg": (_unary("negative"), NUMBERS),
    "Abs": (_unary("abs"), NUMBERS),
    "Square": (_unary("square"), NUMBERS),
    "Exp": (_unary("exp"), FLOATS),
    "Log": (_unary("log"), FLOATS),
    "Sqrt": (_unary("sqrt"), FLOATS),
    "Tanh": (_unary("tanh"), FLOATS),
    "ReLU": (relu, FLOATS),
    "Sigmoid": (sigmoid, FLOATS),
    "ReluGrad": (relu_grad, FLOATS),
    "SigmoidGrad": (sigmoid_grad, FLOATS),
    "TanhGrad": (tanh_grad, FLOATS),
    "MatMul": (matmul, FLOATS),
    "BatchMatMul": (matmul, FLOATS),
    "BiasAdd": (bias_add, FLOATS),
    "BiasAddGrad": (bias_add_grad, FLOATS),
    "ReduceSum": (reduce_sum, FLOATS),
    "ReduceMean": (reduce_mean, FLOATS),
    "Softmax": (softmax, FLOATS),
    "BroadcastTo": (broadcast_to, NUMBERS),
}
