"""numba kernels for optim_ops: ApplyMomentum, SGD, Adam, AdamWeightDecay (provider "numba";
loops in _optim_jit.py, loaded on the first launch: this module does not import numba).

The loops update flat views of the state arrays, so they run only when every updated array
is C-contiguous and writeable; otherwise (a strided or read-only variable) the numpy
reference kernel runs instead, and raises for read-only state before writing anything.
Hyper-parameter conversion is shared with optim_numpy.py.
"""
import numpy as np

from ...common import dtype as mstype
from ..registry import register_kernel
from . import optim_numpy as ref
from .optim_numpy import scalar

FLOATS = (mstype.float32, mstype.float64)
_J = None


def _load():
    global _J
    from . import _optim_jit
    _J = _optim_jit
    return _J


def _flat(*arrays):
    """Flat views of C-contiguous, writeable arrays, or None when one is not."""
    for a in arrays:
        f = a.flags
        if not (f.c_contiguous and f.writeable):
            return None
    return [a.reshape(-1) for a in arrays]


def _grad(grad):
    return np.ascontiguousarray(grad).reshape(-1)


@register_kernel("ApplyMomentum", provider="numba", dtypes=FLOATS, alloc="kernel")
def apply_momentum_numba(var, accum, lr, grad, momentum, use_nesterov, use_locking,
                         gradient_scale):
    flat = _flat(var, accum)
    if flat is None:
        return ref.apply_momentum_numpy(var, accum, lr, grad, momentum, use_nesterov,
                                        use_locking, gradient_scale)
    dt = var.dtype
    if gradient_scale != 1.0:
        grad = grad * dt.type(gradient_scale)
    (_J or _load()).apply_momentum(flat[0], flat[1], _grad(grad), scalar(lr, dt),
                                   scalar(momentum, dt), use_nesterov)
    return var


@register_kernel("SGD", provider="numba", dtypes=FLOATS, alloc="kernel")
def sgd_numba(param, grad, lr, accum, momentum, stat, dampening, weight_decay, nesterov):
    flat = _flat(param, accum, stat)
    if flat is None:
        return ref.sgd_numpy(param, grad, lr, accum, momentum, stat, dampening, weight_decay,
                             nesterov)
    dt = param.dtype
    (_J or _load()).sgd(flat[0], _grad(grad), flat[1], flat[2], scalar(lr, dt),
                        scalar(momentum, dt), dt.type(1.0 - dampening), dt.type(weight_decay),
                        nesterov)
    return param


@register_kernel("Adam", provider="numba", dtypes=FLOATS, alloc="kernel")
def adam_numba(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad,
               use_locking, use_nesterov):
    flat = _flat(var, m, v)
    if flat is None:
        return ref.adam_numpy(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon,
                              grad, use_locking, use_nesterov)
    dt = var.dtype
    one = dt.type(1)
    b1 = scalar(beta1, dt)
    with np.errstate(divide="ignore", invalid="ignore"):
        lr_t = (scalar(lr, dt) * np.sqrt(one - scalar(beta2_power, dt))
                / (one - scalar(beta1_power, dt)))
    (_J or _load()).adam(flat[0], flat[1], flat[2], _grad(grad), dt.type(lr_t), b1, one - b1,
                         one - scalar(beta2, dt), scalar(epsilon, dt), use_nesterov)
    return var, m, v


@register_kernel("AdamWeightDecay", provider="numba", dtypes=FLOATS, alloc="kernel")
def adam_weight_decay_numba(var, m, v, lr, beta1, beta2, epsilon, decay, grad, use_locking):
    flat = _flat(var, m, v)
    if flat is None:
        return ref.adam_weight_decay_numpy(var, m, v, lr, beta1, beta2, epsilon, decay, grad,
                                           use_locking)
    dt = var.dtype
    one = dt.type(1)
    (_J or _load()).adam_weight_decay(flat[0], flat[1], flat[2], _grad(grad), scalar(lr, dt),
                                      one - scalar(beta1, dt), one - scalar(beta2, dt),
                                      scalar(epsilon, dt), scalar(decay, dt))
    return var, m, v
