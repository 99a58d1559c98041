"""Gradient accumulation (mindspore.boost.grad_accumulation): GradientAccumulation adds each
step's gradients, divided by max_accumulation_step, into zero-initialised copies of the
optimizer's parameters and runs the optimizer on the sums every max_accumulation_step steps,
then zeroes them (MindSpore 2.10's cell and its two MultitypeFuncGraph ops, which
subclasses such as mindcv's reuse).
"""
import numbers

from ..common import dtype as mstype
from ..common.parameter import Parameter
from ..common.tensor import Tensor
from ..nn.cell import Cell
from ..ops import functional as F
from ..ops.multitype import HyperMap, MultitypeFuncGraph
from ..ops.operations import creation_ops

__all__ = ["GradientAccumulation", "gradient_accumulation_op", "gradient_clear_op"]

gradient_accumulation_op = MultitypeFuncGraph("gradient_accumulation_op")
gradient_clear_op = MultitypeFuncGraph("gradient_clear_op")
_assign_add = creation_ops.AssignAdd()
_zeros_like = creation_ops.ZerosLike()


@gradient_accumulation_op.register("Int64", "Tensor", "Tensor")
def cumulative_grad_process(accumulation_step, cumulative_grad, grad):
    """cumulative_grad += grad / accumulation_step (in place)."""
    _assign_add(cumulative_grad, grad / accumulation_step)
    return cumulative_grad


@gradient_clear_op.register("Tensor")
def clear_grad(cumulative_grad):
    """cumulative_grad = 0 (in place)."""
    return F.assign(cumulative_grad, _zeros_like(cumulative_grad))


class GradientAccumulation(Cell):
    """GradientAccumulation(max_accumulation_step, optimizer); construct(loss, grads) ->
    loss, updating the parameters every max_accumulation_step calls."""

    def __init__(self, max_accumulation_step, optimizer):
        super().__init__()
        if not isinstance(max_accumulation_step, numbers.Integral) or \
                isinstance(max_accumulation_step, bool) or max_accumulation_step < 1:
            raise ValueError(f"For 'GradientAccumulation', 'max_accumulation_step' must be an "
                             f"int >= 1, but got {max_accumulation_step!r}")
        self._max_accumulation_step = int(max_accumulation_step)
        self.optimizer = optimizer
        self.weights = optimizer.parameters
        self.hyper_map = HyperMap()
        self._grad_accumulation = self.weights.clone(prefix="grad_accumulation", init="zeros")
        self._accumulation_step = Parameter(Tensor(0, dtype=mstype.int32),
                                            name="accumulation_step")

    def construct(self, loss, grads):
        loss = F.depend(loss, self.hyper_map(F.partial(gradient_accumulation_op,
                                                       self._max_accumulation_step),
                                             self._grad_accumulation, grads))
        self._accumulation_step += 1
        if self._accumulation_step >= self._max_accumulation_step:
            loss = F.depend(loss, self.optimizer(self._grad_accumulation))
            F.assign(self._accumulation_step, 0)
        if self._accumulation_step == 0:
            loss = F.depend(loss, self.hyper_map(F.partial(gradient_clear_op),
                                                 self._grad_accumulation))
        return loss
