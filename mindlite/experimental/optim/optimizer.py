"""The base of the experimental (PyTorch-style) optimizers.

`Optimizer(params, defaults)`: params are Parameters or dicts of groups ({"params": [...],
"lr": ..., ...}); each group gets the defaults it does not set, its "lr" becomes a float32
Parameter (schedulers assign to it), and `param_groups` lists the groups. `state_step` counts
steps (an int32 Parameter, 1 during the first step). `opt(grads)` checks every gradient before
any update (a bad call changes nothing), then runs `step_group(group, params, grads, states)`
per group, which subclasses write with ops and Assign.
"""
import numbers

import numpy as np

from ... import ops
from ...common.parameter import Parameter
from ...common.tensor import Tensor
from ...nn.cell import Cell
from ...nn.optim.optimizer import check_gradient_list

__all__ = ["Optimizer"]


def check_range(cls, name, value, low, high=None, low_open=False):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"For '{cls}', '{name}' must be a float, but got "
                        f"{type(value).__name__}: {value!r}")
    if value < low or (low_open and value == low) or (high is not None and value >= high):
        raise ValueError(f"For '{cls}', invalid '{name}' value: {value}")
    return value


class Optimizer(Cell):
    """Base class; subclasses define step_group(group, params, grads)."""

    def __init__(self, params, defaults):
        super().__init__(auto_prefix=False)
        cls = type(self).__name__
        self._cls = cls
        if isinstance(params, Parameter):
            raise TypeError(f"For '{cls}', 'params' must be a list of Parameters or of dicts, "
                            "but got one Parameter")
        groups = list(params)
        if not groups:
            raise ValueError(f"For '{cls}', 'params' must not be empty")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        self.defaults = defaults
        self.param_groups = []
        self.parameters = []
        for i, g in enumerate(groups):
            self._add_group(i, dict(g))
        self.state_step = Parameter(Tensor(np.array([0], np.int32)), name="state_step",
                                    requires_grad=False)

    def _add_group(self, index, group):
        cls = self._cls
        params = group.get("params")
        if isinstance(params, Parameter):
            params = [params]
        params = list(params or [])
        if not params or not all(isinstance(p, Parameter) for p in params):
            raise TypeError(f"For '{cls}', each group's 'params' must be a non-empty list of "
                            "Parameters")
        for p in params:
            if any(p is q for q in self.parameters):
                raise ValueError(f"For '{cls}', the parameter '{p.name}' is in more than one "
                                 "group")
        for key, value in self.defaults.items():
            group.setdefault(key, value)
        lr = group["lr"]
        if isinstance(lr, Parameter):
            lr_param = lr
        else:
            check_range(cls, "lr", float(lr.asnumpy()) if isinstance(lr, Tensor) else lr, 0.0)
            lr_param = Parameter(Tensor(np.float32(float(lr.asnumpy()) if isinstance(lr, Tensor)
                                                   else lr)),
                                 name=f"learning_rate_group_{index}", requires_grad=False)
        self.insert_param_to_cell(f"learning_rate_group_{index}", lr_param)
        group["lr"] = lr_param
        group.setdefault("initial_lr", float(lr_param.asnumpy()))
        group["params"] = params
        self.param_groups.append(group)
        self.parameters.extend(params)

    def state(self, prefix, init=0.0):
        """One zero (or `init`) state Parameter per parameter, named `<prefix>.<name>`."""
        out = []
        for p in self.parameters:
            s = Parameter(Tensor(np.full(p.shape, init, p.dtype.np)), name=f"{prefix}.{p.name}",
                          requires_grad=False)
            self.insert_param_to_cell(s.name.replace(".", "_"), s)
            out.append(s)
        return out

    def _check(self, gradients):
        check_gradient_list(self._cls, self.parameters, gradients, exact=False)

    def construct(self, gradients):
        self._check(gradients)
        ops.assign_add(self.state_step, Tensor(np.array([1], np.int32)))
        start = 0
        for group in self.param_groups:
            n = len(group["params"])
            grads = tuple(gradients[start:start + n])
            if group.get("maximize"):
                grads = tuple(ops.neg(g) for g in grads)
            self.step_group(group, start, grads)
            start += n
        return True

    def step_count(self):
        return int(self.state_step.asnumpy()[0])

    def step_group(self, group, start, grads):
        raise NotImplementedError(f"'{self._cls}' must define step_group")
