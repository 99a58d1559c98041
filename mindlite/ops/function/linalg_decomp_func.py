"""Functional decompositions and solves of MindSpore 2.10: cholesky, cholesky_solve,
cholesky_inverse, qr, triangular_solve, slogdet, logdet, log_matrix_determinant, lstsq,
pinv, inv. Each calls linalg_decomp_ops' primitives (or composes them with MatMul /
MatrixInverse / Svd), so gradients come from their bprops.
"""
from ...common.tensor import Tensor
from ..operations import linalg_decomp_ops as D
from ._typed_prims import typed_prim as _prim

__all__ = ['cholesky', 'cholesky_solve', 'cholesky_inverse', 'qr', 'triangular_solve',
           'slogdet', 'logdet', 'log_matrix_determinant', 'lstsq', 'pinv', 'inv']


def _F():
    from .. import functional as F
    return F


def _tensor(op, arg, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{op}', '{arg}' must be a Tensor, but got {type(x).__name__}")
    return x


def _mT(x):
    return _F().swapaxes(x, -1, -2)


def cholesky(input_x, upper=False):
    """L with input_x = L L^T (or U with U^T U for upper)."""
    return _prim(D.Cholesky, bool(upper))(_tensor("cholesky", "input_x", input_x))


def _tri_solve(a, b, lower, adjoint=False, unit=False):
    return _prim(D.MatrixTriangularSolve, lower, adjoint, unit)(a, b)


def cholesky_solve(input, input2, upper=False):
    """X with A X = input, A = L L^T given by its factor input2 (U^T U for upper)."""
    _tensor("cholesky_solve", "input", input)
    _tensor("cholesky_solve", "input2", input2)
    lower = not upper
    y = _tri_solve(input2, input, lower, adjoint=not lower)
    return _tri_solve(input2, y, lower, adjoint=lower)


def cholesky_inverse(input_x, upper=False):
    """(L L^T)^-1 of the factor L = input_x (upper: (U^T U)^-1); as MindSpore's CholeskyInverse,
    the whole matrix is the factor (its other triangle is not assumed zero)."""
    _tensor("cholesky_inverse", "input_x", input_x)
    if input_x.ndim < 2 or input_x.shape[-1] != input_x.shape[-2]:
        raise ValueError(f"For CholeskyInverse, input x must be batch squares, but got shape "
                         f"{list(input_x.shape)}")
    F = _F()
    a = F.matmul(_mT(input_x), input_x) if upper else F.matmul(input_x, _mT(input_x))
    return F.inverse(a)


def qr(input, mode="reduced"):
    """(Q, R): mode 'reduced' or 'complete' (Q square), or 'r' (R only, Q empty)."""
    _tensor("qr", "input", input)
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"For 'qr', 'mode' must be 'reduced', 'complete' or 'r', but got "
                         f"{mode!r}")
    q, r = _prim(D.Qr, mode == "complete")(input)
    if mode == "r":
        return _F().zeros((0,), input.dtype), r
    return q, r


def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False):
    """(X, A) with op(A) X = b, A triangular (op: A or A^T)."""
    _tensor("triangular_solve", "b", b)
    _tensor("triangular_solve", "A", A)
    return _tri_solve(A, b, not upper, bool(transpose), bool(unitriangular)), A


def slogdet(input):
    """(sign, log|det|) of square matrices."""
    return _prim(D.LogMatrixDeterminant)(_tensor("slogdet", "input", input))


log_matrix_determinant = slogdet


def logdet(input):
    """log(det(input)): nan for a negative determinant, -inf for a singular matrix."""
    F = _F()
    sign, logabs = slogdet(input)
    return F.where(F.less(sign, 0), F.full_like(logabs, float("nan")), logabs)


def pinv(x, *, atol=None, rtol=None, hermitian=False):
    """The Moore-Penrose pseudo-inverse through the SVD (singular values at or below
    max(atol, rtol * largest) are dropped; rtol defaults to eps * max(m, n))."""
    import numpy as np
    F = _F()
    _tensor("pinv", "x", x)
    s, u, v = F.svd(x, False, True)
    eps = np.finfo(x.dtype.np).eps
    rt = rtol if rtol is not None else (eps * max(x.shape[-2:]) if atol is None else 0.0)
    cut = F.mul(F.amax(s, -1, True), rt)
    if atol is not None:
        cut = F.maximum(cut, atol)
    keep = F.greater(s, cut)
    sinv = F.where(keep, F.div(1.0, F.where(keep, s, F.ones_like(s))), F.zeros_like(s))
    return F.matmul(F.mul(v, F.expand_dims(sinv, -2)), _mT(u))


def lstsq(input, A):
    """The least-squares (rows >= cols) or minimum-norm solution y of input y = A, for input
    (m, n) and A (m, k): pinv(input) @ A."""
    _tensor("lstsq", "input", input)
    _tensor("lstsq", "A", A)
    return _F().matmul(pinv(input), A)


def inv(x):
    """1 / x elementwise (MindSpore's ops.inv; the matrix inverse is ops.inverse)."""
    return _F().reciprocal(x)
