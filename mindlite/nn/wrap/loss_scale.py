"""Loss scaling for mixed-precision training (mindspore.nn): DynamicLossScaleUpdateCell,
FixedLossScaleUpdateCell and TrainOneStepWithLossScaleCell; what amp.build_train_network and
train.Model build when a loss-scale manager has an update cell.

A step computes the loss and the gradients of loss * scale (the scale cast to the loss's dtype,
as MindSpore's sensitivity `ones_like(loss) * scale`), divides the gradients by the scale, and
checks them: if any is inf or nan (an overflow) the optimizer is skipped. The update cell then
adjusts the scale Parameter `scale_sense`: a dynamic one divides it by scale_factor after an
overflow (never below 1) and multiplies it by scale_factor after scale_window steps without
one. The step returns (loss, overflow, scale), as MindSpore's. Under DATA_PARALLEL the
unscaled gradients pass TrainOneStepCell's gradient reducer before the check, so every rank
sees the same overflow. The overflow decision is host control flow, so the step and the update
cells run eagerly under GRAPH_MODE (the network below compiles unless it holds float16 cells).
"""
import numbers

import numpy as np

from ... import ops
from ...common.parameter import Parameter
from ...common.tensor import Tensor
from ...ops.composite import GradOperation, value_and_grad
from ..cell import Cell
from .cell_wrapper import TrainOneStepCell

__all__ = ["DynamicLossScaleUpdateCell", "FixedLossScaleUpdateCell",
           "TrainOneStepWithLossScaleCell"]


