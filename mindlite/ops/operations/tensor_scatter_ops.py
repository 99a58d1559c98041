"""TensorScatterSub / Mul / Div / Max / Min (MindSpore's names): input_x with the slices at
indices[..., :N] combined with updates (shape indices.shape[:-1] + input_x.shape[N:]) by
subtraction, multiplication, division, maximum or minimum; repeated indices apply one after
another (np.<ufunc>.at). Out of place: the input is never modified. Indices must lie in
[0, input_x.shape[k]) (the kernel checks them before writing anything).

Bprops (as MindSpore's, exact for distinct indices): Sub: (dout, -GatherNd(dout)); Mul:
(dout scattered-multiplied by updates, GatherNd(dout * x)); Div: (dout scattered-divided by
updates, -GatherNd(dout * out) / updates); Max / Min: dout goes to x where the result is x's
value, and to the update where the result is the update's and not x's.
Kernels: kernels/cpu/tensor_scatter_numpy.py.
"""
from ...ir.rules import bprop_for
from ._base import needs_grad
from .logic_ops import Equal, LogicalAnd, NotEqual, Select
from .math_ops import Div, Mul, Neg
from .scatter_index_ops import GatherNd, _TensorScatter

__all__ = ["TensorScatterSub", "TensorScatterMul", "TensorScatterDiv", "TensorScatterMax",
           "TensorScatterMin"]

_mul, _div, _neg = Mul(), Div(), Neg()
_equal, _not_equal, _and, _select = Equal(), NotEqual(), LogicalAnd(), Select()
_gather_nd = GatherNd()


class TensorScatterSub(_TensorScatter):
    """y = input_x with updates subtracted at indices."""


class TensorScatterMul(_TensorScatter):
    """y = input_x with the slices at indices multiplied by updates."""


class TensorScatterDiv(_TensorScatter):
    """y = input_x with the slices at indices divided by updates."""


class TensorScatterMax(_TensorScatter):
    """y = input_x with the slices at indices replaced by max(slice, updates)."""


class TensorScatterMin(_TensorScatter):
    """y = input_x with the slices at indices replaced by min(slice, updates)."""


@bprop_for(TensorScatterSub)
def tensor_scatter_sub_bprop(prim, x, indices, updates, out, dout):
    return ((dout if needs_grad(x) else None), None,
            (_neg(_gather_nd(dout, indices)) if needs_grad(updates) else None))


@bprop_for(TensorScatterMul)
def tensor_scatter_mul_bprop(prim, x, indices, updates, out, dout):
    dx = prim(dout, indices, updates) if needs_grad(x) else None
    dupd = _gather_nd(_mul(dout, x), indices) if needs_grad(updates) else None
    return dx, None, dupd


@bprop_for(TensorScatterDiv)
def tensor_scatter_div_bprop(prim, x, indices, updates, out, dout):
    dx = prim(dout, indices, updates) if needs_grad(x) else None
    dupd = _neg(_div(_gather_nd(_mul(dout, out), indices), updates)) \
        if needs_grad(updates) else None
    return dx, None, dupd


@bprop_for(TensorScatterMax, TensorScatterMin)
def tensor_scatter_extreme_bprop(prim, x, indices, updates, out, dout):
    from_x = _equal(out, x)
    dx = _select(from_x, dout, 0.0) if needs_grad(x) else None
    dupd = None
    if needs_grad(updates):
        picked = _and(_equal(_gather_nd(out, indices), updates),
                      _not_equal(_gather_nd(x, indices), updates))
        dupd = _select(picked, _gather_nd(dout, indices), 0.0)
    return dx, None, dupd
