"""C++ kernels for float16 (mindlite._C, csrc/kernels/f16_kernels.cc): float16 computed through
float32 lanes with F16C (AVX-512 / AVX2 conversions, scalar on MINDLITE_ISA=base).

Elementwise (unary and binary arithmetic): contiguous inputs of out's size (or one element)
run `_C.f16_unary` / `_C.f16_binary`, which widen blocks of 512 elements to float32, run the
float32 loop of the elementwise tables on them and round each result once to float16; other
layouts and broadcasts widen each input to float32 first and run the float32 C++ kernel (which
handles any layout), then round. Either way every result is the float32 result rounded once,
as numpy's float16 ufuncs compute: exact ops (Add, Sub, Mul, Div, Maximum, Minimum, Neg,
ReLU, ...) give numpy's bits; transcendental ones are within an ulp of numpy's float16 result.

Softmax / LogSoftmax along the last axis of a contiguous input run `_C.f16_softmax`: blocks
of whole rows are widened, run through the float32 softmax loop and rounded, in cache.
Reductions of a contiguous input that keep its first dim run in blocks of whole first-dim
slices the same way (`_C.f16_builtin`, the float32 reduce loops on each block). Other
reductions (ReduceSum / Mean / Max / Min), the softmax grads and softmax along another axis
widen to float32, run the float32 C++ kernel (sums accumulate in float64) and round once.
MindSpore accumulates float16 sums in float32 along every axis (checked against MindSpore
2.10); numpy's float16 sum does so only along a contiguous axis and rounds to float16 at every
step along the others, so these sums are at least as accurate as the numpy reference and agree
with MindSpore's.
Softmax is computed in float32 and rounded once (MindSpore's float16 CPU softmax differs from
that by up to an ulp). Max / Min give numpy's bits.

The registered kernels are builtins (`_C.f16_builtin`): contiguous arrays run in C without a
Python frame (a FastRunner calls them directly, as the float32 builtins); other layouts and
numpy scalars go to the Python kernels below, which give the same bits.

Registered under the provider "cpp_f16" at the C++ provider's priority: the float32 / float64
C++ kernels keep the provider "cpp" (one C++ KernelDef per op and dtype family); a context
preference kernel_provider="cpp" falls through to these for float16 by priority.
"""
import numpy as np

from ...common import dtype as mstype
from ..registry import PROVIDER_PRIORITY, register_kernel
from ._cext import _C

F16 = (mstype.float16,)
PROVIDER = "cpp_f16"
PRIORITY = PROVIDER_PRIORITY["cpp"]

UNARY = ("Abs", "Neg", "Square", "Sign", "Exp", "Log", "Sqrt", "Rsqrt", "Sin", "Cos", "Floor",
         "Ceil", "Round", "Reciprocal", "ReLU", "ReLU6", "Sigmoid", "Tanh", "SiLU", "Softplus",
         "HSwish", "HSigmoid", "Softsign", "Elu", "SeLU", "Mish", "LogSigmoid", "Erf", "Tan",
         "Atan", "Asin", "ACos", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Log1p", "Expm1",
         "Log2", "Log10", "Exp2", "Erfc", "Erfinv", "Trunc", "Lgamma", "Digamma", "BesselJ0",
         "BesselJ1", "BesselY0", "BesselY1", "BesselI0", "BesselI0e", "BesselI1", "BesselI1e",
         "BesselK0", "BesselK0e", "BesselK1", "BesselK1e")
BINARY = ("Add", "Sub", "Mul", "Div", "RealDiv", "Maximum", "Minimum", "Atan2", "Hypot", "Zeta",
          "Igamma", "Igammac")
REDUCE = ("ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin")
SOFTMAX = ("Softmax", "LogSoftmax")
SOFTMAX_GRAD = ("SoftmaxGrad", "LogSoftmaxGrad")

_to_f32 = _C.f16_to_f32
_to_f16 = _C.f32_to_f16
_unary = _C.f16_unary
_binary = _C.f16_binary
_f16_softmax = _C.f16_softmax


def _direct(a):
    """Whether the C++ float16 entry points take `a` as it is (a numpy scalar is copied)."""
    if not isinstance(a, np.ndarray):
        return False
    f = a.flags
    return f.c_contiguous and f.aligned and a.dtype.isnative


def _c16(a):
    """`a` as an aligned, C-contiguous, native float16 array (a copy only when needed)."""
    return a if _direct(a) else np.array(a, dtype=np.float16, order="C")


