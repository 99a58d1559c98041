"""Batch rules of ops.vmap (jit/vmap.py): how each primitive runs on a batch at once.

`apply(prim, args)` gets the primitive and its arguments as (value, bdim) pairs, bdim 0 for a
batched Tensor (its batch axis first) and None for anything unbatched, and returns the
result's (value, bdim). A call with no batched argument runs as it is. The rules:
- elementwise (unary/binary ops, Select, Cast, Lerp, activations): batched operands get unit axes
  so the example axes stay right-aligned with the unbatched ones, then the primitive runs;
- MatMul / BatchMatMul: a batched-batch matmul (numpy broadcasting of the leading axes);
- reductions, Softmax / LogSoftmax, ExpandDims, Squeeze, Transpose, Reshape, Concat, Stack,
  Tile, BroadcastTo, BiasAdd, Argmax / Argmin and their WithValue forms: the example's axes
  shifted by one past the batch axis;
- Gather: the axis shifted (params batched), the batch axis moved back in front (indices
  batched), or batch_dims=1 (both batched);
- GatherNd: a batched params' batch number put in front of each index tuple;
- LayerNorm: the axes shifted, a batched gamma / beta applied after a unit-affine norm;
  LayerNormGrad: the axes shifted, dx from dy * gamma with unit gamma, dgamma / dbeta summed
  per example;
- Cdist: the batch merged into Cdist's own batch dimension;
- BCEWithLogitsLoss: elementwise with reduction 'none', then the reduction per example;
- pools and their gradients (MaxPool, AvgPool, MaxPoolGrad, ..., 3-D forms), LRN and LRNGrad:
  the batch folded into the op's own N axis, every tensor operand alike;
- ScatterNd: each example's index tuples get its batch number in front, the shape a leading
  batch axis;
- StridedSliceGrad: the batch a leading full slice (masks shifted by one bit);
- the optimizer updates of optim_adaptive_ops (ApplyAdagrad, ApplyFtrl, ApplyGradientDescent,
  ...): MindSpore's batch_rank attribute, states mapped and updated in place.
Anything else raises NotImplementedError naming the primitive (never a silent loop).
"""
from ..operations import (_base, array_ops, join_ops, local_norm_ops, logic_ops, math_ops,
                          nn_ops, reduce_ops, scatter_index_ops, slice_ops)
from ..operations._base import cached_prim
from ...ir.primitive import const_value
from . import vmap_nn_rules
from .vmap_batching import (_F, _broadcast_all, _elementwise, _example_ndim, _norm_axes,
                            _respelled, move_to_front, place)

__all__ = ["apply", "move_to_front", "place"]


def _matmul(prim, args):
    (x, bx), (y, by) = args[:2]
    F = _F()
    ta = prim.attrs.get("transpose_a", prim.attrs.get("transpose_x", False))
    tb = prim.attrs.get("transpose_b", prim.attrs.get("transpose_y", False))
    if ta:
        x = F.swapaxes(x, -1, -2)
    if tb:
        y = F.swapaxes(y, -1, -2)
    rank = max(_example_ndim(x, bx), _example_ndim(y, by))
    if rank < 2:
        raise NotImplementedError(f"vmap: no batch rule for '{prim.name}' of 1-D operands")
    out = []
    for v, b in ((x, bx), (y, by)):
        if b is not None and _example_ndim(v, b) < rank:
            v = F.reshape(v, (v.shape[0],) + (1,) * (rank - _example_ndim(v, b)) + v.shape[1:])
        elif b is None:
            v = F.reshape(v, (1,) * (rank + 1 - v.ndim) + v.shape)
        out.append(v)
    return F.matmul(out[0], out[1]), 0


def _reduce(prim, args):
    (x, bx), rest = args[0], args[1:]
    nd = _example_ndim(x, bx)
    axis = const_value(rest[0][0]) if rest else ()
    axes = tuple(range(nd)) if axis in ((), None) else _norm_axes(
        axis if isinstance(axis, (tuple, list)) else (axis,), nd)
    return prim(x, tuple(a + 1 for a in axes)), 0


def _axis_attr(name):
    def rule(prim, args):
        (x, _), = args[:1]
        nd = x.ndim - 1
        axis = prim.attrs[name]
        shifted = tuple(a % nd + 1 for a in axis) if isinstance(axis, (tuple, list)) \
            else axis % nd + 1
        if isinstance(prim, array_ops.Squeeze) and axis in ((), []):      # every unit axis
            shifted = tuple(i + 1 for i, d in enumerate(x.shape[1:]) if d == 1)
        return cached_prim(type(prim), shifted)(x), 0
    return rule


def _expand_dims(prim, args):
    (x, _), (axis, _) = args
    nd = x.ndim - 1
    return prim(x, axis % (nd + 1) + 1), 0


def _transpose(prim, args):
    (x, _), (perm, _) = args
    return prim(x, (0,) + tuple(p % (x.ndim - 1) + 1 for p in perm)), 0


def _reshape(prim, args):
    (x, _), (shape, _) = args
    return prim(x, (x.shape[0],) + tuple(shape)), 0


def _join(prim, args):
    (vals, bdims), = args[:1]
    size = next(v.shape[0] for v, b in zip(vals, bdims) if b is not None)
    vals = _broadcast_all(vals, bdims, size)
    nd = vals[0].ndim - 1                               # the example's rank
    span = nd + 1 if isinstance(prim, join_ops.Stack) else nd
    return cached_prim(type(prim), prim.attrs["axis"] % span + 1)(vals), 0


