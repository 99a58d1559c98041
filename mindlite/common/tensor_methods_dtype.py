"""Tensor's dtype conversions, copies and introspection, as MindSpore 2.10's Tensor:
`x.float()`, `x.half()`, `x.long()`, `x.to(...)`, `x.type(...)`, `x.clone()`, `x.copy_(src)`,
`x.register_hook(fn)`, `x.requires_grad_()`, `x.stride()`, `x.is_floating_point()`, ...
Conversions call the Cast primitive (recorded for autograd, as any op). Listed in tensor.py's
`_METHOD_MODULES`.
"""
import numbers

import numpy as np

from . import dtype as mstype

F = None      # mindlite.ops.functional, bound by tensor.py (functional imports Tensor)


Tensor = None   # the Tensor class, set by tensor.py (which imports this module)


def _tensor_type():
    return Tensor


def _convert(self, dtype):
    return self if self.dtype is dtype else F.cast(self, dtype)


def _device_ok(device):
    if device is not None and not isinstance(device, str):
        raise TypeError(f"For 'Tensor.to', 'device' must be a str, but got "
                        f"{type(device).__name__}")


def _copy_if(self, out, copy):
    return F.cast(self, self.dtype) if copy and out is self else out


class DtypeTensorMethods:
    """Conversions, copies, gradient flags and hooks, layout queries."""
    __slots__ = ()

    def float(self): return _convert(self, mstype.float32)
    def half(self): return _convert(self, mstype.float16)
    def double(self): return _convert(self, mstype.float64)
    def bfloat16(self): return _convert(self, mstype.bfloat16)
    def int(self): return _convert(self, mstype.int32)
    def long(self): return _convert(self, mstype.int64)
    def short(self): return _convert(self, mstype.int16)
    def byte(self): return _convert(self, mstype.uint8)
    def bool(self): return _convert(self, mstype.bool_)

    def to(self, *args, **kwargs):
        """to(dtype=None, non_blocking=False, copy=False), to(device=None, dtype=None, ...),
        to(other, non_blocking=False, copy=False): the tensor in `dtype` (or other's); the
        device (only the CPU here) is accepted and kept."""
        Tensor = _tensor_type()
        first = args[0] if args else kwargs.get("dtype", kwargs.get("device",
                                                                    kwargs.get("other")))
        copy = kwargs.get("copy", False)
        if isinstance(first, Tensor):
            return _copy_if(self, _convert(self, first.dtype), copy)
        dtype = kwargs.get("dtype")
        if args and isinstance(args[0], str):
            _device_ok(args[0])
            if len(args) > 1 and isinstance(args[1], mstype.Type):
                dtype = args[1]
        elif args and args[0] is not None:
            dtype = args[0]
        _device_ok(kwargs.get("device"))
        if dtype is None:
            return _copy_if(self, self, copy)
        return _copy_if(self, _convert(self, mstype.to_type(dtype)), copy)

    def type(self, dtype=None):
        """The dtype's name ("Float32") without an argument, else the tensor in `dtype`."""
        if dtype is None:
            return str(self.dtype)
        return _convert(self, mstype.to_type(dtype))

    def type_as(self, other): return _convert(self, other.dtype)

    def clone(self):
        """A copy with its own buffer (recorded: the gradient flows back to self)."""
        return F.cast(self, self.dtype)

    def copy_(self, src, non_blocking=False):
        """self's values become src's (broadcast to self's shape, cast to self's dtype)."""
        from .tensor_methods_inplace import write_inplace
        Tensor = _tensor_type()
        if not isinstance(src, Tensor):
            raise TypeError(f"For 'Tensor.copy_', 'src' must be a Tensor, but got "
                            f"{type(src).__name__}")
        return write_inplace(self, "copy_", lambda old: src)

    def register_hook(self, hook):
        """hook(grad) is called with this tensor's gradient in backward passes; what it returns
        (a Tensor) replaces the gradient. Returns a handle whose remove() unregisters it."""
        from . import tensor_hooks
        return tensor_hooks.register(self, hook)

    def requires_grad_(self, requires_grad=True):
        """Marks a Parameter as trainable or not (a plain Tensor is differentiated when it is an
        input of a grad function, whatever this flag); returns None, as MindSpore 2.10."""
        if not isinstance(requires_grad, bool):
            raise TypeError(f"For 'Tensor.requires_grad_', 'requires_grad' must be a bool, but "
                            f"got {type(requires_grad).__name__}")
        if hasattr(type(self), "requires_grad") and isinstance(
                getattr(type(self), "requires_grad", None), property):
            self.requires_grad = requires_grad

    def is_floating_point(self): return self.dtype in mstype.FLOAT_TYPES + (mstype.bfloat16,)
    def is_signed(self): return self.dtype.kind in "fic" or self.dtype is mstype.bfloat16
    def nelement(self): return self.size
    def ndimension(self): return self.ndim
    def element_size(self): return self.itemsize

    def stride(self, dim=None):
        """Strides in elements (of the tensor's C-contiguous layout), or the one of `dim`."""
        steps = tuple(s // self.itemsize for s in self.asnumpy().strides)
        if dim is None:
            return steps
        if not isinstance(dim, numbers.Integral) or not -self.ndim <= dim < max(self.ndim, 1):
            raise IndexError(f"For 'Tensor.stride', 'dim' {dim!r} is out of range for rank "
                             f"{self.ndim}")
        return steps[dim]

    def storage_offset(self):
        """The offset (in elements) of the first element within its buffer."""
        arr = self.asnumpy()
        base = arr
        while isinstance(base.base, np.ndarray):
            base = base.base
        return (arr.__array_interface__["data"][0] - base.__array_interface__["data"][0]) \
            // max(arr.itemsize, 1)

    def data_ptr(self):
        return self.asnumpy().__array_interface__["data"][0]

    def untyped_storage(self):
        """An UntypedStorage over this tensor's bytes (common/storage.py)."""
        from .storage import UntypedStorage
        return UntypedStorage(self)


METHODS = DtypeTensorMethods
