"""C++ kernels (mindlite._C, csrc/kernels/) for nn_ops activations, ReluGrad, ReLU6Grad,
BiasAdd and BiasAddGrad.

Same conventions as math_cpp.py: builtins from `_C.UNARY_KERNELS` with the op code bound,
fn(x, out), float32/float64 (ReLU also int32/int64). Sigmoid and Softplus are numerically
stable (Softplus == np.logaddexp(0, x)); GeLU is MindSpore's tanh approximation, evaluated
as x * sigmoid(2 k (x + 0.044715 x^3)), the same function without the cancellation of
1 + tanh(.) for negative x.
"""
from ...common import dtype as mstype
from ..registry import register_kernel
from ._cext import _C

FLOATS = (mstype.float32, mstype.float64)

_ACTIVATIONS = {
    "ReLU": FLOATS + (mstype.int32, mstype.int64), "ReLU6": FLOATS, "Sigmoid": FLOATS,
    "Tanh": FLOATS, "GeLU": FLOATS, "SiLU": FLOATS, "Softplus": FLOATS,
}

for _op, _dtypes in _ACTIVATIONS.items():
    register_kernel(_op, provider="cpp", dtypes=_dtypes)(_C.UNARY_KERNELS[_op])

# ReluGrad(dy, x) = dy * (x > 0), the same products numpy's kernel computes (NaN / inf in dy
# and -0 kept), as one C loop instead of a bool temporary and a mixed-dtype multiply.
register_kernel("ReluGrad", provider="cpp", dtypes=FLOATS)(_C.BINARY_KERNELS["ReluGrad"])
# ReLU6Grad(dy, x) = dy * ((x > 0) & (x <= 6)) likewise: one loop, split over the thread pool as
# the other elementwise kernels (numpy's three passes ran on one thread: MobileNetV2's 32 x 32
# training step spent 2.0-2.3 ms in its 35 calls on one thread and on two).
register_kernel("ReLU6Grad", provider="cpp", dtypes=FLOATS)(_C.BINARY_KERNELS["ReLU6Grad"])

# BiasAdd(x, bias, out, data_format) and BiasAddGrad(dout, out, axis): _C.bias_add /
# _C.bias_add_grad (csrc/kernels/bias_loops.cc) take the kernels' own arguments. BiasAdd adds
# exactly as numpy's broadcast add; BiasAddGrad sums in float64 (float32 too, in a fixed
# order), closer to the exact sum than np.sum's float32 pairwise sums.
# NOTE: digits CNN shapes, float32, thread CPU on the loaded 2-core machine: BiasAdd 64 x 16 x
# 8 x 8 15.6 -> 4.8 us, BiasAddGrad 64 x 32 x 4 x 4 42 -> 7.5 us, 64 x 128 3.6 -> 0.8 us.
register_kernel("BiasAdd", provider="cpp", dtypes=FLOATS)(_C.bias_add)
register_kernel("BiasAddGrad", provider="cpp", dtypes=FLOATS)(_C.bias_add_grad)
