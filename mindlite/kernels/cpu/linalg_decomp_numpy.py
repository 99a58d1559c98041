"""numpy kernels for ops/operations/linalg_decomp_ops.py (Cholesky, Qr, MatrixTriangularSolve,
LogMatrixDeterminant), batched over leading axes through numpy.linalg; each writes into its
preallocated outputs. Empty batches write nothing."""
import numpy as np

from ..registry import register_kernel


@register_kernel("Cholesky", provider="numpy")
def cholesky_numpy(x, out, upper):
    if not x.size:
        return
    try:
        low = np.linalg.cholesky(x)
    except np.linalg.LinAlgError:
        raise ValueError("For 'Cholesky', the input matrix must be symmetric positive "
                         "definite") from None
    np.copyto(out, np.swapaxes(low, -1, -2) if upper else low)


@register_kernel("Qr", provider="numpy")
def qr_numpy(x, q_out, r_out, full_matrices):
    if not x.size:
        return
    q, r = np.linalg.qr(x, mode="complete" if full_matrices else "reduced")
    np.copyto(q_out, q)
    np.copyto(r_out, r)


@register_kernel("MatrixTriangularSolve", provider="numpy")
def matrix_triangular_solve_numpy(a, b, out, lower, adjoint, unit_diagonal):
    if not out.size:
        return
    tri = np.tril(a) if lower else np.triu(a)
    if unit_diagonal:
        n = a.shape[-1]
        tri = tri.copy()
        tri[..., np.arange(n), np.arange(n)] = 1
    if adjoint:
        tri = np.swapaxes(tri, -1, -2)
    with np.errstate(all="ignore"):
        try:
            np.copyto(out, np.linalg.solve(tri, np.broadcast_to(b, out.shape)))
        except np.linalg.LinAlgError:
            out.fill(np.nan)        # a singular triangle: no finite solution


@register_kernel("LogMatrixDeterminant", provider="numpy")
def log_matrix_determinant_numpy(x, sign_out, log_out):
    if not x.size:
        sign_out.fill(1)
        log_out.fill(0)
        return
    sign, logdet = np.linalg.slogdet(x)
    np.copyto(sign_out, sign)
    np.copyto(log_out, logdet)
