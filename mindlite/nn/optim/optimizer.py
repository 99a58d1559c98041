"""nn.Optimizer: the base of SGD, Momentum, Adam, AdamWeightDecay (mindspore.nn.Optimizer).

`Optimizer(learning_rate, parameters, weight_decay=0.0, loss_scale=1.0)`:
- parameters: Parameters, or groups (dicts with 'params' and optional 'lr', 'weight_decay';
  a dict with 'order_params' fixes the order). `self.parameters` is the ParameterTuple.
- learning_rate: a float (constant, kept as the float32 Parameter "learning_rate"), a list /
  1-D Tensor (the i-th step uses the i-th value; steps past the end keep the last one), or a
  LearningRateSchedule called with the global step.
- weight_decay: added to the gradient of parameters without 'beta' or 'gamma' in their
  names (as MindSpore; a group's own weight_decay applies to all its parameters).
- loss_scale: gradients are divided by it.
`opt(grads)` takes one gradient per parameter, in order; every gradient is checked before
any update, so a bad call changes nothing. It returns True. State (moments...) lives in
Parameters named `<prefix>.<parameter name>`, registered on the optimizer cell.
"""
import functools
import inspect
import numbers

import numpy as np

from ... import ops
from ...common import dtype as mstype
from ...common.parameter import Parameter, ParameterTuple
from ...common.tensor import Tensor
from ..cell import Cell
from ..learning_rate_schedule import LearningRateSchedule

__all__ = ["Optimizer", "opt_init_args_register"]


def opt_init_args_register(fn):
    """Decorates an optimizer's __init__ to record its arguments, as MindSpore's: `init_params`
    ({'params': ...}, from 'params' or a wrapped 'optimizer'), `init_learning_rate` (a list for
    a Tensor, None for a schedule Cell) and `init_args` (the rest, defaults applied); set
    before the decorated __init__ (and so Cell.__init__) runs."""
    sig = inspect.signature(fn)

    @functools.wraps(fn)
    def deco(self, *args, **kwargs):
        arguments = sig.bind(self, *args, **kwargs)
        arguments.apply_defaults()
        arguments = dict(arguments.arguments)
        arguments.pop("self")
        if "params" in arguments:
            object.__setattr__(self, "init_params", {"params": arguments.pop("params")})
        if "optimizer" in arguments:
            object.__setattr__(self, "init_params",
                               {"params": arguments.pop("optimizer").init_params["params"]})
        if "learning_rate" in arguments:
            lr = arguments.pop("learning_rate")
            if isinstance(lr, Tensor):
                lr = lr.asnumpy().tolist()
            object.__setattr__(self, "init_learning_rate", None if isinstance(lr, Cell) else lr)
        object.__setattr__(self, "init_args", arguments)   # before Cell.__init__ runs
        fn(self, *args, **kwargs)
    return deco


def _check_nonneg_float(cls, name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"For '{cls}', '{name}' must be a float, but got "
                        f"{type(value).__name__}: {value!r}")
    if value < 0:
        raise ValueError(f"For '{cls}', '{name}' must be >= 0, but got {value}")
    return float(value)


def check_gradient_list(cls, parameters, gradients, exact=True):
    """The one check of the gradients an optimizer `cls` of `parameters` is given (nn's
    optimizers, their graph-mode step jit/ad/step.py, experimental.optim): a tuple or list of one
    Tensor per parameter with the parameter's shape and, when `exact`, its dtype; TypeError or
    ValueError naming the optimizer and the parameter. exact=False (experimental.optim, which
    casts): a non-Tensor or a misshaped gradient is one ValueError. Returns a tuple."""
    if not isinstance(gradients, (tuple, list)):
        raise TypeError(f"For '{cls}', 'gradients' must be a tuple of Tensors, but got "
                        f"{type(gradients).__name__}")
    if len(gradients) != len(parameters):
        raise ValueError(f"For '{cls}', expected {len(parameters)} gradients (one per "
                         f"parameter), but got {len(gradients)}")
    for p, g in zip(parameters, gradients):
        if not exact:
            if not isinstance(g, Tensor) or g.shape != p.shape:
                raise ValueError(f"For '{cls}', the gradient of '{p.name}' must be a Tensor of "
                                 f"shape {list(p.shape)}, but got "
                                 f"{getattr(g, 'shape', type(g).__name__)}")
        elif not isinstance(g, Tensor):
            raise TypeError(f"For '{cls}', the gradient of '{p.name}' must be a Tensor, but "
                            f"got {type(g).__name__}")
        elif g.shape != p.shape:
            raise ValueError(f"For '{cls}', the gradient of '{p.name}' must have shape "
                             f"{list(p.shape)}, but got {list(g.shape)}")
        elif g.dtype is not p.dtype:
            raise TypeError(f"For '{cls}', the gradient of '{p.name}' must have dtype "
                            f"{p.dtype}, but got {g.dtype}")
    return tuple(gradients)


