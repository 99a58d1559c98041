"""Optimizer primitives (MindSpore's ApplyMomentum, SGD, Adam, AdamWeightDecay): each updates
its Parameter inputs IN PLACE and returns them (kernels write into the parameter's own array,
alloc="kernel"; kernels/cpu/optim_*.py), copied first when a view of them is alive
(copy-on-write, pynative/inplace.py).

Inference validates every input first (float dtypes; state and gradient with exactly the
variable's dtype and shape, since a cast copy could not be updated in place: a gradient of a
lower dtype is cast up to the variable's first, as MindSpore does, while a state, or a
gradient that would need the variable cast, is a TypeError; hyper-parameters
as Python floats or size-1 float tensors), so a failed call changes nothing. With the
`batch_rank` attribute k (MindSpore's, set by vmap) a hyper-parameter may also hold one value
per example: shape var.shape[:k] (the kernels of optim_adaptive_ops broadcast it). The kernels
compute in the variable's dtype (hyper-parameters are converted to it). None of these is
differentiable.
"""
from ...common import dtype as mstype
from ...common.tensor import Tensor
from ...common.api import PYNATIVE
from ...ir.rules import non_differentiable
from ...common.buffers import own_buffer
from ...ir.primitive import Primitive, prim_attr_register
from ..validator import check_bool, check_dtype, check_tensor

__all__ = ["SGD", "Adam", "AdamWeightDecay", "ApplyMomentum"]


def _check_float_attr(prim, name, value):
    if isinstance(value, bool) or not isinstance(value, (float, int)):
        raise TypeError(f"For '{prim.name}', '{name}' must be a float, but got "
                        f"{type(value).__name__}: {value!r}")
    return float(value)


class _ApplyBase(Primitive):
    """Inputs named in `state_inputs` (the variable first) are updated in place; `scalar_inputs`
    are hyper-parameters of size 1; `grad_input` is the gradient."""
    state_inputs = ()
    scalar_inputs = ()
    grad_input = None
    var_types = scalar_types = mstype.FLOAT_TYPES

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._state_pos = tuple(cls.input_names.index(n) for n in cls.state_inputs)
        cls.inplace_inputs = cls._state_pos   # what a compiled graph's step owns first
        # the gradient is promoted with the states (a lower dtype is cast up to the
        # variable's, as MindSpore's signature); a state is never cast (forward.py refuses)
        grad = (cls.input_names.index(cls.grad_input),) if cls.grad_input else ()
        cls.same_type_inputs = cls._state_pos + grad

    def __call__(self, *inputs):
        """Copy-on-write of the state inputs before the kernel writes them (views taken of a
        Parameter keep their values), and the writes logged for open grad calls."""
        n = len(inputs)
        states = [inputs[i] for i in self._state_pos if i < n and isinstance(inputs[i], Tensor)]
        for t in states:
            own_buffer(t)
        result = Primitive.__call__(self, *inputs)
        if PYNATIVE.grad.recording:
            for t in states:
                PYNATIVE.log_write(t, self.name)
        return result

    def _check(self, inputs):
        named = dict(zip(self.input_names, inputs))
        var_name = self.state_inputs[0]
        var = named[var_name]
        check_dtype(self, var_name, var, self.var_types)
        for name in self.state_inputs[1:] + (self.grad_input,):
            x = named[name]
            check_tensor(self, name, x)
            if x.dtype is not var.dtype:
                raise TypeError(f"For '{self.name}', the type of '{name}' should be same as "
                                f"'{var_name}' {var.dtype} (it is updated or read in place), "
                                f"but got {x.dtype}")
            if x.shape != var.shape:
                raise ValueError(f"For '{self.name}', the shape of '{name}' must be the same as "
                                 f"'{var_name}' {list(var.shape)}, but got {list(x.shape)}")
        batch = var.shape[:self.attrs.get("batch_rank", 0)]
        for name in self.scalar_inputs:
            x = named[name]
            check_dtype(self, name, x, self.scalar_types)
            if (x.size != 1 or len(x.shape) > 1) and (not batch or x.shape != batch):
                per = f" or the batch shape {list(batch)}" if batch else ""
                raise ValueError(f"For '{self.name}', '{name}' must be a scalar (shape () or "
                                 f"(1,){per}), but got shape {list(x.shape)}")
        return var

    def infer(self, *inputs):
        var = self._check(inputs)
        if len(self.state_inputs) == 1:
            return var
        named = dict(zip(self.input_names, inputs))
        return tuple(named[n] for n in self.state_inputs)

    def kernel_params(self, *inputs):
        # NOTE: "kernel_provider" selects the kernel (registry.py); it is not a kernel argument,
        # nor is "batch_rank" (set by vmap, read by inference; the kernels broadcast a batch of
        # hyper-parameters against the state's leading axes)
        return {k: v for k, v in self.attrs.items() if k not in ("kernel_provider", "batch_rank")}


