"""Creation primitives (ZerosLike, OnesLike and the const prims Fill, Zeros, Ones, Eye,
Range) and the in-place Assign / AssignAdd / AssignSub.

Fill, Zeros, Ones, Eye and Range take only constant inputs: the forward executor runs
the kernel once per signature and hands out a fresh copy on every call. None of these
carries a gradient (creation outputs do not depend on input values; Assign / AssignAdd
write state, as MindSpore's), so all are marked non-differentiable. array_ops re-exports
them (`array_ops.Zeros` keeps working). Kernels: kernels/cpu/array_numpy.py.
"""
import numbers

import numpy as np

from ...common import dtype as mstype
from ...common.tensor import Tensor
from ...ir.rules import non_differentiable
from ...common.api import PYNATIVE
from ...common.buffers import own_buffer
from ...ir.primitive import Primitive, prim_attr_register
from ..validator import (check_dtype, check_int, check_output_size, check_shape_arg,
                         check_tensor, check_type_arg, tensor)

__all__ = ["ZerosLike", "OnesLike", "Fill", "Zeros", "Ones", "Eye", "Range", "Assign",
           "AssignAdd", "AssignSub"]


class _Const(Primitive):
    """A creation primitive without attributes."""

    @prim_attr_register
    def __init__(self):
        pass


class ZerosLike(_Const):
    """y = zeros of x's shape and dtype."""
    input_names = ("input_x",)

    def infer(self, x):
        check_tensor(self, "input_x", x)
        return x


class OnesLike(ZerosLike):
    """y = ones of x's shape and dtype."""


def _check_size(prim, arg, shape):
    shape = check_shape_arg(prim, arg, shape)
    if any(d < 0 for d in shape):
        raise ValueError(f"For '{prim.name}', '{arg}' must be non-negative, but got {list(shape)}")
    return check_output_size(prim, f"'{arg}'", shape)


def _fill_value(prim, t, value):
    """`value` as a numpy scalar of type t; ints must fit t."""
    if not isinstance(value, (numbers.Number, np.bool_)) or isinstance(value, complex):
        raise TypeError(f"For '{prim.name}', 'value' must be a bool, int or float, but got "
                        f"{type(value).__name__}: {value!r}")
    if t.kind in "iu" and isinstance(value, numbers.Integral):
        info = np.iinfo(t.np)
        if not info.min <= int(value) <= info.max:
            raise ValueError(f"For '{prim.name}', 'value' {value} is out of range for {t} "
                             f"[{info.min}, {info.max}]")
    with np.errstate(invalid="ignore", over="ignore"):
        return np.array(value).astype(t.np)[()]


class Fill(_Const):
    """Fill()(type, shape, value): a tensor of `shape` filled with `value` (const prim)."""
    input_names = ("type", "shape", "value")
    const_inputs = (0, 1, 2)

    def infer(self, t, shape, value):
        t = check_type_arg(self, "type", t)
        _fill_value(self, t, value)
        return tensor(t, _check_size(self, "shape", shape))

    def kernel_params(self, t, shape, value):
        return {"value": _fill_value(self, check_type_arg(self, "type", t), value)}


class Zeros(_Const):
    """Zeros()(size, type=float32): a tensor of zeros (const prim)."""
    const_inputs = (0, 1)
    fill = 0

    def infer(self, size, t=None, *extra):
        if extra:
            raise TypeError(f"For '{self.name}', expected the inputs (size, type), but got "
                            f"{2 + len(extra)} inputs")
        t = mstype.float32 if t is None else check_type_arg(self, "type", t)
        return tensor(t, _check_size(self, "size", size))


class Ones(Zeros):
    """Ones()(size, type=float32): a tensor of ones (const prim)."""
    fill = 1


class Eye(_Const):
    """Eye()(n, m, t): an n x m tensor with ones on the main diagonal (const prim)."""
    input_names = ("n", "m", "t")
    const_inputs = (0, 1, 2)

    def infer(self, n, m, t):
        n = check_int(self, "n", n, lo=0)
        m = check_int(self, "m", m, lo=0)
        return tensor(check_type_arg(self, "t", t), check_output_size(self, "'(n, m)'", (n, m)))


