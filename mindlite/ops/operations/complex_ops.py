"""Complex primitives (Real, Imag, Conj, Angle, ComplexAbs, Complex, Polar) and the complex
gradient convention of the existing math primitives (issue 13, dtypes).

Kernels: kernels/cpu/bf16_complex_numpy.py. Functional names: ops/function/complex_func.py.

Gradient convention (MindSpore's, the same as PyTorch's): for a real loss L of complex z = x
+ iy, the gradient of z is dL/dx + i dL/dy. For a holomorphic op, f(z) with derivative
f'(z), the chain rule then reads dz = dout * conj(f'(z)). The bprops of Mul, Div, Square,
Exp, Log, Sqrt, Sin, Cos, Reciprocal, MatMul, BatchMatMul, ReduceProd and Pow compute
dout * f'(...) from the primal values; every f' there is a real-coefficient expression of
(x, y, out), so conj(f'(x, y, out)) = f'(conj x, conj y, conj out): `holomorphic_bprop`
runs the op's own bprop on the conjugated primal values when the output is complex (real
outputs take the original path, unchanged). MindSpore 2.10 on CPU has no complex gradient
for Mul, Square or ReduceMean ("gradient not support for complex type"); mindlite gives them
by this rule.
"""

from ...common import dtype as mstype
from ...common.tensor import Tensor
from ...common.api import PYNATIVE
from ...ir.rules import BPROPS, bprop_for
from ...ir.primitive import Primitive, prim_attr_register
from ..validator import check_dtype, check_tensor, tensor
from ._base import binary_shape, needs_grad
from . import elementwise_ops, math_ops
from .creation_ops import ZerosLike

__all__ = ["Real", "Imag", "Conj", "Angle", "ComplexAbs", "Complex", "Polar"]

_REAL_OF = {mstype.complex64: mstype.float32, mstype.complex128: mstype.float64}
_COMPLEX_OF = {mstype.float32: mstype.complex64, mstype.float64: mstype.complex128}


def real_type(t):
    """complex64 -> float32, complex128 -> float64, any other type unchanged."""
    return _REAL_OF.get(t, t)


class _ComplexUnary(Primitive):
    input_names = ("input",)
    valid_types = mstype.NUMBER_BF16_COMPLEX_TYPES
    real_output = True

    @prim_attr_register
    def __init__(self):
        pass

    def infer(self, x):
        check_tensor(self, "input", x)
        check_dtype(self, "input", x, self.valid_types)
        return tensor(real_type(x.dtype) if self.real_output else x.dtype, x.shape)


class Real(_ComplexUnary):
    """y = Re(x), real dtype (complex64 -> float32); a real or int input is returned as it is.
    Gradient: dout + 0j."""


class Imag(_ComplexUnary):
    """y = Im(x), real dtype; zeros for a real input. Gradient: 0 + i dout."""


class Conj(_ComplexUnary):
    """y = conj(x), same dtype; a real input is returned as it is. Gradient: conj(dout)."""
    real_output = False


class Angle(_ComplexUnary):
    """y = atan2(Im x, Re x), real dtype; complex input only (as MindSpore 2.10). Gradient:
    dout * i x / |x|**2 (0 at x = 0)."""
    valid_types = mstype.COMPLEX_TYPES


class ComplexAbs(_ComplexUnary):
    """y = |x| for complex x, real dtype. Gradient: dout * x / |x| (0 at x = 0)."""
    valid_types = mstype.COMPLEX_TYPES


class _ComplexBinary(Primitive):
    input_names = ("x", "y")

    @prim_attr_register
    def __init__(self):
        pass

    def infer(self, x, y):
        shape = binary_shape(self, x, y, (mstype.float32, mstype.float64), same_dtype=True)
        return tensor(_COMPLEX_OF[x.dtype], shape)


class Complex(_ComplexBinary):
    """z = x + i y from float32 (-> complex64) or float64 (-> complex128) tensors of one dtype,
    broadcast. Gradient: (Re dout, Im dout)."""


class Polar(_ComplexBinary):
    """z = abs * (cos(angle) + i sin(angle)), float32 / float64 inputs of one dtype.
    Gradient: (Re(conj(dout) e^(i angle)), Re(conj(dout) i z))."""
    input_names = ("abs", "angle")


_real, _imag, _conj = Real(), Imag(), Conj()
_complex, _complex_abs = Complex(), ComplexAbs()
_mul, _div = math_ops.Mul(), math_ops.Div()
_select, _equal = math_ops.Select(), math_ops.Equal()
_zeros = ZerosLike()          # non-differentiable: never recorded
_cos, _sin = elementwise_ops.Cos(), elementwise_ops.Sin()


def _is_complex(t):
    return isinstance(t, Tensor) and t.dtype.kind == "c"


