"""Learning-rate schedules (mindspore.nn.learning_rate_schedule): Cells called with the global
step that return the learning rate of that step as a float32 Tensor of shape ().

Optimizers accept one as `learning_rate` and call it with their `global_step` before each
update. The value depends only on the step number, so it is computed on the host in
float32 (no graph of primitives, nothing to differentiate).
"""
import math
import numbers

import numpy as np

from ..common.tensor import Tensor
from .cell import Cell

__all__ = [
    "CosineDecayLR",
    "ExponentialDecayLR",
    "InverseDecayLR",
    "LearningRateSchedule",
    "NaturalExpDecayLR",
    "PolynomialDecayLR",
    "WarmUpLR",
]


def _check_float(cls, name, value, lo=None, lo_open=True, allow_int=True):
    ok = (isinstance(value, (float, np.floating))
          or (allow_int and isinstance(value, numbers.Integral)))
    if isinstance(value, bool) or not ok:
        raise TypeError(f"For '{cls}', '{name}' must be a float, but got "
                        f"{type(value).__name__}: {value!r}")
    if lo is not None and (value <= lo if lo_open else value < lo):
        rel = ">" if lo_open else ">="
        raise ValueError(f"For '{cls}', '{name}' must be {rel} {lo}, but got {value}")
    return float(value)


def _check_positive_int(cls, name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"For '{cls}', '{name}' must be an int, but got "
                        f"{type(value).__name__}: {value!r}")
    if value < 1:
        raise ValueError(f"For '{cls}', '{name}' must be >= 1, but got {value}")
    return int(value)


def _check_bool(cls, name, value):
    if not isinstance(value, bool):
        raise TypeError(f"For '{cls}', '{name}' must be a bool, but got {type(value).__name__}")
    return value


class LearningRateSchedule(Cell):
    """Base class: subclasses define `rate(step) -> float` (step a non-negative int)."""

    def rate(self, step):
        raise NotImplementedError(f"'{type(self).__name__}' must define rate(step)")

    def construct(self, global_step):
        if isinstance(global_step, Tensor):
            arr = global_step.asnumpy()
            if arr.size != 1:
                raise ValueError(f"For '{type(self).__name__}', 'global_step' must hold one "
                                 f"value, but got shape {list(arr.shape)}")
            step = arr.reshape(-1)[0].item()
        elif isinstance(global_step, numbers.Real) and not isinstance(global_step, bool):
            step = global_step
        else:
            raise TypeError(f"For '{type(self).__name__}', 'global_step' must be a Tensor or an "
                            f"int, but got {type(global_step).__name__}")
        return Tensor.from_numpy(np.asarray(self.rate(step), dtype=np.float32))


class _DecayLR(LearningRateSchedule):
    def __init__(self, learning_rate, decay_rate, decay_steps, is_stair=False):
        super().__init__()
        cls = type(self).__name__
        self.learning_rate = _check_float(cls, "learning_rate", learning_rate, 0.0)
        self.decay_rate = _check_float(cls, "decay_rate", decay_rate, 0.0)
        self.decay_steps = _check_positive_int(cls, "decay_steps", decay_steps)
        self.is_stair = _check_bool(cls, "is_stair", is_stair)

    def _p(self, step):
        p = np.float32(step) / np.float32(self.decay_steps)
        return np.floor(p) if self.is_stair else p


class ExponentialDecayLR(_DecayLR):
    """lr * decay_rate ** p, p = step / decay_steps (floored when is_stair)."""

    def rate(self, step):
        return np.float32(self.learning_rate) * np.float32(self.decay_rate) ** self._p(step)


class NaturalExpDecayLR(_DecayLR):
    """lr * e ** (-decay_rate * p), p = step / decay_steps (floored when is_stair)."""

    def rate(self, step):
        return np.float32(self.learning_rate) * np.exp(-np.float32(self.decay_rate) * self._p(step))


class InverseDecayLR(_DecayLR):
    """lr / (1 + decay_rate * p), p = step / decay_steps (floored when is_stair)."""

    def rate(self, step):
        return np.float32(self.learning_rate) / (1 + np.float32(self.decay_rate) * self._p(step))


class CosineDecayLR(LearningRateSchedule):
    """min_lr + 0.5 (max_lr - min_lr) (1 + cos(pi * min(step, decay_steps) / decay_steps))."""

    def __init__(self, min_lr, max_lr, decay_steps):
        super().__init__()
        self.min_lr = _check_float("CosineDecayLR", "min_lr", min_lr, 0.0, lo_open=False)
        self.max_lr = _check_float("CosineDecayLR", "max_lr", max_lr, 0.0)
        if self.min_lr >= self.max_lr:
            raise ValueError(f"For 'CosineDecayLR', 'max_lr' must be greater than 'min_lr', but "
                             f"got max_lr={max_lr} and min_lr={min_lr}")
        self.decay_steps = _check_positive_int("CosineDecayLR", "decay_steps", decay_steps)

    def rate(self, step):
        p = np.float32(min(step, self.decay_steps)) / np.float32(self.decay_steps)
        delta = np.float32(0.5) * np.float32(self.max_lr - self.min_lr)
        return np.float32(self.min_lr) + delta * (1 + np.cos(np.float32(math.pi) * p))


class PolynomialDecayLR(LearningRateSchedule):
    """(lr - end_lr) * (1 - min(step, decay_steps) / tmp_decay_steps) ** power + end_lr, with
    tmp_decay_steps = decay_steps, or decay_steps * ceil(step / decay_steps) (at least 1) when
    update_decay_steps (then the step is not clipped)."""

    def __init__(self, learning_rate, end_learning_rate, decay_steps, power,
                 update_decay_steps=False):
        super().__init__()
        cls = "PolynomialDecayLR"
        self.learning_rate = _check_float(cls, "learning_rate", learning_rate, 0.0)
        self.end_learning_rate = _check_float(cls, "end_learning_rate", end_learning_rate, 0.0,
                                              lo_open=False)
        self.decay_steps = _check_positive_int(cls, "decay_steps", decay_steps)
        self.power = _check_float(cls, "power", power, 0.0)
        self.update_decay_steps = _check_bool(cls, "update_decay_steps", update_decay_steps)

    def rate(self, step):
        decay_steps = self.decay_steps
        if self.update_decay_steps:
            decay_steps = decay_steps * max(math.ceil(step / decay_steps), 1)
        else:
            step = min(step, decay_steps)
        frac = 1 - np.float32(step) / np.float32(decay_steps)
        diff = np.float32(self.learning_rate - self.end_learning_rate)
        return diff * frac ** np.float32(self.power) + np.float32(self.end_learning_rate)


class WarmUpLR(LearningRateSchedule):
    """lr * min(step, warmup_steps) / warmup_steps."""

    def __init__(self, learning_rate, warmup_steps):
        super().__init__()
        self.learning_rate = _check_float("WarmUpLR", "learning_rate", learning_rate, 0.0)
        self.warmup_steps = _check_positive_int("WarmUpLR", "warmup_steps", warmup_steps)

    def rate(self, step):
        frac = np.float32(min(step, self.warmup_steps)) / np.float32(self.warmup_steps)
        return np.float32(self.learning_rate) * frac
