"""experimental.optim's per-coordinate adaptive optimizers with PyTorch's update rules:
Adadelta, Adagrad, RMSprop, Rprop and ASGD (averaged SGD).

Per step t, per parameter p with gradient g (negated when maximize; + weight_decay * p
first where the optimizer has weight_decay):
  Adadelta: s = rho s + (1 - rho) g^2;  d = sqrt(u + eps) / sqrt(s + eps) * g;
            u = rho u + (1 - rho) d^2;  p -= lr d
  Adagrad:  s += g^2;  p -= lr / (1 + (t - 1) lr_decay) * g / (sqrt(s) + eps)
  RMSprop:  s = alpha s + (1 - alpha) g^2;  (centered: a = alpha a + (1 - alpha) g,
            s - a^2 under the root);  r = g / (sqrt(.) + eps);
            momentum: b = momentum b + r, p -= lr b; else p -= lr r
  Rprop:    the step size of each coordinate grows by etas[1] while g keeps its sign,
            shrinks by etas[0] when it flips (that step is skipped), clamped to
            step_sizes; p -= sign(g) * step
  ASGD:     p = p (1 - lambd eta) - eta g;  ax averages p from step t0 on;
            eta = lr / (1 + lambd lr t)^alpha, mu = 1 / max(1, t - t0)
State Parameters are named `<state>.<parameter name>`.
"""
from ... import ops
from ...common.parameter import Parameter
from ...common.tensor import Tensor
from .optimizer import Optimizer, check_range

__all__ = ["Adadelta", "Adagrad", "RMSprop", "Rprop", "ASGD"]


def _bool(cls, name, value):
    if not isinstance(value, bool):
        raise TypeError(f"For '{cls}', '{name}' must be a bool, but got {value!r}")
    return value


class Adadelta(Optimizer):
    """Adadelta(params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0.0, *, maximize=False)."""

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0.0, *, maximize=False):
        cls = type(self).__name__
        check_range(cls, "lr", lr, 0.0)
        check_range(cls, "rho", rho, 0.0, 1.0)
        check_range(cls, "eps", eps, 0.0)
        check_range(cls, "weight_decay", weight_decay, 0.0)
        _bool(cls, "maximize", maximize)
        super().__init__(params, {"lr": lr, "rho": rho, "eps": eps,
                                  "weight_decay": weight_decay, "maximize": maximize})
        self.square_avg = self.state("square_avg")
        self.acc_delta = self.state("acc_delta")

    def step_group(self, group, start, grads):
        rho, eps, wd = group["rho"], group["eps"], group["weight_decay"]
        for i, g in enumerate(grads, start):
            p, s, u = self.parameters[i], self.square_avg[i], self.acc_delta[i]
            if wd != 0:
                g = g + p * wd
            ops.assign(s, s * rho + g * g * (1.0 - rho))
            delta = ops.sqrt(u + eps) / ops.sqrt(s + eps) * g
            ops.assign(u, u * rho + delta * delta * (1.0 - rho))
            ops.assign(p, p - ops.cast(group["lr"], p.dtype) * delta)


class Adagrad(Optimizer):
    """Adagrad(params, lr=1e-2, lr_decay=0.0, weight_decay=0.0, initial_accumulator_value=0.0,
    eps=1e-10, *, maximize=False)."""

    def __init__(self, params, lr=1e-2, lr_decay=0.0, weight_decay=0.0,
                 initial_accumulator_value=0.0, eps=1e-10, *, maximize=False):
        cls = type(self).__name__
        check_range(cls, "lr", lr, 0.0)
        check_range(cls, "lr_decay", lr_decay, 0.0)
        check_range(cls, "weight_decay", weight_decay, 0.0)
        check_range(cls, "initial_accumulator_value", initial_accumulator_value, 0.0)
        check_range(cls, "eps", eps, 0.0)
        _bool(cls, "maximize", maximize)
        super().__init__(params, {"lr": lr, "lr_decay": lr_decay, "eps": eps,
                                  "weight_decay": weight_decay, "maximize": maximize})
        self.sum = self.state("sum", float(initial_accumulator_value))

    def step_group(self, group, start, grads):
        t = self.step_count()
        eps, wd = group["eps"], group["weight_decay"]
        for i, g in enumerate(grads, start):
            p, s = self.parameters[i], self.sum[i]
            if wd != 0:
                g = g + p * wd
            clr = ops.cast(group["lr"], p.dtype) / (1.0 + (t - 1) * group["lr_decay"])
            ops.assign(s, s + g * g)
            ops.assign(p, p - clr * g / (ops.sqrt(s) + eps))


