"""Optimizers MindSpore writes as compositions of ops rather than one primitive: Rprop, ASGD,
Lamb and the LARS wrapper (mindspore.nn). Each step computes the new values with ops and
writes them into the Parameters with Assign (in place, copy-on-write for live views).

- Rprop: per element a step size (starting at the learning rate) grows by etaplus while the
  gradient keeps its sign, shrinks by etaminus when it flips (and that step is skipped),
  clipped to step_sizes; param -= sign(g) * step. Computed in float32 (float16 stays float16),
  as MindSpore.
- ASGD: param = param (1 - lambd eta) - eta g; ax averages the iterates once step > t0;
  eta = lr / (1 + lambd lr step)**alpha, mu = 1 / max(1, step - t0). In float32.
- Lamb: Adam's bias-corrected moments, r = m_hat / (sqrt(v_hat) + eps) + weight_decay w
  (decayed parameters), then w -= lr * trust * r with trust = ||w|| / ||r|| (1 when either
  norm is 0). MindSpore 2.10's CPU build has no Lamb kernel; this follows its documented rule.
- LARS(optimizer): for parameters passing lars_filter, g becomes
  trust * (g + weight_decay w), trust = coefficient ||w|| / (||g|| + weight_decay ||w|| + eps)
  (1 when a norm is 0; with use_clip min(trust / lr, 1)); the wrapped optimizer then steps
  without its own weight decay. Also documented-rule only (no CPU kernel in MindSpore).
"""
import numbers

import numpy as np

from ... import ops
from ...common import dtype as mstype
from ...common.parameter import Parameter
from ...common.tensor import Tensor
from .adam import _check_param_value
from .optimizer import Optimizer

__all__ = ["Rprop", "ASGD", "Lamb", "LARS"]


def _float(cls, name, value):
    if not isinstance(value, float):
        raise TypeError(f"For '{cls}', '{name}' must be a float, but got "
                        f"{type(value).__name__}: {value!r}")
    return value


def _compute_dtype(p):
    return p.dtype if p.dtype == mstype.float16 else mstype.float32


def _step(opt):
    return int(opt.global_step.asnumpy().reshape(-1)[0])


