"""nn.Adam, nn.LazyAdam and nn.AdamWeightDecay (mindspore.nn), through the Adam /
AdamWeightDecay primitives.

Adam, per step t: g = grad / loss_scale + weight_decay * w (decayed parameters only);
beta1_power *= beta1, beta2_power *= beta2 (float32 Parameters starting at 1);
m = beta1 m + (1 - beta1) g;  v = beta2 v + (1 - beta2) g^2;
w -= lr * sqrt(1 - beta2_power) / (1 - beta1_power) * m / (sqrt(v) + eps).
State: "moment1.<name>", "moment2.<name>", "beta1_power", "beta2_power".

AdamWeightDecay (decoupled decay, no bias correction):
m, v as above; w -= lr * (m / (sqrt(v) + eps) + weight_decay * w) (decay on decayed
parameters only). State: "adam_m.<name>", "adam_v.<name>".
"""
import numbers

import numpy as np

from ... import ops
from ...common.tensor import Tensor
from .optimizer import Optimizer, float_param

__all__ = ["Adam", "AdamWeightDecay", "LazyAdam"]


def _check_param_value(beta1, beta2, eps, cls):
    for name, v in (("beta1", beta1), ("beta2", beta2), ("eps", eps)):
        if isinstance(v, bool) or not isinstance(v, numbers.Real):
            raise TypeError(f"For '{cls}', '{name}' must be a float, but got "
                            f"{type(v).__name__}: {v!r}")
    for name, v in (("beta1", beta1), ("beta2", beta2)):
        if not 0.0 < v < 1.0:
            raise ValueError(f"For '{cls}', '{name}' must be in range (0.0, 1.0), but got {v}")
    if eps <= 0.0:
        raise ValueError(f"For '{cls}', 'eps' must be > 0, but got {eps}")


def _scalar(value):
    """A float32 0-d Tensor hyper-parameter (a plain Tensor, not a Parameter, as MindSpore)."""
    return Tensor(np.asarray(value, dtype=np.float32))


def _check_bool(cls, name, v):
    if not isinstance(v, bool):
        raise TypeError(f"For '{cls}', '{name}' must be a bool, but got {type(v).__name__}")
    return v


class Adam(Optimizer):
    """Adam(params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, use_locking=False,
    use_nesterov=False, weight_decay=0.0, loss_scale=1.0, use_amsgrad=False, **kwargs).

    kwargs take MindSpore's use_lazy and use_offload (bools, not both True, neither with
    use_amsgrad): lazy Adam updates only the rows a sparse gradient touches and offload runs
    the update on the host; with mindlite's dense gradients on the CPU both are the plain
    Adam update, as MindSpore's are on a dense gradient."""

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8,
                 use_locking=False, use_nesterov=False, weight_decay=0.0, loss_scale=1.0,
                 use_amsgrad=False, **kwargs):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        _check_param_value(beta1, beta2, eps, "Adam")
        self.use_locking = _check_bool("Adam", "use_locking", use_locking)
        self.use_nesterov = _check_bool("Adam", "use_nesterov", use_nesterov)
        unknown = set(kwargs) - {"use_lazy", "use_offload"}
        if unknown:
            raise KeyError(f"For 'Adam', invalid keys are passed as kwargs, supported keys are "
                           f"'use_lazy' and 'use_offload', but got {sorted(unknown)}")
        self.use_lazy = _check_bool("Adam", "use_lazy", kwargs.get("use_lazy", False))
        self.use_offload = _check_bool("Adam", "use_offload", kwargs.get("use_offload", False))
        if self.use_lazy and self.use_offload:
            raise ValueError("For 'Adam', 'use_lazy' and 'use_offload' can not both be True, but "
                             "got use_lazy=True, use_offload=True")
        if (self.use_lazy or self.use_offload) and use_amsgrad:
            raise ValueError("For lazy Adam and Adam with offload, there is no parameter named "
                             "'use_amsgrad', but got 'use_amsgrad'=True")
        if _check_bool("Adam", "use_amsgrad", use_amsgrad):
            raise NotImplementedError("For 'Adam', use_amsgrad=True is not supported by mindlite")
        self.beta1, self.beta2, self.eps = _scalar(beta1), _scalar(beta2), _scalar(eps)
        self.beta1_power = float_param(1.0, "beta1_power")
        self.beta2_power = float_param(1.0, "beta2_power")
        self.moment1 = self.clone_state("moment1", "zeros")
        self.moment2 = self.clone_state("moment2", "zeros")
        self.opt = ops.Adam(use_locking, use_nesterov)

    def construct(self, gradients):
        grads = self.decay_weight(self.scale_grad(self.check_gradients(gradients)))
        lrs = self.lr_per_param(self.get_lr())
        b1p, b2p = self.beta1_power.asnumpy(), self.beta2_power.asnumpy()
        np.multiply(b1p, self.beta1.asnumpy(), out=b1p)
        np.multiply(b2p, self.beta2.asnumpy(), out=b2p)
        opt, beta1, beta2, eps = self.opt, self.beta1, self.beta2, self.eps
        for p, m, v, lr, g in zip(self._parameters, self.moment1, self.moment2, lrs, grads):
            opt(p, m, v, self.beta1_power, self.beta2_power, lr, beta1, beta2, eps, g)
        return True


class LazyAdam(Adam):
    """LazyAdam(params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8, use_locking=False,
    use_nesterov=False, weight_decay=0.0, loss_scale=1.0): Adam that updates only the rows a
    sparse (RowTensor) gradient touches. mindlite's gradients are dense, and on a dense
    gradient MindSpore's LazyAdam runs the Adam primitive: the same update as Adam."""

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8,
                 use_locking=False, use_nesterov=False, weight_decay=0.0, loss_scale=1.0):
        super().__init__(params, learning_rate, beta1, beta2, eps, use_locking, use_nesterov,
                         weight_decay, loss_scale)


class AdamWeightDecay(Optimizer):
    """AdamWeightDecay(params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-6,
    weight_decay=0.0)."""

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-6,
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        _check_param_value(beta1, beta2, eps, "AdamWeightDecay")
        self.beta1, self.beta2, self.eps = _scalar(beta1), _scalar(beta2), _scalar(eps)
        self.moments1 = self.clone_state("adam_m", "zeros")
        self.moments2 = self.clone_state("adam_v", "zeros")
        self._decay_params = tuple(_scalar(d) for d in self._decays)
        self.opt = ops.AdamWeightDecay()

    def construct(self, gradients):
        grads = self.check_gradients(gradients)
        lrs = self.lr_per_param(self.get_lr())
        opt, beta1, beta2, eps = self.opt, self.beta1, self.beta2, self.eps
        for p, m, v, lr, d, g in zip(self._parameters, self.moments1, self.moments2, lrs,
                                     self._decay_params, grads):
            opt(p, m, v, lr, beta1, beta2, eps, d, g)
        return True