class Optimizer(Cell):
    """Base class; subclasses implement construct(gradients)."""

    def __init__(self, learning_rate, parameters, weight_decay=0.0, loss_scale=1.0):
        super().__init__(auto_prefix=False)
        cls = type(self).__name__
        self._cls = cls
        if isinstance(loss_scale, bool) or not isinstance(loss_scale, numbers.Real):
            raise TypeError(f"For '{cls}', 'loss_scale' must be a float, but got "
                            f"{type(loss_scale).__name__}")
        if loss_scale <= 0:
            raise ValueError(f"For '{cls}', 'loss_scale' must be > 0, but got {loss_scale}")
        self.loss_scale = float(loss_scale)
        self.weight_decay = _check_nonneg_float(cls, "weight_decay", weight_decay)
        params, lrs, decays, self.is_group = self._parse_params(parameters, learning_rate)
        self._parameters = ParameterTuple(params)
        self.parameters = self._parameters
        self.is_group_lr = len(set(map(id, lrs))) > 1
        sources = {}
        for lr in lrs:
            if id(lr) not in sources:
                name = "learning_rate" if not sources else f"learning_rate_group_{len(sources)}"
                sources[id(lr)] = self._lr_source(lr, name)
        self._lr_sources = [sources[id(lr)] for lr in lrs]
        self.dynamic_lr = any(kind != "const" for kind, _ in self._lr_sources)
        self.learning_rate = self._lr_sources[0][1]
        self._decays = tuple(decays)
        self.exec_weight_decay = any(d > 0 for d in decays)
        self.global_step = Parameter(np.zeros((1,), np.int32), name="global_step",
                                     requires_grad=False)

    # ---- construction helpers ------------------------------------------------------------
    def _parse_params(self, parameters, learning_rate):
        cls = self._cls
        if isinstance(parameters, Parameter):
            parameters = [parameters]
        try:
            items = list(parameters)
        except TypeError:
            raise TypeError(f"For '{cls}', 'params' must be a list of Parameters or of dicts, "
                            f"but got {type(parameters).__name__}") from None
        if not items:
            raise ValueError(f"For '{cls}', 'params' must not be empty")
        if all(isinstance(p, Parameter) for p in items):
            groups, is_group = [{"params": items}], False
        elif all(isinstance(g, dict) for g in items):
            groups, is_group = items, True
        else:
            bad = next(p for p in items if not isinstance(p, (Parameter, dict)))
            raise TypeError(f"For '{cls}', every element of 'params' must be a Parameter or a "
                            f"dict, but got {type(bad).__name__}")
        order, params, lrs, decays = None, [], [], []
        for g in groups:
            if "order_params" in g:
                order = list(g["order_params"])
                continue
            if "params" not in g:
                raise ValueError(f"For '{cls}', every parameter group must have the key "
                                 f"'params', but got keys {sorted(g)}")
            lr = g.get("lr", learning_rate)
            wd = _check_nonneg_float(cls, "weight_decay", g.get("weight_decay",
                                                                 self.weight_decay))
            for p in g["params"]:
                if not isinstance(p, Parameter):
                    raise TypeError(f"For '{cls}', the 'params' of a group must be Parameters, "
                                    f"but got {type(p).__name__}")
                if any(p is q for q in params):
                    raise ValueError(f"For '{cls}', the parameter '{p.name}' is given more than "
                                     f"once")
                decayed = ("weight_decay" in g) or ("beta" not in p.name and "gamma" not in p.name)
                params.append(p)
                lrs.append(lr)
                decays.append(wd if decayed else 0.0)
        if order is not None:
            index = {id(p): i for i, p in enumerate(params)}
            if len(order) != len(params) or any(id(p) not in index for p in order):
                raise ValueError(f"For '{cls}', 'order_params' must hold exactly the grouped "
                                 f"parameters")
            perm = [index[id(p)] for p in order]
            params, lrs, decays = ([seq[i] for i in perm] for seq in (params, lrs, decays))
        return params, lrs, decays, is_group

    def _lr_source(self, lr, name):
        cls = self._cls
        if isinstance(lr, LearningRateSchedule):
            return "schedule", lr
        if isinstance(lr, Tensor):
            values = lr.asnumpy()
            if values.dtype.kind not in "iuf" or values.ndim > 1:
                raise TypeError(f"For '{cls}', a Tensor 'learning_rate' must be a float scalar or "
                                f"1-D, but got shape {list(values.shape)} dtype {lr.dtype}")
        elif isinstance(lr, numbers.Real) and not isinstance(lr, bool):
            values = np.asarray(lr)
        elif isinstance(lr, (list, tuple)):
            if not lr or not all(isinstance(v, numbers.Real) and not isinstance(v, bool)
                                 for v in lr):
                raise TypeError(f"For '{cls}', a list 'learning_rate' must be a non-empty list "
                                f"of floats, but got {lr!r}")
            values = np.asarray(lr)
        else:
            raise TypeError(f"For '{cls}', 'learning_rate' must be a float, int, Tensor, list or "
                            f"LearningRateSchedule, but got {type(lr).__name__}")
        if values.size == 0 or (values < 0).any():
            raise ValueError(f"For '{cls}', 'learning_rate' must be >= 0 (and non-empty), but "
                             f"got {values.tolist()}")
        values = values.astype(np.float32)
        param = Parameter(values, name=name, requires_grad=False)
        setattr(self, name, param)
        return ("const" if values.ndim == 0 else "list"), param

    def clone_state(self, prefix, init="zeros"):
        """A ParameterTuple of new state Parameters `<prefix>.<name>`, one per parameter,
        shaped and typed like it, filled with zeros or ones; registered on this cell."""
        fill = np.zeros if init == "zeros" else np.ones
        out = []
        for p in self._parameters:
            state = Parameter(fill(p.shape, p.dtype.np), name=f"{prefix}.{p.name}",
                              requires_grad=False)
            key = state.name
            while key in self._params:
                key += "_"
            self.insert_param_to_cell(key, state)
            out.append(state)
        return ParameterTuple(out)

    # ---- per-step helpers ------------------------------------------------------------------
    def _lr_at(self, source, step):
        kind, obj = source
        if kind == "const":
            return obj
        if kind == "list":
            arr = obj.asnumpy()
            i = min(step, arr.shape[0] - 1)
            return Tensor.from_numpy(arr[i:i + 1].reshape(()))
        return obj(self.global_step)

    def get_lr(self):
        """The learning rate of this step (one Tensor, or a tuple per parameter for group
        learning rates); advances the global step."""
        step = int(self.global_step.asnumpy().reshape(-1)[0])
        if self.is_group_lr:
            cache = {}
            lr = tuple(cache.setdefault(id(s), self._lr_at(s, step)) for s in self._lr_sources)
        else:
            lr = self._lr_at(self._lr_sources[0], step)
        self.global_step.asnumpy()[...] += 1
        return lr

    def get_lr_parameter(self, param):
        """The learning-rate Parameter or schedule of `param` (a list for a list)."""
        if isinstance(param, (list, tuple)):
            return [self.get_lr_parameter(p) for p in param]
        for p, src in zip(self._parameters, self._lr_sources):
            if p is param:
                return src[1]
        raise ValueError(f"For '{self._cls}', the parameter '{getattr(param, 'name', param)}' is "
                         f"not optimised by this optimizer")

    def check_gradients(self, gradients):
        """gradients: one Tensor per parameter with its shape; returns them as a tuple."""
        gradients = check_gradient_list(self._cls, self._parameters, gradients)
        for p in self._parameters:
            if p._arr is None:
                p.init_data()
        return gradients

    def scale_grad(self, gradients):
        if self.loss_scale == 1.0:
            return gradients
        inv = 1.0 / self.loss_scale
        return tuple(ops.mul(g, inv) for g in gradients)

    def decay_weight(self, gradients):
        if not self.exec_weight_decay:
            return gradients
        return tuple(ops.add(g, ops.mul(p, d)) if d > 0 else g
                     for p, g, d in zip(self._parameters, gradients, self._decays))

    def lr_per_param(self, lr):
        return lr if self.is_group_lr else (lr,) * len(self._parameters)

    @property
    def target(self):
        """Where the update runs: always 'CPU' here (MindSpore's 'CPU' / 'Ascend' / 'GPU')."""
        return "CPU"

    @target.setter
    def target(self, value):
        raise NotImplementedError(f"'{self._cls}' does not choose where its update runs; "
                                  f"mindlite updates on the CPU")

    def construct(self, gradients):
        raise NotImplementedError(f"'{self._cls}' must define construct(gradients)")


def float_param(value, name):
    """A float32 scalar hyper-parameter Parameter (momentum, beta powers...)."""
    return Parameter(np.asarray(value, dtype=mstype.float32.np), name=name, requires_grad=False)
