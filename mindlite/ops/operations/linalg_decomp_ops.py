"""Matrix decomposition and solve primitives (MindSpore's Cholesky, Qr, MatrixTriangularSolve,
LogMatrixDeterminant), batched over leading axes, float32 / float64, each with its bprop
below it (built from primitives: MatMul, MatrixInverse, Tril, ...). Kernels:
kernels/cpu/linalg_decomp_numpy.py.

Gradient formulas (Murray 2016 for Cholesky; Walter & Lehmann / PyTorch for QR):
Cholesky A = L L^T: dA = sym(L^-T Phi(L^T dL) L^-1), Phi = lower triangle with the diagonal
halved. QR (reduced, rows >= cols): M = R dR^T - dQ^T Q; dA = (dQ + Q copyltu(M)) R^-T;
other shapes raise NotImplementedError in backward (not silently wrong).
Triangular solve X = op(A)^-1 B: dB = op(A)^-T dX, dA = -dB X^T (or its transpose), kept in
A's triangle. log|det A|: d = dlogdet A^-T; the sign output carries no gradient.
"""
from ...common import dtype as mstype
from ...ir.rules import bprop_for
from ...ir.primitive import Primitive, prim_attr_register
from ..validator import check_bool, check_dtype, tensor
from ._base import cached_prim, needs_grad
from .linalg_ops import MatrixInverse, _check_square, _mT
from .math_ops import Add, BatchMatMul, Mul, Neg, Sub

__all__ = ["Cholesky", "Qr", "MatrixTriangularSolve", "LogMatrixDeterminant"]

_FLOATS = (mstype.float32, mstype.float64)
_mm, _add, _sub, _mul, _neg = BatchMatMul(), Add(), Sub(), Mul(), Neg()
_inv = MatrixInverse()


def _F():
    from .. import functional as F
    return F


def _tri(x, lower, diagonal=0):
    F = _F()
    return F.tril(x, diagonal) if lower else F.triu(x, diagonal)


def _sym(x):
    return _mul(_add(x, _mT(x)), 0.5)


class Cholesky(Primitive):
    """y = L with x = L L^T (lower), or U with x = U^T U (upper=True), for symmetric positive
    definite x; a matrix that is not is a ValueError from the kernel."""
    input_names = ("input_x",)

    @prim_attr_register
    def __init__(self, upper=False):
        check_bool(self, "upper", upper)

    def infer(self, x):
        _check_square(self, "input_x", x, _FLOATS)
        return x

    def kernel_params(self, x):
        return {"upper": self.attrs["upper"]}


@bprop_for(Cholesky)
def cholesky_bprop(prim, x, out, dout):
    if not needs_grad(x):
        return (None,)
    F = _F()
    upper = prim.attrs["upper"]
    low = _mT(out) if upper else out
    dlow = _mT(dout) if upper else dout
    phi = _tri(_mm(_mT(low), dlow), True)
    phi = _sub(phi, _mul(F.diag_embed(F.diagonal(phi, 0, -2, -1)), 0.5))
    inv = _inv(low)
    return (_sym(_mm(_mm(_mT(inv), phi), inv)),)


class Qr(Primitive):
    """(Q, R) with x = Q R, Q orthonormal columns, R upper triangular: reduced (Q (m, k),
    R (k, n), k = min(m, n)) or full_matrices (Q (m, m), R (m, n))."""
    input_names = ("x",)

    @prim_attr_register
    def __init__(self, full_matrices=False):
        check_bool(self, "full_matrices", full_matrices)

    def infer(self, x):
        check_dtype(self, "x", x, _FLOATS)
        if len(x.shape) < 2:
            raise ValueError(f"For '{self.name}', 'x' must be at least 2-D, but got shape "
                             f"{list(x.shape)}")
        m, n = x.shape[-2:]
        k = m if self.attrs["full_matrices"] else min(m, n)
        lead = tuple(x.shape[:-2])
        return tensor(x.dtype, lead + (m, k)), tensor(x.dtype, lead + (k, n))

    def kernel_params(self, x):
        return {"full_matrices": self.attrs["full_matrices"]}


@bprop_for(Qr)
def qr_bprop(prim, x, out, dout):
    if not needs_grad(x):
        return (None,)
    q, r = out
    dq, dr = dout
    m, n = x.shape[-2:]
    if m < n or (prim.attrs["full_matrices"] and m != n):
        raise NotImplementedError(f"For 'Qr', the gradient is implemented for reduced "
                                  f"decompositions of matrices with rows >= columns, but got "
                                  f"shape {list(x.shape)}")
    mm = _sub(_mm(r, _mT(dr)), _mm(_mT(dq), q))
    low = _tri(mm, True, -1)
    copyltu = _add(_add(low, _mT(low)), _F().diag_embed(_F().diagonal(mm, 0, -2, -1)))
    return (_mm(_add(dq, _mm(q, copyltu)), _mT(_inv(r))),)


class MatrixTriangularSolve(Primitive):
    """y = X with op(A) X = B, A triangular (lower, or upper with lower=False; adjoint: A^T;
    unit_diagonal: A's diagonal taken as ones). A (..., n, n), B (..., n, k)."""
    input_names = ("matrix", "rhs")

    @prim_attr_register
    def __init__(self, lower=True, adjoint=False, unit_diagonal=False):
        for name in ("lower", "adjoint", "unit_diagonal"):
            check_bool(self, name, self.attrs[name])

    def infer(self, a, b):
        _check_square(self, "matrix", a, _FLOATS)
        check_dtype(self, "rhs", b, (a.dtype,))
        if len(b.shape) < 2 or b.shape[-2] != a.shape[-1]:
            raise ValueError(f"For '{self.name}', 'rhs' must be (..., {a.shape[-1]}, k), but got "
                             f"shape {list(b.shape)}")
        return b

    def kernel_params(self, a, b):
        return dict(self.attrs)


@bprop_for(MatrixTriangularSolve)
def matrix_triangular_solve_bprop(prim, a, b, out, dout):
    attrs = prim.attrs
    flipped = cached_prim(MatrixTriangularSolve, attrs["lower"], not attrs["adjoint"],
                          attrs["unit_diagonal"])
    db = flipped(a, dout)
    da = None
    if needs_grad(a):
        g = _neg(_mm(out, _mT(db)) if attrs["adjoint"] else _mm(db, _mT(out)))
        da = _tri(g, attrs["lower"], -1 if attrs["unit_diagonal"] else 0) if attrs["lower"] \
            else _tri(g, False, 1 if attrs["unit_diagonal"] else 0)
    return da, (db if needs_grad(b) else None)


class LogMatrixDeterminant(Primitive):
    """(sign, log|det x|) over the last two axes (sign 0 and -inf for a singular matrix)."""
    input_names = ("x",)

    @prim_attr_register
    def __init__(self):
        pass

    def infer(self, x):
        _check_square(self, "x", x, _FLOATS)
        lead = tuple(x.shape[:-2])
        return tensor(x.dtype, lead), tensor(x.dtype, lead)


@bprop_for(LogMatrixDeterminant)
def log_matrix_determinant_bprop(prim, x, out, dout):
    if not needs_grad(x):
        return (None,)
    F = _F()
    scale = F.expand_dims(F.expand_dims(dout[1], -1), -1)
    return (_mul(scale, cached_prim(MatrixInverse, True)(x)),)
