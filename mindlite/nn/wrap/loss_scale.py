"""Loss scaling for mixed-precision training (mindspore.nn): DynamicLossScaleUpdateCell,
FixedLossScaleUpdateCell and TrainOneStepWithLossScaleCell.

A step computes the gradients of loss * scale, divides them by scale, and checks them: if any
is inf or nan (an overflow) the optimizer is skipped and a dynamic scale is divided by
scale_factor (never below 1); after scale_window overflow-free steps it is multiplied by
scale_factor. The step returns (loss, overflow, scale), as MindSpore's.
"""
import numbers

import numpy as np

from ... import ops
from ...common.parameter import Parameter
from ...common.tensor import Tensor
from ...ops.composite import value_and_grad
from ..cell import Cell
from ..optim.optimizer import Optimizer

__all__ = ["DynamicLossScaleUpdateCell", "FixedLossScaleUpdateCell",
           "TrainOneStepWithLossScaleCell"]


def _positive(cls, name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or value <= 0:
        raise ValueError(f"For '{cls}', '{name}' must be a number > 0, but got {value!r}")
    return value


class DynamicLossScaleUpdateCell(Cell):
    def __init__(self, loss_scale_value, scale_factor, scale_window):
        super().__init__()
        self.loss_scale_value = float(_positive("DynamicLossScaleUpdateCell", "loss_scale_value",
                                                loss_scale_value))
        self.scale_factor = _positive("DynamicLossScaleUpdateCell", "scale_factor", scale_factor)
        if isinstance(scale_window, bool) or not isinstance(scale_window, int) or scale_window < 1:
            raise ValueError(f"For 'DynamicLossScaleUpdateCell', 'scale_window' must be a "
                             f"positive int, but got {scale_window!r}")
        self.scale_window = scale_window
        self.cur_iter = Parameter(Tensor(np.array([1], np.int32)), name="current_iterator_step",
                                  requires_grad=False)
        self.last_overflow_iter = Parameter(Tensor(np.array([0], np.int32)),
                                            name="last_overflow_iterator_step",
                                            requires_grad=False)

    def get_loss_scale(self):
        return self.loss_scale_value

    def construct(self, loss_scale, overflow):
        scale = float(loss_scale.asnumpy().reshape(-1)[0])
        step = int(self.cur_iter.asnumpy()[0])
        if bool(overflow.asnumpy()):
            scale = max(scale / self.scale_factor, 1.0)
            self.last_overflow_iter.set_data(Tensor(np.array([step], np.int32)))
        elif step - int(self.last_overflow_iter.asnumpy()[0]) >= self.scale_window:
            scale *= self.scale_factor
            self.last_overflow_iter.set_data(Tensor(np.array([step], np.int32)))
        loss_scale.set_data(Tensor(np.array(scale, loss_scale.dtype.np).reshape(loss_scale.shape)))
        self.cur_iter.set_data(Tensor(np.array([step + 1], np.int32)))
        return overflow


class FixedLossScaleUpdateCell(Cell):
    def __init__(self, loss_scale_value):
        super().__init__()
        self.loss_scale_value = float(_positive("FixedLossScaleUpdateCell", "loss_scale_value",
                                                loss_scale_value))

    def get_loss_scale(self):
        return self.loss_scale_value

    def construct(self, loss_scale, overflow):
        return overflow


class TrainOneStepWithLossScaleCell(Cell):
    """network returns the loss; scale_sense: a Tensor (a fixed scale) or an update cell."""

    def __init__(self, network, optimizer, scale_sense):
        super().__init__(auto_prefix=False)
        if not isinstance(network, Cell) or not isinstance(optimizer, Optimizer):
            raise TypeError("For 'TrainOneStepWithLossScaleCell', 'network' must be a Cell and "
                            "'optimizer' an nn.Optimizer")
        self.network, self.optimizer = network, optimizer
        self.weights = optimizer.parameters
        self.loss_scaling_manager = None
        if isinstance(scale_sense, Cell):
            self.loss_scaling_manager = scale_sense
            value = scale_sense.get_loss_scale()
        elif isinstance(scale_sense, Tensor) and scale_sense.size == 1:
            value = float(scale_sense.asnumpy().reshape(-1)[0])
        else:
            raise TypeError("For 'TrainOneStepWithLossScaleCell', 'scale_sense' must be a "
                            "Tensor of one element or a loss-scale update Cell, but got "
                            f"{type(scale_sense).__name__}")
        self.scale_sense = Parameter(Tensor(np.array(value, np.float32)), name="scale_sense",
                                     requires_grad=False)
        self.grad_fn = value_and_grad(lambda *a: self.network(*a) * self._scale(), None,
                                      self.weights)

    def _scale(self):
        return float(self.scale_sense.asnumpy())

    def set_sense_scale(self, sens):
        self.scale_sense.set_data(Tensor(np.array(float(sens.asnumpy()), np.float32)))

    def construct(self, *inputs):
        scale = self._scale()
        scaled_loss, grads = self.grad_fn(*inputs)
        loss = scaled_loss / scale
        grads = tuple(g / scale for g in grads)
        overflow = not all(bool(np.isfinite(g.asnumpy()).all()) for g in grads)
        cond = Tensor(np.array(overflow))
        if self.loss_scaling_manager is not None:
            cond = self.loss_scaling_manager(self.scale_sense, cond)
        if not bool(cond.asnumpy()):
            self.optimizer(grads)
        return loss, cond, ops.cast(Tensor(np.float32(scale)), self.scale_sense.dtype)
