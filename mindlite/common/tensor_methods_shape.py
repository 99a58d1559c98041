"""Tensor's shape, indexing and scatter methods of MindSpore 2.10 beyond tensor_methods.py and
tensor_methods_index.py: `x.expand(*size)`, `x.movedim(...)`, `x.diagonal()`, `x.t()`,
`x.mT`, `x.tensor_split(...)`, `x.take(...)`, `x.select(dim, index)`, `x.index_add(...)`,
`x.index_put(...)`, `x.unfold(...)`, ... Each calls its functional op, so it is recorded for
autograd. Methods with two MindSpore signatures are `overloaded` (tensor_overload.py).
Listed in tensor.py's `_METHOD_MODULES`.
"""
from .tensor_overload import overloaded

F = None      # mindlite.ops.functional, bound by tensor.py (functional imports Tensor)


def _shape_args(args):
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        return tuple(args[0])
    return tuple(args)


def _select_dim(self, dim, index):
    n = self.shape[dim % self.ndim] if self.ndim else 0
    if not -n <= index < n:
        raise IndexError(f"For 'Tensor.select', 'index' {index} is out of range for dim {dim} "
                         f"of size {n}")
    return F.squeeze(F.narrow(self, dim, index % n, 1), dim)


def _select_where(self, condition, y):
    return F.where(condition, self, y)


def _index_add_old(self, indices, y, axis, use_lock, check_index_bound):
    return F.index_add(self, indices, y, axis, use_lock, check_index_bound)


def _index_add_dim(self, dim, index, source, alpha):
    return F.index_add_ext(self, dim, index, source, alpha=alpha)


def _take_old(self, indices, axis, mode):
    if axis is None:
        return F.take(self, indices)
    return F.gather(self, indices, axis)


def _take(self, index):
    return F.take(self, index)


class ShapeTensorMethods:
    """Views and reshapes, diagonals, splits, indexed reads and writes."""
    __slots__ = ()

    @property
    def mT(self):
        return F.swapaxes(self, -1, -2)

    @property
    def mH(self):
        y = F.swapaxes(self, -1, -2)
        return F.conj(y) if self.dtype.kind == "c" else y

    @property
    def H(self):
        return self.mH

    def expand(self, *size): return F.expand(self, _shape_args(size))
    def reshape_as(self, other): return F.reshape(self, other.shape)
    def movedim(self, source, destination): return F.movedim(self, source, destination)
    def swapdims(self, dim0, dim1): return F.swapaxes(self, dim0, dim1)

    def diagonal(self, offset=0, axis1=0, axis2=1):
        return F.diagonal(self, offset, axis1, axis2)

    def diag(self, diagonal=0):
        if diagonal != 0:
            raise ValueError(f"For 'Tensor.diag', the argument 'diagonal' should be '0', but "
                             f"got {diagonal}.")
        return F.diag(self)

    def diagflat(self, offset=0): return F.diagflat(self, offset)
    def tensor_split(self, indices_or_sections, axis=0):
        return F.tensor_split(self, indices_or_sections, axis)

    def hsplit(self, indices_or_sections): return F.hsplit(self, indices_or_sections)
    def vsplit(self, indices_or_sections): return F.vsplit(self, indices_or_sections)
    def dsplit(self, indices_or_sections): return F.dsplit(self, indices_or_sections)

    def diff(self, n=1, axis=-1, prepend=None, append=None):
        return F.diff(self, n, axis, prepend, append)

    def rot90(self, k, dims): return F.rot90(self, k, dims)
    def reverse(self, axis): return F.reverse(self, axis)
    def trace(self, offset=0, axis1=0, axis2=1, dtype=None):
        """The sum of the diagonal `offset` of the (axis1, axis2) planes (2.10's signature)."""
        if offset == 0 and self.ndim == 2 and (axis1, axis2) in ((0, 1), (-2, -1)):
            out = F.trace(self)
        else:
            out = F.sum(F.diagonal(self, offset, axis1, axis2), -1)
        return out if dtype is None else F.cast(out, dtype)
    def gather_nd(self, indices): return F.gather_nd(self, indices)

    def sum_to_size(self, *size):
        """self summed over the dims that `size` has as 1 or lacks (leading)."""
        size = _shape_args(size)
        lead = self.ndim - len(size)
        axes = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(size)
                                          if s == 1 and self.shape[lead + i] != 1)
        out = F.sum(self, axes, True) if axes else self
        return F.reshape(out, size)

    def fill(self, value):
        """A new tensor of self's shape and dtype filled with value."""
        return F.full(self.shape, value, dtype=self.dtype)

    fills = fill

    def new_full(self, size, fill_value, *, dtype=None):
        return F.full(_shape_args((size,)), fill_value,
                      dtype=self.dtype if dtype is None else dtype)

    def new_empty(self, size, *, dtype=None, device=None):
        return F.zeros(_shape_args((size,)), self.dtype if dtype is None else dtype)

    select = overloaded("select", ("dim: int, index: int", _select_dim),
                        ("condition: tensor, y: any", _select_where))
    index_add = overloaded(
        "index_add", ("indices: tensor, y: tensor, axis: int, use_lock: bool = True, "
                      "check_index_bound: bool = True", _index_add_old),
        ("dim: int, index: tensor, source: tensor, *, alpha: number = 1", _index_add_dim))
    take = overloaded("take", ("indices: tensor, axis: int? = None, mode: str = 'clip'", _take_old),
                      ("index: tensor", _take))

    def index_fill(self, axis, index, value): return F.index_fill(self, axis, index, value)

    def index_put(self, indices, values, accumulate=False):
        return F.index_put(self, indices, values, accumulate)

    def masked_scatter(self, mask, source): return F.masked_scatter(self, mask, source)

    def select_scatter(self, src, axis, index):
        return F.select_scatter(self, src, axis, index)

    def slice_scatter(self, src, axis=0, start=None, end=None, step=1):
        return F.slice_scatter(self, src, axis, start, end, step)

    def diagonal_scatter(self, src, offset=0, dim1=0, dim2=1):
        return F.diagonal_scatter(self, src, offset, dim1, dim2)

    def fill_diagonal(self, fill_value, wrap=False):
        return F.fill_diagonal(self, fill_value, wrap)

    def inplace_update(self, v, indices): return F.inplace_update(self, v, indices)
    def scatter_div(self, indices, updates): return F.tensor_scatter_div(self, indices, updates)
    def scatter_max(self, indices, updates): return F.tensor_scatter_max(self, indices, updates)
    def scatter_min(self, indices, updates): return F.tensor_scatter_min(self, indices, updates)
    def scatter_mul(self, indices, updates): return F.tensor_scatter_mul(self, indices, updates)
    def scatter_sub(self, indices, updates): return F.tensor_scatter_sub(self, indices, updates)

    def unfold(self, kernel_size, dilation=1, padding=0, stride=1):
        return F.unfold(self, kernel_size, dilation, padding, stride)

    def fold(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        return F.fold(self, output_size, kernel_size, dilation, padding, stride)


METHODS = ShapeTensorMethods
