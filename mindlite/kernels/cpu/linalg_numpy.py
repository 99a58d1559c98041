"""numpy reference kernels for linalg_ops: Einsum, Cross, Diag / DiagPart, Trace,
MatrixInverse, MatrixDeterminant, MatrixPower. alloc="runtime": each writes into the
preallocated output; inputs may be 0-d, empty or non-contiguous.
"""
import numpy as np

from ..registry import register_kernel


@register_kernel("Einsum", provider="numpy")
def einsum_numpy(xs, out, equation):
    """NOTE: optimize="greedy" contracts pairwise through BLAS (tensordot) where it can;
    float16 contracts in float32 (numpy's float16 einsum is a scalar loop)."""
    if out.dtype == np.float16:
        xs = [x.astype(np.float32) for x in xs]
    if len(xs) == 1 or not all(x.size for x in xs):
        np.copyto(out, np.einsum(equation, *xs), casting="unsafe")
    else:
        np.copyto(out, np.einsum(equation, *xs, optimize="greedy"), casting="unsafe")


def _slot(a, axis, i):
    """The view a[..., i:i+1, ...] at `axis` (writable, rank kept)."""
    return a[(slice(None),) * axis + (slice(i, i + 1),)]


@register_kernel("Cross", provider="numpy")
def cross_numpy(x, y, out, dim):
    x, y = np.broadcast_arrays(x, y)
    with np.errstate(all="ignore"):
        for i in range(3):
            j, k = (i + 1) % 3, (i + 2) % 3
            np.subtract(_slot(x, dim, j) * _slot(y, dim, k), _slot(x, dim, k) * _slot(y, dim, j),
                        out=_slot(out, dim, i), casting="unsafe")


@register_kernel("Diag", provider="numpy")
def diag_numpy(x, out):
    n = x.size
    flat = out.reshape(n, n)
    flat.fill(0)
    np.fill_diagonal(flat, x.reshape(-1))


@register_kernel("DiagPart", provider="numpy")
def diag_part_numpy(x, out):
    n = out.size
    np.copyto(out, np.diagonal(np.reshape(x, (n, n))).reshape(out.shape))


@register_kernel("Trace", provider="numpy")
def trace_numpy(x, out):
    with np.errstate(all="ignore"):
        out[()] = np.trace(x, dtype=x.dtype)


def _inverse(x):
    """Batched inverse; a singular matrix gives nan (no error, as MindSpore raises none)."""
    try:
        return np.linalg.inv(x)
    except np.linalg.LinAlgError:
        pass
    flat = x.reshape((-1,) + x.shape[-2:])
    res = np.empty_like(flat)
    for i, m in enumerate(flat):
        try:
            res[i] = np.linalg.inv(m)
        except np.linalg.LinAlgError:
            res[i] = np.nan
    return res.reshape(x.shape)


@register_kernel("MatrixInverse", provider="numpy")
def matrix_inverse_numpy(x, out, adjoint):
    if x.size:
        np.copyto(out, _inverse(np.swapaxes(x, -1, -2) if adjoint else x))


@register_kernel("MatrixDeterminant", provider="numpy")
def matrix_determinant_numpy(x, out):
    if x.size:
        np.copyto(out, np.linalg.det(x))
    else:
        out.fill(1)                    # the determinant of a 0 x 0 matrix


@register_kernel("MatrixPower", provider="numpy")
def matrix_power_numpy(x, out, n):
    if not x.size:
        return
    if n < 0:
        try:
            x = np.linalg.inv(x)
        except np.linalg.LinAlgError:
            raise ValueError("For MatrixPower, negative power can not apply to singular "
                             "matrix.") from None
        n = -n
    with np.errstate(all="ignore"):
        np.copyto(out, np.linalg.matrix_power(x, n), casting="unsafe")
