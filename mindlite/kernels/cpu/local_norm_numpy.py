"""numpy kernels of local_norm_ops (LRN, LRNGrad, L2Normalize; formulas in that module).
float16 is computed in float32 and rounded once."""
import numpy as np

from ..registry import register_kernel


def _work(x):
    return x.astype(np.float32) if x.dtype == np.float16 else x


def _window_sum(a, r):
    """sum over channels c' with |c' - c| <= r (axis 1), as a cumulative-sum difference."""
    c = a.shape[1]
    cs = np.concatenate([np.zeros_like(a[:, :1]), np.cumsum(a, axis=1)], axis=1)
    hi = np.minimum(np.arange(c) + r + 1, c)
    lo = np.maximum(np.arange(c) - r, 0)
    return cs[:, hi] - cs[:, lo]


def _scale(x, depth_radius, bias, alpha):
    return bias + alpha * _window_sum(x * x, depth_radius)


@register_kernel("LRN", provider="numpy")
def lrn_numpy(x, out, depth_radius, bias, alpha, beta):
    w = _work(x)
    with np.errstate(all="ignore"):
        out[...] = w * np.power(_scale(w, depth_radius, bias, alpha), -beta)


@register_kernel("LRNGrad", provider="numpy")
def lrn_grad_numpy(dy, x, y, out, depth_radius, bias, alpha, beta):
    d, w, o = _work(dy), _work(x), _work(y)
    with np.errstate(all="ignore"):
        s = _scale(w, depth_radius, bias, alpha)
        out[...] = d * np.power(s, -beta) - 2 * alpha * beta * w * _window_sum(d * o / s,
                                                                               depth_radius)


@register_kernel("L2Normalize", provider="numpy")
def l2_normalize_numpy(x, out, axis, epsilon):
    w = _work(x)
    with np.errstate(all="ignore"):
        norm = np.sqrt(np.maximum(np.sum(w * w, axis=axis, keepdims=True), epsilon))
        out[...] = w / norm
