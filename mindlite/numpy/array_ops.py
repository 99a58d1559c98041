"""mindlite.numpy's array manipulation: shape (`reshape`, `ravel`, `squeeze`, `expand_dims`,
`transpose`, `swapaxes`, `moveaxis`, `rollaxis`, `atleast_*d`, `broadcast_*`), joining and
splitting (`concatenate`, `stack`, `*stack`, `append`, `split`, `array_split`, `*split`),
reordering (`flip*`, `roll`, `rot90`, `tile`, `repeat`), `size`, `array_str` (selection:
selection.py). All over `ops` primitives (Reshape, Concat, Tile, ...), so gradients flow.
"""
import numbers

import numpy as onp

from ..common.tensor import Tensor
from ..ops import functional as F
from .dtypes import axis_slice, to_tensor

__all__ = ["reshape", "ravel", "squeeze", "expand_dims", "transpose", "swapaxes", "moveaxis",
           "rollaxis", "atleast_1d", "atleast_2d", "atleast_3d", "broadcast_to",
           "broadcast_arrays", "concatenate", "stack", "hstack", "vstack", "dstack",
           "column_stack", "append", "split", "array_split", "hsplit", "vsplit", "dsplit",
           "flip", "fliplr", "flipud", "roll", "rot90", "tile", "repeat", "size",
           "array_str"]


def _axis(axis, ndim, name):
    if not isinstance(axis, numbers.Integral) or not -ndim <= axis < max(ndim, 1):
        raise ValueError(f"For 'mindlite.numpy.{name}', 'axis' must be in [{-ndim}, {ndim}), "
                         f"but got {axis!r}")
    return axis % max(ndim, 1)


def reshape(x, new_shape):
    return F.reshape(to_tensor(x), (new_shape,) if isinstance(new_shape, int) else
                     tuple(new_shape))


def ravel(x):
    return F.reshape(to_tensor(x), (-1,))


def squeeze(a, axis=None):
    a = to_tensor(a)
    if axis is None:
        return F.squeeze(a)
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    for ax in axes:
        if a.shape[_axis(ax, a.ndim, "squeeze")] != 1:
            raise ValueError(f"For 'mindlite.numpy.squeeze', axis {ax} has size "
                             f"{a.shape[ax]}, not 1")
    return F.squeeze(a, axes) if axes else a


def expand_dims(a, axis):
    a = to_tensor(a)
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    nd = a.ndim + len(axes)
    for ax in sorted(_axis(ax, nd, "expand_dims") for ax in axes):
        a = F.expand_dims(a, ax)
    return a


def transpose(a, axes=None):
    a = to_tensor(a)
    perm = tuple(range(a.ndim))[::-1] if axes is None else tuple(axes)
    return F.transpose(a, perm)


def swapaxes(x, axis1, axis2):
    return F.swapaxes(to_tensor(x), axis1, axis2)


def moveaxis(a, source, destination):
    return F.moveaxis(to_tensor(a), source, destination)


def rollaxis(x, axis, start=0):
    x = to_tensor(x)
    axis = _axis(axis, x.ndim, "rollaxis")
    if not -x.ndim <= start <= x.ndim:
        raise ValueError(f"For 'mindlite.numpy.rollaxis', 'start' must be in "
                         f"[{-x.ndim}, {x.ndim}], but got {start}")
    start = start % (x.ndim + 1) if start < 0 else start
    if axis < start:
        start -= 1
    if axis == start:
        return x
    perm = [d for d in range(x.ndim) if d != axis]
    perm.insert(start, axis)
    return F.transpose(x, tuple(perm))


def _atleast(arys, nd, where):
    out = []
    for a in arys:
        a = to_tensor(a)
        while a.ndim < nd:
            a = F.expand_dims(a, where(a.ndim))
        out.append(a)
    return out[0] if len(out) == 1 else out


def atleast_1d(*arys):
    return _atleast(arys, 1, lambda n: 0)


def atleast_2d(*arys):
    return _atleast(arys, 2, lambda n: 0)


def atleast_3d(*arys):
    """0-d -> (1, 1, 1), (N,) -> (1, N, 1), (M, N) -> (M, N, 1), as numpy."""
    out = []
    for a in arys:
        a = to_tensor(a)
        if a.ndim == 0:
            a = F.reshape(a, (1, 1, 1))
        elif a.ndim == 1:
            a = F.reshape(a, (1, a.shape[0], 1))
        elif a.ndim == 2:
            a = F.expand_dims(a, 2)
        out.append(a)
    return out[0] if len(out) == 1 else out


def broadcast_to(array, shape):
    return F.broadcast_to(to_tensor(array), (shape,) if isinstance(shape, int) else
                          tuple(shape))


def broadcast_arrays(*args):
    ts = [to_tensor(a) for a in args]
    shape = onp.broadcast_shapes(*[t.shape for t in ts])
    return [F.broadcast_to(t, shape) for t in ts]


def _seq(tup):
    """A Tensor given as a sequence is its rows (as MindSpore's numpy iterates it)."""
    if isinstance(tup, Tensor):
        return [tup[k] for k in range(tup.shape[0])] if tup.ndim else [tup]
    return list(tup)


def concatenate(arrays, axis=0):
    arrays = _seq(arrays)
    ts = [to_tensor(a) for a in arrays]
    if axis is None:
        ts, axis = [ravel(t) for t in ts], 0
    return F.concat(tuple(ts), axis)


