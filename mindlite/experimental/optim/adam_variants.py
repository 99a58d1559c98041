"""experimental.optim's Adam variants with PyTorch's update rules: Adamax, RAdam, NAdam.

Per step t, per parameter (g + weight_decay * p; negated when maximize for Adamax):
  Adamax: m = b1 m + (1 - b1) g;  u = max(b2 u, |g| + eps);  p -= lr / (1 - b1^t) * m / u
  RAdam:  m, v as Adam; rho_inf = 2 / (1 - b2) - 1, rho_t = rho_inf - 2 t b2^t / (1 - b2^t);
          rho_t > 5: p -= lr m / (1 - b1^t) * r_t * sqrt(1 - b2^t) / (sqrt(v) + eps)
          (r_t the variance rectification), else p -= lr m / (1 - b1^t)
  NAdam:  mu_t = b1 (1 - 0.5 * 0.96^(t momentum_decay)); m, v as Adam;
          p -= lr (1 - mu_t) / (1 - prod mu) g / d + lr mu_{t+1} / (1 - prod mu * mu_{t+1}) m / d
          with d = sqrt(v / (1 - b2^t)) + eps
"""
import math

from ... import ops
from .optimizer import Optimizer, check_range

__all__ = ["Adamax", "RAdam", "NAdam"]


def _betas(cls, betas):
    if not isinstance(betas, (tuple, list)) or len(betas) != 2:
        raise ValueError(f"For '{cls}', 'betas' must be a pair of floats, but got {betas!r}")
    check_range(cls, "beta1", betas[0], 0.0, 1.0)
    check_range(cls, "beta2", betas[1], 0.0, 1.0)
    return tuple(betas)


class _AdamLike(Optimizer):
    def __init__(self, params, lr, betas, eps, weight_decay, **extra):
        cls = type(self).__name__
        check_range(cls, "lr", lr, 0.0)
        check_range(cls, "eps", eps, 0.0)
        check_range(cls, "weight_decay", weight_decay, 0.0)
        super().__init__(params, {"lr": lr, "betas": _betas(cls, betas), "eps": eps,
                                  "weight_decay": weight_decay, **extra})
        self.exp_avg = self.state("exp_avg")

    def _grad(self, group, i, g):
        wd = group["weight_decay"]
        return g + self.parameters[i] * wd if wd != 0 else g


class Adamax(_AdamLike):
    """Adamax(params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, *,
    maximize=False)."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, *,
                 maximize=False):
        if not isinstance(maximize, bool):
            raise TypeError(f"For 'Adamax', 'maximize' must be a bool, but got {maximize!r}")
        super().__init__(params, lr, betas, eps, weight_decay, maximize=maximize)
        self.exp_inf = self.state("exp_inf")

    def step_group(self, group, start, grads):
        b1, b2 = group["betas"]
        t = self.step_count()
        for i, g in enumerate(grads, start):
            g = self._grad(group, i, g)
            p, m, u = self.parameters[i], self.exp_avg[i], self.exp_inf[i]
            ops.assign(m, m * b1 + g * (1.0 - b1))
            ops.assign(u, ops.maximum(u * b2, ops.abs(g) + group["eps"]))
            clr = ops.cast(group["lr"], p.dtype) / (1.0 - b1 ** t)
            ops.assign(p, p - clr * m / u)


class RAdam(_AdamLike):
    """RAdam(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0):
        super().__init__(params, lr, betas, eps, weight_decay)
        self.exp_avg_sq = self.state("exp_avg_sq")

    def step_group(self, group, start, grads):
        b1, b2 = group["betas"]
        t = self.step_count()
        bc1, bc2 = 1.0 - b1 ** t, 1.0 - b2 ** t
        rho_inf = 2.0 / (1.0 - b2) - 1.0
        rho_t = rho_inf - 2.0 * t * b2 ** t / bc2
        for i, g in enumerate(grads, start):
            g = self._grad(group, i, g)
            p, m, v = self.parameters[i], self.exp_avg[i], self.exp_avg_sq[i]
            ops.assign(m, m * b1 + g * (1.0 - b1))
            ops.assign(v, v * b2 + g * g * (1.0 - b2))
            lr = ops.cast(group["lr"], p.dtype)
            corrected = m / bc1
            if rho_t > 5.0:
                rect = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf /
                                 ((rho_inf - 4) * (rho_inf - 2) * rho_t))
                adaptive = math.sqrt(bc2) / (ops.sqrt(v) + group["eps"])
                ops.assign(p, p - lr * corrected * rect * adaptive)
            else:
                ops.assign(p, p - lr * corrected)


class NAdam(_AdamLike):
    """NAdam(params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0,
    momentum_decay=4e-3)."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0,
                 momentum_decay=4e-3):
        check_range("NAdam", "momentum_decay", momentum_decay, 0.0)
        super().__init__(params, lr, betas, eps, weight_decay, momentum_decay=momentum_decay)
        self.exp_avg_sq = self.state("exp_avg_sq")

    def step_group(self, group, start, grads):
        b1, b2 = group["betas"]
        t = self.step_count()
        md = group["momentum_decay"]

        def mu(k):
            return b1 * (1.0 - 0.5 * 0.96 ** (k * md))
        prod = 1.0
        for k in range(1, t + 1):
            prod *= mu(k)
        mu_t, mu_next = mu(t), mu(t + 1)
        bc2 = 1.0 - b2 ** t
        for i, g in enumerate(grads, start):
            g = self._grad(group, i, g)
            p, m, v = self.parameters[i], self.exp_avg[i], self.exp_avg_sq[i]
            ops.assign(m, m * b1 + g * (1.0 - b1))
            ops.assign(v, v * b2 + g * g * (1.0 - b2))
            denom = ops.sqrt(v / bc2) + group["eps"]
            lr = ops.cast(group["lr"], p.dtype)
            ops.assign(p, p - lr * ((1.0 - mu_t) / (1.0 - prod)) * g / denom
                       - lr * (mu_next / (1.0 - prod * mu_next)) * m / denom)
