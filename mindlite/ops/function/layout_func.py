"""Spatial re-layout functions of MindSpore 2.10's ops: space_to_batch_nd / batch_to_space_nd
(spatial blocks moved to and from the batch dim, NCHW), upsample (ops.interpolate under its
older name) and multilabel_margin_loss. Compositions of Pad, Reshape, Transpose, slicing and
elementwise ops, so they differentiate."""
import numpy as np

from ...common.tensor import Tensor

__all__ = ["space_to_batch_nd", "batch_to_space_nd", "upsample", "multilabel_margin_loss"]


def _F():
    from .. import functional as F
    return F


def _blocks(op, block, n):
    block = (block,) * n if isinstance(block, (int, np.integer)) else tuple(block)
    if len(block) != n or any(b < 1 for b in block):
        raise ValueError(f"For '{op}', the block must hold {n} positive ints, but got "
                         f"{list(block)}")
    return tuple(int(b) for b in block)


def _pairs(op, pads, n):
    pads = np.asarray(pads.asnumpy() if isinstance(pads, Tensor) else pads, np.int64)
    if pads.shape != (n, 2) or (pads < 0).any():
        raise ValueError(f"For '{op}', the paddings / crops must be a non-negative ({n}, 2) "
                         f"list, but got {pads.tolist()}")
    return pads


def space_to_batch_nd(input_x, block_size, paddings):
    """(N, C, *spatial) padded by paddings, each spatial dim cut into blocks of block_size,
    the in-block offsets moved to the batch: (N * prod(block), C, *spatial / block)."""
    F = _F()
    nd = len(input_x.shape) - 2
    block = _blocks("space_to_batch_nd", block_size, nd)
    pads = _pairs("space_to_batch_nd", paddings, nd)
    x = input_x
    if pads.any():
        flat = []
        for before, after in pads[::-1]:
            flat += [int(before), int(after)]
        x = F.pad(x, tuple(flat))
    n, c, spatial = x.shape[0], x.shape[1], x.shape[2:]
    if any(s % b for s, b in zip(spatial, block)):
        raise ValueError(f"For 'space_to_batch_nd', the padded spatial shape {list(spatial)} "
                         f"must be divisible by the block {list(block)}")
    split = [n, c]
    for s, b in zip(spatial, block):
        split += [s // b, b]
    x = F.reshape(x, tuple(split))
    order = [3 + 2 * i for i in range(nd)] + [0, 1] + [2 + 2 * i for i in range(nd)]
    x = F.transpose(x, tuple(order))
    return F.reshape(x, (n * int(np.prod(block)), c) + tuple(s // b for s, b in
                                                             zip(spatial, block)))


def batch_to_space_nd(input_x, block_shape, crops):
    """The inverse of space_to_batch_nd: (N * prod(block), C, *s) -> (N, C, *s * block),
    then cropped by crops."""
    F = _F()
    nd = len(input_x.shape) - 2
    block = _blocks("batch_to_space_nd", block_shape, nd)
    crop = _pairs("batch_to_space_nd", crops, nd)
    total = int(np.prod(block))
    if input_x.shape[0] % total:
        raise ValueError(f"For 'batch_to_space_nd', the batch {input_x.shape[0]} must be "
                         f"divisible by the block's product {total}")
    n, c, spatial = input_x.shape[0] // total, input_x.shape[1], input_x.shape[2:]
    x = F.reshape(input_x, block + (n, c) + tuple(spatial))
    order = [nd, nd + 1]
    for i in range(nd):
        order += [nd + 2 + i, i]
    x = F.transpose(x, tuple(order))
    full = tuple(s * b for s, b in zip(spatial, block))
    x = F.reshape(x, (n, c) + full)
    for d, (before, after) in enumerate(crop):
        if before or after:
            x = F.narrow(x, 2 + d, int(before), full[d] - int(before) - int(after))
    return x


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
             recompute_scale_factor=None):
    """ops.interpolate under MindSpore's older name."""
    return _F().interpolate(input, size, scale_factor, mode, align_corners,
                            recompute_scale_factor)


def multilabel_margin_loss(input, target, reduction="mean"):
    """sum over the target classes j (target's leading entries up to the first -1) and the
    other classes i of max(0, 1 - (x[j] - x[i])), over the number of classes."""
    F = _F()
    if not isinstance(input, Tensor) or not isinstance(target, Tensor):
        raise TypeError("For 'multilabel_margin_loss', 'input' and 'target' must be Tensors")
    if tuple(input.shape) != tuple(target.shape) or len(input.shape) not in (1, 2):
        raise ValueError(f"For 'multilabel_margin_loss', 'input' and 'target' must have the "
                         f"same 1-D or 2-D shape, but got {list(input.shape)} and "
                         f"{list(target.shape)}")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"For 'multilabel_margin_loss', 'reduction' must be 'none', 'mean' or "
                         f"'sum', but got {reduction!r}")
    x = input if len(input.shape) == 2 else F.expand_dims(input, 0)
    t = target.asnumpy().reshape(x.shape).astype(np.int64)
    n, c = x.shape
    listed = np.zeros((n, c), np.float64)
    for r in range(n):
        for j in t[r]:
            if j < 0:
                break
            listed[r, j] = 1.0
    other = 1.0 - (listed > 0)
    dt = x.dtype.np
    diff = F.add(F.sub(F.expand_dims(x, 1), F.expand_dims(x, 2)), 1.0)   # [n, j, i]
    weight = Tensor((listed[:, :, None] * other[:, None, :]).astype(dt))
    loss = F.div(F.sum(F.mul(F.relu(diff), weight), (1, 2)), float(c))
    if len(input.shape) == 1:
        loss = F.reshape(loss, ())
    if reduction == "mean":
        return F.mean(loss)
    if reduction == "sum":
        return F.sum(loss)
    return loss
