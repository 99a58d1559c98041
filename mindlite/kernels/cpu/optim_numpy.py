"""numpy reference kernels for optim_ops: ApplyMomentum, SGD, Adam, AdamWeightDecay.

alloc="kernel": each writes into its state arrays (the Parameters' own memory) and returns
them. Hyper-parameters arrive as size-1 arrays and are converted to the variable's dtype, so
the update is computed in that dtype. Every array written is checked writeable before the
first write, so a failure leaves all state unchanged.
"""
import numpy as np

from ..registry import register_kernel


def check_writeable(op, **arrays):
    for name, a in arrays.items():
        if not a.flags.writeable:
            raise ValueError(f"For '{op}', '{name}' is backed by a read-only array and cannot be "
                             f"updated in place")


def scalar(x, dtype):
    """A size-1 hyper-parameter as a numpy scalar of `dtype`."""
    return dtype.type(x.reshape(-1)[0])


def hyper(x, var):
    """A hyper-parameter in var's dtype: a scalar, or one value per example of a batch
    (shape var.shape[:k], vmap's batch_rank) shaped to broadcast against var."""
    if x.size == 1:
        return scalar(x, var.dtype)
    return x.astype(var.dtype).reshape(x.shape + (1,) * (var.ndim - x.ndim))


@register_kernel("ApplyMomentum", provider="numpy", alloc="kernel")
def apply_momentum_numpy(var, accum, lr, grad, momentum, use_nesterov, use_locking,
                         gradient_scale):
    check_writeable("ApplyMomentum", variable=var, accumulation=accum)
    dt = var.dtype
    lr, momentum = scalar(lr, dt), scalar(momentum, dt)
    if gradient_scale != 1.0:
        grad = grad * dt.type(gradient_scale)
    accum *= momentum
    accum += grad
    if use_nesterov:
        var -= grad * lr + accum * (momentum * lr)
    else:
        var -= accum * lr
    return var


@register_kernel("SGD", provider="numpy", alloc="kernel")
def sgd_numpy(param, grad, lr, accum, momentum, stat, dampening, weight_decay, nesterov):
    check_writeable("SGD", parameters=param, accum=accum, stat=stat)
    dt = param.dtype
    lr, momentum = scalar(lr, dt), scalar(momentum, dt)
    if weight_decay > 0:
        grad = grad + param * dt.type(weight_decay)
    if momentum > 0:
        first = stat > 0
        accum *= momentum
        accum += grad * dt.type(1.0 - dampening)
        np.copyto(accum, grad, where=first)
        stat[first] = 0
        grad = grad + accum * momentum if nesterov else accum
    param -= grad * lr
    return param


@register_kernel("Adam", provider="numpy", alloc="kernel")
def adam_numpy(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad,
               use_locking, use_nesterov):
    check_writeable("Adam", var=var, m=m, v=v)
    dt = var.dtype
    b1p, b2p, lr = scalar(beta1_power, dt), scalar(beta2_power, dt), scalar(lr, dt)
    b1, b2, eps = scalar(beta1, dt), scalar(beta2, dt), scalar(epsilon, dt)
    one = dt.type(1)
    with np.errstate(divide="ignore", invalid="ignore"):
        lr_t = lr * np.sqrt(one - b2p) / (one - b1p)
    m += (grad - m) * (one - b1)
    v += (grad * grad - v) * (one - b2)
    num = m * b1 + grad * (one - b1) if use_nesterov else m
    var -= lr_t * num / (np.sqrt(v) + eps)
    return var, m, v


@register_kernel("AdamWeightDecay", provider="numpy", alloc="kernel")
def adam_weight_decay_numpy(var, m, v, lr, beta1, beta2, epsilon, decay, grad, use_locking):
    check_writeable("AdamWeightDecay", var=var, m=m, v=v)
    dt = var.dtype
    lr, b1, b2 = scalar(lr, dt), scalar(beta1, dt), scalar(beta2, dt)
    eps, decay = scalar(epsilon, dt), scalar(decay, dt)
    one = dt.type(1)
    m += (grad - m) * (one - b1)
    v += (grad * grad - v) * (one - b2)
    update = m / (np.sqrt(v) + eps)
    if decay > 0:
        update += var * decay
    var -= update * lr
    return var, m, v
