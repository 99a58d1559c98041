"""Scatter primitives of issue 13: TensorScatterElements (ops.scatter), TensorScatterUpdate,
TensorScatterAdd, GatherNd (their gradients' gather), ScatterAdd and IndexAdd, each with
its bprop below it.

All are out of place here: the kernel writes the result into a new output and the input is
never modified (ops.scatter_add / ops.index_add then write the result into their input, as
MindSpore's ref ops do: ops/function/sort_index_func.py). Index values are only known to
the kernel, which checks them before writing anything (ValueError naming the op).
With repeated indices an update primitive keeps the last write, and its bprop gives every
update the gradient of the position it targets (as MindSpore's GatherD / GatherNd bprops).
Kernels: kernels/cpu/sort_scatter_numpy.py.
"""
from ...common import dtype as mstype
from ...ir.rules import bprop_for
from ...ir.primitive import Primitive, prim_attr_register
from ..validator import check_axis, check_bool, check_dtype, check_int, check_tensor, tensor
from ._base import cached_prim, needs_grad
from .sort_ops import GatherD, _check_index_shape

__all__ = ["TensorScatterElements", "TensorScatterUpdate", "TensorScatterAdd", "GatherNd",
           "ScatterAdd", "IndexAdd"]


def _F():
    from .. import functional as F  # bprops only: functional imports this module
    return F


def _check_updates(prim, x, updates, shape):
    check_tensor(prim, "updates", updates)
    if updates.dtype is not x.dtype:
        raise TypeError(f"For '{prim.name}', the type of 'updates' should be same as "
                        f"'input_x' {x.dtype}, but got {updates.dtype}")
    if tuple(updates.shape) != tuple(shape):
        raise ValueError(f"For '{prim.name}', 'updates' must have shape {list(shape)}, but got "
                         f"{list(updates.shape)}")


class TensorScatterElements(Primitive):
    """y = input_x with y[index[i][j]][j] = updates[i][j] for axis 0 (likewise any axis);
    reduction "add" adds instead. indices: input_x's rank, updates' shape, indices in
    [-n, n). Gradient: dx = dout with the written positions zeroed ("none") or dout
    ("add"); dupdates = GatherD(dout, axis, indices)."""
    input_names = ("input_x", "indices", "updates")

    @prim_attr_register
    def __init__(self, axis=0, reduction="none"):
        check_int(self, "axis", axis)
        if reduction not in ("none", "add"):
            raise ValueError(f"For '{self.name}', 'reduction' must be one of ['none', 'add'], "
                             f"but got {reduction!r}")

    def _axis(self, x, indices, updates):
        check_dtype(self, "input_x", x, mstype.ALL_TYPES)
        if not x.shape:
            raise ValueError(f"For '{self.name}', 'input_x' must have rank >= 1, but got a 0-d "
                             f"tensor")
        axis = check_axis(self, "axis", self.attrs["axis"], len(x.shape))
        _check_index_shape(self, x, indices, axis, ("input_x", "indices"))
        _check_updates(self, x, updates, indices.shape)
        return axis

    def infer(self, x, indices, updates):
        self._axis(x, indices, updates)
        return x

    def kernel_params(self, x, indices, updates):
        return {"axis": self._axis(x, indices, updates), "reduction": self.attrs["reduction"]}


@bprop_for(TensorScatterElements)
def tensor_scatter_elements_bprop(prim, x, indices, updates, out, dout):
    axis = prim._axis(x._abs, indices._abs, updates._abs)
    dx = None
    if needs_grad(x):
        dx = dout if prim.attrs["reduction"] == "add" else \
            prim(dout, indices, _F().zeros_like(updates))
    dupd = cached_prim(GatherD)(dout, axis, indices) if needs_grad(updates) else None
    return dx, None, dupd


def _nd_slice_shape(prim, x, indices):
    """The shape of what one index row of (..., N) `indices` addresses: x.shape[N:]."""
    check_dtype(prim, "indices", indices, mstype.INDEX_TYPES)
    if not indices.shape:
        raise ValueError(f"For '{prim.name}', 'indices' must have rank >= 1, but got a 0-d "
                         f"tensor")
    n = indices.shape[-1]
    if n > len(x.shape):
        raise ValueError(f"For '{prim.name}', the last dimension of 'indices' ({n}) must be <= "
                         f"the rank of 'input_x' ({len(x.shape)}), but got indices shape "
                         f"{list(indices.shape)}")
    return tuple(indices.shape[:-1]) + tuple(x.shape[n:])


class _TensorScatter(Primitive):
    """y = input_x with the slices at indices[..., :N] (N = indices.shape[-1] leading axes)
    replaced by / plus updates (shape indices.shape[:-1] + input_x.shape[N:]). Indices
    must lie in [0, input_x.shape[k])."""
    input_names = ("input_x", "indices", "updates")

    @prim_attr_register
    def __init__(self):
        pass

    def infer(self, x, indices, updates):
        check_dtype(self, "input_x", x, mstype.ALL_TYPES)
        _check_updates(self, x, updates, _nd_slice_shape(self, x, indices))
        return x


