"""numpy kernels for norm_ops: BatchNorm / BatchNormGrad, LayerNorm / LayerNormGrad,
Dropout / DropoutGrad.

Statistics are computed in two passes (mean, then mean of squared deviations: no
cancellation) in float32 for float16 data and in float64 for float64 data. BatchNorm in
training mode writes the moving mean / variance inputs in place after computing the batch
statistics (the only kernels here that write an input). Dropout draws from
mindlite.random_state's generator, or, for non-zero Seed0/Seed1, from its own generator
seeded with (global seed, Seed0, Seed1), renewed whenever set_seed installs a new global one.
"""
import threading

import math

import numpy as np

from ... import random_state
from ..registry import register_kernel


def _cdt(*arrays):
    return np.float64 if any(a.dtype == np.float64 for a in arrays) else np.float32


@register_kernel("BatchNorm", provider="numpy")
def batch_norm_numpy(x, scale, bias, mean, variance, y, batch_mean, batch_var, reserve_1,
                     reserve_2, is_training, epsilon, momentum, axes):
    dt = _cdt(x, scale)
    shape = (1, -1) + (1,) * (x.ndim - 2)
    xc = x.astype(dt, copy=False)
    if is_training:
        m = xc.mean(axis=axes)
        dev = xc - m.reshape(shape)
        v = np.mean(np.square(dev, out=dev), axis=axes)
        n = x.size // max(x.shape[1], 1)
        # NOTE: the moving variance takes the unbiased batch variance (n / (n - 1)), as
        # MindSpore and PyTorch; the normalization and the batch_var output use the biased one.
        mean[...] = (1 - momentum) * mean + momentum * m
        variance[...] = (1 - momentum) * variance + momentum * (v * (n / max(n - 1, 1)))
    else:
        m, v = mean.astype(dt), variance.astype(dt)
    a = scale.astype(dt) / np.sqrt(v + epsilon)
    b = bias.astype(dt) - m * a
    if y.dtype == dt:
        np.multiply(xc, a.reshape(shape), out=y)
        y += b.reshape(shape)
    else:
        y[...] = xc * a.reshape(shape) + b.reshape(shape)
    for out, val in ((batch_mean, m), (batch_var, v), (reserve_1, m), (reserve_2, v)):
        out[...] = val


@register_kernel("BatchNormGrad", provider="numpy")
def batch_norm_grad_numpy(dy, x, scale, save_mean, save_var, dx, dscale, dbias, is_training,
                          epsilon, axes):
    dt = _cdt(x, scale, save_mean)
    shape = (1, -1) + (1,) * (x.ndim - 2)
    r = (1 / np.sqrt(save_var.astype(dt) + epsilon)).reshape(shape)
    xh = (x.astype(dt, copy=False) - save_mean.astype(dt).reshape(shape)) * r
    d = dy.astype(dt, copy=False)
    db = d.sum(axis=axes)
    ds = (d * xh).sum(axis=axes)
    sr = scale.astype(dt).reshape(shape) * r
    if is_training:
        count = max(x.size // max(x.shape[1], 1), 1)
        dx[...] = sr * (d - (db / count).reshape(shape) - xh * (ds / count).reshape(shape))
    else:
        dx[...] = d * sr
    dscale[...] = ds
    dbias[...] = db


@register_kernel("LayerNorm", provider="numpy")
def layer_norm_numpy(x, gamma, beta, y, mean, variance, norm_axes, epsilon):
    dt = _cdt(x)
    xc = x.astype(dt, copy=False)
    m = xc.mean(axis=norm_axes, keepdims=True)
    dev = xc - m
    v = np.mean(np.square(dev), axis=norm_axes, keepdims=True)
    dev *= 1 / np.sqrt(v + epsilon)
    dev *= gamma
    dev += beta
    y[...] = dev
    mean[...] = m
    variance[...] = v


@register_kernel("LayerNormGrad", provider="numpy")
def layer_norm_grad_numpy(x, dy, variance, mean, gamma, dx, dgamma, dbeta, norm_axes,
                          param_axes, epsilon):
    dt = _cdt(x)
    r = 1 / np.sqrt(variance.astype(dt) + epsilon)
    xh = (x.astype(dt, copy=False) - mean) * r
    d = dy.astype(dt, copy=False)
    g = d * gamma
    n = math.prod(x.shape[a] for a in norm_axes)
    with np.errstate(invalid="ignore", divide="ignore"):    # an empty row's mean is NaN
        dx[...] = r * (g - g.sum(axis=norm_axes, keepdims=True) / n
                       - xh * (g * xh).sum(axis=norm_axes, keepdims=True) / n)
    add_stats_term(x, dy, variance, mean, gamma, dx, norm_axes, epsilon)
    dgamma[...] = (d * xh).sum(axis=param_axes)
    dbeta[...] = d.sum(axis=param_axes)


def add_stats_term(x, dy, variance, mean, gamma, dx, norm_axes, epsilon):
    """MindSpore's LayerNormGrad is the derivative through mean and variance written with the
    given statistics: next to the usual form it has r**3 sum(g (x - mean)) sum(x - mean) / n**2,
    0 when mean is x's mean. Added where it is not (statistics from elsewhere, as MindSpore's
    own tests pass), so the result is MindSpore's for any inputs."""
    dt = _cdt(x)
    xm = x.astype(dt, copy=False) - mean
    s_xm = xm.sum(axis=norm_axes, keepdims=True)
    n = 1
    for a in norm_axes:
        n *= x.shape[a]
    if not n or not np.any(np.abs(s_xm) > 1e-3 * np.sqrt(n) * np.abs(xm).max(initial=0)):
        return                                       # mean is x's own (rounding aside)
    r = 1 / np.sqrt(variance.astype(dt) + epsilon)
    g = dy.astype(dt, copy=False) * gamma
    dx += (r ** 3 * (g * xm).sum(axis=norm_axes, keepdims=True) * s_xm / (n * n)).astype(
        dx.dtype, copy=False)


_OWN_GENERATORS = {}   # (Seed0, Seed1) -> (global generator it was derived from, generator)
_OWN_LOCK = threading.Lock()   # derive each once: two threads must not restart its sequence


def _generator(seed0, seed1):
    glob = random_state.generator()
    if not (seed0 or seed1):
        return glob
    entry = _OWN_GENERATORS.get((seed0, seed1))
    if entry is None or entry[0] is not glob:
        with _OWN_LOCK:
            entry = _OWN_GENERATORS.get((seed0, seed1))
            if entry is None or entry[0] is not glob:
                base = random_state.get_seed()
                seq = [seed0, seed1] if base is None else [base, seed0, seed1]
                entry = (glob, np.random.default_rng(seq))
                _OWN_GENERATORS[(seed0, seed1)] = entry
    return entry[1]


@register_kernel("Dropout", provider="numpy")
def dropout_numpy(x, out, mask, keep_prob, seed0, seed1):
    if keep_prob >= 1:
        mask[...] = 1
        out[...] = x
        return
    keep = _generator(seed0, seed1).random(x.shape, dtype=np.float32) < keep_prob
    mask[...] = keep
    np.multiply(x, mask, out=out)
    out *= out.dtype.type(1 / keep_prob)


@register_kernel("DropoutGrad", provider="numpy")
def dropout_grad_numpy(dy, mask, out, keep_prob):
    np.multiply(dy, mask, out=out)
    out *= out.dtype.type(1 / keep_prob)
