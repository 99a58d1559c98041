"""C++ kernels (mindlite._C, csrc/kernels/unary_impl.inc) for activation_ops without
attributes: HSwish, HSigmoid, Softsign (exact: bitwise the numpy reference's results), Elu,
SeLU, Mish, LogSigmoid (vectorised exp/log/tanh of simd_math.h, within a few ulp of numpy's).

Builtins from `_C.UNARY_KERNELS` with the op code bound, fn(x, out), float32/float64: the C
fast path runs them without a Python frame and large launches split across the thread
pool. CeLU with alpha > 0 runs through the C++ Elu; float16 and the other ops with
attributes (LeakyReLU, Hardtanh) use the numpy kernels.
"""
import numpy as np

from ...common import dtype as mstype
from ..registry import register_kernel
from ._cext import _C

FLOATS = (mstype.float32, mstype.float64)

for _op in ("HSwish", "HSigmoid", "Softsign", "Elu", "SeLU", "Mish", "LogSigmoid"):
    register_kernel(_op, provider="cpp", dtypes=FLOATS)(_C.UNARY_KERNELS[_op])


def _celu_numpy():
    from .activation_numpy import celu_numpy
    return celu_numpy


_elu = _C.UNARY_KERNELS["Elu"]


@register_kernel("CeLU", provider="cpp", dtypes=FLOATS)
def celu_cpp(x, out, alpha):
    """For alpha > 0, celu(x) = min(alpha elu(x / alpha), 0) + max(x, 0): the C++ Elu does
    the exponential (one pass, vectorised); alpha < 0 takes the numpy kernel."""
    if not alpha > 0:
        _celu_numpy()(x, out, alpha)
        return
    with np.errstate(all="ignore"):
        np.multiply(x, x.dtype.type(1.0 / alpha), out=out)
        _elu(out, out)
        out *= x.dtype.type(alpha)
        # min(t, 0) + max(x, 0): t >= 0 exactly where x > 0, so x itself there (and NOTE: a
        # masked np.copyto is ~15x slower than these two passes)
        np.minimum(out, 0, out=out)
        out += np.maximum(x, 0)
