"""Array primitives: shape manipulation (Reshape, Transpose, ExpandDims, Squeeze, Flatten,
Tile, BroadcastTo), Cast and Shape, each with its bprop below it. Joining and splitting
(Concat, Stack, Split) live in join_ops.py.

Every bprop is built from primitives (reshape, transpose, slice, concat, reduce-sum), so
gradients are differentiable again. Creation prims (ZerosLike, OnesLike, Fill, Zeros, Ones,
Eye, Range) and in-place Assign / AssignAdd live in creation_ops.py and are re-exported
here; slicing and gathering live in slice_ops.py. Kernels: kernels/cpu/array_*.py.
"""
from ...common.abstract import AbstractScalar
from ...ir.rules import bprop_for, non_differentiable
from ...ir.primitive import Primitive, const_value, prim_attr_register
from ..validator import (check_axes, check_axis, check_output_size, check_shape_arg,
                         check_tensor, check_type_arg, tensor)
from ._base import cached_prim, needs_grad
from .reduce_ops import ReduceSum
from .creation_ops import (Assign, AssignAdd, AssignSub, Eye, Fill, Ones,  # noqa: F401
                           OnesLike, Range, Zeros, ZerosLike)

__all__ = ["Reshape", "Transpose", "ExpandDims", "Squeeze", "Flatten", "Tile", "BroadcastTo",
           "Cast", "Shape", "Size", "DType"]


def _F():
    from .. import functional as F  # bprops only: functional imports this module
    return F


def _prod(shape):
    n = 1
    for d in shape:
        n *= d
    return n


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


_reshape = Reshape()


@bprop_for(Reshape)
def reshape_bprop(prim, x, *rest):
    """Views (Reshape, ExpandDims, Squeeze, Flatten): dx = dout reshaped to x's shape; the
    constant input (shape, axis) gets None. rest = (*constant inputs, out, dout)."""
    return (_reshape(rest[-1], x.shape),) + (None,) * (len(rest) - 2)


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


_transpose = Transpose()


@bprop_for(Transpose)
def transpose_bprop(prim, x, perm, out, dout):
    """dx = dout transposed by the inverse permutation."""
    perm = prim._perm(x._abs, const_value(perm))
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return _transpose(dout, tuple(inv)), None


class ExpandDims(_View):
    """y = x with a new axis of size 1 at `axis` in [-x.ndim-1, x.ndim] (a view)."""
    input_names = ("input_x", "axis")
    const_inputs = (1,)

    def infer(self, x, axis):
        check_tensor(self, "input_x", x)
        a = check_axis(self, "axis", axis, len(x.shape) + 1)
        return tensor(x.dtype, x.shape[:a] + (1,) + x.shape[a:])


bprop_for(ExpandDims)(reshape_bprop)


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


bprop_for(Squeeze)(reshape_bprop)


class Flatten(_View):
    """y = x reshaped to (x.shape[0], prod(x.shape[1:])); x must have rank >= 1."""
    input_names = ("input_x",)

    def infer(self, x):
        check_tensor(self, "input_x", x)
        if not x.shape:
            raise ValueError(f"For '{self.name}', the rank of 'input_x' must be >= 1, but got a "
                             f"0-d tensor")
        return tensor(x.dtype, (x.shape[0], _prod(x.shape[1:])))


bprop_for(Flatten)(reshape_bprop)


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
        shape = tuple(a * b for a, b in zip(m, s))
        return tensor(x.dtype, check_output_size(self, "the output shape", shape))

    def kernel_params(self, x, multiples):
        return {"multiples": self._multiples(x, multiples)[0]}


@bprop_for(Tile)
def tile_bprop(prim, x, multiples, out, dout):
    """dx = dout viewed as (m0, d0, m1, d1, ...) summed over the m axes."""
    m, s = prim._multiples(x._abs, const_value(multiples))
    F = _F()
    d = F.reshape(dout, tuple(v for a, b in zip(m, s) for v in (a, b)))
    return _reshape(F.sum(d, tuple(range(0, 2 * len(m), 2))), x.shape), None


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
            if xd is not None and xd != d and xd not in (1, -1):
                raise ValueError(f"For '{self.name}', 'input_x' of shape {list(x.shape)} cannot "
                                 f"be broadcast to 'shape' {list(target)}")
            out.append(d)
        return tensor(x.dtype, check_output_size(self, "the output shape", out))


def sum_to(dx, shape):
    """Sum dx over the axes that broadcasting added or stretched, so it has `shape` (the
    bprops of broadcasting ops; ops/function/grad_func.py re-exports it)."""
    if dx.shape == shape:
        return dx
    lead = len(dx.shape) - len(shape)
    if lead:
        dx = cached_prim(ReduceSum, False)(dx, tuple(range(lead)))
    axes = tuple(i for i, (d, s) in enumerate(zip(dx.shape, shape)) if s == 1 and d != 1)
    if axes:
        dx = cached_prim(ReduceSum, True)(dx, axes)
    if dx.shape != shape:
        dx = cached_prim(Reshape)(dx, shape)
    return dx


@bprop_for(BroadcastTo)
def broadcast_to_bprop(prim, x, out, dout):
    """dx = dout summed over the broadcast axes."""
    return (sum_to(dout, x.shape),)


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


_cast = Cast()


@bprop_for(Cast)
def cast_bprop(prim, x, dtype, out, dout):
    """dx = dout cast back to x's dtype; an int or bool x gets no gradient."""
    if not needs_grad(x):
        return None, None
    return (dout if dout.dtype is x.dtype else _cast(dout, x.dtype)), None


class Shape(_Plain):
    """The shape of x as a tuple of ints (constant-folded: no kernel runs)."""
    input_names = ("input_x",)
    constant_folded = True

    def infer(self, x):
        check_tensor(self, "input_x", x)
        return AbstractScalar(x.shape)


class Size(_Plain):
    """The number of elements of x as a Python int (constant-folded, as Shape; MindSpore's
    Size). Its gradient is zeros of x (non-differentiable)."""
    input_names = ("input_x",)
    constant_folded = True

    def infer(self, x):
        check_tensor(self, "input_x", x)
        n = 1
        for d in x.shape:
            n *= d
        return AbstractScalar(n)


class DType(_Plain):
    """The dtype of x (constant-folded; MindSpore's DType)."""
    input_names = ("input_x",)
    constant_folded = True

    def infer(self, x):
        check_tensor(self, "input_x", x)
        return AbstractScalar(x.dtype)


non_differentiable(Shape, Size, DType)


# MindSpore's ops.operations.array_ops also holds these (code imports them from here)
from .sort_ops import Cummax  # noqa: E402,F401


_ELSEWHERE = {"Unstack": "mask_ops", "SpaceToDepth": "space_depth_ops",
              "DepthToSpace": "space_depth_ops"}


def __getattr__(name):
    """array_ops.Unstack, SpaceToDepth, ... (MindSpore's paths) without importing their
    modules at load time (they import math ops that import this module)."""
    module = _ELSEWHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib
    return getattr(importlib.import_module(f"{__package__}.{module}"), name)
