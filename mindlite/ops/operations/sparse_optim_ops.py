"""Optimizer updates from a sparse gradient (rows `grad[i]` for `indices[i]`, MindSpore's
FusedSparseAdam and FusedSparseFtrl; the rules observed on MindSpore 2.10's CPU kernels).
States are updated IN PLACE and every input is validated before any write, as optim_ops.py;
not differentiable. Rows named more than once have their gradients summed; indices outside
[0, var.shape[0]) are skipped (MindSpore's kernels skip them). Kernels:
kernels/cpu/sparse_optim_numpy.py.

FusedSparseAdam   g = the rows scattered into zeros of var's shape;
                  m = beta1 m + (1 - beta1) g; v = beta2 v + (1 - beta2) g^2 (every row);
                  var -= lr sqrt(1 - beta2_power) / (1 - beta1_power) m / (sqrt(v) + eps)
                  (every row); with use_nesterov the numerator is beta1 m + (1 - beta1) g and
                  only the indexed rows of var move. Returns (var, m, v).
FusedSparseFtrl   ApplyFtrl's rule (optim_adaptive_ops.py) on the indexed rows only, with the
                  attributes lr, l1, l2, lr_power. Returns (var, accum, linear).
"""
from ...common import dtype as mstype
from ...common.tensor import Tensor
from ...ir.rules import non_differentiable
from ...ir.primitive import prim_attr_register
from ..validator import check_bool, check_dtype
from .optim_ops import _ApplyBase
from .optim_ops import _check_float_attr as check_float

__all__ = ["FusedSparseAdam", "FusedSparseFtrl"]


class _SparseApply(_ApplyBase):
    var_types = (mstype.float16, mstype.float32)

    def __call__(self, *inputs):
        for name, x in zip(self.input_names, inputs):
            if name in self.state_inputs + (self.grad_input, "indices") and \
                    not isinstance(x, Tensor):
                raise TypeError(f"For '{self.name}', the input argument[{name}] must be a "
                                f"Tensor, but got {type(x).__name__}")
        return _ApplyBase.__call__(self, *inputs)

    def infer(self, *inputs):
        named = dict(zip(self.input_names, inputs))
        var_name = self.state_inputs[0]
        var = named[var_name]
        check_dtype(self, var_name, var, self.var_types)
        for name in self.state_inputs[1:]:
            x = named[name]
            check_dtype(self, name, x, (var.dtype,))
            if x.shape != var.shape:
                raise ValueError(f"For '{self.name}', the shape of '{name}' must be the same as "
                                 f"'{var_name}' {list(var.shape)}, but got {list(x.shape)}")
        for name in self.scalar_inputs:
            check_dtype(self, name, named[name], mstype.FLOAT_TYPES)
        grad, indices = named[self.grad_input], named["indices"]
        check_dtype(self, "grad", grad, (var.dtype,))
        check_dtype(self, "indices", indices, (mstype.int32,))
        if len(indices.shape) != 1:
            raise ValueError(f"For '{self.name}', the indices rank must be equal to 1, but got "
                             f"{len(indices.shape)}")
        if len(grad.shape) < 1:
            raise ValueError(f"For '{self.name}', the grad rank must be greater than or equal "
                             f"to 1, but got {len(grad.shape)}")
        if grad.shape[0] != indices.shape[0]:
            raise ValueError(f"For '{self.name}', the grad_shape[0] must be equal to "
                             f"indices_shape[0], but got {grad.shape[0]} and {indices.shape[0]}")
        if tuple(grad.shape[1:]) != tuple(var.shape[1:]):
            raise ValueError(f"For '{self.name}', the var_shape[1:] must be equal to "
                             f"grad_shape[1:], but got {list(var.shape[1:])} and "
                             f"{list(grad.shape[1:])}")
        return tuple(named[n] for n in self.state_inputs)


class FusedSparseAdam(_SparseApply):
    input_names = ("var", "m", "v", "beta1_power", "beta2_power", "lr", "beta1", "beta2",
                   "epsilon", "grad", "indices")
    state_inputs = ("var", "m", "v")
    scalar_inputs = ("beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon")
    grad_input = "grad"

    @prim_attr_register
    def __init__(self, use_locking=False, use_nesterov=False):
        check_bool(self, "use_locking", use_locking)
        check_bool(self, "use_nesterov", use_nesterov)


class FusedSparseFtrl(_SparseApply):
    input_names = ("var", "accum", "linear", "grad", "indices")
    state_inputs = ("var", "accum", "linear")
    grad_input = "grad"

    @prim_attr_register
    def __init__(self, lr, l1, l2, lr_power, use_locking=False):
        check_float(self, "lr", lr)
        check_float(self, "l1", l1)
        check_float(self, "l2", l2)
        check_float(self, "lr_power", lr_power)
        check_bool(self, "use_locking", use_locking)
        if lr <= 0 or l1 < 0 or l2 < 0 or lr_power > 0:
            raise ValueError(f"For '{self.name}', 'lr' must be positive, 'l1' and 'l2' "
                             f"non-negative and 'lr_power' at most 0, but got lr={lr}, l1={l1}, "
                             f"l2={l2}, lr_power={lr_power}")


non_differentiable(FusedSparseAdam, FusedSparseFtrl)
