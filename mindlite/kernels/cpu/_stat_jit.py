"""numba loops behind kernels/cpu/stat_numba.py (imported on the first launch, never
at import): Cross and ReduceStd of small inputs.

cross: x, y and out arrive as (A, 3, B) views (the cross axis in the middle); out[:, i] =
x[:, i+1] y[:, i+2] - x[:, i+2] y[:, i+1] (indices mod 3), the products and the difference
rounded in the dtype as numpy's kernel computes them (ints widened in registers, stored
wrapped: numpy's wrapped values).
"""
import numpy as np

from .._numba_jit import njit

_jit = njit(nogil=True, error_model="numpy")


@_jit
def cross(x, y, out):
    for a in range(out.shape[0]):
        for i in range(3):
            p = (i + 1) % 3
            q = (i + 2) % 3
            for b in range(out.shape[2]):
                out[a, i, b] = x[a, p, b] * y[a, q, b] - x[a, q, b] * y[a, p, b]


@_jit
def reduce_std(x, out_std, out_mean, zero, n_div, dof_div):
    """x (A, n, B) reduced over its middle axis into (A, B): mean = sum / n, then
    sqrt(sum((x - mean)^2) / (n - ddof)), each sum sequential from `zero` in x's dtype
    (numpy's order for fewer than 8 terms; zero, n_div, dof_div are scalars of x's dtype);
    n <= ddof gives nan (0 / 0) as the numpy kernel."""
    n = x.shape[1]
    for a in range(x.shape[0]):
        for b in range(x.shape[2]):
            s = zero
            for i in range(n):
                s += x[a, i, b]
            mean = s / n_div
            q = zero
            for i in range(n):
                d = x[a, i, b] - mean
                q += d * d
            out_mean[a, b] = mean
            out_std[a, b] = np.sqrt(q / dof_div)