class RMSprop(Optimizer):
    """RMSprop(params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0.0, momentum=0.0,
    centered=False, maximize=False)."""

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0.0, momentum=0.0,
                 centered=False, maximize=False):
        cls = type(self).__name__
        check_range(cls, "lr", lr, 0.0)
        check_range(cls, "alpha", alpha, 0.0)
        check_range(cls, "eps", eps, 0.0)
        check_range(cls, "weight_decay", weight_decay, 0.0)
        check_range(cls, "momentum", momentum, 0.0)
        _bool(cls, "centered", centered)
        _bool(cls, "maximize", maximize)
        super().__init__(params, {"lr": lr, "alpha": alpha, "eps": eps, "momentum": momentum,
                                  "centered": centered, "weight_decay": weight_decay,
                                  "maximize": maximize})
        self.square_avg = self.state("square_avg")
        self.grad_avg = self.state("grad_avg")
        self.momentum_buffer = self.state("momentum_buffer")

    def step_group(self, group, start, grads):
        alpha, eps, wd, mom = group["alpha"], group["eps"], group["weight_decay"], \
            group["momentum"]
        for i, g in enumerate(grads, start):
            p, s = self.parameters[i], self.square_avg[i]
            if wd != 0:
                g = g + p * wd
            ops.assign(s, s * alpha + g * g * (1.0 - alpha))
            if group["centered"]:
                a = self.grad_avg[i]
                ops.assign(a, a * alpha + g * (1.0 - alpha))
                avg = ops.sqrt(s - a * a) + eps
            else:
                avg = ops.sqrt(s) + eps
            lr = ops.cast(group["lr"], p.dtype)
            if mom > 0:
                b = self.momentum_buffer[i]
                ops.assign(b, b * mom + g / avg)
                ops.assign(p, p - lr * b)
            else:
                ops.assign(p, p - lr * g / avg)


class Rprop(Optimizer):
    """Rprop(params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, maximize=False)."""

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 maximize=False):
        cls = type(self).__name__
        check_range(cls, "lr", lr, 0.0)
        if not isinstance(etas, (tuple, list)) or len(etas) != 2 or \
                not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"For '{cls}', 'etas' must be (etaminus, etaplus) with 0 < "
                             f"etaminus < 1 < etaplus, but got {etas!r}")
        if not isinstance(step_sizes, (tuple, list)) or len(step_sizes) != 2:
            raise ValueError(f"For '{cls}', 'step_sizes' must be (min, max), but got "
                             f"{step_sizes!r}")
        _bool(cls, "maximize", maximize)
        super().__init__(params, {"lr": lr, "etas": tuple(etas),
                                  "step_sizes": tuple(step_sizes), "maximize": maximize})
        self.prev = self.state("prev")
        self.step_size = self.state("step_size")

    def step_group(self, group, start, grads):
        minus, plus = group["etas"]
        lo, hi = group["step_sizes"]
        first = self.step_count() == 1
        for i, g in enumerate(grads, start):
            p, prev, size = self.parameters[i], self.prev[i], self.step_size[i]
            if first:
                ops.assign(size, ops.ones_like(size) * ops.cast(group["lr"], p.dtype))
            sign = ops.sign(g * prev)
            one = ops.ones_like(sign)
            factor = ops.select(sign > 0, one * plus, ops.select(sign < 0, one * minus, one))
            ops.assign(size, ops.clamp(size * factor, lo, hi))
            g = ops.select(sign < 0, ops.zeros_like(g), g)
            ops.assign(p, p - ops.sign(g) * size)
            ops.assign(prev, g)


class ASGD(Optimizer):
    """ASGD(params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0.0,
    maximize=False); the average is in `ax`."""

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0.0,
                 maximize=False):
        cls = type(self).__name__
        check_range(cls, "lr", lr, 0.0)
        check_range(cls, "weight_decay", weight_decay, 0.0)
        _bool(cls, "maximize", maximize)
        super().__init__(params, {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0,
                                  "weight_decay": weight_decay, "maximize": maximize})
        self.ax = self.state("ax")
        self.eta, self.mu = [], []
        for k, p in enumerate(self.parameters):
            for store, prefix, init in ((self.eta, "eta", None), (self.mu, "mu", 1.0)):
                value = Tensor([float(lr) if init is None else init], p.dtype)
                s = Parameter(value, name=f"{prefix}.{p.name}", requires_grad=False)
                self.insert_param_to_cell(s.name.replace(".", "_"), s)
                store.append(s)

    def step_group(self, group, start, grads):
        t = self.step_count()
        lambd, alpha, t0, wd = group["lambd"], group["alpha"], group["t0"], \
            group["weight_decay"]
        for i, g in enumerate(grads, start):
            p, ax, eta, mu = self.parameters[i], self.ax[i], self.eta[i], self.mu[i]
            if wd != 0:
                g = g + p * wd
            ops.assign(p, p * (1.0 - lambd * eta) - eta * g)
            if float(mu.asnumpy()[0]) != 1.0:
                ops.assign(ax, ax + (p - ax) * mu)
            else:
                ops.assign(ax, p * 1.0)
            lr = ops.cast(group["lr"], p.dtype)
            ops.assign(eta, ops.reshape(lr, (1,)) / (1.0 + lambd * lr * t) ** alpha)
            ops.assign(mu, ops.ones_like(mu) / max(1.0, t - t0))
