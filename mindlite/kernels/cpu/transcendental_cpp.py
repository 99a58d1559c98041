"""C++ kernels (mindlite._C elementwise tables, csrc/kernels/unary_impl.inc, binary_impl.inc,
special_math.cc) for ops/operations/transcendental_ops.py and bessel_ops.py: float32 /
float64, any layout and broadcast, large launches split across the thread pool. float16 runs
through float32 lanes (f16_cpp.py lists these ops too).

The registered callables are builtins with the op code bound (no Python frame when a cached
runner calls them), as math_cpp.py's.
"""
from ...common import dtype as mstype
from ..registry import register_kernel
from ._cext import _C

FLOATS = (mstype.float32, mstype.float64)
UNARY = ("Tan", "Atan", "Asin", "ACos", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Log1p",
         "Expm1", "Log2", "Log10", "Exp2", "Erfc", "Erfinv", "Trunc", "Lgamma", "Digamma",
         "BesselJ0", "BesselJ1", "BesselY0", "BesselY1", "BesselI0", "BesselI0e", "BesselI1",
         "BesselI1e", "BesselK0", "BesselK0e", "BesselK1", "BesselK1e")
BINARY = ("Atan2", "Hypot", "Zeta", "Igamma", "Igammac")

for _op in UNARY:
    register_kernel(_op, provider="cpp", dtypes=FLOATS)(_C.UNARY_KERNELS[_op])
for _op in BINARY:
    register_kernel(_op, provider="cpp", dtypes=FLOATS)(_C.BINARY_KERNELS[_op])
