"""numpy kernels of ops/operations/bitwise_ops.py: one ufunc each, in the input dtype,
written into the preallocated output (inputs broadcast to it)."""
import numpy as np

from ..registry import register_kernel

_UFUNCS = {"BitwiseAnd": np.bitwise_and, "BitwiseOr": np.bitwise_or,
           "BitwiseXor": np.bitwise_xor, "Gcd": np.gcd, "Lcm": np.lcm}


def _binary(ufunc):
    def kernel(x, y, out):
        ufunc(x, y, out=out)
    return kernel


for _op, _ufunc in _UFUNCS.items():
    _fn = _binary(_ufunc)
    _fn.__name__ = _fn.__qualname__ = f"{_op.lower()}_numpy"
    register_kernel(_op, provider="numpy")(_fn)


@register_kernel("Invert", provider="numpy")
def invert_numpy(x, out):
    np.invert(x, out=out)
