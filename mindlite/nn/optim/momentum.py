"""nn.Momentum: SGD with momentum through the ApplyMomentum primitive (mindspore.nn.Momentum).

Per step: g = grad / loss_scale + weight_decay * w (decayed parameters only);
moments = momentum * moments + g; w -= lr * moments, or with use_nesterov
w -= lr * (g + momentum * moments). State: "moments.<name>" Parameters.
"""
import numbers

from ... import ops
from .optimizer import Optimizer, float_param

__all__ = ["Momentum"]


class Momentum(Optimizer):
    """Momentum(params, learning_rate, momentum, weight_decay=0.0, loss_scale=1.0,
    use_nesterov=False)."""

    def __init__(self, params, learning_rate, momentum, weight_decay=0.0, loss_scale=1.0,
                 use_nesterov=False):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        if isinstance(momentum, bool) or not isinstance(momentum, numbers.Real):
            raise TypeError(f"For 'Momentum', 'momentum' must be a float, but got "
                            f"{type(momentum).__name__}")
        if momentum < 0.0:
            raise ValueError(f"For 'Momentum', the argument 'momentum' must be at least 0.0, but "
                             f"got {momentum}")
        if not isinstance(use_nesterov, bool):
            raise TypeError(f"For 'Momentum', 'use_nesterov' must be a bool, but got "
                            f"{type(use_nesterov).__name__}")
        self.params = self._parameters
        self.use_nesterov = use_nesterov
        self.momentum = float_param(momentum, "momentum")
        self.moments = self.clone_state("moments", "zeros")
        self.opt = ops.ApplyMomentum(use_nesterov=use_nesterov)

    def construct(self, gradients):
        grads = self.decay_weight(self.scale_grad(self.check_gradients(gradients)))
        lrs = self.lr_per_param(self.get_lr())
        opt, momentum = self.opt, self.momentum
        for p, m, lr, g in zip(self._parameters, self.moments, lrs, grads):
            opt(p, m, lr, g, momentum)
        return True
