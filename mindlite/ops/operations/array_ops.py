"""Array primitives: shape manipulation (Reshape, Transpose, ExpandDims, Squeeze, Flatten,
Concat, Stack, Split, Tile, BroadcastTo), Cast, Shape, creation (ZerosLike, OnesLike, Fill,
Zeros, Ones, Eye, Range) and in-place Assign / AssignAdd.

Creation ops whose inputs are all constants (Fill, Zeros, Ones, Eye, Range) are "const
prims": the forward executor runs the kernel once per signature and hands out a fresh copy
on every call. Slicing and gathering live in slice_ops.py. Kernels: kernels/cpu/array_*.py.
"""
import numbers

import numpy as np

from ...abstract import AbstractScalar, AbstractTensor
from ...common import dtype as mstype
from ...common.tensor import Tensor
from ..primitive import Primitive, prim_attr_register
from ..validator import (check_axes, check_axis, check_dtype, check_int,
                         check_same_dtype, check_shape_arg, check_tensor, check_type_arg, tensor)

__all__ = ["Reshape", "Transpose", "ExpandDims", "Squeeze", "Flatten", "Concat", "Stack",
           "Split", "Tile", "BroadcastTo", "Cast", "Shape", "ZerosLike", "OnesLike", "Fill",
           "Zeros", "Ones", "Eye", "Range", "Assign", "AssignAdd"]


