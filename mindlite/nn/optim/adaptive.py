"""Adaptive-rate optimizers (mindspore.nn): RMSProp, Adagrad, Adadelta, AdaMax, FTRL and
ProximalAdagrad, each one fused in-place primitive per parameter (ops/operations/
optim_adaptive_ops.py has the update rules). Per step, as every mindlite optimizer: gradients
checked, weight decay added (decayed parameters only), divided by loss_scale, then the
primitive runs. State Parameters and their initial values are MindSpore's: RMSProp
"mean_square" (ones), "moment", "mean_grad" (zeros); Adagrad / ProximalAdagrad "accum"
(`accum`); Adadelta "accum", "accum_update" (zeros); AdaMax "moment1", "moment2" (zeros) and
"beta1_power"; FTRL "moments" (`initial_accum`) and "linear" (zeros).
"""
import numbers

from ... import ops
from .adam import _check_param_value, _scalar
from .optimizer import Optimizer, float_param

__all__ = ["RMSProp", "Adagrad", "Adadelta", "AdaMax", "FTRL", "ProximalAdagrad"]


def _real(cls, name, value, low=None, low_open=False, high=None):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"For '{cls}', '{name}' must be a float, but got "
                        f"{type(value).__name__}: {value!r}")
    if low is not None and (value < low or (low_open and value == low)):
        bound = ">" if low_open else ">="
        raise ValueError(f"For '{cls}', '{name}' must be {bound} {low}, but got {value}")
    if high is not None and value > high:
        raise ValueError(f"For '{cls}', '{name}' must be <= {high}, but got {value}")
    return float(value)


def _bool(cls, name, value):
    if not isinstance(value, bool):
        raise TypeError(f"For '{cls}', '{name}' must be a bool, but got {type(value).__name__}")
    return value


class _Adaptive(Optimizer):
    """The shared step: prepared gradients and per-parameter learning rates."""

    def _grads_and_lrs(self, gradients):
        grads = self.decay_weight(self.scale_grad(self.check_gradients(gradients)))
        return grads, self.lr_per_param(self.get_lr())

    def _filled(self, prefix, value):
        states = self.clone_state(prefix, "zeros")
        for s in states:
            s.asnumpy()[...] = value
        return states


