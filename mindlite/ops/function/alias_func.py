"""MindSpore 2.10's other names for existing ops, its `_ext` spellings, in-place functional
forms and small queries: eq, expand_as, view_as, type_as, identity, deepcopy, top_k,
tensor_muls, pows, float_power_ext, isnan_ext, diff_ext, einsum_ext, baddbmm_ext,
adaptive_avg_pool2d_ext, fills, fast_gelu, reshape_, clamp_, put_, assign_sub,
stop_gradient_, depend, eps, is_floating_point, is_tensor, is_nonzero, dtype, rank, shape_,
tail, print_, move_to. Each calls the functional ops, so kernels and gradients are theirs.
"""
import numpy as np

from ...common import dtype as mstype
from ...common.tensor import Tensor

__all__ = ["eq", "expand_as", "view_as", "type_as", "identity", "deepcopy", "top_k",
           "tensor_muls", "pows", "float_power_ext", "isnan_ext", "diff_ext", "einsum_ext",
           "baddbmm_ext", "adaptive_avg_pool2d_ext", "fills", "fast_gelu", "reshape_",
           "clamp_", "put_", "assign_sub", "stop_gradient_", "depend", "eps",
           "is_floating_point", "is_tensor", "is_nonzero", "dtype", "rank", "shape_", "tail",
           "print_", "move_to"]


def _F():
    from .. import functional as F
    return F


def _tensor(op, arg, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{op}', '{arg}' must be a Tensor, but got {type(x).__name__}")
    return x


def eq(input, other):
    """input == other elementwise (ops.equal)."""
    return _F().equal(input, other)


def expand_as(input, other):
    """input broadcast to other's shape."""
    return _F().broadcast_to(_tensor("expand_as", "input", input),
                             _tensor("expand_as", "other", other).shape)


def view_as(input, other):
    """input reshaped to other's shape."""
    return _F().reshape(_tensor("view_as", "input", input),
                        _tensor("view_as", "other", other).shape)


def type_as(input, other):
    """input cast to other's dtype."""
    _tensor("type_as", "input", input)
    dt = _tensor("type_as", "other", other).dtype
    return input if input.dtype is dt else _F().cast(input, dt)


def identity(x):
    """A copy of x (its own buffer; the gradient passes through)."""
    return _F().cast(_tensor("identity", "x", x), x.dtype)


def deepcopy(input_x):
    """A copy of input_x with its own buffer."""
    return _F().cast(_tensor("deepcopy", "input_x", input_x), input_x.dtype)


def top_k(input_x, k, sorted=True):
    """(values, indices) of the k largest along the last dim (ops.topk)."""
    return _F().topk(input_x, k, -1, True, sorted)


def tensor_muls(input, other):
    return _F().mul(input, other)


def pows(input, exponent):
    return _F().pow(input, exponent)


def float_power_ext(input, exponent):
    return _F().float_power(input, exponent)


def isnan_ext(tensor):
    return _F().isnan(tensor)


def diff_ext(input, n=1, dim=-1, prepend=None, append=None):
    return _F().diff(input, n, dim, prepend, append)


def einsum_ext(equation, *operands):
    return _F().einsum(equation, *operands)


def baddbmm_ext(input, batch1, batch2, *, beta=1, alpha=1):
    return _F().baddbmm(input, batch1, batch2, beta, alpha)


def adaptive_avg_pool2d_ext(input, output_size):
    return _F().adaptive_avg_pool2d(input, output_size)


def fills(x, value):
    """A tensor of x's shape and dtype filled with value (a number or a 0-D Tensor)."""
    F = _F()
    _tensor("fills", "x", x)
    if isinstance(value, Tensor):
        value = value.asnumpy().reshape(()).item()
    return F.full_like(x, value)


def fast_gelu(x):
    """x / (1 + exp(-1.702 |x|)) * exp(0.851 (x - |x|)) (MindSpore's FastGeLU)."""
    F = _F()
    if _tensor("fast_gelu", "x", x).dtype.kind != "f":
        raise TypeError(f"For 'FastGeLU', input[0] type should be a float type, but got "
                        f"{x.dtype}")
    a = F.abs(x)
    return F.mul(F.div(x, F.add(F.exp(F.mul(a, -1.702)), 1.0)),
                 F.exp(F.mul(F.sub(x, a), 0.851)))


def reshape_(input, shape):
    return _F().reshape(input, shape)


def clamp_(input, min=None, max=None):
    """input clamped to [min, max] in place; returns input."""
    return _tensor("clamp_", "input", input).clamp_(min, max)


def put_(input, index, source, accumulate=False):
    """source written (or added) at the flat positions index of input, in place."""
    return _tensor("put_", "input", input).put_(index, source, accumulate)


def assign_sub(variable, value):
    """variable -= value in place (a Parameter or Tensor); returns variable."""
    F = _F()
    _tensor("assign_sub", "variable", variable)
    return F.assign(variable, F.sub(variable, value))


def stop_gradient_(input):
    """input's gradient stopped, in place (later ops see a constant); returns None, as
    MindSpore 2.10's."""
    from ...common.tensor_methods_inplace import write_inplace
    write_inplace(_tensor("stop_gradient_", "input", input), "stop_gradient_",
                         lambda old: _F().stop_gradient(old))


def depend(value, expr):
    """value, computed after expr (eager execution is already in program order)."""
    return value


def eps(x):
    """A tensor of x's shape filled with its dtype's machine epsilon."""
    _tensor("eps", "x", x)
    if x.dtype.kind != "f":
        raise TypeError(f"For 'eps', 'x' must be a float tensor, but got {x.dtype}")
    return _F().full_like(x, float(np.finfo(x.dtype.np).eps))


def is_floating_point(input):
    return _tensor("is_floating_point", "input", input).dtype in (
        mstype.float16, mstype.float32, mstype.float64, mstype.bfloat16)


def is_tensor(obj):
    return isinstance(obj, Tensor)


def is_nonzero(input):
    """bool(input) of a one-element tensor."""
    _tensor("is_nonzero", "input", input)
    if input.size != 1:
        raise ValueError(f"For is_nonzero, the numel of input must be 1, but got "
                         f"{input.size}.")
    return bool(input.asnumpy().reshape(()).item() != 0)


def dtype(x):
    return _tensor("dtype", "x", x).dtype


def rank(input_x):
    return len(_tensor("rank", "input_x", input_x).shape)


def shape_(x):
    return tuple(_tensor("shape_", "x", x).shape)


def tail(*args):
    """The elements of a tuple or list after the first."""
    if len(args) != 1 or not isinstance(args[0], (tuple, list)):
        raise TypeError("For 'tail', the input must be one tuple or list")
    return tuple(args[0][1:])


def print_(*input_x):
    """Print the inputs (Tensors by their values) on one line; returns None."""
    print(*input_x)


def move_to(input, to="CPU", blocking=True):
    """A copy of input on device `to` (Tensor.move_to)."""
    return _tensor("move_to", "input", input).move_to(to, blocking)
