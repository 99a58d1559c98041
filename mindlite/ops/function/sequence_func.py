"""Sequence and padding helpers of MindSpore 2.10's ops: sequence_mask, repeat_elements,
reverse_sequence, mirror_pad, padding, unique_with_pad, population_count, intopk. All are
compositions of existing primitives (comparisons, GatherD, flips and concats, bitwise shifts),
so they run in graph mode and differentiate where MindSpore does.
"""
import numpy as np

from ...common import dtype as mstype
from ...common.tensor import Tensor

__all__ = ["sequence_mask", "repeat_elements", "reverse_sequence", "mirror_pad", "padding",
           "unique_with_pad", "population_count", "intopk"]


def _F():
    from .. import functional as F
    return F


def _tensor(op, arg, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{op}', '{arg}' must be a Tensor, but got {type(x).__name__}")
    return x


def _values(op, arg, x):
    """The values of a Tensor (or a sequence) argument that fixes a shape or an index."""
    if isinstance(x, Tensor):
        return x.asnumpy()
    return np.asarray(x)


def sequence_mask(lengths, maxlen=None):
    """mask[..., j] = j < lengths[...]; maxlen defaults to max(lengths)."""
    F = _F()
    _tensor("sequence_mask", "lengths", lengths)
    if lengths.dtype.kind not in "iu":
        raise TypeError(f"For 'sequence_mask', 'lengths' must be an int tensor, but got "
                        f"{lengths.dtype}")
    if maxlen is None:
        maxlen = int(lengths.asnumpy().max()) if lengths.size else 0
    elif not isinstance(maxlen, (int, np.integer)) or maxlen < 0:
        raise ValueError(f"For 'sequence_mask', 'maxlen' must be a non-negative int, but got "
                         f"{maxlen!r}")
    steps = Tensor(np.arange(int(maxlen), dtype=lengths.dtype.np))
    return F.less(steps, F.expand_dims(lengths, -1))


def repeat_elements(x, rep, axis=0):
    """Each slice of x along axis repeated rep times (ops.repeat_interleave)."""
    return _F().repeat_interleave(_tensor("repeat_elements", "x", x), rep, axis)


def reverse_sequence(x, seq_lengths, seq_dim, batch_dim=0):
    """For every b along batch_dim, the first seq_lengths[b] elements along seq_dim reversed."""
    F = _F()
    _tensor("reverse_sequence", "x", x)
    nd = len(x.shape)
    seq_dim, batch_dim = seq_dim % nd, batch_dim % nd
    if seq_dim == batch_dim:
        raise ValueError("For 'reverse_sequence', 'seq_dim' and 'batch_dim' must differ")
    lens = _values("reverse_sequence", "seq_lengths", seq_lengths).reshape(-1)
    n, b = x.shape[seq_dim], x.shape[batch_dim]
    if lens.size != b or np.any(lens > n) or np.any(lens < 0):
        raise ValueError(f"For 'reverse_sequence', 'seq_lengths' must hold {b} values in "
                         f"[0, {n}], but got {lens.tolist()}")
    j = np.arange(n)[None, :]
    idx = np.where(j < lens[:, None], lens[:, None] - 1 - j, j)           # (batch, seq)
    shape = [1] * nd
    shape[batch_dim], shape[seq_dim] = b, n
    order = (0, 1) if batch_dim < seq_dim else (1, 0)
    idx = np.transpose(idx, order).reshape(shape)
    idx = np.broadcast_to(idx, x.shape).astype(np.int64)
    return F.gather_elements(x, seq_dim, Tensor(np.ascontiguousarray(idx)))


def mirror_pad(input_x, paddings, mode):
    """input_x padded along every dim by paddings[d] = (before, after) mirrored copies:
    "REFLECT" leaves the edge out, "SYMMETRIC" repeats it."""
    F = _F()
    _tensor("mirror_pad", "input_x", input_x)
    pads = _values("mirror_pad", "paddings", paddings).astype(np.int64)
    if mode not in ("REFLECT", "SYMMETRIC"):
        raise ValueError(f"For 'mirror_pad', 'mode' must be 'REFLECT' or 'SYMMETRIC', but got "
                         f"{mode!r}")
    nd = len(input_x.shape)
    if pads.shape != (nd, 2) or np.any(pads < 0):
        raise ValueError(f"For 'mirror_pad', 'paddings' must be a non-negative ({nd}, 2) "
                         f"array, but got {pads.tolist()}")
    edge = 0 if mode == "SYMMETRIC" else 1
    out = input_x
    for d in range(nd):
        before, after = int(pads[d, 0]), int(pads[d, 1])
        size = out.shape[d]
        if max(before, after) > size - edge:
            raise ValueError(f"For 'mirror_pad', the padding of dim {d} must be at most "
                             f"{size - edge} for mode {mode}, but got {[before, after]}")
        parts = []
        if before:
            parts.append(F.flip(F.narrow(out, d, edge, before), (d,)))
        parts.append(out)
        if after:
            parts.append(F.flip(F.narrow(out, d, size - edge - after, after), (d,)))
        if len(parts) > 1:
            out = F.concat(parts, d)
    return out


def padding(x, pad_dim_size=8):
    """x (last dim 1) widened to pad_dim_size along the last dim with zeros after it."""
    F = _F()
    _tensor("padding", "x", x)
    if not x.shape or x.shape[-1] != 1:
        raise ValueError(f"For 'padding', the last dim of 'x' must be 1, but got shape "
                         f"{list(x.shape)}")
    if not isinstance(pad_dim_size, (int, np.integer)) or pad_dim_size < 1:
        raise ValueError(f"For 'padding', 'pad_dim_size' must be a positive int, but got "
                         f"{pad_dim_size!r}")
    if pad_dim_size == 1:
        return F.cast(x, x.dtype)
    return F.concat((x, F.zeros(tuple(x.shape[:-1]) + (pad_dim_size - 1,), x.dtype)), -1)


def unique_with_pad(x, pad_num):
    """(the unique values of 1-D x in first-appearance order padded with pad_num to x's
    length, the index of every element's value in them)."""
    F = _F()
    _tensor("unique_with_pad", "x", x)
    if len(x.shape) != 1:
        raise ValueError(f"For 'unique_with_pad', 'x' must be 1-D, but got shape "
                         f"{list(x.shape)}")
    y, idx = F.unique(x)
    missing = x.shape[0] - y.shape[0]
    if missing:
        y = F.concat((y, F.full((missing,), pad_num, dtype=y.dtype)), 0)
    return y, idx


def _popcount32(F, v):
    """Bit counts of int64 values in [0, 2^32) (the SWAR sums, in int64)."""
    v = F.sub(v, F.bitwise_and(F.bitwise_right_shift(v, 1), 0x55555555))
    v = F.add(F.bitwise_and(v, 0x33333333),
              F.bitwise_and(F.bitwise_right_shift(v, 2), 0x33333333))
    v = F.bitwise_and(F.add(v, F.bitwise_right_shift(v, 4)), 0x0F0F0F0F)
    v = F.add(v, F.bitwise_right_shift(v, 8))
    v = F.add(v, F.bitwise_right_shift(v, 16))
    return F.bitwise_and(v, 0x3F)


def population_count(input_x):
    """The number of set bits of every element of an int tensor (two's complement), uint8."""
    F = _F()
    _tensor("population_count", "input_x", input_x)
    dt = input_x.dtype
    if dt.kind not in "iu":
        raise TypeError(f"For 'population_count', 'input_x' must be an int tensor, but got "
                        f"{dt}")
    bits = 8 * dt.np.itemsize
    v = F.cast(input_x, mstype.int64)
    if bits < 64:
        count = _popcount32(F, F.bitwise_and(v, (1 << bits) - 1))
    else:
        low = F.bitwise_and(v, 0xFFFFFFFF)
        high = F.bitwise_and(F.bitwise_right_shift(v, 32), 0xFFFFFFFF)
        count = F.add(_popcount32(F, low), _popcount32(F, high))
    return F.cast(count, mstype.uint8)


def intopk(x1, x2, k):
    """out[i] = whether x1[i, x2[i]] is among the k largest of row i (ties count as in; a
    non-finite target is not)."""
    F = _F()
    _tensor("intopk", "x1", x1)
    _tensor("intopk", "x2", x2)
    if len(x1.shape) != 2 or len(x2.shape) != 1 or x2.shape[0] != x1.shape[0]:
        raise ValueError(f"For 'intopk', 'x1' must be 2-D and 'x2' 1-D of its batch size, "
                         f"but got shapes {list(x1.shape)} and {list(x2.shape)}")
    target = F.gather_elements(x1, 1, F.expand_dims(F.cast(x2, mstype.int64), 1))
    above = F.sum(F.cast(F.greater(x1, target), mstype.int32), 1)
    finite = F.squeeze(F.isfinite(target), 1)
    return F.logical_and(F.less(above, k), finite)
