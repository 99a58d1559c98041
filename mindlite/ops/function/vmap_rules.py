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
import inspect

from ...cache_limits import remember
from ...common.tensor import Tensor
from ..operations import (_base, array_ops, join_ops, local_norm_ops, logic_ops, loss_ops,
                          math_ops, nn_ops, norm_ops, optim_adaptive_ops, pool_nd_ops, pool_ops,
                          reduce_ops, scatter_index_ops, scatter_ops, slice_ops, stat_ops)
from ..operations._base import cached_prim
from ...ir.primitive import const_value

__all__ = ["apply", "move_to_front", "place"]


def _F():
    from .. import functional
    return functional


def move_to_front(x, axis):
    if axis == 0:
        return x
    perm = (axis,) + tuple(i for i in range(x.ndim) if i != axis)
    return _F().transpose(x, perm)


def place(value, bdim, axis, size=None):
    """The result with its batch axis at `axis` (an unbatched result is broadcast)."""
    F = _F()
    if bdim is None:
        if not isinstance(value, Tensor) or size is None:
            return value
        value = F.broadcast_to(F.expand_dims(value, 0), (size,) + value.shape)
    if axis is None:
        raise ValueError("For 'vmap', out_axes None needs an output that does not depend on "
                         "the mapped axis")
    nd = value.ndim
    axis %= nd
    if axis == 0:
        return value
    perm = tuple(i for i in range(1, axis + 1)) + (0,) + tuple(range(axis + 1, nd))
    return F.transpose(value, perm)


def _example_ndim(value, bdim):
    return value.ndim - (1 if bdim is not None else 0)


def _elementwise(prim, args):
    rank = max((_example_ndim(v, b) for v, b in args if isinstance(v, Tensor)), default=0)
    F = _F()
    vals = []
    for v, b in args:
        if b is not None and _example_ndim(v, b) < rank:
            v = F.reshape(v, (v.shape[0],) + (1,) * (rank - _example_ndim(v, b)) + v.shape[1:])
        vals.append(v)
    return prim(*vals), 0


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


def _norm_axes(axis, ndim):
    if isinstance(axis, (tuple, list)):
        return tuple(a % ndim for a in axis)
    return axis % ndim if ndim else 0


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


def _broadcast_all(vals, bdims, size):
    F = _F()
    return tuple(v if b is not None else F.broadcast_to(F.expand_dims(v, 0), (size,) + v.shape)
                 for v, b in zip(vals, bdims))


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


def _init_names(prim):
    return [n for n in inspect.signature(type(prim).__init__).parameters if n != "self"]


def _respelled(prim, **changes):
    """The shared primitive of prim's class with prim's __init__ attributes, some changed."""
    return cached_prim(type(prim), *(changes[n] if n in changes else prim.attrs[n]
                                     for n in _init_names(prim)))


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


def _layer_norm(prim, args):
    (x, bx), (gamma, bg), (beta, bb) = args
    F = _F()
    size = next(v.shape[0] for v, b in args if b is not None)
    if bx is None:
        x = F.broadcast_to(F.expand_dims(x, 0), (size,) + x.shape)
    nd = x.ndim - 1
    bna = prim.attrs["begin_norm_axis"] % nd + 1
    bpa = prim.attrs["begin_params_axis"] % nd + 1
    shifted = _respelled(prim, begin_norm_axis=bna, begin_params_axis=bpa)
    if bg is None and bb is None:
        return shifted(x, gamma, beta), 0
    ones = F.ones(x.shape[bpa:], x.dtype)
    y, mean, var = shifted(x, ones, F.zeros_like(ones))
    lead = (size,) + (1,) * (bpa - 1)
    for t, bt, op in ((gamma, bg, F.mul), (beta, bb, F.add)):
        y = op(y, F.reshape(t, lead + t.shape[1:]) if bt is not None else t)
    return (y, mean, var), 0


def _layer_norm_grad(prim, args):
    """dx(dy, gamma) = dx(dy * gamma, ones): the primitive on the batch with unit gamma; dgamma
    and dbeta summed over each example's own leading axes."""
    F = _F()
    size = next(v.shape[0] for v, b in args if b is not None)
    x, dy, var, mean, gamma = _broadcast_all(*zip(*args), size)
    nd = x.ndim - 1
    bna = prim.attrs["begin_norm_axis"] % nd + 1
    bpa = prim.attrs["begin_params_axis"] % nd + 1
    g = F.reshape(gamma, (size,) + (1,) * (bpa - 1) + gamma.shape[1:])
    ones = F.ones(x.shape[bpa:], x.dtype)
    shifted = _respelled(prim, begin_norm_axis=bna, begin_params_axis=bpa)
    dx = shifted(x, dy * g, var, mean, ones)[0]
    xhat = (x - mean) * F.rsqrt(var + prim.attrs["epsilon"])
    axes = tuple(range(1, bpa))
    dg = F.sum(dy * xhat, axes) if axes else dy * xhat
    db = F.sum(dy, axes) if axes else dy
    return (dx, dg, db), 0


def _cdist(prim, args):
    (x, bx), (y, by) = args
    F = _F()
    size = next(v.shape[0] for v, b in args if b is not None)
    x, y = _broadcast_all((x, y), (bx, by), size)
    if x.ndim == 3:                                  # 2-D examples: the batch is Cdist's own
        return prim(x, y), 0
    out = prim(F.reshape(x, (-1,) + x.shape[2:]), F.reshape(y, (-1,) + y.shape[2:]))
    return F.reshape(out, (size, x.shape[1]) + out.shape[1:]), 0


