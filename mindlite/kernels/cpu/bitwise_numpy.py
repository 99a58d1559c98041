"""numpy kernels for ops/operations/bitwise_ops.py: one ufunc each, computed in the input
dtype into the preallocated output (inputs broadcast to it; inference checked the dtypes).
Shifts by the bit width or more follow numpy (0, or -1 for a negative value shifted right);
Lcm of values whose product overflows wraps, as numpy's."""
import numpy as np

from ..registry import register_kernel

_UFUNCS = {
    "BitwiseAnd": np.bitwise_and, "BitwiseOr": np.bitwise_or, "BitwiseXor": np.bitwise_xor,
    "Invert": np.invert, "LeftShift": np.left_shift, "RightShift": np.right_shift,
    "Gcd": np.gcd, "Lcm": np.lcm, "NextAfter": np.nextafter, "SignBit": np.signbit,
    "Heaviside": np.heaviside,
}


def _kernel(name, ufunc):
    if ufunc.nin == 1:
        def kernel(x, out):
            ufunc(x, out=out)
    else:
        def kernel(x, y, out):
            with np.errstate(all="ignore"):
                ufunc(x, y, out=out)
    kernel.__name__ = kernel.__qualname__ = f"{name.lower()}_numpy"
    return kernel


for _op, _ufunc in _UFUNCS.items():
    if _op != "Heaviside":
        register_kernel(_op, provider="numpy")(_kernel(_op, _ufunc))


@register_kernel("Heaviside", provider="numpy")
def heaviside_numpy(x, y, out):
    """numpy's heaviside is float-only: ints select 0, y or 1 by the sign of x."""
    if x.dtype.kind == "f":
        np.heaviside(x, y, out=out)
    else:
        np.copyto(out, np.where(x > 0, 1, np.where(x == 0, y, 0)).astype(out.dtype))
