"""numpy kernels of sparse_optim_ops (FusedSparseAdam, FusedSparseFtrl; the rules are in that
module's docstring). alloc="kernel": each writes its state arrays (checked writeable first)
and returns them; computed in var's dtype."""
import numpy as np

from ..registry import register_kernel
from .optim_numpy import check_writeable, scalar


def _rows(var, grad, indices):
    """(the in-range unique rows, their summed gradients)."""
    keep = (indices >= 0) & (indices < var.shape[0])
    rows, inverse = np.unique(indices[keep], return_inverse=True)
    summed = np.zeros((len(rows),) + var.shape[1:], var.dtype)
    np.add.at(summed, inverse, grad[keep])
    return rows, summed


@register_kernel("FusedSparseAdam", provider="numpy", alloc="kernel")
def fused_sparse_adam_numpy(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon,
                            grad, indices, use_locking, use_nesterov):
    check_writeable("FusedSparseAdam", var=var, m=m, v=v)
    dt = var.dtype
    b1p, b2p, lr, b1, b2, eps = (scalar(a, dt) for a in (beta1_power, beta2_power, lr, beta1,
                                                          beta2, epsilon))
    rows, summed = _rows(var, grad, indices)
    g = np.zeros_like(var)
    g[rows] = summed
    with np.errstate(all="ignore"):
        new_m = b1 * m + (1 - b1) * g
        new_v = b2 * v + (1 - b2) * g * g
        rate = lr * np.sqrt(1 - b2p) / (1 - b1p)
        if use_nesterov:
            step = rate * (b1 * new_m + (1 - b1) * g)[rows] / (np.sqrt(new_v[rows]) + eps)
        else:
            step = rate * new_m / (np.sqrt(new_v) + eps)
    m[...] = new_m
    v[...] = new_v
    if use_nesterov:
        var[rows] -= step.astype(dt, copy=False)
    else:
        var -= step.astype(dt, copy=False)
    return var, m, v


@register_kernel("FusedSparseFtrl", provider="numpy", alloc="kernel")
def fused_sparse_ftrl_numpy(var, accum, linear, grad, indices, lr, l1, l2, lr_power,
                            use_locking):
    check_writeable("FusedSparseFtrl", var=var, accum=accum, linear=linear)
    dt = var.dtype
    lr, l1, l2, p = (dt.type(a) for a in (lr, l1, l2, lr_power))
    rows, g = _rows(var, grad, indices)
    w, a, lin = var[rows], accum[rows], linear[rows]
    with np.errstate(all="ignore"):
        new_a = a + g * g
        new_pow, old_pow = np.power(new_a, -p), np.power(a, -p)
        new_lin = lin + g - (new_pow - old_pow) / lr * w
        quadratic = new_pow / lr + dt.type(2) * l2
        new_w = np.where(np.abs(new_lin) > l1, (np.sign(new_lin) * l1 - new_lin) / quadratic,
                         dt.type(0))
    accum[rows] = new_a
    linear[rows] = new_lin
    var[rows] = new_w.astype(dt, copy=False)
    return var, accum, linear