def _tile(prim, args):
    (x, _), (multiples, _) = args
    mult = tuple(multiples)
    nd = x.ndim - 1
    if len(mult) > nd:
        x = _F().reshape(x, (x.shape[0],) + (1,) * (len(mult) - nd) + x.shape[1:])
    return prim(x, (1,) + (1,) * (x.ndim - 1 - len(mult)) + mult), 0


def _broadcast_to(prim, args):
    (x, _), = args[:1]
    shape = tuple(prim.attrs["shape"])
    nd = x.ndim - 1
    if len(shape) > nd:
        x = _F().reshape(x, (x.shape[0],) + (1,) * (len(shape) - nd) + x.shape[1:])
    return cached_prim(type(prim), (x.shape[0],) + shape)(x), 0


def _bias_add(prim, args):
    """x + bias along the channel axis (1, or the last for NHWC) of each example; a batched
    bias (B, C) adds example b's bias to example b."""
    (x, bx), (b, bb) = args
    F = _F()
    nd = x.ndim - (0 if bx is None else 1)               # the example's rank
    nhwc = prim.attrs["data_format"] == "NHWC"
    if bb is None:
        bias = b if nhwc else F.reshape(b, (b.shape[0],) + (1,) * (nd - 2))
    else:
        lead = (b.shape[0],) + (1,) * (nd - 1 if nhwc else 1)
        bias = F.reshape(b, lead + (b.shape[1],) + (() if nhwc else (1,) * (nd - 2)))
        if bx is None:
            x = F.expand_dims(x, 0)
    return F.add(x, bias), 0


def _arg_reduce(prim, args):
    (x, _), = args
    return _respelled(prim, axis=prim.attrs["axis"] % (x.ndim - 1) + 1)(x), 0


def _gather(prim, args):
    (x, bx), (idx, bi), (axis, _) = args
    F = _F()
    b = prim.attrs["batch_dims"]
    nd = x.ndim - (1 if bx is not None else 0)
    a = const_value(axis) % nd
    if bi is None:                                  # params batched: one more leading axis
        if not b:
            return prim(x, idx, a + 1), 0
        idx = F.broadcast_to(F.expand_dims(idx, 0), (x.shape[0],) + idx.shape)
        return _respelled(prim, batch_dims=b + 1)(x, idx, a + 1), 0
    if bx is None:
        if b:
            x = F.broadcast_to(F.expand_dims(x, 0), (idx.shape[0],) + x.shape)
            return _respelled(prim, batch_dims=b + 1)(x, idx, a + 1), 0
        return F.moveaxis(prim(x, idx, a), a, 0), 0   # the indices' batch axis lands at a
    return _respelled(prim, batch_dims=b + 1)(x, idx, a + 1), 0


def _gather_nd(prim, args):
    """Indices batched only: the batch axis is already first. Params batched: each example's
    index tuples get its batch number in front."""
    (x, bx), (idx, bi) = args
    if bx is None:
        return prim(x, idx), 0
    F = _F()
    size = x.shape[0]
    if bi is None:
        idx = F.broadcast_to(F.expand_dims(idx, 0), (size,) + idx.shape)
    iota = F.reshape(F.arange(0, size, 1, dtype=idx.dtype), (size,) + (1,) * (idx.ndim - 1))
    iota = F.broadcast_to(iota, idx.shape[:-1] + (1,))
    return prim(x, F.concat((iota, idx), -1)), 0


_RULES = {
    math_ops.MatMul: _matmul, math_ops.BatchMatMul: _matmul,
    nn_ops.Softmax: _axis_attr("axis"), nn_ops.LogSoftmax: _axis_attr("axis"),
    array_ops.Squeeze: _axis_attr("axis"), array_ops.ExpandDims: _expand_dims,
    local_norm_ops.L2Normalize: lambda prim, args: (_respelled(prim, axis=prim.attrs["axis"] % (
        args[0][0].ndim - 1) + 1)(args[0][0]), 0),
    array_ops.Transpose: _transpose, array_ops.Reshape: _reshape,
    join_ops.Concat: _join, join_ops.Stack: _join, array_ops.Tile: _tile,
    array_ops.BroadcastTo: _broadcast_to, nn_ops.BiasAdd: _bias_add,
    reduce_ops.Argmax: _arg_reduce, reduce_ops.Argmin: _arg_reduce,
    reduce_ops.ArgMaxWithValue: _arg_reduce, reduce_ops.ArgMinWithValue: _arg_reduce,
    slice_ops.Gather: _gather, scatter_index_ops.GatherNd: _gather_nd,
    **vmap_nn_rules.RULES,
}
for _cls in (reduce_ops.ReduceSum, reduce_ops.ReduceMean, reduce_ops.ReduceMax,
             reduce_ops.ReduceMin, reduce_ops.ReduceProd, reduce_ops.ReduceAll,
             reduce_ops.ReduceAny):
    _RULES[_cls] = _reduce
_ELEMENTWISE = (_base.UnaryOp, _base.BinaryOp, logic_ops.Select, array_ops.Cast,
                math_ops.Lerp)


def apply(prim, args):
    if all(b is None for _, b in args) and not any(
            isinstance(b, tuple) and any(e is not None for e in b) for _, b in args):
        return prim(*[v for v, _ in args]), None
    rule = _RULES.get(type(prim))
    if rule is not None:
        return rule(prim, args)
    if hasattr(prim, "vmap_rule"):                  # a primitive carrying its own rule
        return prim.vmap_rule(args)
    if isinstance(prim, _ELEMENTWISE):
        return _elementwise(prim, args)
    raise NotImplementedError(f"vmap: the primitive '{prim.name}' has no batch rule yet")
