"""numpy reference kernels for optim_adaptive_ops: ApplyRMSProp, ApplyCenteredRMSProp,
ApplyAdagrad, ApplyAdadelta, ApplyAdaMax, ApplyFtrl, ApplyProximalAdagrad,
ApplyGradientDescent (the update rules are in the primitives' module docstring).

As optim_numpy.py: alloc="kernel", each writes into its state arrays and returns them; the
update is computed in the variable's dtype (hyper-parameters are scalars, or one per example
of a vmap batch, broadcast against the state's leading axes); every array written is checked
writeable before the first write, so a failure leaves all state unchanged. Each new state
value is computed into a temporary first and then copied in, so a variable aliased with its
gradient still sees the old values it needs.
"""
import numpy as np

from ..registry import register_kernel
from .optim_numpy import check_writeable, hyper


@register_kernel("ApplyRMSProp", provider="numpy", alloc="kernel")
def apply_rms_prop_numpy(var, ms, mom, lr, grad, decay, momentum, epsilon, use_locking):
    check_writeable("ApplyRMSProp", var=var, mean_square=ms, moment=mom)
    dt = var.dtype
    lr, decay, momentum, eps = (hyper(a, var) for a in (lr, decay, momentum, epsilon))
    with np.errstate(all="ignore"):
        new_ms = ms * decay + grad * grad * (dt.type(1) - decay)
        new_mom = mom * momentum + grad * lr / np.sqrt(new_ms + eps)
    ms[...] = new_ms
    mom[...] = new_mom
    var -= new_mom
    return var


@register_kernel("ApplyCenteredRMSProp", provider="numpy", alloc="kernel")
def apply_centered_rms_prop_numpy(var, mg, ms, mom, grad, lr, decay, momentum, epsilon,
                                  use_locking):
    check_writeable("ApplyCenteredRMSProp", var=var, mean_gradient=mg, mean_square=ms,
                    moment=mom)
    dt = var.dtype
    lr, decay, momentum, eps = (hyper(a, var) for a in (lr, decay, momentum, epsilon))
    one = dt.type(1)
    with np.errstate(all="ignore"):
        new_mg = mg * decay + grad * (one - decay)
        new_ms = ms * decay + grad * grad * (one - decay)
        new_mom = mom * momentum + grad * lr / np.sqrt(new_ms - new_mg * new_mg + eps)
    mg[...] = new_mg
    ms[...] = new_ms
    mom[...] = new_mom
    var -= new_mom
    return var


@register_kernel("ApplyAdagrad", provider="numpy", alloc="kernel")
def apply_adagrad_numpy(var, accum, lr, grad, update_slots):
    check_writeable("ApplyAdagrad", var=var, accum=accum)
    lr = hyper(lr, var)
    with np.errstate(all="ignore"):
        new_accum = accum + grad * grad if update_slots else accum.copy()
        step = grad * lr / np.sqrt(new_accum)
    accum[...] = new_accum
    var -= step
    return var, accum


@register_kernel("ApplyAdadelta", provider="numpy", alloc="kernel")
def apply_adadelta_numpy(var, accum, accum_update, lr, rho, epsilon, grad):
    check_writeable("ApplyAdadelta", var=var, accum=accum, accum_update=accum_update)
    dt = var.dtype
    lr, rho, eps = (hyper(a, var) for a in (lr, rho, epsilon))
    one = dt.type(1)
    with np.errstate(all="ignore"):
        new_accum = accum * rho + grad * grad * (one - rho)
        update = np.sqrt(accum_update + eps) / np.sqrt(new_accum + eps) * grad
        new_update = accum_update * rho + update * update * (one - rho)
    accum[...] = new_accum
    accum_update[...] = new_update
    var -= update * lr
    return var, accum, accum_update


@register_kernel("ApplyAdaMax", provider="numpy", alloc="kernel")
def apply_ada_max_numpy(var, m, v, beta1_power, lr, beta1, beta2, epsilon, grad):
    check_writeable("ApplyAdaMax", var=var, m=m, v=v)
    dt = var.dtype
    b1p, lr, b1, b2, eps = (hyper(a, var) for a in (beta1_power, lr, beta1, beta2, epsilon))
    with np.errstate(all="ignore"):
        new_m = m * b1 + grad * (dt.type(1) - b1)
        new_v = np.maximum(v * b2, np.abs(grad))
        step = lr / (dt.type(1) - b1p) * (new_m / (new_v + eps))
    m[...] = new_m
    v[...] = new_v
    var -= step
    return var, m, v


