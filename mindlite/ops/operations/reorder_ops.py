"""Reordering and triangle primitives of issue 13: ReverseV2 (ops.flip), Roll (ops.roll),
Triu and Tril (ops.triu / ops.tril), each with its bprop below it (a gradient is the same
op run backwards: reversed again, rolled back, masked by the same triangle).
Kernels: kernels/cpu/reorder_numpy.py. Functional names: ops/function/clip_cum_func.py.
"""
import numbers

from ...common import dtype as mstype
from ...ir.rules import bprop_for
from ...ir.primitive import Primitive, prim_attr_register
from ..validator import check_axis, check_dtype, check_int
from ._base import cached_prim, needs_grad

__all__ = ["ReverseV2", "Roll", "Triu", "Tril"]


def _int_list(prim, arg, value, allow_int):
    """A tuple of ints from an int (when allowed), tuple or list of ints."""
    if allow_int and isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return (int(value),)
    if not isinstance(value, (tuple, list)) or not all(
            isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in value):
        what = "an int or a tuple/list of ints" if allow_int else "a tuple or list of ints"
        raise TypeError(f"For '{prim.name}', '{arg}' must be {what}, but got "
                        f"{type(value).__name__}: {value!r}")
    return tuple(int(v) for v in value)


def _unique_axes(prim, arg, axes, ndim):
    out = tuple(check_axis(prim, f"{arg}", a, ndim) for a in axes)
    if len(set(out)) != len(out):
        raise ValueError(f"For '{prim.name}', '{arg}' cannot contain duplicate dimensions, but "
                         f"got {list(axes)}")
    return out


class _Unary(Primitive):
    input_names = ("input",)

    def infer(self, x):
        check_dtype(self, "input", x, mstype.ALL_TYPES)
        self.kernel_params(x)
        return x


class ReverseV2(_Unary):
    """y = x reversed along every axis in `axis` (a tuple or list of distinct ints; () leaves
    x as it is). Rank >= 1 (as MindSpore). Gradient: dout reversed along the same axes."""

    @prim_attr_register
    def __init__(self, axis):
        _int_list(self, "axis", axis, allow_int=False)

    def kernel_params(self, x):
        if len(x.shape) == 0:
            raise ValueError(f"For '{self.name}', the rank of 'input' must be not equal to 0, "
                             f"but got 0")
        axes = _int_list(self, "axis", self.attrs["axis"], allow_int=False)
        return {"axis": _unique_axes(self, "axis", axes, len(x.shape))}


@bprop_for(ReverseV2)
def reverse_v2_bprop(prim, x, out, dout):
    return (prim(dout) if needs_grad(x) else None,)


class Roll(_Unary):
    """y = x rolled by shifts[k] along dims[k] (elements leaving one end enter at the other);
    dims None: over the flattened x, shape kept (PyTorch's torch.roll; MindSpore 2.10 has no
    CPU kernel for Roll). shifts and dims: ints or equal-length tuples/lists of ints.
    Gradient: dout rolled by -shifts."""

    @prim_attr_register
    def __init__(self, shifts, dims=None):
        shifts = _int_list(self, "shifts", shifts, allow_int=True)
        if dims is None:
            if len(shifts) != 1:
                raise ValueError(f"For '{self.name}', 'shifts' must hold one int when 'dims' is "
                                 f"None, but got {list(shifts)}")
        elif len(_int_list(self, "dims", dims, allow_int=True)) != len(shifts):
            raise ValueError(f"For '{self.name}', 'shifts' and 'dims' must have the same "
                             f"length, but got {list(shifts)} and {dims!r}")

    def kernel_params(self, x):
        shifts = _int_list(self, "shifts", self.attrs["shifts"], allow_int=True)
        dims = self.attrs["dims"]
        if dims is None:
            return {"shifts": shifts, "dims": None}
        dims = _int_list(self, "dims", dims, allow_int=True)
        return {"shifts": shifts,
                "dims": tuple(check_axis(self, "dims", d, len(x.shape)) for d in dims)}


@bprop_for(Roll)
def roll_bprop(prim, x, out, dout):
    if not needs_grad(x):
        return (None,)
    shifts = _int_list(prim, "shifts", prim.attrs["shifts"], allow_int=True)
    dims = prim.attrs["dims"]
    back = cached_prim(Roll, tuple(-s for s in shifts),
                       None if dims is None else _int_list(prim, "dims", dims, allow_int=True))
    return (back(dout),)


class _Triangle(_Unary):
    """y = x with the elements on the wrong side of `diagonal` (over the last two axes, any
    batch in front) set to 0; rank >= 2. Gradient: dout masked by the same triangle."""

    @prim_attr_register
    def __init__(self, diagonal=0):
        check_int(self, "diagonal", diagonal)

    def kernel_params(self, x):
        if len(x.shape) < 2:
            raise ValueError(f"For '{self.name}', the rank of 'input' must be greater than or "
                             f"equal to 2, but got {len(x.shape)}")
        return {"diagonal": int(self.attrs["diagonal"])}


class Triu(_Triangle):
    """Upper triangle: keeps x[..., i, j] where j - i >= diagonal."""


class Tril(_Triangle):
    """Lower triangle: keeps x[..., i, j] where j - i <= diagonal."""


@bprop_for(Triu, Tril)
def triangle_bprop(prim, x, out, dout):
    return (prim(dout) if needs_grad(x) else None,)
