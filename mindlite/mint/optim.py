"""mindlite.mint.optim (MindSpore 2.10's mint.optim): SGD, Adam, AdamW and FusedAdamW with
PyTorch's constructor arguments and update rules, as Cells called with the gradients
(`opt(grads)`, one per parameter, in order), like MindSpore's.

params: Parameters, or groups (dicts with 'params' and optional 'lr', 'weight_decay',
'betas', 'eps', 'momentum', ... overriding the defaults). Each step composes the update from
ops primitives (so it runs on the same kernels) and writes every parameter and state buffer
in place (ops.assign) after all gradients were checked, so a bad call changes nothing.

SGD: g += wd p; buf = g (first step) or momentum buf + (1 - dampening) g; nesterov g + mom
buf, else buf; p -= lr step. Adam: g += wd p; m = b1 m + (1 - b1) g; v = b2 v + (1 - b2) g^2
(amsgrad: v_max = max(v_max, v)); p -= lr m_hat / (sqrt(v_hat) + eps) with bias correction.
AdamW: p *= 1 - lr wd first, then Adam without the L2 term. maximize: ascend.
"""
import numbers

import numpy as np

from ..common.parameter import Parameter
from ..common.tensor import Tensor
from ..nn.cell import Cell
from ..ops import functional as F

__all__ = ['Adam', 'AdamW', 'FusedAdamW', 'SGD']


def _number(cls, name, v, lo=0.0):
    if isinstance(v, bool) or not isinstance(v, numbers.Real) or v < lo:
        raise ValueError(f"For '{cls}', '{name}' must be a number >= {lo}, but got {v!r}")
    return float(v)


class _Optimizer(Cell):
    """Parameter groups, per-parameter state buffers and the checked, all-or-nothing step."""
    defaults_keys = ()

    def __init__(self, params, defaults):
        super().__init__(auto_prefix=False)
        cls = type(self).__name__
        if isinstance(params, Parameter):
            params = [params]
        items = list(params)
        if not items:
            raise ValueError(f"For '{cls}', 'params' must not be empty")
        groups = items if isinstance(items[0], dict) else [{"params": items}]
        self.param_groups = []
        self.parameters, self._group_of = [], []
        for g in groups:
            group = dict(defaults)
            group.update(g)
            ps = [group["params"]] if isinstance(group["params"], Parameter) else \
                list(group["params"])
            for p in ps:
                if not isinstance(p, Parameter):
                    raise TypeError(f"For '{cls}', every param must be a Parameter, but got "
                                    f"{type(p).__name__}")
            group["params"] = ps
            self.param_groups.append(group)
            self.parameters.extend(ps)
            self._group_of.extend([group] * len(ps))
        self.state_step = 0

    def _buffer(self, prefix, p, value=0.0):
        name = f"{prefix}.{p.name}"
        buf = Parameter(Tensor(np.full(p.shape, value, p.dtype.np)), name=name,
                        requires_grad=False)
        setattr(self, name.replace(".", "_"), buf)
        return buf

    def _check(self, grads):
        grads = tuple(grads)
        if len(grads) != len(self.parameters):
            raise ValueError(f"For '{type(self).__name__}', expected {len(self.parameters)} "
                             f"gradients, but got {len(grads)}")
        for p, g in zip(self.parameters, grads):
            if not isinstance(g, Tensor) or g.shape != p.shape:
                raise ValueError(f"For '{type(self).__name__}', the gradient of '{p.name}' must "
                                 f"be a Tensor of shape {list(p.shape)}, but got "
                                 f"{getattr(g, 'shape', type(g).__name__)}")
        return grads

    def construct(self, gradients):
        grads = self._check(gradients)
        self.state_step += 1
        writes = []
        for i, (p, g) in enumerate(zip(self.parameters, grads)):
            group = self._group_of[i]
            if g.dtype is not p.dtype:
                g = F.cast(g, p.dtype)
            if group.get("maximize", False):
                g = F.neg(g)
            writes.extend(self._update(i, p, g, group))
        for target, value in writes:
            F.assign(target, value)
        return True