class Rprop(Optimizer):
    """Rprop(params, learning_rate=0.1, etas=(0.5, 1.2), step_sizes=(1e-6, 50.),
    weight_decay=0.0)."""

    def __init__(self, params, learning_rate=0.1, etas=(0.5, 1.2), step_sizes=(1e-6, 50.),
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        for name, pair in (("etas", etas), ("step_sizes", step_sizes)):
            if not isinstance(pair, tuple):
                raise TypeError(f"For Rprop, {name} must be a tuple, but got {type(pair)}.")
            if len(pair) != 2:
                raise ValueError(f"For Rprop, {name} must be a tuple with the size of 2, but got "
                                 f"{len(pair)}.")
        if not (isinstance(etas[0], numbers.Real) and 0.0 < etas[0] < 1.0):
            raise ValueError(f"For 'Rprop', 'etaminus' must be in (0.0, 1.0), but got {etas[0]}")
        if _float("Rprop", "etaplus", etas[1]) <= 1.0:
            raise ValueError(f"For Rprop, etaplus must be greater than 1.0, but got etaplus "
                             f"{etas[1]}.")
        lo = _float("Rprop", "min_step_sizes", step_sizes[0])
        hi = _float("Rprop", "max_step_sizes", step_sizes[1])
        if lo > hi:
            raise ValueError(f"For Rprop, maximal step size should not be less than minimal step "
                             f"size, but got {lo} > {hi}.")
        self.etaminus, self.etaplus = etas
        self.step_size_min, self.step_size_max = lo, hi
        self.prev = self.clone_state("prev", "zeros")
        self.step_size = self.clone_state("step_size", "zeros")

    def construct(self, gradients):
        grads = self.decay_weight(self.scale_grad(self.check_gradients(gradients)))
        lrs = self.lr_per_param(self.get_lr())
        first = _step(self) == 1
        for p, prev, size, lr, g in zip(self._parameters, self.prev, self.step_size, lrs, grads):
            dt = _compute_dtype(p)
            step = ops.cast(ops.ones_like(size), dt) * ops.cast(lr, dt) if first \
                else ops.cast(size, dt)
            g, prev_c = ops.cast(g, dt), ops.cast(prev, dt)
            s = ops.sign(g * prev_c)
            factor = ops.select(s > 0, ops.fill(dt, s.shape, self.etaplus),
                                ops.select(s < 0, ops.fill(dt, s.shape, self.etaminus),
                                           ops.ones_like(s)))
            step = ops.clip_by_value(step * factor, self.step_size_min, self.step_size_max)
            g = ops.select(s < 0, ops.zeros_like(g), g)
            ops.assign(p, ops.cast(ops.cast(p, dt) - ops.sign(g) * step, p.dtype))
            ops.assign(prev, ops.cast(g, prev.dtype))
            ops.assign(size, ops.cast(step, size.dtype))
        return True


class ASGD(Optimizer):
    """ASGD(params, learning_rate=0.1, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0.0)."""

    def __init__(self, params, learning_rate=0.1, lambd=1e-4, alpha=0.75, t0=1e6,
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        self.lambd = _float("ASGD", "lambd", lambd)
        self.alpha = _float("ASGD", "alpha", alpha)
        self.t0 = _float("ASGD", "t0", t0)
        self.mu = [self._scalar_state(f"mu_{p.name}", 1.0) for p in self._parameters]
        self.eta = [self._scalar_state(f"eta_{p.name}", 0.0) for p in self._parameters]
        self.ax = self.clone_state("ax_", "zeros")

    def _scalar_state(self, name, value):
        state = Parameter(Tensor(np.float32(value)), name=name, requires_grad=False)
        self.insert_param_to_cell(name.replace(".", "_"), state)
        return state

    def construct(self, gradients):
        grads = self.decay_weight(self.scale_grad(self.check_gradients(gradients)))
        lrs = self.lr_per_param(self.get_lr())
        step = float(_step(self))
        f32 = mstype.float32
        for p, mu, eta, ax, lr, g in zip(self._parameters, self.mu, self.eta, self.ax, lrs,
                                         grads):
            lr = ops.reshape(ops.cast(lr, f32), ())
            if step == 1:
                ops.assign(eta, lr)
            new = ops.cast(p, f32) * (1.0 - self.lambd * eta) - eta * ops.cast(g, f32)
            ops.assign(p, ops.cast(new, p.dtype))
            if float(mu.asnumpy()) != 1.0:
                ops.assign(ax, ops.cast(ops.cast(ax, f32) + (new - ops.cast(ax, f32)) * mu,
                                        ax.dtype))
            else:
                ops.assign(ax, p)
            ops.assign(eta, lr / (1.0 + self.lambd * lr * step) ** self.alpha)
            ops.assign(mu, Tensor(np.float32(1.0 / max(1.0, step - self.t0))))
        return True


def _norm(t):
    return ops.sqrt(ops.sum(t * t))


def _trust(numerator, denominator, w_norm, g_norm):
    ok = ops.logical_and(w_norm > 0, g_norm > 0)
    return ops.select(ok, numerator / ops.select(ok, denominator, ops.ones_like(denominator)),
                      ops.ones_like(w_norm))


class Lamb(Optimizer):
    """Lamb(params, learning_rate, beta1=0.9, beta2=0.999, eps=1e-6, weight_decay=0.0)."""

    def __init__(self, params, learning_rate, beta1=0.9, beta2=0.999, eps=1e-6,
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        _check_param_value(beta1, beta2, eps, "Lamb")
        self.beta1, self.beta2, self.eps = float(beta1), float(beta2), float(eps)
        self.moments1 = self.clone_state("lamb_m", "zeros")
        self.moments2 = self.clone_state("lamb_v", "zeros")

    def construct(self, gradients):
        grads = self.scale_grad(self.check_gradients(gradients))
        lrs = self.lr_per_param(self.get_lr())
        t = float(_step(self))
        b1, b2 = self.beta1, self.beta2
        for p, m, v, lr, d, g in zip(self._parameters, self.moments1, self.moments2, lrs,
                                     self._decays, grads):
            new_m = m * b1 + g * (1.0 - b1)
            new_v = v * b2 + g * g * (1.0 - b2)
            r = (new_m / (1.0 - b1 ** t)) / (ops.sqrt(new_v / (1.0 - b2 ** t)) + self.eps)
            if d > 0:
                r = r + p * d
            w_norm, r_norm = _norm(p), _norm(r)
            trust = _trust(w_norm, r_norm, w_norm, r_norm)
            ops.assign(m, new_m)
            ops.assign(v, new_v)
            ops.assign(p, p - ops.cast(lr, p.dtype) * trust * r)
        return True


class LARS(Optimizer):
    """LARS(optimizer, epsilon=1e-05, coefficient=0.001, use_clip=False,
    lars_filter=lambda x: 'LayerNorm' not in x.name and 'bias' not in x.name)."""

    def __init__(self, optimizer, epsilon=1e-05, coefficient=0.001, use_clip=False,
                 lars_filter=lambda x: "LayerNorm" not in x.name and "bias" not in x.name):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"For 'LARS', 'optimizer' must be an Optimizer, but got "
                            f"{type(optimizer).__name__}")
        super().__init__(0.0, [Parameter(Tensor(np.float32(0.0)), name="fake_param")])
        self.epsilon = _float("LARS", "epsilon", epsilon)
        self.coefficient = _float("LARS", "coefficient", coefficient)
        if not isinstance(use_clip, bool):
            raise TypeError(f"For 'LARS', 'use_clip' must be a bool, but got "
                            f"{type(use_clip).__name__}")
        self.opt, self.use_clip = optimizer, use_clip
        self.lars_flag = tuple(bool(lars_filter(p)) for p in optimizer.parameters)
        self._parameters = optimizer.parameters
        self.parameters = optimizer.parameters
        self._lars_decays = optimizer._decays
        # the wrapped optimizer steps without its own weight decay: LARS applies it
        optimizer._decays = tuple(0.0 for _ in optimizer._decays)
        optimizer.exec_weight_decay = False

    def construct(self, gradients):
        opt = self.opt
        grads = opt.scale_grad(opt.check_gradients(gradients))
        if self.use_clip:
            step = int(opt.global_step.asnumpy().reshape(-1)[0])
            lrs = opt.lr_per_param(_peek_lr(opt, step))
        out = []
        for i, (p, g, d, flag) in enumerate(zip(opt.parameters, grads, self._lars_decays,
                                                self.lars_flag)):
            if not flag:
                out.append(g)
                continue
            w_norm, g_norm = _norm(p), _norm(g)
            trust = _trust(self.coefficient * w_norm, g_norm + d * w_norm + self.epsilon,
                           w_norm, g_norm)
            if self.use_clip:
                trust = ops.minimum(trust / ops.cast(lrs[i], trust.dtype), 1.0)
            out.append(trust * (g + p * d) if d > 0 else trust * g)
        # scale_grad already ran: the wrapped optimizer must not divide by loss_scale again
        scale, opt.loss_scale = opt.loss_scale, 1.0
        try:
            return opt(tuple(out))
        finally:
            opt.loss_scale = scale


def _peek_lr(opt, step):
    """The learning rate(s) opt will use at `step`, without advancing its global step."""
    if opt.is_group_lr:
        return tuple(opt._lr_at(s, step) for s in opt._lr_sources)
    return opt._lr_at(opt._lr_sources[0], step)
