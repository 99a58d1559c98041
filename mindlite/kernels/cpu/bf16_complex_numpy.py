"""numpy kernels for bfloat16 and complex tensors (issue 13, dtypes).

bfloat16 (ml_dtypes' numpy dtype): every op listed in BF16_VIA_FLOAT32 computes through
float32. Its bfloat16 inputs are widened to float32 (exact), the op's numpy reference kernel
runs on them into float32 buffers, and each result is rounded once to bfloat16, to nearest
even as ml_dtypes' cast does. Reductions thus accumulate in float32, and a MatMul sums its
products in float32 (as a bfloat16 matrix unit does), not in bfloat16.

complex64 / complex128 run on numpy's complex ufuncs through the reference kernels (which
have no dtype list); this module adds the kernels whose reference version assumes real
input: Cast from complex (takes the real part, as MindSpore, without numpy's
ComplexWarning), ReduceMean, and the complex-only primitives of complex_ops (Real, Imag,
Conj, Angle, ComplexAbs, Complex, Polar).

These kernels are provider "numpy" with an explicit dtype list; the C++ and numba kernels
list float32/float64 (and int) only, so selection never hands them one of these dtypes.
"""
import numpy as np

from ...common import dtype as mstype
from ..registry import KERNELS, register_kernel
from . import array_numpy, grad_numpy, math_numpy, nn_numpy, reduce_numpy  # noqa: F401

# op -> number of array inputs (the launch gets inputs, then the preallocated outputs)
BF16_VIA_FLOAT32 = {
    "Add": 2, "Sub": 2, "Mul": 2, "Div": 2, "RealDiv": 2, "Maximum": 2, "Minimum": 2,
    "Neg": 1, "Square": 1, "Abs": 1, "Exp": 1, "Log": 1, "Sqrt": 1, "Reciprocal": 1,
    "Sin": 1, "Cos": 1, "Pow": 2,
    "MatMul": 2, "BatchMatMul": 2,
    "ReduceSum": 1, "ReduceMean": 1, "ReduceMax": 1, "ReduceMin": 1, "ReduceProd": 1,
    # what a bfloat16 Dense / MLP (Cell.to_float(bfloat16)) runs, forward and backward
    "BiasAdd": 2, "BiasAddGrad": 1, "ReLU": 1, "ReluGrad": 2, "Sigmoid": 1, "SigmoidGrad": 2,
    "Tanh": 1, "TanhGrad": 2, "Softmax": 1, "SoftmaxGrad": 2, "SqrtGrad": 2,
}
COMPLEX = mstype.COMPLEX_TYPES


def _reference(op):
    """The op's numpy reference kernel that takes float32 (the one bfloat16 reuses)."""
    for k in KERNELS.get(op, ()):
        if k.provider == "numpy" and k.device == "CPU" and k.kind == "function" \
                and k.alloc == "runtime" and (k.dtypes is None or mstype.float32 in k.dtypes):
            return k.fn
    raise LookupError(f"bf16_complex_numpy: no numpy float32 kernel of '{op}' to wrap")


def _via_float32(op, ref, n_in):
    bf16 = mstype.bfloat16.np
    f32 = np.dtype(np.float32)

    def kernel(*arrays, **params):
        ins = [a.astype(f32) if a.dtype == bf16 else a for a in arrays[:n_in]]
        outs = arrays[n_in:]
        tmps = [np.empty(o.shape, f32) if o.dtype == bf16 else o for o in outs]
        ref(*ins, *tmps, **params)
        for o, t in zip(outs, tmps):
            if o is not t:
                np.copyto(o, t, casting="unsafe")   # float32 -> bfloat16: round to even
    kernel.__name__ = kernel.__qualname__ = f"{op.lower()}_bf16_via_float32"
    return kernel


if mstype.bfloat16.np is not None:
    for _op, _n in BF16_VIA_FLOAT32.items():
        register_kernel(_op, provider="numpy", dtypes=(mstype.bfloat16,), priority=1)(
            _via_float32(_op, _reference(_op), _n))


# ---- complex: the reference kernels that assume real input ------------------------------
@register_kernel("Cast", provider="numpy", dtypes=COMPLEX, priority=1)
def cast_complex_numpy(x, out, quiet):
    """complex -> complex keeps both parts; -> real (bfloat16, ints, bool) the real part."""
    np.copyto(out, x if out.dtype.kind == "c" else x.real, casting="unsafe")


@register_kernel("ReduceMean", provider="numpy", dtypes=COMPLEX, priority=1)
def reduce_mean_complex_numpy(x, out, axis, keep_dims):
    """mean of the real and imaginary parts; nan+nanj for an empty set."""
    if x.size == 0 or any(x.shape[a] == 0 for a in axis):
        out.fill(complex(np.nan, np.nan))
    else:
        np.mean(x, axis=axis, keepdims=keep_dims, out=out)


# ---- complex-only primitives (ops/operations/complex_ops.py) -----------------------------
@register_kernel("Real", provider="numpy")
def real_numpy(x, out):
    np.copyto(out, x.real)


@register_kernel("Imag", provider="numpy")
def imag_numpy(x, out):
    if x.dtype.kind == "c":
        np.copyto(out, x.imag)
    else:
        out.fill(0)


@register_kernel("Conj", provider="numpy")
def conj_numpy(x, out):
    np.conjugate(x, out=out)


@register_kernel("Angle", provider="numpy")
def angle_numpy(x, out):
    np.copyto(out, np.angle(x))


@register_kernel("ComplexAbs", provider="numpy")
def complex_abs_numpy(x, out):
    np.absolute(x, out=out)


@register_kernel("Complex", provider="numpy")
def complex_numpy(real, imag, out):
    out.real = real
    out.imag = imag


@register_kernel("Polar", provider="numpy")
def polar_numpy(abs_, angle, out):
    out.real = abs_ * np.cos(angle)
    out.imag = abs_ * np.sin(angle)
