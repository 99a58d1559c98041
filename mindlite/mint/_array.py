"""mint's creation, shape and indexing functions (mint.arange, mint.zeros, mint.cat,
mint.gather, mint.scatter, mint.where, mint.transpose, ...): PyTorch-style signatures
(`dim`, `size` as varargs or a tuple, keyword-only `dtype`) over the same primitives as ops.
"""
import numbers

from ..common import dtype as mstype
from ..common.tensor import Tensor
from ..common.tensor_overload import overloaded_function
from ..ops import functional as F

__all__ = ['arange', 'broadcast_to', 'cat', 'chunk', 'concat', 'cross', 'diag', 'diff', 'dstack',
           'einsum', 'empty', 'empty_like', 'eye', 'flatten', 'flip', 'full', 'full_like',
           'gather', 'hstack', 'index_add', 'index_select', 'masked_select', 'meshgrid',
           'narrow', 'nonzero', 'ones', 'ones_like', 'permute', 'ravel', 'repeat_interleave',
           'reshape', 'roll', 'scatter', 'scatter_add', 'searchsorted', 'select', 'split',
           'squeeze', 'stack', 'swapaxes', 't', 'take', 'tile', 'transpose', 'tril', 'triu',
           'unbind', 'unsqueeze', 'where', 'zeros', 'zeros_like']


def _size(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        return tuple(size[0])
    if len(size) == 1 and isinstance(size[0], Tensor):
        return tuple(size[0].asnumpy().reshape(-1).tolist())
    return tuple(size)


def arange(start=0, end=None, step=1, *, dtype=None):
    return F.arange(start, end, step, dtype=dtype)


def zeros(size, *, dtype=None):
    return F.zeros(size if not isinstance(size, list) else tuple(size), dtype)


def ones(size, *, dtype=None):
    return F.ones(size if not isinstance(size, list) else tuple(size), dtype)


def zeros_like(input, *, dtype=None):
    return F.zeros_like(input, dtype=dtype)


def ones_like(input, *, dtype=None):
    return F.ones_like(input, dtype=dtype)


def full(size, fill_value, *, dtype=None):
    return F.full(size, fill_value, dtype=dtype)


def full_like(input, fill_value, *, dtype=None):
    return F.full_like(input, fill_value, dtype=dtype)


def eye(n, m=None, dtype=None):
    return F.eye(n, m, dtype)


def empty(*size, dtype=None, device=None, pin_memory=False):
    """An uninitialized tensor of `size` (zeros here: the values are unspecified)."""
    if not size:
        raise TypeError("For 'empty', 'size' is required")
    return F.zeros(_size(size), mstype.float32 if dtype is None else dtype)


def empty_like(input, *, dtype=None, device=None, pin_memory=False):
    return F.zeros_like(input, dtype=dtype)


def cat(tensors, dim=0):
    return F.concat(tensors, dim)


concat = cat


def stack(tensors, dim=0):
    return F.stack(tensors, dim)


def split(tensor, split_size_or_sections, dim=0):
    return F.split(tensor, split_size_or_sections, dim)


def chunk(input, chunks, dim=0):
    return F.chunk(input, chunks, dim)


def narrow(input, dim, start, length):
    return F.narrow(input, dim, start, length)


def select(input, dim, index):
    """input's slice at `index` along dim (the dim removed)."""
    return input.select(dim, index)


def gather(input, dim, index):
    return F.gather_elements(input, dim, index)


def index_select(input, dim, index):
    return F.index_select(input, dim, index)


def index_add(input, dim, index, source, *, alpha=1):
    return F.index_add_ext(input, dim, index, source, alpha=alpha)


def scatter(input, dim, index, src=None, *, value=None, reduce=None):
    return F.scatter_reduce_ext(input, dim, index, value if src is None else src, reduce)


def scatter_add(input, dim, index, src):
    return F.scatter_add_ext(input, dim, index, src)


def masked_select(input, mask):
    return F.masked_select(input, mask)


def take(input, index):
    return F.take(input, index)


where = overloaded_function(
    "where", ("condition: tensor, input: any, other: any",
              lambda condition, input, other: F.where(condition, input, other)),
    ("condition: tensor", lambda condition: F.nonzero(condition, as_tuple=True)))


def reshape(input, shape):
    return F.reshape(input, shape)


def permute(input, dims):
    return F.transpose(input, tuple(dims))


def transpose(input, dim0, dim1):
    return F.swapaxes(input, dim0, dim1)


def swapaxes(input, axis0, axis1):
    return F.swapaxes(input, axis0, axis1)


def squeeze(input, dim=None):
    return F.squeeze(input, dim)


def unsqueeze(input, dim):
    return F.expand_dims(input, dim)


def flatten(input, start_dim=0, end_dim=-1):
    return F.flatten(input, start_dim=start_dim, end_dim=end_dim)


def flip(input, dims):
    return F.flip(input, dims)


def roll(input, shifts, dims=None):
    return F.roll(input, shifts, dims)


def tile(input, dims):
    return F.tile(input, dims)


def broadcast_to(input, shape):
    return F.broadcast_to(input, shape)


def t(input):
    return F.t(input)


def ravel(input):
    return F.reshape(input, (-1,))


def unbind(input, dim=0):
    return F.unbind(input, dim)


def meshgrid(*tensors, indexing=None):
    return F.meshgrid(*tensors, indexing="ij" if indexing is None else indexing)


def repeat_interleave(input, repeats, dim=None, *, output_size=None):
    return input.repeat_interleave(repeats, dim, output_size=output_size)


def tril(input, diagonal=0):
    return F.tril(input, diagonal)


def triu(input, diagonal=0):
    return F.triu(input, diagonal)


def diag(input, diagonal=0):
    """A 1-D input on the diagonal `diagonal` of a 2-D tensor; a 2-D input's diagonal."""
    if input.ndim == 1:
        return F.diag_embed(input, diagonal, 0, 1)
    return F.diagonal(input, diagonal, 0, 1)


def diff(input, n=1, dim=-1, prepend=None, append=None):
    return F.diff(input, n, dim, prepend, append)


def dstack(tensors):
    return F.dstack(tensors)


def hstack(tensors):
    return F.hstack(tensors)


def cross(input, other, dim=None):
    return F.cross(input, other, dim)


def searchsorted(sorted_sequence, values, *, out_int32=False, right=False, side=None,
                 sorter=None):
    return F.searchsorted(sorted_sequence, values, out_int32=out_int32, right=right,
                          side=side, sorter=sorter)


def nonzero(input, *, as_tuple=False):
    return F.nonzero(input, as_tuple=as_tuple)


def einsum(equation, *operands):
    return F.einsum(equation, *operands)


_ = numbers
