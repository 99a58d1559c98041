"""Functional complex ops: ops.real, ops.imag, ops.conj, ops.angle, ops.polar, ops.is_complex,
ops.view_as_real (MindSpore 2.10's names; it has no ops.complex function, only the
ops.Complex primitive). Primitives and gradients: ops/operations/complex_ops.py.
"""
from ...common.tensor import Tensor
from ..operations import join_ops as A
from ..operations import complex_ops as P

__all__ = ["real", "imag", "conj", "angle", "polar", "is_complex", "view_as_real"]

_real, _imag, _conj, _angle, _polar = P.Real(), P.Imag(), P.Conj(), P.Angle(), P.Polar()
_stack_last = A.Stack(-1)


def _check(name, arg, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{name}', '{arg}' must be a Tensor, but got {type(x).__name__}")


def real(input):
    """The real part (a real or int tensor is returned with its own dtype)."""
    return _real(input)


def imag(input):
    """The imaginary part (zeros for a real tensor)."""
    return _imag(input)


def conj(input):
    """The complex conjugate (a real or int tensor is returned with its own dtype)."""
    return _conj(input)


def angle(input):
    """The argument atan2(imag, real) of a complex tensor, as a real tensor."""
    return _angle(input)


def polar(abs, angle):
    """abs * (cos(angle) + i sin(angle)): float32 -> complex64, float64 -> complex128."""
    return _polar(abs, angle)


def is_complex(input):
    """Whether `input` is a complex64 / complex128 tensor."""
    _check("is_complex", "input", input)
    return input.dtype.kind == "c"


def view_as_real(input):
    """A complex tensor of shape S as a real tensor of shape S + (2,): (real, imag) pairs."""
    _check("view_as_real", "input", input)
    if input.dtype.kind != "c":
        raise TypeError(f"For 'view_as_real', 'input' must be a complex tensor, but got "
                        f"{input.dtype}")
    return _stack_last([_real(input), _imag(input)])