def _bce_with_logits(prim, args):
    out, _ = _elementwise(cached_prim(type(prim), "none"), args)
    reduction = prim.attrs["reduction"]
    if reduction == "none":
        return out, 0
    axes = tuple(range(1, out.ndim))
    F = _F()
    return (F.mean(out, axes) if reduction == "mean" else F.sum(out, axes)), 0


def _fold_batch(prim, args):
    """Ops on (N, ...) tensors whose examples are independent along N (pools and their
    gradients): (B, N, ...) runs as (B * N, ...), every tensor operand alike."""
    F = _F()
    size = next(v.shape[0] for v, b in args if b is not None)
    vals = []
    for v, b in args:
        if isinstance(v, Tensor):
            if b is None:
                v = F.broadcast_to(F.expand_dims(v, 0), (size,) + v.shape)
            v = F.reshape(v, (-1,) + v.shape[2:])
        vals.append(v)
    out = prim(*vals)

    def unfold(o):
        return F.reshape(o, (size, -1) + o.shape[1:])
    if isinstance(out, tuple):
        return tuple(unfold(o) for o in out), (0,) * len(out)
    return unfold(out), 0


def _scatter_nd(prim, args):
    (idx, bi), (upd, bu), (shape, _) = args
    F = _F()
    size = next(v.shape[0] for v, b in args if b is not None)
    idx, upd = _broadcast_all((idx, upd), (bi, bu), size)
    iota = F.reshape(F.arange(0, size, 1, dtype=idx.dtype), (size,) + (1,) * (idx.ndim - 1))
    iota = F.broadcast_to(iota, idx.shape[:-1] + (1,))
    return prim(F.concat((iota, idx), -1), upd, (size,) + tuple(const_value(shape))), 0


def _strided_slice_grad(prim, args):
    (dy, bd), shapex, begin, end, strides = args
    if any(b is not None for _, b in args[1:]):
        raise NotImplementedError("vmap: 'StridedSliceGrad' with a batched shape, begin, end "
                                  "or strides has no batch rule")
    if bd is None:
        return prim(dy, *(v for v, _ in args[1:])), None
    size = dy.shape[0]
    shifted = _respelled(prim, **{n: prim.attrs[n] << 1 for n in (
        "begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")})
    lead = [(size,), (0,), (size,), (1,)]
    vals = [tuple(head) + tuple(const_value(v)) for head, (v, _) in
            zip(lead, (shapex, begin, end, strides))]
    return shifted(dy, *vals), 0


_BATCHED = {}


def _apply_optimizer(prim, args):
    """An optimizer update of a batch of states at once: MindSpore's batch_rank attribute
    (hyper-parameters one per example, or shared; the state updated in place)."""
    size = next(v.shape[0] for v, b in args if b is not None)
    F = _F()
    vals = []
    for (v, b), name in zip(args, prim.input_names):
        if name in prim.state_inputs and b is None:
            raise NotImplementedError(f"vmap: '{prim.name}' needs its state '{name}' mapped "
                                      f"(it is updated in place)")
        if name == prim.grad_input and b is None:
            v = F.broadcast_to(F.expand_dims(v, 0), (size,) + v.shape)
        elif name in prim.scalar_inputs and b is not None and v.ndim > 1:
            v = F.reshape(v, (size,))                     # one (1,)-shaped value per example
        vals.append(v)
    key = (type(prim), tuple(sorted(prim.attrs.items())))
    batched = _BATCHED.get(key)
    if batched is None:
        batched = _respelled(prim)
        batched = type(batched)(*(batched.attrs[n] for n in _init_names(batched)))
        batched.add_prim_attr("batch_rank", 1)
        batched = remember(_BATCHED, key, batched)
    out = batched(*vals)
    return out, ((0,) * len(out) if isinstance(out, tuple) else 0)


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
    norm_ops.LayerNorm: _layer_norm, norm_ops.LayerNormGrad: _layer_norm_grad,
    stat_ops.Cdist: _cdist,
    loss_ops.BCEWithLogitsLoss: _bce_with_logits, scatter_ops.ScatterNd: _scatter_nd,
    scatter_ops.StridedSliceGrad: _strided_slice_grad,
}
for _cls in (pool_ops.MaxPool, pool_ops.MaxPoolGrad, pool_ops.MaxPoolGradGrad, pool_ops.AvgPool,
             pool_ops.AvgPoolGrad, pool_nd_ops.AvgPool3D, pool_nd_ops.AvgPool3DGrad,
             local_norm_ops.LRN, local_norm_ops.LRNGrad):
    _RULES[_cls] = _fold_batch
for _cls in (optim_adaptive_ops.ApplyRMSProp, optim_adaptive_ops.ApplyCenteredRMSProp,
             optim_adaptive_ops.ApplyAdagrad, optim_adaptive_ops.ApplyAdadelta,
             optim_adaptive_ops.ApplyAdaMax, optim_adaptive_ops.ApplyFtrl,
             optim_adaptive_ops.ApplyProximalAdagrad, optim_adaptive_ops.ApplyGradientDescent,
             optim_adaptive_ops.ApplyProximalGradientDescent, optim_adaptive_ops.ApplyAdagradV2,
             optim_adaptive_ops.ApplyAdamWithAmsgrad):
    _RULES[_cls] = _apply_optimizer
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
