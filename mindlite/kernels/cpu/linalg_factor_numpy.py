"""numpy kernels for ops/operations/linalg_factor_ops.py: Geqrf through numpy's raw QR mode
(LAPACK geqrf; its h is the transposed factor), Eig through np.linalg.eig, one matrix of a
batch at a time."""
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


@register_kernel("Eig", provider="numpy", alloc="kernel")
def eig_numpy(x, compute_v):
    out = np.complex64 if x.dtype in (np.float32, np.complex64) else np.complex128
    if compute_v:
        w, v = np.linalg.eig(x)
        return w.astype(out), v.astype(out)
    return np.linalg.eigvals(x).astype(out)