def widen(a):
    """A new C-contiguous float32 array holding float16 `a` (any layout), exactly."""
    out = np.empty(a.shape, np.float32)
    _to_f32(_c16(a), out)
    return out


def narrow_into(a32, out):
    """Rounds float32 `a32` (C-contiguous) into float16 `out` (C-contiguous, same size)."""
    _to_f16(a32, out)


def _via_f32(f32, inputs, out, *params):
    """f32(*inputs widened, o32, *params), o32 rounded once into float16 `out`: the path of
    every layout and broadcast the float16 entry points do not take."""
    o32 = np.empty(out.shape, np.float32)
    f32(*[widen(a) for a in inputs], o32, *params)
    narrow_into(o32, out)


def _named(kernel, name, doc):
    kernel.__name__ = kernel.__qualname__ = f"{name.lower()}_f16_cpp"
    kernel.__doc__ = f"{name} {doc}"
    return kernel


def _unary_kernel(name):
    code = _C.UNARY_OPS[name]

    def kernel(x, out):
        _unary(code, _c16(x), out)

    return _named(kernel, name, "on float16 through float32 lanes (mindlite._C.f16_unary).")


def _binary_kernel(name):
    code = _C.BINARY_OPS[name]
    f32 = _C.BINARY_KERNELS[name]

    def kernel(x, y, out):
        n = out.size
        if (x.size == n or x.size == 1) and (y.size == n or y.size == 1) and n:
            _binary(code, _c16(x), _c16(y), out)
            return
        _via_f32(f32, (x, y), out)

    return _named(kernel, name, "on float16 through float32 lanes (mindlite._C.f16_binary).")


def _reduce_kernel(name):
    f32 = _C.REDUCE_KERNELS[name]

    def kernel(x, out, axis, keep_dims):
        _via_f32(f32, (x,), out, axis, keep_dims)

    return _named(kernel, name, "of float16 computed in float32 (sums in float64), rounded "
                                "once.")


def _softmax_kernel(name):
    f32 = _C.SOFTMAX_KERNELS[name]
    code = SOFTMAX.index(name)

    def kernel(x, out, axis):
        if x.ndim and axis == x.ndim - 1 and x.shape[-1] and _direct(x):
            _f16_softmax(code, x, out, x.shape[-1])
            return
        _via_f32(f32, (x,), out, axis)

    return _named(kernel, name, "of float16 computed in float32, rounded once.")


def _softmax_grad_kernel(name):
    f32 = _C.SOFTMAX_KERNELS[name]

    def kernel(y, dy, out, axis):
        _via_f32(f32, (y, dy), out, axis)

    return _named(kernel, name, "of float16 computed in float32, rounded once.")


# _C.f16_builtin kinds (csrc/bind/f16_bind.cc)
K_UNARY, K_BINARY, K_SOFTMAX, K_THROUGH, K_REDUCE = range(5)
FAMILIES = (  # ops, Python kernel (every layout), builtin kind, inputs, op code, float32 kernel
    (UNARY, _unary_kernel, K_UNARY, 1, _C.UNARY_OPS.get, _C.UNARY_KERNELS),
    (BINARY, _binary_kernel, K_BINARY, 2, _C.BINARY_OPS.get, _C.BINARY_KERNELS),
    (REDUCE, _reduce_kernel, K_REDUCE, 1, REDUCE.index, _C.REDUCE_KERNELS),
    (SOFTMAX, _softmax_kernel, K_SOFTMAX, 1, SOFTMAX.index, _C.SOFTMAX_KERNELS),
    (SOFTMAX_GRAD, _softmax_grad_kernel, K_THROUGH, 2, lambda op: 0, _C.SOFTMAX_KERNELS),
)


def builtin_kernel(op):
    """The registered kernel of `op`: a builtin (no Python frame when a FastRunner calls it)
    that runs contiguous float16 arrays in C and hands other calls to the Python kernel."""
    for ops_, make, kind, n_in, code, f32 in FAMILIES:
        if op in ops_:
            return _C.f16_builtin(kind, code(op), n_in, f32[op], make(op))
    raise ValueError(f"For 'f16_cpp.builtin_kernel', 'op' must be one of the float16 C++ ops, "
                     f"but got {op!r}")


for _families in FAMILIES:
    for _op in _families[0]:
        register_kernel(_op, provider=PROVIDER, dtypes=F16, priority=PRIORITY)(
            builtin_kernel(_op))