def _prod(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def _check_tensors(prim, arg, xs):
    """A non-empty tuple/list of tensors of one dtype (Concat, Stack)."""
    if not isinstance(xs, tuple) or not all(isinstance(x, AbstractTensor) for x in xs):
        raise TypeError(f"For '{prim.name}', '{arg}' must be a tuple or list of Tensors, but got "
                        f"{xs!r}")
    if not xs:
        raise ValueError(f"For '{prim.name}', '{arg}' must hold at least one Tensor, but got ()")
    check_same_dtype(prim, [(f"{arg}[{i}]", x) for i, x in enumerate(xs)])
    return xs


class _Plain(Primitive):
    """A primitive without attributes."""

    @prim_attr_register
    def __init__(self):
        pass


class _View(_Plain):
    """Reshape-like: the kernel gets the output shape and may return a view."""

    def kernel_params(self, *inputs):
        return {"shape": self.infer(*inputs).shape}


class Reshape(_View):
    """y = x with `shape` (one -1 is inferred); returns a view when numpy can."""
    input_names = ("input_x", "input_shape")
    const_inputs = (1,)

    def infer(self, x, shape):
        check_tensor(self, "input_x", x)
        shape = check_shape_arg(self, "input_shape", shape)
        if shape.count(-1) > 1 or any(d < -1 for d in shape):
            raise ValueError(f"For '{self.name}', 'input_shape' may hold at most one -1 and no "
                             f"other negative value, but got {list(shape)}")
        known = _prod(d for d in shape if d != -1)
        if -1 in shape:
            if known == 0 or x.size % known:
                raise ValueError(f"For '{self.name}', cannot infer -1 in 'input_shape' "
                                 f"{list(shape)} for an input of size {x.size}")
            shape = tuple(x.size // known if d == -1 else d for d in shape)
        elif known != x.size:
            raise ValueError(f"For '{self.name}', the product of 'input_shape' {list(shape)} must "
                             f"equal the size of 'input_x' {x.size} (shape {list(x.shape)})")
        return tensor(x.dtype, shape)



class Transpose(_Plain):
    """y = x with its axes permuted: y.shape[i] = x.shape[perm[i]]."""
    input_names = ("input_x", "input_perm")
    const_inputs = (1,)

    def _perm(self, x, perm):
        check_tensor(self, "input_x", x)
        perm = check_shape_arg(self, "input_perm", perm)
        n = len(x.shape)
        if len(perm) != n:
            raise ValueError(f"For '{self.name}', the length of 'input_perm' must equal the rank "
                             f"of 'input_x' {n}, but got {list(perm)}")
        perm = tuple(check_axis(self, "input_perm", p, n) for p in perm)
        if len(set(perm)) != n:
            raise ValueError(f"For '{self.name}', 'input_perm' must be a permutation of "
                             f"{list(range(n))}, but got {list(perm)}")
        return perm

    def infer(self, x, perm):
        perm = self._perm(x, perm)
        return tensor(x.dtype, tuple(x.shape[p] for p in perm))

    def kernel_params(self, x, perm):
        return {"perm": self._perm(x, perm)}


class ExpandDims(_View):
    """y = x with a new axis of size 1 at `axis` in [-x.ndim-1, x.ndim] (a view)."""
    input_names = ("input_x", "axis")
    const_inputs = (1,)

    def infer(self, x, axis):
        check_tensor(self, "input_x", x)
        a = check_axis(self, "axis", axis, len(x.shape) + 1)
        return tensor(x.dtype, x.shape[:a] + (1,) + x.shape[a:])



class Squeeze(_View):
    """y = x without the size-1 axes in `axis` (all of them for ()) (a view).
    Squeezing an axis whose size is not 1 is a ValueError."""
    input_names = ("input_x",)

    @prim_attr_register
    def __init__(self, axis=()):
        if isinstance(axis, list):
            axis = tuple(axis)
        if not isinstance(axis, (int, tuple)) or isinstance(axis, bool) or (
                isinstance(axis, tuple) and not all(
                    isinstance(a, int) and not isinstance(a, bool) for a in axis)):
            raise TypeError(f"For '{self.name}', 'axis' must be an int or a tuple of ints, but "
                            f"got {axis!r}")
        self.add_prim_attr("axis", axis)

    def infer(self, x):
        check_tensor(self, "input_x", x)
        axis = self.attrs["axis"]
        if axis == ():
            return tensor(x.dtype, tuple(d for d in x.shape if d != 1))
        axes = check_axes(self, "axis", axis, len(x.shape))
        for a in axes:
            if x.shape[a] != 1:
                raise ValueError(f"For '{self.name}', the shape of 'input_x' at 'axis' {a} must "
                                 f"be 1, but got shape {list(x.shape)}")
        return tensor(x.dtype, tuple(d for i, d in enumerate(x.shape) if i not in axes))


class Flatten(_View):
    """y = x reshaped to (x.shape[0], prod(x.shape[1:])); x must have rank >= 1."""
    input_names = ("input_x",)

    def infer(self, x):
        check_tensor(self, "input_x", x)
        if not x.shape:
            raise ValueError(f"For '{self.name}', the rank of 'input_x' must be >= 1, but got a "
                             f"0-d tensor")
        return tensor(x.dtype, (x.shape[0], _prod(x.shape[1:])))



class Concat(Primitive):
    """y = the tensors joined along `axis`; same dtype and rank, equal other dims."""
    input_names = ("input_x",)

    @prim_attr_register
    def __init__(self, axis=0):
        check_int(self, "axis", axis)

    def _axis(self, xs):
        _check_tensors(self, "input_x", xs)
        rank = len(xs[0].shape)
        if rank == 0:
            raise ValueError(f"For '{self.name}', the rank of 'input_x' elements must be >= 1, "
                             f"but got 0-d tensors")
        axis = check_axis(self, "axis", self.attrs["axis"], rank)
        for i, x in enumerate(xs):
            if len(x.shape) != rank:
                raise ValueError(f"For '{self.name}', all elements of 'input_x' must have the "
                                 f"same rank, but 'input_x[0]' has shape {list(xs[0].shape)} "
                                 f"and 'input_x[{i}]' has shape {list(x.shape)}")
            for d in range(rank):
                if d != axis and x.shape[d] != xs[0].shape[d]:
                    raise ValueError(f"For '{self.name}', the shapes of 'input_x' elements must "
                                     f"match except at 'axis' {axis}, but got "
                                     f"{list(xs[0].shape)} and {list(x.shape)}")
        return axis

    def infer(self, xs):
        axis = self._axis(xs)
        shape = list(xs[0].shape)
        shape[axis] = sum(x.shape[axis] for x in xs)
        return tensor(xs[0].dtype, shape)

    def kernel_params(self, xs):
        return {"axis": self._axis(xs)}


class Stack(Primitive):
    """y = the tensors (all of one shape and dtype) stacked along a new axis `axis`."""
    input_names = ("input_x",)

    @prim_attr_register
    def __init__(self, axis=0):
        check_int(self, "axis", axis)

    def _axis(self, xs):
        _check_tensors(self, "input_x", xs)
        for i, x in enumerate(xs):
            if x.shape != xs[0].shape:
                raise ValueError(f"For '{self.name}', all elements of 'input_x' must have the "
                                 f"same shape, but 'input_x[0]' has shape {list(xs[0].shape)} "
                                 f"and 'input_x[{i}]' has shape {list(x.shape)}")
        return check_axis(self, "axis", self.attrs["axis"], len(xs[0].shape) + 1)

    def infer(self, xs):
        a = self._axis(xs)
        s = xs[0].shape
        return tensor(xs[0].dtype, s[:a] + (len(xs),) + s[a:])

    def kernel_params(self, xs):
        return {"axis": self._axis(xs)}


class Split(Primitive):
    """(y_0, ..., y_{n-1}): x cut into `output_num` equal parts along `axis`."""
    input_names = ("input_x",)

    @prim_attr_register
    def __init__(self, axis=0, output_num=1):
        check_int(self, "axis", axis)
        check_int(self, "output_num", output_num, lo=1)

    def _axis(self, x):
        check_tensor(self, "input_x", x)
        if not x.shape:
            raise ValueError(f"For '{self.name}', 'input_x' must have rank >= 1, but got a 0-d "
                             f"tensor")
        axis = check_axis(self, "axis", self.attrs["axis"], len(x.shape))
        n = self.attrs["output_num"]
        if x.shape[axis] % n:
            raise ValueError(f"For '{self.name}', x.shape[{axis}] = {x.shape[axis]} must be "
                             f"divisible by 'output_num' {n}, but got shape {list(x.shape)}")
        return axis

    def infer(self, x):
        axis = self._axis(x)
        n = self.attrs["output_num"]
        part = tensor(x.dtype, x.shape[:axis] + (x.shape[axis] // n,) + x.shape[axis + 1:])
        return (part,) * n

    def kernel_params(self, x):
        return {"axis": self._axis(x), "output_num": self.attrs["output_num"]}


class Tile(_Plain):
    """y = x repeated multiples[i] times along axis i; a shorter `multiples` is padded
    with leading 1s, a shorter x.shape with leading 1s (MindSpore 2.x)."""
    input_names = ("input_x", "multiples")
    const_inputs = (1,)

    def _multiples(self, x, multiples):
        check_tensor(self, "input_x", x)
        m = check_shape_arg(self, "multiples", multiples)
        if any(d < 0 for d in m):
            raise ValueError(f"For '{self.name}', 'multiples' must be non-negative, but got "
                             f"{list(m)}")
        n = max(len(m), len(x.shape))
        return (1,) * (n - len(m)) + m, (1,) * (n - len(x.shape)) + x.shape

    def infer(self, x, multiples):
        m, s = self._multiples(x, multiples)
        return tensor(x.dtype, tuple(a * b for a, b in zip(m, s)))

    def kernel_params(self, x, multiples):
        return {"multiples": self._multiples(x, multiples)[0]}


class BroadcastTo(Primitive):
    """y = x broadcast to `shape` (-1 keeps the corresponding dim of x)."""
    input_names = ("input_x",)

    @prim_attr_register
    def __init__(self, shape):
        shape = check_shape_arg(self, "shape", shape)
        if any(d < -1 for d in shape):
            raise ValueError(f"For '{self.name}', 'shape' values must be >= -1, but got "
                             f"{list(shape)}")
        self.add_prim_attr("shape", shape)

    def infer(self, x):
        check_tensor(self, "input_x", x)
        target = self.attrs["shape"]
        n, nx = len(target), len(x.shape)
        if nx > n:
            raise ValueError(f"For '{self.name}', the rank of 'input_x' {list(x.shape)} must not "
                             f"exceed the length of 'shape' {list(target)}")
        out = []
        for i, d in enumerate(target):
            j = i - (n - nx)
            xd = x.shape[j] if j >= 0 else None
            if d == -1:
                if xd is None:
                    raise ValueError(f"For '{self.name}', -1 in 'shape' {list(target)} at a "
                                     f"position that 'input_x' {list(x.shape)} does not have")
                d = xd
            if xd is not None and xd != d and xd != 1:
                raise ValueError(f"For '{self.name}', 'input_x' of shape {list(x.shape)} cannot "
                                 f"be broadcast to 'shape' {list(target)}")
            out.append(d)
        return tensor(x.dtype, out)


class Cast(_Plain):
    """y = x converted to `dtype` (numpy's unsafe cast: float -> int truncates toward zero;
    NaN/inf/out-of-range -> int is unspecified, as in C)."""
    input_names = ("input_x", "type")
    const_inputs = (1,)

    def infer(self, x, dtype):
        check_tensor(self, "input_x", x)
        return tensor(check_type_arg(self, "type", dtype), x.shape)

    def kernel_params(self, x, dtype):
        t = check_type_arg(self, "type", dtype)
        return {"quiet": x.dtype.kind == "f" and t.kind != "f"}


class Shape(_Plain):
    """The shape of x as a tuple of ints (constant-folded: no kernel runs)."""
    input_names = ("input_x",)
    constant_folded = True

    def infer(self, x):
        check_tensor(self, "input_x", x)
        return AbstractScalar(x.shape)


class ZerosLike(_Plain):
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
    return shape


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


class Fill(_Plain):
    """Fill()(type, shape, value): a tensor of `shape` filled with `value` (const prim)."""
    input_names = ("type", "shape", "value")
    const_inputs = (0, 1, 2)

    def infer(self, t, shape, value):
        t = check_type_arg(self, "type", t)
        _fill_value(self, t, value)
        return tensor(t, _check_size(self, "shape", shape))

    def kernel_params(self, t, shape, value):
        return {"value": _fill_value(self, check_type_arg(self, "type", t), value)}


class Zeros(_Plain):
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


class Eye(_Plain):
    """Eye()(n, m, t): an n x m tensor with ones on the main diagonal (const prim)."""
    input_names = ("n", "m", "t")
    const_inputs = (0, 1, 2)

    def infer(self, n, m, t):
        n = check_int(self, "n", n, lo=0)
        m = check_int(self, "m", m, lo=0)
        return tensor(check_type_arg(self, "t", t), (n, m))


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
        return tensor(t, (n,))

    def kernel_params(self, start, limit, delta):
        start, limit, delta = self._values(start, limit, delta)
        return {"start": start, "delta": delta}


class _AssignBase(_Plain):
    """Writes into `variable`'s own array; the result is a Tensor sharing that memory.
    Inference validates first (value broadcastable to variable's shape; value's dtype equal
    or safely castable), so a failed call leaves the variable unchanged. A Python scalar
    `value` is converted to the variable's dtype (as MindSpore's implicit conversion)."""
    input_names = ("variable", "value")
    valid_types = mstype.ALL_TYPES

    def __call__(self, variable, value):
        if isinstance(value, (bool, int, float, np.generic)) and isinstance(variable, Tensor):
            try:
                value = Tensor.from_numpy(np.asarray(value, dtype=variable.dtype.np))
            except (OverflowError, ValueError):
                raise ValueError(f"For '{self.name}', 'value' {value!r} cannot be represented "
                                 f"as {variable.dtype}") from None
        return Primitive.__call__(self, variable, value)

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
