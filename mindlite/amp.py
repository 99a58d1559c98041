"""Automatic mixed precision (MindSpore's mindspore.amp): auto_mixed_precision with levels
O0-O3, the loss-scale managers used by Model / TrainOneStepWithLossScaleCell, and the
functional loss scalers (StaticLossScaler, DynamicLossScaler, all_finite).

Levels (parameters always stay float32; see nn/cell_mixed.py for how a cell computes in a
lower precision):
- O0: the network unchanged;
- O1: the white-list cells (dense and convolution layers) compute in `dtype`, each output cast
  back to float32;
- O2: the whole network in `dtype` except the black-list cells (batch/layer/group/instance
  norms), which stay float32; the network's output cast to float32;
- O3: the whole network in `dtype`, the output cast to float32.
O2 and O3 return the network wrapped in a cell that casts its output (the network itself is
marked in place, as MindSpore's); O1 marks the cells in place and returns the network.
"""
import numpy as np

from . import nn
from .common import dtype as mstype
from .common.tensor import Tensor
from .nn.cell_mixed import mark

__all__ = ["auto_mixed_precision", "DynamicLossScaleManager", "FixedLossScaleManager",
           "LossScaleManager", "StaticLossScaler", "DynamicLossScaler", "all_finite",
           "get_white_list", "get_black_list"]


def get_white_list():
    """Cells computed in the low precision under O1."""
    return [nn.Dense, nn.Conv1d, nn.Conv2d, nn.Conv3d, nn.Conv1dTranspose, nn.Conv2dTranspose]


def get_black_list():
    """Cells kept in float32 under O2."""
    return [nn.BatchNorm1d, nn.BatchNorm2d, nn.LayerNorm, nn.GroupNorm, nn.InstanceNorm1d,
            nn.InstanceNorm2d]


class _OutputTo32(nn.Cell):
    """The network with its floating-point outputs cast to float32."""

    def __init__(self, backbone):
        super().__init__(auto_prefix=False)
        self._backbone = backbone

    def construct(self, *args, **kwargs):
        from .nn.cell_mixed import _cast
        return _cast(self._backbone(*args, **kwargs), mstype.float32)


def auto_mixed_precision(network, amp_level="O0", dtype=mstype.float16):
    if not isinstance(network, nn.Cell):
        raise TypeError(f"For 'auto_mixed_precision', 'network' must be a Cell, but got "
                        f"{type(network).__name__}")
    if amp_level not in ("O0", "O1", "O2", "O3", "auto"):
        raise ValueError(f"For 'auto_mixed_precision', 'amp_level' must be one of O0, O1, O2, "
                         f"O3 or auto, but got {amp_level!r}")
    dtype = mstype.to_type(dtype)
    if dtype not in (mstype.float16, getattr(mstype, "bfloat16", mstype.float16)):
        raise ValueError(f"For 'auto_mixed_precision', 'dtype' must be float16 or bfloat16, but "
                         f"got {dtype}")
    if amp_level == "O0":
        return network
    if amp_level in ("O1", "auto"):
        white = tuple(get_white_list())
        for _, cell in network.cells_and_names():
            if isinstance(cell, white):
                mark(cell, dtype, output_dtype=mstype.float32)
        return network
    mark(network, dtype)
    if amp_level == "O2":
        black = tuple(get_black_list())
        for _, cell in network.cells_and_names():
            if isinstance(cell, black):
                mark(cell, mstype.float32, recursive=False)
    return _OutputTo32(network)


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

    def get_loss_scale(self):
        return self.loss_scale

    def get_drop_overflow_update(self):
        return True

    def update_loss_scale(self, overflow):
        if overflow:
            self.loss_scale = max(self.loss_scale * self.decrease_ratio, 1.0)
            self.last_overflow_iter = self.cur_iter
        elif self.cur_iter - self.last_overflow_iter >= self.scale_window:
            self.loss_scale *= self.increase_ratio
            self.last_overflow_iter = self.cur_iter
        self.cur_iter += 1

    def get_update_cell(self):
        return nn.DynamicLossScaleUpdateCell(self.loss_scale, self.scale_factor,
                                             self.scale_window)


def all_finite(inputs):
    """A bool Tensor: every element of every Tensor in `inputs` is finite."""
    seq = inputs if isinstance(inputs, (tuple, list)) else (inputs,)
    return Tensor(np.array(all(bool(np.isfinite(t.asnumpy()).all()) for t in seq)))


class StaticLossScaler:
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
