"""Basic tensor indexing with the index values as runtime inputs: BasicIndex, BasicIndexGrad.

`x[i]`, `x[i, 2:5]`, `x[..., i, None]` (ints, slices, None, Ellipsis) are one BasicIndex call
(ops/function/index_func.py builds it). As MindSpore passes an int index to SelectExtView as
a value, the ints and the slices' start offsets are runtime inputs here (Python ints in
tensor positions: converted to int64 on each call, keyed by type), and only what fixes the
output shape is a constant: the layout `spec`. So `for row in x` runs one cached runner for
every row, and the caches do not grow with the number of distinct index values.

spec is a flat tuple of ints, two per index item, the Ellipsis expanded (trailing axes not
named are taken whole):
    (-1, 0)        an int: takes one start, drops the axis
    (-2, 0)        None: a new axis of size 1, takes no start
    (-3, 0)        a whole axis, takes no start
    (n, step)      a slice of n >= 0 elements with step != 0: takes one start
A start is an int in [-d, d) for an int item (negative counts from the end) and the first
element's position in [0, d) for a slice with n > 0; the kernel checks the values (they are
only known there) and raises ValueError before writing anything. Results are copies.
Kernels: kernels/cpu/index_numpy.py.
"""
from ...common import dtype as mstype
from ...ir.rules import bprop_for
from ...ir.primitive import Primitive, prim_attr_register
from ..validator import check_shape_arg, check_tensor, tensor
from ._base import cached_prim, needs_grad

__all__ = ["BasicIndex", "BasicIndexGrad"]

INT, NEW, FULL = -1, -2, -3


def parse_spec(prim, shape, spec, starts):
    """(items, output shape): items are (kind or n, step, axis size) per spec pair, the axis
    size 1 for NEW; validates spec against `shape` and the starts' abstracts."""
    spec = check_shape_arg(prim, "spec", spec)
    if len(spec) % 2:
        raise ValueError(f"For '{prim.name}', 'spec' must hold (kind, step) pairs, but got "
                         f"{len(spec)} values")
    items, out = [], []
    axis = needed = 0
    for kind, step in zip(spec[::2], spec[1::2]):
        if kind == NEW:
            items.append((NEW, 0, 1))
            out.append(1)
            continue
        if kind < FULL or (kind < 0 and step != 0) or (kind >= 0 and step == 0):
            raise ValueError(f"For '{prim.name}', 'spec' pair ({kind}, {step}) is not (-1, 0), "
                             f"(-2, 0), (-3, 0) or (n >= 0, step != 0)")
        if axis >= len(shape):
            raise ValueError(f"For '{prim.name}', 'spec' indexes more axes than the input's "
                             f"{len(shape)}")
        d = shape[axis]
        axis += 1
        if kind >= 0 and kind > (d + abs(step) - 1) // abs(step):
            raise ValueError(f"For '{prim.name}', a slice of {kind} elements with step {step} "
                             f"does not fit axis {axis - 1} of size {d}")
        needed += kind != FULL
        items.append((kind, step, d))
        if kind != INT:
            out.append(d if kind == FULL else kind)
    if len(starts) != needed:
        raise ValueError(f"For '{prim.name}', 'spec' takes {needed} start values, but got "
                         f"{len(starts)}")
    for i, s in enumerate(starts):
        check_tensor(prim, f"start{i}", s)
        if s.dtype not in mstype.INT_TYPES or s.shape != ():
            raise TypeError(f"For '{prim.name}', the start values must be ints, but start{i} "
                            f"is a {s.dtype} tensor of shape {list(s.shape)}")
    return tuple(items), tuple(out) + tuple(shape[axis:])


class BasicIndex(Primitive):
    """y = x[index] for an index of ints, slices, None and Ellipsis, given as the layout
    `spec` (a constant) and the start values (runtime ints); see the module docstring.
    Gradient: dx = zeros of x's shape with dy written at the index (BasicIndexGrad)."""
    const_inputs = (1,)

    @prim_attr_register
    def __init__(self):
        pass

    def infer(self, x, spec, *starts):
        check_tensor(self, "x", x)
        return tensor(x.dtype, parse_spec(self, x.shape, spec, starts)[1])

    def kernel_params(self, x, spec, *starts):
        items = parse_spec(self, x.shape, spec, starts)[0]
        return {} if spec == (INT, 0) else {"items": items}


class BasicIndexGrad(Primitive):
    """dx = zeros of shape `shapex` with dx[index] = dy, the index given as BasicIndex's
    (spec, starts); dy must have the indexed shape."""
    const_inputs = (1, 2)

    @prim_attr_register
    def __init__(self):
        pass

    def _items(self, dy, shapex, spec, starts):
        check_tensor(self, "dy", dy)
        shapex = check_shape_arg(self, "shapex", shapex)
        if any(d < 0 for d in shapex):
            raise ValueError(f"For '{self.name}', 'shapex' must be non-negative, but got "
                             f"{list(shapex)}")
        items, shape = parse_spec(self, shapex, spec, starts)
        if dy.shape != shape:
            raise ValueError(f"For '{self.name}', 'dy' must have the indexed shape "
                             f"{list(shape)}, but got {list(dy.shape)}")
        return shapex, items

    def infer(self, dy, shapex, spec, *starts):
        return tensor(dy.dtype, self._items(dy, shapex, spec, starts)[0])

    def kernel_params(self, dy, shapex, spec, *starts):
        return {"items": self._items(dy, shapex, spec, starts)[1]}


@bprop_for(BasicIndex)
def basic_index_bprop(prim, x, spec, *rest):
    """dx = zeros of x's shape with dout written at the same index (same start values)."""
    starts, dout = rest[:-2], rest[-1]
    if not needs_grad(x):
        return (None,) * (2 + len(starts))
    grad = cached_prim(BasicIndexGrad)(dout, x.shape, spec, *starts)
    return (grad, None) + (None,) * len(starts)


@bprop_for(BasicIndexGrad)
def basic_index_grad_bprop(prim, dy, shapex, spec, *rest):
    """d(dy) = the same index of dout."""
    starts, dout = rest[:-2], rest[-1]
    if not needs_grad(dy):
        return (None,) * (3 + len(starts))
    return (cached_prim(BasicIndex)(dout, spec, *starts), None, None) + (None,) * len(starts)
