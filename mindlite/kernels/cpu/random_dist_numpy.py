"""numpy kernels for ops/operations/random_dist_ops.py: Gamma(alpha, 1) and Poisson(rate)
draws from the generator random_ops' kernels use (norm_numpy._generator); invalid parameters
(alpha <= 0, rate < 0) raise before anything is written."""
import numpy as np

from ..registry import register_kernel
from .norm_numpy import _generator


@register_kernel("RandomGamma", provider="numpy")
def random_gamma_numpy(alpha, out, seed, seed2):
    a = np.asarray(alpha, np.float64)
    if not (a > 0).all():
        raise ValueError("For 'RandomGamma', 'alpha' must be positive")
    out[...] = _generator(seed, seed2).gamma(np.broadcast_to(a, out.shape))


@register_kernel("RandomPoisson", provider="numpy")
def random_poisson_numpy(rate, out, seed, seed2):
    r = np.asarray(rate, np.float64)
    if not (r >= 0).all():
        raise ValueError("For 'RandomPoisson', 'rate' must be non-negative")
    out[...] = _generator(seed, seed2).poisson(np.broadcast_to(r, out.shape))
