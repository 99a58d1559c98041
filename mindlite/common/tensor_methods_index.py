"""Tensor's sort/search/index methods (issue 13): x.sort(), x.topk(k), x.argsort(),
x.masked_fill(mask, v), x.scatter(dim, index, src), x.gather_elements(dim, index), ...
Each calls the functional op (ops/function/sort_index_func.py), so it is recorded for
autograd like any op. Where MindSpore 2.10's method takes the axis as `axis` or `dim`
(both spellings work there), both are accepted here.
"""

from .tensor_overload import overloaded

F = None      # mindlite.ops.functional, bound by tensor.py (functional imports Tensor)


def _pick(axis, dim, default):
    return dim if dim is not None else (axis if axis is not None else default)


class TensorIndexMethods:
    """The sort/search, gather/scatter, mask and split methods."""
    __slots__ = ()

    def sort(self, dim=None, descending=False, stable=False, *, axis=None):
        """(values, indices); always stable here. sort(dim, descending, stable) or the older
        sort(axis=..., descending) of MindSpore 2.10."""
        return F.sort(self, _pick(axis, dim, -1), descending)

    def argsort(self, dim=None, descending=False, stable=False, *, axis=None):
        return F.argsort(self, _pick(axis, dim, -1), descending)

    def topk(self, k, dim=None, largest=True, sorted=True):
        return F.topk(self, k, dim, largest, sorted)

    def cummax(self, axis): return F.cummax(self, axis)
    def cummin(self, axis): return F.cummin(self, axis)
    def gather_elements(self, dim, index): return F.gather_elements(self, dim, index)

    def scatter(self, dim=None, index=None, src=None, reduce=None, *, axis=None, value=None):
        """self with src (a Tensor, or the number `value`) written at index along dim; reduce
        "add" / "multiply" combines instead. MindSpore 2.10's spellings: scatter(dim, index,
        src, reduce) and scatter(axis=..., index=..., src=...)."""
        src = src if src is not None else value
        dim = _pick(axis, dim, 0)
        if reduce is None:
            return F.scatter(self, dim, index, src)
        return F.scatter_reduce_ext(self, dim, index, src, reduce)

    scatter_add = overloaded(
        "scatter_add", ("dim: int, index: tensor, src: tensor",
                        lambda self, dim, index, src: F.scatter_add_ext(self, dim, index, src)),
        ("indices: tensor, updates: tensor",
         lambda self, indices, updates: F.tensor_scatter_add(self, indices, updates)))

    def index_select(self, dim=None, index=None, *, axis=None):
        return F.index_select(self, _pick(axis, dim, 0), index)

    def masked_fill(self, mask, value): return F.masked_fill(self, mask, value)
    def masked_select(self, mask): return F.masked_select(self, mask)
    def nonzero(self, *, as_tuple=False): return F.nonzero(self, as_tuple=as_tuple)

    def narrow(self, dim=None, start=0, length=0, *, axis=None):
        return F.narrow(self, _pick(axis, dim, 0), start, length)

    def chunk(self, chunks, dim=None, *, axis=None):
        return F.chunk(self, chunks, _pick(axis, dim, 0))

    def unbind(self, dim=0): return F.unbind(self, dim)
    def swapaxes(self, axis0, axis1): return F.swapaxes(self, axis0, axis1)
    def moveaxis(self, source, destination): return F.moveaxis(self, source, destination)

    def repeat_interleave(self, repeats, dim=None, *, output_size=None):
        out = F.repeat_interleave(self, repeats, dim)
        if output_size is not None and out.shape[0 if dim is None else dim] != output_size:
            raise ValueError(f"For 'repeat_interleave', 'output_size' must equal the repeated "
                             f"length {out.shape[0 if dim is None else dim]}, but got "
                             f"{output_size}")
        return out


METHODS = TensorIndexMethods
