"""Training wrappers (mindspore.nn.wrap.cell_wrapper): WithLossCell, WithEvalCell,
TrainOneStepCell.

TrainOneStepCell runs one training step eagerly: value_and_grad of the network with respect
to the optimizer's parameters (ops/composite.py), then optimizer(grads); it returns the loss.
The wrappers do not add a prefix to parameter names (auto_prefix=False), as MindSpore.
"""
import numbers

from ... import ops
from ...common.tensor import Tensor
from ...ops.composite import value_and_grad
from ..cell import Cell
from ..optim.optimizer import Optimizer
from .grad_reducer import reducer_for

__all__ = ["TrainOneStepCell", "WithEvalCell", "WithLossCell"]


def _check_cell(cls, name, value):
    if not isinstance(value, Cell):
        raise TypeError(f"For '{cls}', '{name}' must be a Cell, but got {type(value).__name__}")


class WithLossCell(Cell):
    """loss_fn(backbone(data), label)."""

    def __init__(self, backbone, loss_fn):
        super().__init__(auto_prefix=False)
        _check_cell("WithLossCell", "backbone", backbone)
        if not callable(loss_fn):
            raise TypeError(f"For 'WithLossCell', 'loss_fn' must be a Cell or callable, but got "
                            f"{type(loss_fn).__name__}")
        self._backbone = backbone
        self._loss_fn = loss_fn

    def construct(self, data, label):
        return self._loss_fn(self._backbone(data), label)

    @property
    def backbone_network(self):
        return self._backbone


class WithEvalCell(Cell):
    """(loss_fn(network(data), label), network(data), label) for evaluation."""

    def __init__(self, network, loss_fn, add_cast_fp32=False):
        super().__init__(auto_prefix=False)
        _check_cell("WithEvalCell", "network", network)
        self._network = network
        self._loss_fn = loss_fn
        self.add_cast_fp32 = add_cast_fp32

    def construct(self, data, label):
        outputs = self._network(data)
        if self.add_cast_fp32:
            from ...common import dtype as mstype
            outputs = ops.Cast()(outputs, mstype.float32)
        return self._loss_fn(outputs, label), outputs, label


class TrainOneStepCell(Cell):
    """One step: loss, grads = value_and_grad(network, weights=optimizer.parameters)(*inputs);
    grads are scaled by `sens` (None means 1.0); optimizer(grads); returns the loss (and a
    {parameter name: gradient} dict too with return_grad=True)."""

    def __init__(self, network, optimizer, sens=None, return_grad=False):
        super().__init__(auto_prefix=False)
        _check_cell("TrainOneStepCell", "network", network)
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"For 'TrainOneStepCell', 'optimizer' must be an nn.Optimizer, but "
                            f"got {type(optimizer).__name__}")
        if sens is not None and (isinstance(sens, bool) or not isinstance(sens, numbers.Number)):
            raise TypeError(f"For 'TrainOneStepCell', 'sens' must be a number or None, but got "
                            f"{type(sens).__name__}")
        if not isinstance(return_grad, bool):
            raise TypeError(f"For 'TrainOneStepCell', 'return_grad' must be a bool, but got "
                            f"{type(return_grad).__name__}")
        self.network = network
        self.network.set_grad()
        self.optimizer = optimizer
        self.weights = optimizer.parameters
        self.sens = 1.0 if sens is None else float(sens)
        self.return_grad = return_grad
        self.grad_fn = value_and_grad(self.network, None, self.weights)
        self.grad_reducer = reducer_for(self.weights)     # DATA_PARALLEL: reduce across ranks
        self.reducer_flag = self.grad_reducer is not None

    def _call(self, args, kwargs, eager=False):
        # the gradient reduction is host code around MPI: under GRAPH_MODE the step runs
        # eagerly and the network (forward and backward) is still compiled
        return Cell._call(self, args, kwargs, eager=eager or self.reducer_flag)

    def construct(self, *inputs):
        loss, grads = self.grad_fn(*inputs)
        if not isinstance(loss, Tensor):
            raise TypeError("For 'TrainOneStepCell', the network must return one Tensor (the "
                            f"loss), but got {type(loss).__name__}")
        if self.sens != 1.0:
            grads = tuple(ops.mul(g, self.sens) for g in grads)
        if self.reducer_flag:
            grads = self.grad_reducer(grads)
        self.optimizer(grads)
        if self.return_grad:
            return loss, {p.name: g for p, g in zip(self.weights, grads)}
        return loss
