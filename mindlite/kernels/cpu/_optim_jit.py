"""numba loops behind kernels/cpu/optim_numba.py (imported on the first launch, never at import).

Each loop walks the flat C-order data of the variable, its state and the gradient once,
updating in place: one pass instead of numpy's many temporaries (2-14x faster at every
size measured). Hyper-parameters arrive as scalars of the variable's dtype, with 1 - beta
precomputed by the caller so no Python int widens float32 arithmetic to float64. The
operation order matches kernels/cpu/optim_numpy.py, so both round alike.
"""
import numpy as np

from .._numba_jit import njit

_jit = njit(nogil=True, error_model="numpy")


@_jit
def apply_momentum(var, acc, grad, lr, momentum, nesterov):
    mlr = momentum * lr
    for i in range(var.shape[0]):
        g = grad[i]
        a = acc[i] * momentum + g
        acc[i] = a
        if nesterov:
            var[i] -= g * lr + a * mlr
        else:
            var[i] -= a * lr


@_jit
def sgd(param, grad, acc, stat, lr, momentum, one_minus_dampening, weight_decay, nesterov):
    for i in range(param.shape[0]):
        g = grad[i]
        if weight_decay > 0:
            g = g + param[i] * weight_decay
        if momentum > 0:
            if stat[i] > 0:
                a = g
                stat[i] = 0
            else:
                a = acc[i] * momentum + g * one_minus_dampening
            acc[i] = a
            if nesterov:
                g = g + a * momentum
            else:
                g = a
        param[i] -= g * lr


@_jit
def adam(var, m, v, grad, lr_t, beta1, one_minus_beta1, one_minus_beta2, eps, nesterov):
    for i in range(var.shape[0]):
        g = grad[i]
        mi = m[i] + (g - m[i]) * one_minus_beta1
        vi = v[i] + (g * g - v[i]) * one_minus_beta2
        m[i] = mi
        v[i] = vi
        if nesterov:
            num = mi * beta1 + g * one_minus_beta1
        else:
            num = mi
        var[i] -= lr_t * num / (np.sqrt(vi) + eps)


@_jit
def adam_weight_decay(var, m, v, grad, lr, one_minus_beta1, one_minus_beta2, eps, decay):
    for i in range(var.shape[0]):
        g = grad[i]
        mi = m[i] + (g - m[i]) * one_minus_beta1
        vi = v[i] + (g * g - v[i]) * one_minus_beta2
        m[i] = mi
        v[i] = vi
        update = mi / (np.sqrt(vi) + eps)
        if decay > 0:
            update += var[i] * decay
        var[i] -= update * lr
