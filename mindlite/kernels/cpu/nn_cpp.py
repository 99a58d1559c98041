"""C++ kernels (mindlite._C, csrc/kernels/) for nn_ops activations.

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
