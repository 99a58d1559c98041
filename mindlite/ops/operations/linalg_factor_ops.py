"""Factorization primitives behind ops.geqrf and ops.eig / ops.eigvals: Geqrf (LAPACK's
Householder QR: R above the diagonal, the reflectors' vectors below it, and their scalars tau)
and Eig (eigenvalues and right eigenvectors of a general square matrix, complex). Batched over
leading axes. Not differentiable (MindSpore 2.10 has no bprop for either; orgqr / ormqr, which
turn geqrf's output into Q, are differentiable compositions in linalg_factor_func.py).
Kernels: kernels/cpu/linalg_factor_numpy.py.
"""
from ...common import dtype as mstype
from ...ir.primitive import Primitive, prim_attr_register
from ...ir.rules import non_differentiable
from ..validator import check_bool, check_dtype, tensor

__all__ = ["Geqrf", "Eig"]

_FLOATS = (mstype.float32, mstype.float64)
_COMPLEX = {mstype.float32: mstype.complex64, mstype.float64: mstype.complex128,
            mstype.complex64: mstype.complex64, mstype.complex128: mstype.complex128}


class Geqrf(Primitive):
    """(a, tau) of x (..., m, n): a holds R on and above the diagonal and the Householder
    vectors (unit leading entry implied) below it; tau (..., min(m, n)) their scalars."""
    input_names = ("x",)

    @prim_attr_register
    def __init__(self):
        pass

    def infer(self, x):
        check_dtype(self, "x", x, _FLOATS + (mstype.complex64, mstype.complex128))
        if len(x.shape) < 2:
            raise ValueError(f"For '{self.name}', 'x' must be at least 2-D, but got shape "
                             f"{list(x.shape)}")
        k = min(x.shape[-2], x.shape[-1])
        return tensor(x.dtype, x.shape), tensor(x.dtype, tuple(x.shape[:-2]) + (k,))


class Eig(Primitive):
    """(eigenvalues (..., n), right eigenvectors (..., n, n), columns of unit norm) of square
    x, complex (complex64 for float32, complex128 for float64); compute_v=False gives the
    eigenvalues only."""
    input_names = ("x",)

    @prim_attr_register
    def __init__(self, compute_v=False):
        check_bool(self, "compute_v", compute_v)

    def infer(self, x):
        check_dtype(self, "x", x, tuple(_COMPLEX))
        if len(x.shape) < 2 or x.shape[-1] != x.shape[-2]:
            raise ValueError(f"For '{self.name}', 'x' must be square matrices, but got shape "
                             f"{list(x.shape)}")
        out = _COMPLEX[x.dtype]
        values = tensor(out, tuple(x.shape[:-1]))
        if self.attrs["compute_v"]:
            return values, tensor(out, tuple(x.shape))
        return values

    def kernel_params(self, x):
        return {"compute_v": self.attrs["compute_v"]}


non_differentiable(Geqrf, Eig)