class RMSProp(_Adaptive):
    """RMSProp(params, learning_rate=0.1, decay=0.9, momentum=0.0, epsilon=1e-10,
    use_locking=False, centered=False, loss_scale=1.0, weight_decay=0.0)."""

    def __init__(self, params, learning_rate=0.1, decay=0.9, momentum=0.0, epsilon=1e-10,
                 use_locking=False, centered=False, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        cls = "RMSProp"
        self.decay = _scalar(_real(cls, "decay", decay, 0.0))
        self.momentum = _scalar(_real(cls, "momentum", momentum, 0.0))
        self.epsilon = _scalar(_real(cls, "epsilon", epsilon, 0.0, low_open=True))
        self.use_locking = _bool(cls, "use_locking", use_locking)
        self.centered = _bool(cls, "centered", centered)
        self.ms = self.clone_state("mean_square", "ones")
        self.moment = self.clone_state("moment", "zeros")
        if centered:
            self.mg = self.clone_state("mean_grad", "zeros")
            self.opt = ops.ApplyCenteredRMSProp(use_locking)
        else:
            self.opt = ops.ApplyRMSProp(use_locking)

    def construct(self, gradients):
        grads, lrs = self._grads_and_lrs(gradients)
        opt, decay, momentum, eps = self.opt, self.decay, self.momentum, self.epsilon
        if self.centered:
            for p, mg, ms, mom, lr, g in zip(self._parameters, self.mg, self.ms, self.moment,
                                             lrs, grads):
                opt(p, mg, ms, mom, g, lr, decay, momentum, eps)
        else:
            for p, ms, mom, lr, g in zip(self._parameters, self.ms, self.moment, lrs, grads):
                opt(p, ms, mom, lr, g, decay, momentum, eps)
        return True


class Adagrad(_Adaptive):
    """Adagrad(params, accum=0.1, learning_rate=0.001, update_slots=True, loss_scale=1.0,
    weight_decay=0.0)."""

    def __init__(self, params, accum=0.1, learning_rate=0.001, update_slots=True,
                 loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.accum = self._filled("accum", _real("Adagrad", "accum", accum, 0.0))
        self.opt = ops.ApplyAdagrad(update_slots=_bool("Adagrad", "update_slots", update_slots))

    def construct(self, gradients):
        grads, lrs = self._grads_and_lrs(gradients)
        for p, a, lr, g in zip(self._parameters, self.accum, lrs, grads):
            self.opt(p, a, lr, g)
        return True


class Adadelta(_Adaptive):
    """Adadelta(params, learning_rate=1.0, rho=0.9, epsilon=1e-6, loss_scale=1.0,
    weight_decay=0.0)."""

    def __init__(self, params, learning_rate=1.0, rho=0.9, epsilon=1e-6, loss_scale=1.0,
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        self.rho = _scalar(_real("Adadelta", "rho", rho, 0.0, high=1.0))
        self.epsilon = _scalar(_real("Adadelta", "epsilon", epsilon, 0.0))
        self.accum = self.clone_state("accum", "zeros")
        self.accum_update = self.clone_state("accum_update", "zeros")
        self.opt = ops.ApplyAdadelta()

    def construct(self, gradients):
        grads, lrs = self._grads_and_lrs(gradients)
        for p, a, u, lr, g in zip(self._parameters, self.accum, self.accum_update, lrs, grads):
            self.opt(p, a, u, lr, self.rho, self.epsilon, g)
        return True


class AdaMax(_Adaptive):
    """AdaMax(params, learning_rate=0.001, beta1=0.9, beta2=0.999, eps=1e-08, weight_decay=0.0,
    loss_scale=1.0)."""

    def __init__(self, params, learning_rate=0.001, beta1=0.9, beta2=0.999, eps=1e-08,
                 weight_decay=0.0, loss_scale=1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        _check_param_value(beta1, beta2, eps, "AdaMax")
        self.beta1, self.beta2, self.eps = _scalar(beta1), _scalar(beta2), _scalar(eps)
        self.beta1_power = float_param(1.0, "beta1_power")
        self.moment1 = self.clone_state("moment1", "zeros")
        self.moment2 = self.clone_state("moment2", "zeros")
        self.opt = ops.ApplyAdaMax()

    def construct(self, gradients):
        grads, lrs = self._grads_and_lrs(gradients)
        b1p = self.beta1_power.asnumpy()
        b1p *= self.beta1.asnumpy()
        for p, m, v, lr, g in zip(self._parameters, self.moment1, self.moment2, lrs, grads):
            self.opt(p, m, v, self.beta1_power, lr, self.beta1, self.beta2, self.eps, g)
        return True


class FTRL(_Adaptive):
    """FTRL(params, initial_accum=0.1, learning_rate=0.001, lr_power=-0.5, l1=0.0, l2=0.0,
    use_locking=False, loss_scale=1.0, weight_decay=0.0); a constant learning rate only."""

    def __init__(self, params, initial_accum=0.1, learning_rate=0.001, lr_power=-0.5, l1=0.0,
                 l2=0.0, use_locking=False, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        cls = "FTRL"
        if self.dynamic_lr or self.is_group_lr:
            raise ValueError("For 'FTRL', dynamic learning rate and group learning rate are not "
                             "supported: 'learning_rate' must be one float")
        accum = _real(cls, "initial_accum", initial_accum, 0.0)
        p = _real(cls, "lr_power", lr_power)
        if p > 0:
            raise ValueError(f"For 'FTRL', 'lr_power' must be <= 0, but got {p}")
        self.lr_power = _scalar(p)
        self.l1 = _scalar(_real(cls, "l1", l1, 0.0))
        self.l2 = _scalar(_real(cls, "l2", l2, 0.0))
        self.moments = self._filled("moments", accum)
        self.linear = self.clone_state("linear", "zeros")
        self.opt = ops.ApplyFtrl(use_locking=_bool(cls, "use_locking", use_locking))

    def construct(self, gradients):
        grads, lrs = self._grads_and_lrs(gradients)
        for p, a, lin, lr, g in zip(self._parameters, self.moments, self.linear, lrs, grads):
            self.opt(p, a, lin, g, lr, self.l1, self.l2, self.lr_power)
        return True


class ProximalAdagrad(_Adaptive):
    """ProximalAdagrad(params, accum=0.1, learning_rate=0.001, l1=0.0, l2=0.0, use_locking=False,
    loss_scale=1.0, weight_decay=0.0)."""

    def __init__(self, params, accum=0.1, learning_rate=0.001, l1=0.0, l2=0.0, use_locking=False,
                 loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        cls = "ProximalAdagrad"
        self.accum = self._filled("accum", _real(cls, "accum", accum, 0.0))
        self.l1 = _scalar(_real(cls, "l1", l1, 0.0))
        self.l2 = _scalar(_real(cls, "l2", l2, 0.0))
        self.opt = ops.ApplyProximalAdagrad(use_locking=_bool(cls, "use_locking", use_locking))

    def construct(self, gradients):
        grads, lrs = self._grads_and_lrs(gradients)
        for p, a, lr, g in zip(self._parameters, self.accum, lrs, grads):
            self.opt(p, a, lr, self.l1, self.l2, g)
        return True