def stack(arrays, axis=0):
    if isinstance(arrays, Tensor):
        arrays = [arrays[k] for k in range(arrays.shape[0])]
    return F.stack(tuple(to_tensor(a) for a in arrays), axis)


def hstack(tup):
    if isinstance(tup, Tensor):      # MindSpore's numpy returns a lone Tensor as it is
        return tup
    ts = atleast_1d(*tup) if len(tup) > 1 else [atleast_1d(*tup)]
    return F.concat(tuple(ts), 0 if ts[0].ndim == 1 else 1)


def vstack(tup):
    if isinstance(tup, Tensor):      # MindSpore's numpy returns a lone Tensor as it is
        return tup
    ts = atleast_2d(*tup) if len(tup) > 1 else [atleast_2d(*tup)]
    return F.concat(tuple(ts), 0)


def dstack(tup):
    if isinstance(tup, Tensor):      # MindSpore's numpy returns a lone Tensor as it is
        return tup
    ts = atleast_3d(*tup) if len(tup) > 1 else [atleast_3d(*tup)]
    return F.concat(tuple(ts), 2)


def column_stack(tup):
    if isinstance(tup, Tensor):
        return tup
    ts = []
    for a in tup:
        a = to_tensor(a)
        if a.ndim == 0:
            a = F.reshape(a, (1, 1))
        elif a.ndim == 1:
            a = F.expand_dims(a, 1)
        ts.append(a)
    return F.concat(tuple(ts), 1)


def append(arr, values, axis=None):
    arr, values = to_tensor(arr), to_tensor(values)
    if axis is None:
        return F.concat((ravel(arr), ravel(F.cast(values, arr.dtype))), 0)
    return F.concat((arr, F.cast(values, arr.dtype)), axis)


def _split_points(n, indices_or_sections, name, even):
    if isinstance(indices_or_sections, numbers.Integral):
        k = int(indices_or_sections)
        if k <= 0:
            raise ValueError(f"For 'mindlite.numpy.{name}', the number of sections must be "
                             f"positive, but got {k}")
        if even and n % k:
            raise ValueError(f"For 'mindlite.numpy.{name}', the axis of size {n} cannot be "
                             f"split evenly into {k} sections")
        q, r = divmod(n, k)
        sizes = [q + 1] * r + [q] * (k - r)
        return list(onp.cumsum([0] + sizes))
    points = [min(max(int(p) if p >= 0 else int(p) + n, 0), n)
              for p in (indices_or_sections.asnumpy().tolist()
                        if isinstance(indices_or_sections, Tensor) else indices_or_sections)]
    return [0] + points + [n]


def _split(x, indices_or_sections, axis, name, even):
    x = to_tensor(x)
    axis = _axis(axis, x.ndim, name)
    pts = _split_points(x.shape[axis], indices_or_sections, name, even)
    out = []
    for a, b in zip(pts[:-1], pts[1:]):
        out.append(axis_slice(x, axis, a, max(a, b)))
    return tuple(out)


def split(x, indices_or_sections, axis=0):
    return _split(x, indices_or_sections, axis, "split", True)


def array_split(x, indices_or_sections, axis=0):
    return _split(x, indices_or_sections, axis, "array_split", False)


def hsplit(x, indices_or_sections):
    x = to_tensor(x)
    return split(x, indices_or_sections, 0 if x.ndim == 1 else 1)


def vsplit(x, indices_or_sections):
    return split(x, indices_or_sections, 0)


def dsplit(x, indices_or_sections):
    return split(x, indices_or_sections, 2)


def flip(m, axis=None):
    m = to_tensor(m)
    axes = tuple(range(m.ndim)) if axis is None else \
        ((axis,) if isinstance(axis, int) else tuple(axis))
    return F.flip(m, axes) if axes else m


def fliplr(m):
    return flip(m, 1)


def flipud(m):
    return flip(m, 0)


def roll(a, shift, axis=None):
    a = to_tensor(a)
    if axis is None:
        return F.reshape(F.roll(ravel(a), shift, 0), a.shape)
    return F.roll(a, shift, axis)


def rot90(a, k=1, axes=(0, 1)):
    a = to_tensor(a)
    ax0, ax1 = axes
    k %= 4
    if k == 0:
        return a
    if k == 2:
        return flip(flip(a, ax0), ax1)
    perm = list(range(a.ndim))
    perm[ax0], perm[ax1] = perm[ax1], perm[ax0]
    if k == 1:
        return F.transpose(flip(a, ax1), tuple(perm))
    return flip(F.transpose(a, tuple(perm)), ax1)


def tile(a, reps):
    a = to_tensor(a)
    reps = (reps,) if isinstance(reps, int) else tuple(reps)
    if len(reps) < a.ndim:
        reps = (1,) * (a.ndim - len(reps)) + reps
    return F.tile(a, reps)


def repeat(a, repeats, axis=None):
    a = to_tensor(a)
    if axis is None:
        a, axis = ravel(a), 0
    return F.repeat_interleave(a, repeats, axis)


def size(a, axis=None):
    """The number of elements (along `axis`), as a Python int."""
    a = to_tensor(a)
    if axis is None:
        return a.size
    return a.shape[_axis(axis, a.ndim, "size")]


def array_str(a):
    return str(to_tensor(a).asnumpy())
