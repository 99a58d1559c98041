"""Tensor's named methods (`x.sum()`, `x.reshape(...)`, ...): each calls the functional op,
so it is recorded for autograd and parsed by graph mode like any op. Tensor inherits
`METHODS`; more families live in sibling `tensor_methods_*.py` modules listed in
tensor.py's `_METHOD_MODULES`.
"""

F = None      # mindlite.ops.functional, bound by tensor.py (functional imports Tensor)


class TensorMethods:
    """The elementwise, reduction, shape and cumulative methods."""
    __slots__ = ()

    @property
    def T(self):
        return F.transpose(self, tuple(range(self.ndim - 1, -1, -1)))

    def add(self, other): return F.add(self, other)
    def sub(self, other): return F.sub(self, other)
    def mul(self, other): return F.mul(self, other)
    def div(self, value, *, rounding_mode=None):
        return F.div(self, value, rounding_mode=rounding_mode)

    def pow(self, other): return F.pow(self, other)
    def matmul(self, other): return F.matmul(self, other)
    def maximum(self, other): return F.maximum(self, other)
    def minimum(self, other): return F.minimum(self, other)
    def abs(self): return F.abs(self)
    def neg(self): return F.neg(self)
    def exp(self): return F.exp(self)
    def log(self): return F.log(self)
    def sqrt(self): return F.sqrt(self)
    def square(self): return F.square(self)
    def sigmoid(self): return F.sigmoid(self)
    def tanh(self): return F.tanh(self)
    def relu(self): return F.relu(self)
    def clamp(self, min=None, max=None): return F.clamp(self, min, max)
    def sum(self, axis=None, keepdims=False): return F.sum(self, axis, keepdims)
    def mean(self, axis=None, keep_dims=False): return F.mean(self, axis, keep_dims)
    def max(self, axis=None, keepdims=False): return F.amax(self, axis, keepdims)
    def min(self, axis=None, keepdims=False): return F.amin(self, axis, keepdims)
    def prod(self, axis=None, keep_dims=False): return F.prod(self, axis, keep_dims)
    def all(self, axis=None, keep_dims=False): return F.all(self, axis, keep_dims)
    def any(self, axis=None, keep_dims=False): return F.any(self, axis, keep_dims)
    def argmax(self, axis=None, keepdims=False): return F.argmax(self, axis, keepdims)
    def argmin(self, axis=None, keepdims=False): return F.argmin(self, axis, keepdims)
    def softmax(self, axis=-1): return F.softmax(self, axis)
    def reshape(self, *shape): return F.reshape(self, _shape_args(shape))
    def view(self, *shape): return F.reshape(self, _shape_args(shape))
    def flatten(self): return F.reshape(self, (-1,))
    def ravel(self): return F.reshape(self, (-1,))
    def squeeze(self, axis=None): return F.squeeze(self, axis)
    def expand_dims(self, axis): return F.expand_dims(self, axis)
    def unsqueeze(self, dim): return F.expand_dims(self, dim)
    def tile(self, multiples): return F.tile(self, multiples)
    def broadcast_to(self, shape): return F.broadcast_to(self, shape)
    def expand_as(self, other): return F.broadcast_to(self, other.shape)
    def gather(self, input_indices, axis): return F.gather(self, input_indices, axis)
    def clip(self, min=None, max=None): return F.clamp(self, min, max)
    def isnan(self): return F.isnan(self)
    def isinf(self): return F.isinf(self)
    def isfinite(self): return F.isfinite(self)
    def flip(self, dims): return F.flip(self, dims)
    def roll(self, shifts, dims=None): return F.roll(self, shifts, dims)
    def triu(self, diagonal=0): return F.triu(self, diagonal)
    def tril(self, diagonal=0): return F.tril(self, diagonal)
    def cumprod(self, dim, dtype=None): return F.cumprod(self, dim, dtype)

    def cumsum(self, axis=None, dtype=None):
        """axis None: over the flattened tensor (as MindSpore's Tensor.cumsum)."""
        if axis is None:
            return F.cumsum(F.reshape(self, (-1,)), 0, dtype)
        return F.cumsum(self, axis, dtype)

    def isclose(self, x2, rtol=1e-05, atol=1e-08, equal_nan=False):
        return F.isclose(self, x2, rtol, atol, equal_nan)

    def allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        return F.allclose(self, other, rtol, atol, equal_nan)

    def transpose(self, *axes):
        axes = _shape_args(axes)
        if not axes:
            axes = tuple(range(self.ndim - 1, -1, -1))
        return F.transpose(self, axes)

    def permute(self, *axes):
        return F.transpose(self, _shape_args(axes))


METHODS = TensorMethods


def _shape_args(args):
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        return tuple(args[0])
    return tuple(args)
