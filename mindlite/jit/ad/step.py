"""Whole training steps in one graph: graph versions of the optimizer helpers that look at
data or keep Python state in eager mode (issue 12 §2).

    Optimizer.check_gradients   eager's checks on the gradients' abstracts (count, shape,
                                dtype), at compile time; no `_arr` look (graph parameters
                                are initialised when they become graph parameters)
    Optimizer.get_lr            the learning rate as graph values (a constant's Parameter, a
                                list's entry gathered at the global step, a schedule parsed
                                with the global step), then AssignAdd(global_step, 1): the
                                step advances inside the graph, in statement order
    Adam.construct              the beta powers advance by Assign inside the graph
The parser calls these in place of the eager methods (parse_grad.special_call), so
`TrainOneStepCell(WithLossCell(net, loss), opt)` under GRAPH_MODE, or a @jit step that
calls value_and_grad and then the optimizer, compiles forward, backward and the in-place
Parameter updates (ApplyMomentum, Adam, ...: side-effect nodes) into one graph.
"""
import numpy as np

from ...common.tensor import Tensor
from ...ops.operations.array_ops import Reshape
from ...ops.operations.slice_ops import Gather
from ...ops.operations.creation_ops import Assign, AssignAdd
from ...ops.operations.math_ops import Minimum, Mul
from ...nn.optim.optimizer import check_gradient_list

_assign_add, _gather, _minimum, _reshape = AssignAdd(), Gather(), Minimum(), Reshape()
_assign, _mul = Assign(), Mul()
_ONE = Tensor(np.ones((1,), np.int32))


def check_gradients(self, gradients):
    """Optimizer.check_gradients in graph mode (same errors, raised at compile time; the
    parameters' data exist already)."""
    return check_gradient_list(self._cls, self._parameters, gradients)


def _lr_at(self, source):
    kind, obj = source
    if kind == "const":
        return obj
    if kind == "list":
        last = obj.shape[0] - 1
        index = _minimum(self.global_step, last)
        return _reshape(_gather(obj, index, 0), ())
    return obj(self.global_step)


def get_lr(self):
    """Optimizer.get_lr in graph mode: this step's learning rate, then the step advances."""
    if self.is_group_lr:
        lrs = []
        for s in self._lr_sources:
            lrs.append(_lr_at(self, s))
        lr = tuple(lrs)
    else:
        lr = _lr_at(self, self._lr_sources[0])
    _assign_add(self.global_step, _ONE)
    return lr


def adam_construct(self, gradients):
    """Adam.construct in graph mode: the beta powers advance by Assign (eager multiplies
    their numpy buffers in place), then one Adam node per parameter."""
    grads = self.decay_weight(self.scale_grad(self.check_gradients(gradients)))
    lrs = self.lr_per_param(self.get_lr())
    _assign(self.beta1_power, _mul(self.beta1_power, self.beta1))
    _assign(self.beta2_power, _mul(self.beta2_power, self.beta2))
    opt, beta1, beta2, eps = self.opt, self.beta1, self.beta2, self.eps
    for p, m, v, lr, g in zip(self._parameters, self.moment1, self.moment2, lrs, grads):
        opt(p, m, v, self.beta1_power, self.beta2_power, lr, beta1, beta2, eps, g)
    return True


def graph_methods():
    """{eager method function: graph version}."""
    from ...nn.optim.adam import Adam
    from ...nn.optim.optimizer import Optimizer
    return {Optimizer.check_gradients: check_gradients, Optimizer.get_lr: get_lr,
            Adam.construct: adam_construct}