def _positive(cls, name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or value <= 0:
        raise ValueError(f"For '{cls}', '{name}' must be a number > 0, but got {value!r}")
    return value


def _flag(value):
    return bool(np.asarray(value.asnumpy() if isinstance(value, Tensor) else value).all())


class _EagerCell(Cell):
    """A cell whose construct is host control flow: it runs eagerly under GRAPH_MODE too."""

    def _call(self, args, kwargs, eager=False):
        return Cell._call(self, args, kwargs, eager=True)


class DynamicLossScaleUpdateCell(_EagerCell):
    """update(loss_scale, overflow): after an overflow, loss_scale = max(loss_scale /
    scale_factor, 1); after scale_window steps since the last overflow or growth, loss_scale *=
    scale_factor. Writes the new value into the `loss_scale` Parameter; returns overflow."""

    def __init__(self, loss_scale_value, scale_factor, scale_window):
        super().__init__()
        self.loss_scale_value = _positive("DynamicLossScaleUpdateCell", "loss_scale_value",
                                          loss_scale_value)
        self.scale_factor = _positive("DynamicLossScaleUpdateCell", "scale_factor", scale_factor)
        if isinstance(scale_window, bool) or not isinstance(scale_window, int) or scale_window < 1:
            raise ValueError(f"For 'DynamicLossScaleUpdateCell', 'scale_window' must be a "
                             f"positive int, but got {scale_window!r}")
        self.scale_window = scale_window
        self.cur_iter = Parameter(Tensor(np.array(1, np.int32)), name="current_iterator_step",
                                  requires_grad=False)
        self.last_overflow_iter = Parameter(Tensor(np.array(0, np.int32)),
                                            name="last_overflow_iterator_step",
                                            requires_grad=False)

    def get_loss_scale(self):
        return self.loss_scale_value

    def construct(self, loss_scale, overflow):
        if not isinstance(loss_scale, Parameter):
            raise TypeError("For 'DynamicLossScaleUpdateCell', 'loss_scale' must be the scale "
                            f"Parameter to update, but got {type(loss_scale).__name__}")
        # float32 arithmetic, as MindSpore's ops: scale * reciprocal(factor), scale * factor
        scale = np.float32(loss_scale.asnumpy().reshape(-1)[0])
        factor = np.float32(self.scale_factor)
        step = int(self.cur_iter.asnumpy())
        overflowed = _flag(overflow)
        grow = step - int(self.last_overflow_iter.asnumpy()) >= self.scale_window
        if overflowed:
            scale = max(scale * np.reciprocal(factor), np.float32(1.0))
        elif grow:
            scale = scale * factor
        if overflowed or grow:
            self.last_overflow_iter.set_data(Tensor(np.array(step, np.int32)))
        loss_scale.set_data(Tensor(np.full(loss_scale.shape, scale, loss_scale.dtype.np)))
        self.cur_iter.set_data(Tensor(np.array(step + 1, np.int32)))
        return overflow


class FixedLossScaleUpdateCell(_EagerCell):
    """A scale that never changes; update(loss_scale, overflow) returns overflow."""

    def __init__(self, loss_scale_value):
        super().__init__()
        self.loss_scale_value = _positive("FixedLossScaleUpdateCell", "loss_scale_value",
                                          loss_scale_value)

    def get_loss_scale(self):
        return self.loss_scale_value

    def construct(self, loss_scale, overflow):
        return overflow


class TrainOneStepWithLossScaleCell(TrainOneStepCell):
    """network returns the loss; scale_sense: a Tensor of shape () or (1,) (a scale changed
    only by set_sense_scale) or an update Cell (DynamicLossScaleUpdateCell /
    FixedLossScaleUpdateCell, whose get_loss_scale() is the initial value)."""

    def __init__(self, network, optimizer, scale_sense):
        super().__init__(network, optimizer, sens=None)
        self.loss_scaling_manager = None
        if isinstance(scale_sense, Cell):
            if not hasattr(scale_sense, "get_loss_scale"):
                raise TypeError("For 'TrainOneStepWithLossScaleCell', a Cell 'scale_sense' must "
                                "be a loss-scale update cell with get_loss_scale(), but got "
                                f"{type(scale_sense).__name__}")
            self.loss_scaling_manager = scale_sense
            value = Tensor(np.array(scale_sense.get_loss_scale(), np.float32))
        elif isinstance(scale_sense, Tensor):
            if scale_sense.shape not in ((), (1,)):
                raise ValueError("For 'TrainOneStepWithLossScaleCell', the shape of "
                                 f"'scale_sense' must be (1,) or (), but got {scale_sense.shape}")
            value = Tensor(scale_sense.asnumpy().copy())
        else:
            raise TypeError("For 'TrainOneStepWithLossScaleCell', the 'scale_sense' must be Cell "
                            f"or Tensor, but got 'scale_sense' type: {type(scale_sense)}")
        self.scale_sense = Parameter(value, name="scale_sense", requires_grad=False)
        self.grad_fn = value_and_grad(self._scaled_loss, None, self.weights, has_aux=True)
        # what MindSpore's subclasses (custom loss-scaled steps) call with an explicit sens
        self.grad = GradOperation(get_by_list=True, sens_param=True)

    _call = _EagerCell._call

    def _scaled_loss(self, *inputs):
        loss = self.network(*inputs)
        if not isinstance(loss, Tensor):
            raise TypeError("For 'TrainOneStepWithLossScaleCell', the network must return one "
                            f"Tensor (the loss), but got {type(loss).__name__}")
        scale = ops.reshape(ops.cast(self.scale_sense, loss.dtype), ())
        return loss * scale, loss

    def set_sense_scale(self, sens):
        """Set a new loss scale (a Tensor of the scale's shape)."""
        if not isinstance(sens, Tensor):
            raise TypeError("For 'TrainOneStepWithLossScaleCell', the type of 'sens' must be "
                            f"Tensor, but got {type(sens)}")
        self.scale_sense.set_data(Tensor(np.asarray(sens.asnumpy(), self.scale_sense.dtype.np)
                                         .reshape(self.scale_sense.shape)))

    def start_overflow_check(self, pre_cond, compute_input):
        """-> (status, compute_input): the status buffer get_overflow_status takes (the CPU
        checks the gradients' values, so the buffer holds no flags)."""
        return Tensor(np.zeros(8, np.int32)), compute_input

    def get_overflow_status(self, status, compute_output):
        """A bool Tensor: some Tensor in compute_output holds an inf or a nan."""
        seq = compute_output if isinstance(compute_output, (tuple, list)) else (compute_output,)
        overflow = not all(bool(np.isfinite(t.asnumpy()).all()) for t in seq)
        return Tensor(np.array(overflow))

    def process_loss_scale(self, overflow):
        """Let the update cell adjust the scale; -> overflow."""
        if self.loss_scaling_manager is None:
            return overflow
        return self.loss_scaling_manager(self.scale_sense, overflow)

    def construct(self, *inputs):
        status = self.start_overflow_check(None, None)[0]
        # NOTE: an overflow is an expected, handled outcome here: numpy's warnings are silenced
        with np.errstate(over="ignore", invalid="ignore"):
            (_, loss), grads = self.grad_fn(*inputs)
            inv = 1.0 / float(self.scale_sense.asnumpy().reshape(-1)[0])
            grads = tuple(g * ops.cast(Tensor(np.float32(inv)), g.dtype) for g in grads)
        if self.reducer_flag:              # DATA_PARALLEL: an inf or nan on any rank reaches all
            grads = self.grad_reducer(grads)
        cond = self.get_overflow_status(status, grads)
        overflow = self.process_loss_scale(cond)
        if not _flag(overflow):
            self.optimizer(grads)
        return loss, cond, Tensor(self.scale_sense.asnumpy().copy())
