"""Learning-rate schedulers for the experimental optimizers (MindSpore's
`experimental.optim.lr_scheduler`, PyTorch's rules): StepLR, MultiStepLR, ExponentialLR,
CosineAnnealingLR, LambdaLR, LinearLR, ConstantLR.

A scheduler is built on an optimizer (which it steps once, to epoch 0) and `step()` moves it
to the next epoch, writing each group's new rate into the group's "lr" Parameter. The rates
follow PyTorch's recursive ("chainable") forms, so a scheduler composes with other changes to
the rate the way PyTorch's does; `get_last_lr()` gives the current rates as float32 Tensors.
"""
import math
from collections import Counter

import numpy as np

from ...common.tensor import Tensor
from .optimizer import Optimizer

__all__ = ["LRScheduler", "StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR",
           "LambdaLR", "LinearLR", "ConstantLR"]


class LRScheduler:
    """Base class: subclasses define get_lr() -> list of floats for `last_epoch`."""

    def __init__(self, optimizer, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"For '{type(self).__name__}', 'optimizer' must be an experimental "
                            f"optim Optimizer, but got {type(optimizer).__name__}")
        if not isinstance(last_epoch, int) or isinstance(last_epoch, bool) or last_epoch < -1:
            raise ValueError(f"For '{type(self).__name__}', 'last_epoch' must be an int >= -1, "
                             f"but got {last_epoch!r}")
        self.optimizer = optimizer
        self.base_lrs = [g["initial_lr"] for g in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._step_count = 0
        self.step()

    def _lrs(self):
        return [float(g["lr"].asnumpy()) for g in self.optimizer.param_groups]

    def get_lr(self):
        raise NotImplementedError

    def get_last_lr(self):
        return [Tensor(np.float32(v)) for v in self._last_lr]

    def step(self):
        self._step_count += 1
        self.last_epoch += 1
        new = self.get_lr()
        for group, value in zip(self.optimizer.param_groups, new):
            group["lr"].set_data(Tensor(np.float32(value)))
        self._last_lr = new


class StepLR(LRScheduler):
    """lr times gamma every step_size epochs."""

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return self._lrs()
        return [lr * self.gamma for lr in self._lrs()]


class MultiStepLR(LRScheduler):
    """lr times gamma at each milestone epoch (twice if listed twice)."""

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones, self.gamma = Counter(milestones), gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch not in self.milestones:
            return self._lrs()
        return [lr * self.gamma ** self.milestones[self.last_epoch] for lr in self._lrs()]


class ExponentialLR(LRScheduler):
    """lr times gamma every epoch."""

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0:
            return self._lrs()
        return [lr * self.gamma for lr in self._lrs()]


class CosineAnnealingLR(LRScheduler):
    """Cosine from the base rate down to eta_min over T_max epochs (and back up after)."""

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):  # noqa: N803
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        e, t, lo = self.last_epoch, self.T_max, self.eta_min
        if e == 0:
            return self._lrs()
        if self._step_count == 1 and e > 0:
            return [lo + (base - lo) * (1 + math.cos(e * math.pi / t)) / 2
                    for base in self.base_lrs]
        if (e - 1 - t) % (2 * t) == 0:
            return [lr + (base - lo) * (1 - math.cos(math.pi / t)) / 2
                    for lr, base in zip(self._lrs(), self.base_lrs)]
        return [(1 + math.cos(math.pi * e / t)) / (1 + math.cos(math.pi * (e - 1) / t))
                * (lr - lo) + lo for lr in self._lrs()]


class LambdaLR(LRScheduler):
    """base lr times lr_lambda(epoch) (one function, or one per group)."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        n = len(optimizer.param_groups)
        fns = list(lr_lambda) if isinstance(lr_lambda, (list, tuple)) else [lr_lambda] * n
        if len(fns) != n or not all(callable(f) for f in fns):
            raise ValueError(f"For 'LambdaLR', 'lr_lambda' must be a function or {n} functions")
        self.lr_lambdas = fns
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [base * f(self.last_epoch) for base, f in zip(self.base_lrs, self.lr_lambdas)]


class LinearLR(LRScheduler):
    """Factor moving linearly from start_factor to end_factor over total_iters epochs."""

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5,
                 last_epoch=-1):
        if not 0 < start_factor <= 1 or not 0 <= end_factor <= 1:
            raise ValueError("For 'LinearLR', 'start_factor' must be in (0, 1] and 'end_factor' "
                             f"in [0, 1], but got {start_factor} and {end_factor}")
        self.start_factor, self.end_factor, self.total_iters = start_factor, end_factor, \
            total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        e, s, f = self.last_epoch, self.start_factor, self.end_factor
        if e == 0:
            return [lr * s for lr in self._lrs()]
        if e > self.total_iters:
            return self._lrs()
        scale = 1.0 + (f - s) / (self.total_iters * s + (e - 1) * (f - s))
        return [lr * scale for lr in self._lrs()]


class ConstantLR(LRScheduler):
    """lr times factor until total_iters epochs, then the base rate again."""

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if not 0 <= factor <= 1:
            raise ValueError(f"For 'ConstantLR', 'factor' must be in [0, 1], but got {factor}")
        self.factor, self.total_iters = factor, total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        if self.last_epoch == 0:
            return [lr * self.factor for lr in self._lrs()]
        if self.last_epoch != self.total_iters:
            return self._lrs()
        return [lr / self.factor for lr in self._lrs()]