class Range(Primitive):
    """Range()(start, limit, delta): [start, start + delta, ...) stopping before `limit`
    (const prim). Output int64 when all three are ints, else float32; `dtype` (a mindlite
    extension, default None) overrides it. As MindSpore: delta == 0, start >= limit with
    delta > 0, start <= limit with delta < 0 and more than `maxlen` values are ValueErrors."""
    input_names = ("start", "limit", "delta")
    const_inputs = (0, 1, 2)

    @prim_attr_register
    def __init__(self, maxlen=1000000, dtype=None):
        check_int(self, "maxlen", maxlen, lo=1)
        if dtype is not None:
            self.add_prim_attr("dtype", check_type_arg(self, "dtype", dtype))

    def _values(self, start, limit, delta):
        vals = []
        for name, v in (("start", start), ("limit", limit), ("delta", delta)):
            if isinstance(v, (list, tuple)) and len(v) == 1:
                v = v[0]
            if not isinstance(v, numbers.Real) or isinstance(v, bool):
                raise TypeError(f"For '{self.name}', '{name}' must be an int or float (or a "
                                f"0-d Tensor), but got {type(v).__name__}: {v!r}")
            vals.append(v)
        start, limit, delta = vals
        if delta == 0:
            raise ValueError(f"For '{self.name}', 'delta' must not be 0, but got {delta}")
        if (delta > 0 and start >= limit) or (delta < 0 and start <= limit):
            raise ValueError(f"For '{self.name}', 'start' must be {'<' if delta > 0 else '>'} "
                             f"'limit' when 'delta' is {'positive' if delta > 0 else 'negative'}"
                             f", but got start={start}, limit={limit}, delta={delta}")
        return vals

    def infer(self, start, limit, delta):
        vals = self._values(start, limit, delta)
        ints = all(isinstance(v, numbers.Integral) for v in vals)
        start, limit, delta = vals
        n = -((start - limit) // delta) if ints else int(np.ceil((limit - start) / delta))
        if n > self.attrs["maxlen"]:
            raise ValueError(f"For '{self.name}', the output would have {n} values, more than "
                             f"'maxlen' {self.attrs['maxlen']}")
        t = self.attrs["dtype"]
        if t is None:
            t = mstype.int64 if ints else mstype.float32
        return tensor(t, check_output_size(self, "the output shape", (n,)))

    def kernel_params(self, start, limit, delta):
        start, limit, delta = self._values(start, limit, delta)
        return {"start": start, "delta": delta}


class _AssignBase(_Const):
    """Writes into `variable`'s own array (copied first when a view shares it:
    pynative/inplace.py); the result is a Tensor sharing that memory.
    Inference validates first (value broadcastable to variable's shape; value's dtype equal
    or safely castable), so a failed call leaves the variable unchanged. A Python scalar
    `value` is converted to the variable's dtype (as MindSpore's implicit conversion)."""
    input_names = ("variable", "value")
    valid_types = mstype.ALL_TYPES
    inplace_inputs = (0,)     # a compiled graph's step owns it first (backend/lowering.py)

    def __call__(self, variable, value):
        if not isinstance(variable, Tensor):
            return Primitive.__call__(self, variable, value)
        value = self.scalar_value(variable.dtype, value)
        own_buffer(variable)              # copy-on-write: views of variable keep their values
        result = Primitive.__call__(self, variable, value)
        PYNATIVE.log_write(variable, self.name)   # a grad call that used it fails at backward
        return result

    def scalar_value(self, dtype, value):
        """A Python scalar `value` as a Tensor of the variable's dtype; anything else as is."""
        if not isinstance(value, (bool, int, float, np.generic)):
            return value
        try:
            return Tensor.from_numpy(np.asarray(value, dtype=dtype.np))
        except (OverflowError, ValueError):
            raise ValueError(f"For '{self.name}', 'value' {value!r} cannot be represented "
                             f"as {dtype}") from None

    def infer(self, variable, value):
        check_dtype(self, "variable", variable, self.valid_types)
        check_tensor(self, "value", value)
        if not np.can_cast(value.np, variable.np, "safe"):
            raise TypeError(f"For '{self.name}', the type of 'value' should be the same as or "
                            f"safely castable to 'variable' {variable.dtype}, but got "
                            f"{value.dtype}")
        vs, ws = value.shape, variable.shape
        if vs != ws and (len(vs) > len(ws) or any(
                d not in (1, w) for d, w in zip(vs[::-1], ws[::-1]))):
            raise ValueError(f"For '{self.name}', 'value' of shape {list(value.shape)} cannot be "
                             f"broadcast to 'variable' shape {list(variable.shape)}")
        return variable


class Assign(_AssignBase):
    """variable[...] = value, in place; returns the updated variable's data."""


class AssignAdd(_AssignBase):
    """variable += value, in place; returns the updated variable's data."""
    valid_types = mstype.NUMBER_TYPES


class AssignSub(_AssignBase):
    """variable -= value, in place; returns the updated variable's data."""
    valid_types = mstype.NUMBER_TYPES


non_differentiable(ZerosLike, OnesLike, Fill, Zeros, Ones, Eye, Range, Assign, AssignAdd,
                   AssignSub)
