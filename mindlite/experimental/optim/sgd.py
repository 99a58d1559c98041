"""experimental.optim.SGD: PyTorch's rule. g (negated when maximize) += weight_decay p; with
momentum: buf = g on the first step, else momentum buf + (1 - dampening) g, and g = buf (or
g + momentum buf with nesterov); p -= lr g. State: "momentum_buffer" Parameters."""
from ... import ops
from .optimizer import Optimizer, check_range

__all__ = ["SGD"]


class SGD(Optimizer):
    """SGD(params, lr, momentum=0, dampening=0, weight_decay=0.0, nesterov=False, *,
    maximize=False)."""

    def __init__(self, params, lr, momentum=0, dampening=0, weight_decay=0.0, nesterov=False, *,
                 maximize=False):
        check_range("SGD", "lr", lr, 0.0)
        check_range("SGD", "momentum", momentum, 0.0)
        check_range("SGD", "weight_decay", weight_decay, 0.0)
        check_range("SGD", "dampening", dampening, -float("inf"))
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("For 'SGD', nesterov momentum requires a momentum and zero "
                             "dampening")
        super().__init__(params, {"lr": lr, "momentum": momentum, "dampening": dampening,
                                  "weight_decay": weight_decay, "nesterov": nesterov,
                                  "maximize": maximize})
        self.momentum_buffer = self.state("momentum_buffer")

    def step_group(self, group, start, grads):
        mu, damp, wd = group["momentum"], group["dampening"], group["weight_decay"]
        first = self.step_count() == 1
        for i, g in enumerate(grads, start):
            p = self.parameters[i]
            if wd != 0:
                g = g + p * wd
            if mu != 0:
                buf = self.momentum_buffer[i]
                ops.assign(buf, g if first else buf * mu + g * (1.0 - damp))
                g = g + buf * mu if group["nesterov"] else buf
            ops.assign(p, p - ops.cast(group["lr"], p.dtype) * g)
