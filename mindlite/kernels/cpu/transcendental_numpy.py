"""numpy reference kernels for ops/operations/transcendental_ops.py (the oracle beside the C++
ones, and the kernel of the dtypes C++ does not take: Trunc of ints). One ufunc each, in the
input dtype, inside np.errstate (domain edges such as log1p(-2) or atanh(1) are expected).
Erfinv, Lgamma, Digamma and Zeta have no numpy ufunc: their kernels are the C++ ones (the
tests compare them with PyTorch's)."""
import numpy as np

from ..registry import register_kernel

_UFUNCS = {
    "Tan": np.tan, "Atan": np.arctan, "Asin": np.arcsin, "ACos": np.arccos, "Sinh": np.sinh,
    "Cosh": np.cosh, "Asinh": np.arcsinh, "Acosh": np.arccosh, "Atanh": np.arctanh,
    "Log1p": np.log1p, "Expm1": np.expm1, "Log2": np.log2, "Log10": np.log10, "Exp2": np.exp2,
    "Atan2": np.arctan2, "Hypot": np.hypot,
}


def _kernel(name, ufunc):
    if ufunc.nin == 1:
        def kernel(x, out):
            with np.errstate(all="ignore"):
                ufunc(x, out=out)
    else:
        def kernel(x, y, out):
            with np.errstate(all="ignore"):
                ufunc(x, y, out=out)
    kernel.__name__ = kernel.__qualname__ = f"{name.lower()}_numpy"
    return kernel


for _op, _ufunc in _UFUNCS.items():
    register_kernel(_op, provider="numpy")(_kernel(_op, _ufunc))


@register_kernel("Trunc", provider="numpy")
def trunc_numpy(x, out):
    """Ints are already whole: copied."""
    if x.dtype.kind in "iu":
        np.copyto(out, x)
    else:
        np.trunc(x, out=out)
