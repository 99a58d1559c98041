"""C++ kernels (mindlite._C, csrc/kernels/unary_impl.inc) for activation_ops without
attributes: HSwish, HSigmoid, Softsign (exact: bitwise the numpy reference's results), Elu,
SeLU, Mish, LogSigmoid (vectorised exp/log/tanh of simd_math.h, within a few ulp of numpy's).

Builtins from `_C.UNARY_KERNELS` with the op code bound, fn(x, out), float32/float64: the C
fast path runs them without a Python frame and large launches split across the thread
pool. float16 and the ops with attributes (LeakyReLU, CeLU, Hardtanh) use the numpy kernels.
"""
from ...common import dtype as mstype
from ..registry import register_kernel
from ._cext import _C

FLOATS = (mstype.float32, mstype.float64)

for _op in ("HSwish", "HSigmoid", "Softsign", "Elu", "SeLU", "Mish", "LogSigmoid"):
    register_kernel(_op, provider="cpp", dtypes=FLOATS)(_C.UNARY_KERNELS[_op])
