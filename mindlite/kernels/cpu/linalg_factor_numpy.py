"""numpy kernels for ops/operations/linalg_factor_ops.py: Geqrf through numpy's raw QR mode
(LAPACK geqrf; its h is the transposed factor), Eig through np.linalg.eig, one matrix of a
batch at a time; Eig takes the self-adjoint path (np.linalg.eigh) for symmetric or Hermitian
matrices and orders the eigenvalues by modulus, as MindSpore's (Eigen's ComplexEigenSolver)."""
import numpy as np

from ..registry import register_kernel


@register_kernel("Geqrf", provider="numpy")
def geqrf_numpy(x, a_out, tau_out):
    m, n = x.shape[-2:]
    mats = x.reshape((-1, m, n))
    a = a_out.reshape((-1, m, n))
    tau = tau_out.reshape((-1, min(m, n)))
    for i, mat in enumerate(mats):
        if mat.size:
            h, t = np.linalg.qr(mat.astype(np.result_type(mat.dtype, np.float64)), mode="raw")
            a[i] = h.T
            tau[i] = t


def _sort_by_modulus(w, v):
    """MindSpore's CPU Eig (Eigen's ComplexEigenSolver) orders the eigenvalues by increasing
    modulus: a selection sort that swaps the smallest |w| of the tail (its first, on ties)
    into place, the eigenvector columns with them."""
    w = w.astype(np.result_type(w.dtype, np.complex64))
    for i in range(len(w)):
        k = i + int(np.argmin(np.abs(w[i:])))
        if k != i:
            w[[i, k]] = w[[k, i]]
            if v is not None:
                v[:, [i, k]] = v[:, [k, i]]
    return w, v


def _eig_one(a, compute_v):
    """A (Hermitian) symmetric matrix goes through the self-adjoint solver, any other through
    the general one; the eigenvalues then in MindSpore's order (_sort_by_modulus)."""
    if np.array_equal(a, a.conj().T):
        w, v = np.linalg.eigh(a)
    elif compute_v:
        w, v = np.linalg.eig(a)
    else:
        w, v = np.linalg.eigvals(a), None
    return _sort_by_modulus(w, None if v is None else v.astype(np.result_type(v, np.complex64)))


@register_kernel("Eig", provider="numpy", alloc="kernel")
def eig_numpy(x, compute_v):
    out = np.complex64 if x.dtype in (np.float32, np.complex64) else np.complex128
    n = x.shape[-1]
    mats = x.reshape((-1, n, n))
    w = np.empty((mats.shape[0], n), out)
    v = np.empty((mats.shape[0], n, n), out) if compute_v else None
    for i, a in enumerate(mats):
        wi, vi = _eig_one(a, compute_v)
        w[i] = wi
        if compute_v:
            v[i] = vi
    w = w.reshape(x.shape[:-1])
    return (w, v.reshape(x.shape)) if compute_v else w