@register_kernel("ApplyFtrl", provider="numpy", alloc="kernel")
def apply_ftrl_numpy(var, accum, linear, grad, lr, l1, l2, lr_power, use_locking):
    check_writeable("ApplyFtrl", var=var, accum=accum, linear=linear)
    dt = var.dtype
    lr, l1, l2, p = (hyper(a, var) for a in (lr, l1, l2, lr_power))
    with np.errstate(all="ignore"):
        new_accum = accum + grad * grad
        new_pow, old_pow = np.power(new_accum, -p), np.power(accum, -p)
        new_linear = linear + grad - (new_pow - old_pow) / lr * var
        quadratic = new_pow / lr + dt.type(2) * l2
        new_var = np.where(np.abs(new_linear) > l1,
                           (np.sign(new_linear) * l1 - new_linear) / quadratic, dt.type(0))
    accum[...] = new_accum
    linear[...] = new_linear
    var[...] = new_var
    return var


@register_kernel("ApplyProximalAdagrad", provider="numpy", alloc="kernel")
def apply_proximal_adagrad_numpy(var, accum, lr, l1, l2, grad, use_locking):
    check_writeable("ApplyProximalAdagrad", var=var, accum=accum)
    dt = var.dtype
    lr, l1, l2 = (hyper(a, var) for a in (lr, l1, l2))
    with np.errstate(all="ignore"):
        new_accum = accum + grad * grad
        rate = lr / np.sqrt(new_accum)          # the per-element adapted learning rate
        prox = var - grad * rate
        shrunk = np.maximum(np.abs(prox) - rate * l1, dt.type(0))
        new_var = np.sign(prox) * shrunk / (dt.type(1) + rate * l2)
    accum[...] = new_accum
    var[...] = new_var
    return var, accum


@register_kernel("ApplyGradientDescent", provider="numpy", alloc="kernel")
def apply_gradient_descent_numpy(var, alpha, delta):
    check_writeable("ApplyGradientDescent", var=var)
    step = hyper(alpha, var) * delta
    var -= step.astype(var.dtype, copy=False)
    return var


@register_kernel("ApplyProximalGradientDescent", provider="numpy", alloc="kernel")
def apply_proximal_gradient_descent_numpy(var, alpha, l1, l2, delta):
    check_writeable("ApplyProximalGradientDescent", var=var)
    dt = var.dtype
    alpha, l1, l2 = (hyper(a, var) for a in (alpha, l1, l2))
    with np.errstate(all="ignore"):
        prox = var - alpha * delta
        shrunk = np.maximum(np.abs(prox) - alpha * l1, dt.type(0))
        new_var = np.sign(prox) * shrunk / (dt.type(1) + alpha * l2)
    var[...] = new_var
    return var


@register_kernel("ApplyAdagradV2", provider="numpy", alloc="kernel")
def apply_adagrad_v2_numpy(var, accum, lr, grad, epsilon, update_slots):
    check_writeable("ApplyAdagradV2", var=var, accum=accum)
    lr, eps = hyper(lr, var), var.dtype.type(epsilon)
    with np.errstate(all="ignore"):
        new_accum = accum + grad * grad if update_slots else accum.copy()
        step = lr * grad / (np.sqrt(new_accum) + eps)
    accum[...] = new_accum
    var -= step.astype(var.dtype, copy=False)
    return var, accum


@register_kernel("ApplyAdamWithAmsgrad", provider="numpy", alloc="kernel")
def apply_adam_with_amsgrad_numpy(var, m, v, vhat, beta1_power, beta2_power, lr, grad, beta1,
                                  beta2, epsilon, use_locking):
    check_writeable("ApplyAdamWithAmsgrad", var=var, m=m, v=v, vhat=vhat)
    dt = var.dtype
    b1p, b2p, lr = (hyper(a, var) for a in (beta1_power, beta2_power, lr))
    b1, b2, eps = dt.type(beta1), dt.type(beta2), dt.type(epsilon)
    with np.errstate(all="ignore"):
        new_m = b1 * m + (1 - b1) * grad
        new_v = b2 * v + (1 - b2) * grad * grad
        new_vhat = np.maximum(vhat, new_v)
        step = lr * np.sqrt(1 - b2p) / (1 - b1p) * new_m / (np.sqrt(new_vhat) + eps)
    m[...] = new_m
    v[...] = new_v
    vhat[...] = new_vhat
    var -= step.astype(dt, copy=False)
    return var, m, v, vhat