class ApplyMomentum(_ApplyBase):
    """accumulation = accumulation * momentum + gradient * gradient_scale;
    variable -= learning_rate * accumulation, or with use_nesterov
    variable -= learning_rate * (gradient + momentum * accumulation). Returns variable."""
    input_names = ("variable", "accumulation", "learning_rate", "gradient", "momentum")
    state_inputs = ("variable", "accumulation")
    scalar_inputs = ("learning_rate", "momentum")
    grad_input = "gradient"

    @prim_attr_register
    def __init__(self, use_nesterov=False, use_locking=False, gradient_scale=1.0):
        check_bool(self, "use_nesterov", use_nesterov)
        check_bool(self, "use_locking", use_locking)
        _check_float_attr(self, "gradient_scale", gradient_scale)

    def infer(self, *inputs):
        return self._check(inputs)


class SGD(_ApplyBase):
    """g = gradient (+ weight_decay * parameters when weight_decay > 0); with momentum > 0:
    accum = g where stat > 0 (first step; stat is then zeroed) else
    accum * momentum + (1 - dampening) * g, and g = g + momentum * accum (nesterov) or accum;
    then parameters -= learning_rate * g. Returns parameters."""
    input_names = ("parameters", "gradient", "learning_rate", "accum", "momentum", "stat")
    state_inputs = ("parameters", "accum", "stat")
    scalar_inputs = ("learning_rate", "momentum")
    grad_input = "gradient"

    @prim_attr_register
    def __init__(self, dampening=0.0, weight_decay=0.0, nesterov=False):
        _check_float_attr(self, "dampening", dampening)
        _check_float_attr(self, "weight_decay", weight_decay)
        check_bool(self, "nesterov", nesterov)

    def infer(self, *inputs):
        return self._check(inputs)


class Adam(_ApplyBase):
    """m = beta1 m + (1 - beta1) g;  v = beta2 v + (1 - beta2) g * g;
    l = lr * sqrt(1 - beta2_power) / (1 - beta1_power);
    var -= l * m / (sqrt(v) + epsilon), or with use_nesterov
    var -= l * (beta1 m + (1 - beta1) g) / (sqrt(v) + epsilon). Returns (var, m, v)."""
    input_names = ("var", "m", "v", "beta1_power", "beta2_power", "lr", "beta1", "beta2",
                   "epsilon", "gradient")
    state_inputs = ("var", "m", "v")
    scalar_inputs = ("beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon")
    grad_input = "gradient"

    @prim_attr_register
    def __init__(self, use_locking=False, use_nesterov=False):
        check_bool(self, "use_locking", use_locking)
        check_bool(self, "use_nesterov", use_nesterov)


class AdamWeightDecay(_ApplyBase):
    """m = beta1 m + (1 - beta1) g;  v = beta2 v + (1 - beta2) g * g;
    update = m / (sqrt(v) + epsilon) + decay * var;  var -= lr * update (no bias correction).
    Returns (var, m, v)."""
    input_names = ("var", "m", "v", "lr", "beta1", "beta2", "epsilon", "decay", "gradient")
    state_inputs = ("var", "m", "v")
    scalar_inputs = ("lr", "beta1", "beta2", "epsilon", "decay")
    grad_input = "gradient"

    @prim_attr_register
    def __init__(self, use_locking=False):
        check_bool(self, "use_locking", use_locking)


non_differentiable(ApplyMomentum, SGD, Adam, AdamWeightDecay)
