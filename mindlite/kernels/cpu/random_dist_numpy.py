"""numpy kernels for ops/operations/random_dist_ops.py: Gamma(alpha, 1) and Poisson(rate)
draws from the generator random_ops' kernels use (norm_numpy._generator); as MindSpore's CPU
kernels, alpha = 0 gives 0, a negative alpha NaN, a negative rate 0."""
import numpy as np

from ..registry import register_kernel
from .norm_numpy import _generator


@register_kernel("RandomGamma", provider="numpy")
def random_gamma_numpy(alpha, out, seed, seed2):
    a = np.broadcast_to(np.asarray(alpha, np.float64), out.shape)
    ok = a > 0
    draws = _generator(seed, seed2).gamma(np.where(ok, a, 1.0))
    out[...] = np.where(ok, draws, np.where(a == 0, 0.0, np.nan))   # as MindSpore's kernel


@register_kernel("RandomPoisson", provider="numpy")
def random_poisson_numpy(rate, out, seed, seed2):
    r = np.broadcast_to(np.asarray(rate, np.float64), out.shape)
    out[...] = _generator(seed, seed2).poisson(np.maximum(np.nan_to_num(r), 0.0))