class SGD(_Optimizer):
    def __init__(self, params, lr, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False):
        for name, v in (("lr", lr), ("momentum", momentum), ("dampening", dampening),
                        ("weight_decay", weight_decay)):
            _number("SGD", name, v)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("For 'SGD', nesterov momentum requires momentum > 0 and "
                             "dampening = 0")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov,
                                      maximize=maximize))
        self.momentum_buffer = [self._buffer("momentum_buffer", p)
                                if self._group_of[i]["momentum"] else None
                                for i, p in enumerate(self.parameters)]

    def _update(self, i, p, g, group):
        if group["weight_decay"]:
            g = F.add(g, F.mul(p, group["weight_decay"]))
        out = []
        mom = group["momentum"]
        if mom:
            buf = self.momentum_buffer[i]
            buf_new = g if self.state_step == 1 else F.add(F.mul(buf, mom),
                                                           F.mul(g, 1 - group["dampening"]))
            out.append((buf, buf_new))
            g = F.add(g, F.mul(buf_new, mom)) if group["nesterov"] else buf_new
        out.append((p, F.sub(p, F.mul(g, group["lr"]))))
        return out


class Adam(_Optimizer):
    decoupled = False

    def __init__(self, params, lr=0.001, betas=(0.9, 0.999), eps=1e-08, weight_decay=0.0,
                 amsgrad=False, *, maximize=False):
        cls = type(self).__name__
        _number(cls, "lr", lr)
        _number(cls, "eps", eps)
        _number(cls, "weight_decay", weight_decay)
        if not all(0.0 <= b < 1.0 for b in betas):
            raise ValueError(f"For '{cls}', 'betas' must be in [0, 1), but got {betas!r}")
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps,
                                      weight_decay=weight_decay, amsgrad=amsgrad,
                                      maximize=maximize))
        self.exp_avg = [self._buffer("exp_avg", p) for p in self.parameters]
        self.exp_avg_sq = [self._buffer("exp_avg_sq", p) for p in self.parameters]
        self.max_exp_avg_sq = [self._buffer("max_exp_avg_sq", p)
                               if self._group_of[i]["amsgrad"] else None
                               for i, p in enumerate(self.parameters)]

    def _update(self, i, p, g, group):
        lr, (b1, b2), eps, wd = group["lr"], group["betas"], group["eps"], group["weight_decay"]
        out = []
        if wd and self.decoupled:
            p_dec = F.mul(p, 1 - lr * wd)
        else:
            p_dec = p
            if wd:
                g = F.add(g, F.mul(p, wd))
        m = F.add(F.mul(self.exp_avg[i], b1), F.mul(g, 1 - b1))
        v = F.add(F.mul(self.exp_avg_sq[i], b2), F.mul(F.square(g), 1 - b2))
        out += [(self.exp_avg[i], m), (self.exp_avg_sq[i], v)]
        denom_v = v
        if group["amsgrad"]:
            denom_v = F.maximum(self.max_exp_avg_sq[i], v)
            out.append((self.max_exp_avg_sq[i], denom_v))
        t = self.state_step
        c1, c2 = 1 - b1 ** t, 1 - b2 ** t
        denom = F.add(F.div(F.sqrt(denom_v), np.sqrt(c2)), eps)
        out.append((p, F.sub(p_dec, F.mul(F.div(m, denom), lr / c1))))
        return out


class AdamW(Adam):
    """Adam with decoupled weight decay (default 0.01)."""
    decoupled = True

    def __init__(self, params, lr=0.001, betas=(0.9, 0.999), eps=1e-08, weight_decay=0.01,
                 amsgrad=False, *, maximize=False):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize)


class FusedAdamW(AdamW):
    """AdamW (MindSpore fuses its kernels on Ascend; the update is the same)."""


