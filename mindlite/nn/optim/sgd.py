"""nn.SGD: stochastic gradient descent with optional momentum, dampening and Nesterov, through
the SGD primitive (mindspore.nn.SGD).

Per step, with g = grad / loss_scale (+ weight_decay * w inside the primitive for decayed
parameters): v = g on the first step, else momentum * v + (1 - dampening) * g;
w -= lr * (g + momentum * v) (nesterov) or lr * v; with momentum 0, w -= lr * g.
State: "accum.<name>" (v) and "stat.<name>" (1 until the first step) Parameters.
"""
import numbers

from ... import ops
from .optimizer import Optimizer, float_param

__all__ = ["SGD"]


def _check_float(name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"For 'SGD', '{name}' must be a float, but got {type(value).__name__}")
    if value < 0.0:
        raise ValueError(f"For 'SGD', '{name}' must be at least 0.0, but got {value}")
    return float(value)


class SGD(Optimizer):
    """SGD(params, learning_rate=0.1, momentum=0.0, dampening=0.0, weight_decay=0.0,
    nesterov=False, loss_scale=1.0)."""

    def __init__(self, params, learning_rate=0.1, momentum=0.0, dampening=0.0, weight_decay=0.0,
                 nesterov=False, loss_scale=1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        momentum = _check_float("momentum", momentum)
        self.dampening = _check_float("dampening", dampening)
        if not isinstance(nesterov, bool):
            raise TypeError(f"For 'SGD', 'nesterov' must be a bool, but got "
                            f"{type(nesterov).__name__}")
        if nesterov and (momentum <= 0.0 or self.dampening != 0.0):
            raise ValueError(f"For 'SGD', if 'nesterov' is true, 'momentum' must be > 0.0 and "
                             f"'dampening' must equal to 0.0, but got 'momentum' {momentum}, "
                             f"'dampening' {self.dampening}")
        self.nesterov = nesterov
        self.momentum = float_param(momentum, "momentum")
        self.accum = self.clone_state("accum", "zeros")
        self.stat = self.clone_state("stat", "ones")
        prims = {}
        self.opt = tuple(prims.setdefault(d, ops.SGD(self.dampening, d, nesterov))
                         for d in self._decays)

    def construct(self, gradients):
        grads = self.scale_grad(self.check_gradients(gradients))
        lrs = self.lr_per_param(self.get_lr())
        momentum = self.momentum
        for opt, p, g, lr, a, s in zip(self.opt, self._parameters, grads, lrs, self.accum,
                                       self.stat):
            opt(p, g, lr, a, momentum, s)
        return True
