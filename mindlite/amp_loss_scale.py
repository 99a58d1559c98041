"""Loss scaling of mindlite.amp (MindSpore's mindspore.amp): the loss-scale managers
train.Model and TrainOneStepWithLossScaleCell use (LossScaleManager, FixedLossScaleManager,
DynamicLossScaleManager: a scale and its update cell) and the functional scalers
(StaticLossScaler, DynamicLossScaler, all_finite). Re-exported by mindlite.amp.
"""
import numpy as np

from . import nn
from .common.tensor import Tensor

__all__ = ["DynamicLossScaleManager", "FixedLossScaleManager", "LossScaleManager", "LossScaler",
           "StaticLossScaler", "DynamicLossScaler", "all_finite"]


class LossScaleManager:
    """Base of the loss-scale managers."""

    def get_loss_scale(self):
        raise NotImplementedError

    def get_update_cell(self):
        raise NotImplementedError


class FixedLossScaleManager(LossScaleManager):
    def __init__(self, loss_scale=128.0, drop_overflow_update=True):
        if isinstance(loss_scale, bool) or not isinstance(loss_scale, (int, float)) \
                or loss_scale < 1:
            raise ValueError(f"For 'FixedLossScaleManager', 'loss_scale' must be a number >= 1, "
                             f"but got {loss_scale!r}")
        self._loss_scale, self._drop = float(loss_scale), bool(drop_overflow_update)

    def get_loss_scale(self):
        return self._loss_scale

    def get_drop_overflow_update(self):
        return self._drop

    def update_loss_scale(self, overflow):
        """A fixed scale does not change."""

    def get_update_cell(self):
        return nn.FixedLossScaleUpdateCell(self._loss_scale) if self._drop else None


class DynamicLossScaleManager(LossScaleManager):
    def __init__(self, init_loss_scale=2 ** 24, scale_factor=2, scale_window=2000):
        if isinstance(init_loss_scale, bool) or not isinstance(init_loss_scale, (int, float)) \
                or init_loss_scale < 1:
            raise ValueError(f"For 'DynamicLossScaleManager', 'init_loss_scale' must be a number "
                             f">= 1, but got {init_loss_scale!r}")
        if isinstance(scale_factor, bool) or not isinstance(scale_factor, (int, float)) \
                or scale_factor <= 1:
            raise ValueError(f"For 'DynamicLossScaleManager', 'scale_factor' must be > 1, but got "
                             f"{scale_factor!r}")
        if isinstance(scale_window, bool) or not isinstance(scale_window, int) or scale_window < 1:
            raise ValueError(f"For 'DynamicLossScaleManager', 'scale_window' must be a positive "
                             f"int, but got {scale_window!r}")
        self.loss_scale = float(init_loss_scale)
        self.scale_factor, self.scale_window = scale_factor, scale_window
        self.increase_ratio, self.decrease_ratio = scale_factor, 1.0 / scale_factor
        self.cur_iter, self.last_overflow_iter = 1, 0
        self.bad_step_max, self.bad_step = 1000, 0

    def get_loss_scale(self):
        return self.loss_scale

    def get_drop_overflow_update(self):
        return True

    def update_loss_scale(self, overflow):
        if overflow:
            self.loss_scale = max(self.loss_scale * self.decrease_ratio, 1.0)
            self.last_overflow_iter = self.cur_iter
            self.bad_step += 1
        else:
            if self.cur_iter - self.last_overflow_iter >= self.scale_window:
                self.loss_scale *= self.increase_ratio
                self.last_overflow_iter = self.cur_iter
            self.bad_step = 0
        if self.bad_step > self.bad_step_max:
            raise RuntimeError(f"For 'DynamicLossScaleManager', the loss overflowed {self.bad_step}"
                               f" steps in a row, more than {self.bad_step_max}")
        self.cur_iter += 1

    def get_update_cell(self):
        return nn.DynamicLossScaleUpdateCell(self.loss_scale, self.scale_factor,
                                             self.scale_window)


def all_finite(inputs):
    """A bool Tensor: every element of every Tensor in `inputs` is finite."""
    seq = inputs if isinstance(inputs, (tuple, list)) else (inputs,)
    return Tensor(np.array(all(bool(np.isfinite(t.asnumpy()).all()) for t in seq)))


class LossScaler:
    """Base of the functional loss scalers: scale(inputs), unscale(inputs),
    adjust(grads_finite)."""

    def scale(self, inputs):
        raise NotImplementedError(f"{type(self).__name__}.scale")

    def unscale(self, inputs):
        raise NotImplementedError(f"{type(self).__name__}.unscale")

    def adjust(self, grads_finite):
        raise NotImplementedError(f"{type(self).__name__}.adjust")


class StaticLossScaler(LossScaler):
    """scale(x) multiplies by scale_value, unscale(x) divides; adjust() changes nothing."""

    def __init__(self, scale_value):
        self.scale_value = Tensor(np.float32(scale_value))

    def _map(self, x, fn):
        if isinstance(x, (tuple, list)):
            return type(x)(fn(t) for t in x)
        return fn(x)

    def scale(self, inputs):
        return self._map(inputs, lambda t: t * self.scale_value)

    def unscale(self, inputs):
        return self._map(inputs, lambda t: t / self.scale_value)

    def adjust(self, grads_finite):
        return False


class DynamicLossScaler(StaticLossScaler):
    """As StaticLossScaler, and adjust(grads_finite) shrinks the scale after an overflow and
    grows it after scale_window finite steps."""

    def __init__(self, scale_value, scale_factor, scale_window):
        super().__init__(scale_value)
        self.scale_factor, self.scale_window = scale_factor, scale_window
        self.counter = 0

    def adjust(self, grads_finite):
        value = float(self.scale_value.asnumpy())
        if bool(np.asarray(grads_finite.asnumpy() if isinstance(grads_finite, Tensor)
                           else grads_finite)):
            self.counter += 1
            if self.counter >= self.scale_window:
                value *= self.scale_factor
                self.counter = 0
        else:
            value = max(value / self.scale_factor, 1.0)
            self.counter = 0
        self.scale_value = Tensor(np.float32(value))
        return True


# ---- build_train_network (what train.Model builds) ------------------------------------------