class TensorScatterUpdate(_TensorScatter):
    """Replace (the last of repeated indices wins). Gradient: dx = dout with the written
    slices zeroed; dupdates = GatherNd(dout, indices)."""


class TensorScatterAdd(_TensorScatter):
    """Add (repeated indices accumulate). Gradient: dx = dout; dupdates = GatherNd(dout,
    indices)."""


@bprop_for(TensorScatterUpdate, TensorScatterAdd)
def tensor_scatter_bprop(prim, x, indices, updates, out, dout):
    dx = None
    if needs_grad(x):
        dx = dout if isinstance(prim, TensorScatterAdd) else \
            prim(dout, indices, _F().zeros_like(updates))
    dupd = cached_prim(GatherNd)(dout, indices) if needs_grad(updates) else None
    return dx, None, dupd


class GatherNd(Primitive):
    """y[i...] = input_x[indices[i..., 0], ..., indices[i..., N-1]] (N = indices.shape[-1]);
    y.shape = indices.shape[:-1] + input_x.shape[N:]. Gradient: dout added at those indices
    into zeros (TensorScatterAdd)."""
    input_names = ("input_x", "indices")

    @prim_attr_register
    def __init__(self):
        pass

    def infer(self, x, indices):
        check_dtype(self, "input_x", x, mstype.ALL_TYPES)
        return tensor(x.dtype, _nd_slice_shape(self, x, indices))


@bprop_for(GatherNd)
def gather_nd_bprop(prim, x, indices, out, dout):
    if not needs_grad(x):
        return None, None
    return cached_prim(TensorScatterAdd)(_F().zeros_like(x), indices, dout), None


class ScatterAdd(Primitive):
    """y = input_x with updates[i...] added at row indices[i...] (axis 0); updates.shape =
    indices.shape + input_x.shape[1:]; repeated indices accumulate. Out of place (see the
    module docstring). Gradient: dx = dout; dupdates = Gather(dout, indices, 0)."""
    input_names = ("input_x", "indices", "updates")

    @prim_attr_register
    def __init__(self, use_locking=False):
        check_bool(self, "use_locking", use_locking)

    def infer(self, x, indices, updates):
        check_dtype(self, "input_x", x, mstype.NUMBER_TYPES)
        check_dtype(self, "indices", indices, mstype.INDEX_TYPES)
        if not x.shape:
            raise ValueError(f"For '{self.name}', 'input_x' must have rank >= 1, but got a 0-d "
                             f"tensor")
        _check_updates(self, x, updates, tuple(indices.shape) + tuple(x.shape[1:]))
        return x


@bprop_for(ScatterAdd)
def scatter_add_bprop(prim, x, indices, updates, out, dout):
    dupd = _F().gather(dout, indices, 0) if needs_grad(updates) else None
    return (dout if needs_grad(x) else None), None, dupd


class IndexAdd(Primitive):
    """y = input_x with y.take(indices[i], axis) += the i-th slice of updates along axis;
    indices 1-D int32 in [0, n), updates: input_x's shape with len(indices) at axis.
    Out of place (see the module docstring). Gradient: dx = dout; dupdates =
    Gather(dout, indices, axis)."""
    input_names = ("input_x", "indices", "updates")

    @prim_attr_register
    def __init__(self, axis, use_lock=True, check_index_bound=True):
        check_int(self, "axis", axis)
        check_bool(self, "use_lock", use_lock)
        check_bool(self, "check_index_bound", check_index_bound)

    def _axis(self, x, indices, updates):
        check_dtype(self, "input_x", x, mstype.NUMBER_TYPES)
        check_dtype(self, "indices", indices, (mstype.int32,))
        if len(indices.shape) != 1:
            raise ValueError(f"For '{self.name}', 'indices' must be 1-D, but got shape "
                             f"{list(indices.shape)}")
        if not x.shape:
            raise ValueError(f"For '{self.name}', 'input_x' must have rank >= 1, but got a 0-d "
                             f"tensor")
        axis = check_axis(self, "axis", self.attrs["axis"], len(x.shape))
        want = list(x.shape)
        want[axis] = indices.shape[0]
        _check_updates(self, x, updates, want)
        return axis

    def infer(self, x, indices, updates):
        self._axis(x, indices, updates)
        return x

    def kernel_params(self, x, indices, updates):
        return {"axis": self._axis(x, indices, updates)}


@bprop_for(IndexAdd)
def index_add_bprop(prim, x, indices, updates, out, dout):
    axis = prim._axis(x._abs, indices._abs, updates._abs)
    dupd = _F().gather(dout, indices, axis) if needs_grad(updates) else None
    return (dout if needs_grad(x) else None), None, dupd