def _as_complex(t):
    """A real gradient as the complex tensor t + 0j (a complex one unchanged)."""
    if t.dtype.kind == "c":
        return t
    return _complex(t, _zeros(t))


@bprop_for(Real)
def real_bprop(prim, x, out, dout):
    if not needs_grad(x):
        return (None,)
    return (_complex(dout, _zeros(dout)) if _is_complex(x) else dout,)


@bprop_for(Imag)
def imag_bprop(prim, x, out, dout):
    if not needs_grad(x):
        return (None,)
    return (_complex(_zeros(dout), dout) if _is_complex(x) else _zeros(x),)


@bprop_for(Conj)
def conj_bprop(prim, x, out, dout):
    return (_conj(dout) if needs_grad(x) else None,)


@bprop_for(Angle)
def angle_bprop(prim, x, out, dout):
    if not needs_grad(x):
        return (None,)
    mag = _complex_abs(x)
    sq = _mul(mag, mag)
    zero = _equal(sq, 0)
    ix = _complex(_mul(_imag(x), -1.0), _real(x))          # i x
    unit = _div(ix, _as_complex(_select(zero, 1.0, sq)))
    return (_mul(_as_complex(_select(zero, 0.0, _real(dout) if _is_complex(dout) else dout)),
                 unit),)


def _abs_grad(x, dout):
    """dout * x / |x| (0 at x = 0) for complex x; a complex dout counts by its real part (the
    output |x| + 0j of Abs on complex is real-valued)."""
    mag = _complex_abs(x)
    zero = _equal(mag, 0)
    unit = _div(x, _as_complex(_select(zero, 1.0, mag)))
    d = _real(dout) if _is_complex(dout) else dout
    return _mul(_as_complex(_select(zero, 0.0, d)), unit)


@bprop_for(ComplexAbs)
def complex_abs_bprop(prim, x, out, dout):
    return (_abs_grad(x, dout) if needs_grad(x) else None,)


@bprop_for(Complex)
def complex_bprop(prim, x, y, out, dout):
    return (_real(dout) if needs_grad(x) else None, _imag(dout) if needs_grad(y) else None)


@bprop_for(Polar)
def polar_bprop(prim, abs_, angle, out, dout):
    cdout = _conj(dout)
    dabs = dangle = None
    if needs_grad(abs_):
        unit = _complex(_cos(angle), _sin(angle))
        dabs = _real(_mul(cdout, unit))
    if needs_grad(angle):
        dangle = _real(_mul(cdout, _complex(_mul(_imag(out), -1.0), _real(out))))
    return dabs, dangle


# ---- the complex convention of the existing holomorphic bprops ----------------------------
def holomorphic_bprop(bprop):
    """bprop(prim, *inputs, out, dout) that runs on conj'ed primal values for complex outputs."""
    def wrapped(prim, *args):
        out = args[-2]
        if type(out) is not Tensor or out._abs.dtype.kind != "c":
            return bprop(prim, *args)
        primal = [_conj(a) if _is_complex(a) else a for a in args[:-1]]
        # the conjugates stand for the primal values: the bprop's needs_grad must see them
        # as tracked where the originals are (and only during this call)
        stack = PYNATIVE.grad.backward_tracked
        added = []
        if stack:
            tracked = stack[-1]
            added = [id(c) for a, c in zip(args, primal) if c is not a and id(a) in tracked]
            tracked.update(added)
        try:
            return bprop(prim, *primal, args[-1])
        finally:
            if added:
                tracked.difference_update(added)
    wrapped.__name__ = getattr(bprop, "__name__", "bprop")
    wrapped.holomorphic = bprop
    return wrapped


def _abs_bprop(bprop):
    def wrapped(prim, x, out, dout):
        if _is_complex(x):
            return (_abs_grad(x, dout) if needs_grad(x) else None,)
        return bprop(prim, x, out, dout)
    wrapped.__name__ = getattr(bprop, "__name__", "bprop")
    wrapped.holomorphic = bprop
    return wrapped


_HOLOMORPHIC = ("Mul", "Div", "RealDiv", "Square", "Exp", "Log", "Sqrt", "Sin", "Cos",
                "Reciprocal", "MatMul", "BatchMatMul", "ReduceProd", "Pow")
for _name in _HOLOMORPHIC:
    _cls = getattr(math_ops, _name, None) or getattr(elementwise_ops, _name, None)
    if _cls is None:
        from . import reduce_ops as _reduce_ops
        _cls = getattr(_reduce_ops, _name)
    _orig = BPROPS.get(_cls)
    if _orig is not None and not hasattr(_orig, "holomorphic"):
        BPROPS[_cls] = holomorphic_bprop(_orig)
if not hasattr(BPROPS.get(elementwise_ops.Abs), "holomorphic"):
    BPROPS[elementwise_ops.Abs] = _abs_bprop(BPROPS[elementwise_ops.Abs])
