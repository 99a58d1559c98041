"""What every batch rule of ops.vmap shares (vmap_rules.py, vmap_nn_rules.py): moving a batch
axis, placing a result's batch axis, broadcasting unbatched operands to the batch, and the
shared primitive of a class with some attributes changed."""
import inspect

from ...common.tensor import Tensor
from ..operations._base import cached_prim


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


def _norm_axes(axis, ndim):
    if isinstance(axis, (tuple, list)):
        return tuple(a % ndim for a in axis)
    return axis % ndim if ndim else 0


def _broadcast_all(vals, bdims, size):
    F = _F()
    return tuple(v if b is not None else F.broadcast_to(F.expand_dims(v, 0), (size,) + v.shape)
                 for v, b in zip(vals, bdims))


def _init_names(prim):
    return [n for n in inspect.signature(type(prim).__init__).parameters if n != "self"]


def _respelled(prim, **changes):
    """The shared primitive of prim's class with prim's __init__ attributes, some changed."""
    return cached_prim(type(prim), *(changes[n] if n in changes else prim.attrs[n]
                                     for n in _init_names(prim)))


def _elementwise(prim, args):
    rank = max((_example_ndim(v, b) for v, b in args if isinstance(v, Tensor)), default=0)
    F = _F()
    vals = []
    for v, b in args:
        if b is not None and _example_ndim(v, b) < rank:
            v = F.reshape(v, (v.shape[0],) + (1,) * (rank - _example_ndim(v, b)) + v.shape[1:])
        vals.append(v)
    return prim(*vals), 0
