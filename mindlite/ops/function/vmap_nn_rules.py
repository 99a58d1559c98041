"""Batch rules of ops.vmap for the nn families (see vmap_rules.py for the contract): LayerNorm
and its gradient, Cdist, BCEWithLogitsLoss, the pools and LRN (the batch folded into N),
ScatterNd, StridedSliceGrad and the optimizer updates (MindSpore's batch_rank). RULES maps
each primitive class to its rule; vmap_rules.py merges it."""
from ...cache_limits import remember
from ...common.tensor import Tensor
from ...ir.primitive import const_value
from ..operations import (local_norm_ops, loss_ops, norm_ops, optim_adaptive_ops, pool_nd_ops,
                          pool_ops, scatter_ops, stat_ops)
from ..operations._base import cached_prim
from .vmap_batching import _F, _broadcast_all, _elementwise, _init_names, _respelled


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


RULES = {
    norm_ops.LayerNorm: _layer_norm, norm_ops.LayerNormGrad: _layer_norm_grad,
    stat_ops.Cdist: _cdist,
    loss_ops.BCEWithLogitsLoss: _bce_with_logits, scatter_ops.ScatterNd: _scatter_nd,
    scatter_ops.StridedSliceGrad: _strided_slice_grad,
}
for _cls in (pool_ops.MaxPool, pool_ops.MaxPoolGrad, pool_ops.MaxPoolGradGrad, pool_ops.AvgPool,
             pool_ops.AvgPoolGrad, pool_nd_ops.AvgPool3D, pool_nd_ops.AvgPool3DGrad,
             local_norm_ops.LRN, local_norm_ops.LRNGrad):
    RULES[_cls] = _fold_batch
for _cls in (optim_adaptive_ops.ApplyRMSProp, optim_adaptive_ops.ApplyCenteredRMSProp,
             optim_adaptive_ops.ApplyAdagrad, optim_adaptive_ops.ApplyAdadelta,
             optim_adaptive_ops.ApplyAdaMax, optim_adaptive_ops.ApplyFtrl,
             optim_adaptive_ops.ApplyProximalAdagrad, optim_adaptive_ops.ApplyGradientDescent,
             optim_adaptive_ops.ApplyProximalGradientDescent, optim_adaptive_ops.ApplyAdagradV2,
             optim_adaptive_ops.ApplyAdamWithAmsgrad):
    RULES[_cls] = _apply_optimizer
