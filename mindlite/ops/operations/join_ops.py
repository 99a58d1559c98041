"""Joining and splitting primitives: Concat, Stack, Split, each with its bprop below it
(split from array_ops.py by family). Kernels: kernels/cpu/array_*.py."""
from ...common.abstract import AbstractTensor
from ...ir.rules import bprop_for
from ...ir.primitive import Primitive, prim_attr_register
from ..validator import check_axis, check_int, check_same_dtype, check_tensor, tensor
from ._base import cached_prim
from .array_ops import Reshape

__all__ = ["Concat", "Stack", "Split"]

_reshape = Reshape()


def _F():
    from .. import functional as F  # bprops only: functional imports this module
    return F


def _check_tensors(prim, arg, xs):
    """A non-empty tuple/list of tensors of one dtype (Concat, Stack)."""
    if not isinstance(xs, tuple) or not all(isinstance(x, AbstractTensor) for x in xs):
        raise TypeError(f"For '{prim.name}', '{arg}' must be a tuple or list of Tensors, but got "
                        f"{xs!r}")
    if not xs:
        raise ValueError(f"For '{prim.name}', '{arg}' must hold at least one Tensor, but got ()")
    check_same_dtype(prim, [(f"{arg}[{i}]", x) for i, x in enumerate(xs)])
    return xs


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


@bprop_for(Concat)
def concat_bprop(prim, xs, out, dout):
    """dx_i = the slice of dout that x_i filled along `axis` (a list: one per element)."""
    axis = prim._axis(tuple(x._abs for x in xs))
    F, dxs, begin = _F(), [], 0
    for x in xs:
        b = [0] * len(x.shape)
        b[axis] = begin
        dxs.append(F.slice(dout, b, x.shape))
        begin += x.shape[axis]
    return (dxs,)


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


@bprop_for(Stack)
def stack_bprop(prim, xs, out, dout):
    """dx_i = dout split along `axis` into len(xs) parts, each reshaped to x_i's shape."""
    parts = cached_prim(Split, prim._axis(tuple(x._abs for x in xs)), len(xs))(dout)
    return ([_reshape(p, x.shape) for p, x in zip(parts, xs)],)


class Split(Primitive):
    """(y_0, ..., y_{n-1}): x cut into `output_num` equal parts along `axis` (a dynamic
    axis, -1 in graph mode, gives -1 parts; the kernel checks the real size)."""
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
        if x.shape[axis] % n and x.shape[axis] != -1:
            raise ValueError(f"For '{self.name}', x.shape[{axis}] = {x.shape[axis]} must be "
                             f"divisible by 'output_num' {n}, but got shape {list(x.shape)}")
        return axis

    def infer(self, x):
        axis = self._axis(x)
        n = self.attrs["output_num"]
        size = x.shape[axis] // n if x.shape[axis] != -1 else -1
        part = tensor(x.dtype, x.shape[:axis] + (size,) + x.shape[axis + 1:])
        return (part,) * n

    def kernel_params(self, x):
        return {"axis": self._axis(x), "output_num": self.attrs["output_num"]}


@bprop_for(Split)
def split_bprop(prim, x, out, dout):
    """dx = the douts (zeros for unused outputs) concatenated along `axis`."""
    return (cached_prim(Concat, prim._axis(x._abs))(dout),)
