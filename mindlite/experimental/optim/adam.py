"""experimental.optim.Adam and AdamW: PyTorch's update rules.

Per step t, per parameter (g negated when maximize):
  Adam:  g += weight_decay * p        AdamW: p *= 1 - lr * weight_decay
  m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2;  (amsgrad: v_max = max(v_max, v), used for v)
  p -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)
State: "exp_avg", "exp_avg_sq" (and "max_exp_avg_sq") Parameters.
"""
import math

from ... import ops
from .optimizer import Optimizer, check_range

__all__ = ["Adam", "AdamW"]


class Adam(Optimizer):
    """Adam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False, *,
    maximize=False)."""
    decoupled = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0,
                 amsgrad=False, *, maximize=False):
        cls = type(self).__name__
        check_range(cls, "lr", lr, 0.0)
        check_range(cls, "eps", eps, 0.0)
        if not isinstance(betas, (tuple, list)) or len(betas) != 2:
            raise ValueError(f"For '{cls}', 'betas' must be a pair of floats, but got {betas!r}")
        check_range(cls, "beta1", betas[0], 0.0, 1.0)
        check_range(cls, "beta2", betas[1], 0.0, 1.0)
        check_range(cls, "weight_decay", weight_decay, 0.0)
        for name, v in (("amsgrad", amsgrad), ("maximize", maximize)):
            if not isinstance(v, bool):
                raise TypeError(f"For '{cls}', '{name}' must be a bool, but got {v!r}")
        super().__init__(params, {"lr": lr, "betas": tuple(betas), "eps": eps,
                                  "weight_decay": weight_decay, "amsgrad": amsgrad,
                                  "maximize": maximize})
        self.exp_avg = self.state("exp_avg")
        self.exp_avg_sq = self.state("exp_avg_sq")
        self.max_exp_avg_sq = self.state("max_exp_avg_sq")

    def step_group(self, group, start, grads):
        b1, b2 = group["betas"]
        eps, wd, lr = group["eps"], group["weight_decay"], group["lr"]
        t = self.step_count()
        bc1, bc2 = 1.0 - b1 ** t, 1.0 - b2 ** t
        for i, g in enumerate(grads, start):
            p, m, v = self.parameters[i], self.exp_avg[i], self.exp_avg_sq[i]
            lr_p = ops.cast(lr, p.dtype)
            if wd != 0 and self.decoupled:
                ops.assign(p, p * (1.0 - lr_p * wd))
            elif wd != 0:
                g = g + p * wd
            ops.assign(m, m * b1 + g * (1.0 - b1))
            ops.assign(v, v * b2 + g * g * (1.0 - b2))
            second = v
            if group["amsgrad"]:
                ops.assign(self.max_exp_avg_sq[i], ops.maximum(self.max_exp_avg_sq[i], v))
                second = self.max_exp_avg_sq[i]
            denom = ops.sqrt(second) / math.sqrt(bc2) + eps
            ops.assign(p, p - (lr_p / bc1) * (m / denom))


class AdamW(Adam):
    """AdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
    maximize=False): Adam with decoupled weight decay."""
    decoupled = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize)
