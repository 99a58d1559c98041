"""Tensor's math, statistics, creation and in-place methods of issue 13 (x.std(), x.norm(),
x.add_(y), x.new_zeros(...), ...), each calling the functional op so it is recorded for
autograd. MindSpore 2.10's signatures. Tensor inherits `METHODS` (tensor.py's
_METHOD_MODULES).

In-place methods (fill_, add_, sub_, mul_) check the result's shape and dtype first (a failed
call changes nothing), then: with no grad recorder open they write into the tensor's own
array (after common/buffers.own_buffer); while one is open they are recorded as
Tensor.__setitem__ is (pynative/inplace.py, reached through common/api.py's PYNATIVE slot): the
tapes' earlier references move to a snapshot of the old values and the tensor becomes the
recorded result, so a later backward uses the old values where earlier ops saw them and
differentiates through the write.
"""
import numbers

import numpy as np

from . import dtype as mstype
from .api import PYNATIVE
from .buffers import own_buffer

F = None      # mindlite.ops.functional, bound by tensor.py (functional imports Tensor)


Tensor = None  # the Tensor class, bound by tensor.py (it imports this module)


def _tensor_type():
    return Tensor


def _result_dtype(op, x, other):
    """The dtype of x (op) other, checked to be writable into x."""
    Tensor = _tensor_type()
    if isinstance(other, Tensor):
        t = mstype.promote(x.dtype, other.dtype)
        shape = np.broadcast_shapes(x.shape, other.shape) if _broadcasts(x, other) else None
        if shape != x.shape:
            raise ValueError(f"For 'Tensor.{op}', 'other' of shape {list(other.shape)} must "
                             f"broadcast to the tensor's shape {list(x.shape)} (an in-place "
                             f"write keeps the shape)")
    elif isinstance(other, (numbers.Number, np.generic)):
        t = mstype.promote_scalar(x.dtype, type(other.item() if isinstance(other, np.generic)
                                                 else other))
    else:
        raise TypeError(f"For 'Tensor.{op}', 'other' must be a Tensor or a number, but got "
                        f"{type(other).__name__}")
    if t is not x.dtype and not np.can_cast(t.np, x.dtype.np, "same_kind"):
        raise TypeError(f"For 'Tensor.{op}', the result type {t} cannot be written into the "
                        f"tensor's {x.dtype}")
    return t


def _broadcasts(x, other):
    try:
        np.broadcast_shapes(x.shape, other.shape)
    except ValueError:
        return False
    return True


def _write(x, compute):
    """x takes the value compute(x_old) in place (module docstring)."""
    if PYNATIVE.grad.recording:
        old = PYNATIVE.snapshot(x)
        result = compute(old)
        if result.dtype is not x.dtype:
            result = F.cast(result, x.dtype)
        if result.shape != x.shape:
            result = F.broadcast_to(result, x.shape)
        PYNATIVE.adopt(x, result)
        return x
    result = compute(x)
    arr = own_buffer(x)
    with np.errstate(all="ignore"):
        np.copyto(arr, result.asnumpy(), casting="unsafe")
    return x


def _arith_(x, op, fn, other, alpha=1):
    _result_dtype(op, x, other)
    if not isinstance(alpha, (numbers.Number, np.generic)) or isinstance(alpha, bool):
        raise TypeError(f"For 'Tensor.{op}', 'alpha' must be a number, but got "
                        f"{type(alpha).__name__}")
    if alpha != 1:
        _result_dtype(op, x, alpha)
    Tensor = _tensor_type()

    def compute(old):
        o = old if other is x else other                 # x.add_(x): its old self
        if alpha != 1:
            o = F.mul(o, alpha) if isinstance(o, Tensor) else o * alpha
        return fn(old, o)
    return _write(x, compute)


def _size_arg(op, size):
    if isinstance(size, numbers.Integral) and not isinstance(size, bool):
        size = (size,)
    if not isinstance(size, (tuple, list)) or not all(
            isinstance(d, numbers.Integral) and not isinstance(d, bool) for d in size):
        raise TypeError(f"For 'Tensor.{op}', 'size' must be an int or a tuple or list of ints, "
                        f"but got {size!r}")
    if any(d < 0 for d in size):
        raise ValueError(f"For 'Tensor.{op}', 'size' must not hold negative values, but got "
                         f"{tuple(size)}")
    return tuple(int(d) for d in size)


def _stat_args(axis, ddof, keepdims, dim, correction, keepdim):
    """(axis, ddof, keepdims) from either of Tensor.std / var's overloads."""
    return (axis if dim is None else dim, ddof if correction is None else correction,
            keepdims if keepdim is None else keepdim)


class MathTensorMethods:
    """Statistics, norms, rounding, comparison, products, shape queries, creation like self,
    in-place arithmetic."""
    __slots__ = ()

    def std(self, axis=None, ddof=0, keepdims=False, *, dim=None, correction=None,
            keepdim=None):
        """Both MindSpore 2.10 overloads: (axis, ddof, keepdims) and (dim, *, correction,
        keepdim); the second's correction defaults to ddof's 0, as MindSpore 2.10's CPU."""
        return F.std(self, *_stat_args(axis, ddof, keepdims, dim, correction, keepdim))

    def var(self, axis=None, ddof=0, keepdims=False, *, dim=None, correction=None,
            keepdim=None):
        return F.var(self, *_stat_args(axis, ddof, keepdims, dim, correction, keepdim))

    def norm(self, ord=None, dim=None, keepdim=False, *, dtype=None):
        return F.norm(self, ord, dim, keepdim, dtype=dtype)

    def logsumexp(self, dim, keepdim=False): return F.logsumexp(self, dim, keepdim)
    def sign(self): return F.sign(self)
    def floor(self): return F.floor(self)
    def ceil(self): return F.ceil(self)
    def equal(self, other): return F.equal(self, other)
    def bmm(self, mat2): return F.bmm(self, mat2)
    def numel(self): return self.size
    def dim(self): return self.ndim
    def view_as(self, other): return F.reshape(self, other.shape)
    def where(self, condition, other=None, *, y=None):
        """where(condition, other) or where(condition, y=...) (2.10's two spellings)."""
        return F.where(condition, self, y if other is None else other)

    def is_contiguous(self):
        return bool(self.asnumpy().flags.c_contiguous)

    def contiguous(self):
        """self when its data is C-contiguous (as MindSpore), else a contiguous copy."""
        if self.is_contiguous():
            return self
        return F.transpose(self, tuple(range(self.ndim)))     # Transpose copies, C order

    def new_zeros(self, size, dtype=None):
        return F.zeros(_size_arg("new_zeros", size), self.dtype if dtype is None else dtype)

    def new_ones(self, size, dtype=None):
        return F.ones(_size_arg("new_ones", size), self.dtype if dtype is None else dtype)

    def repeat(self, *repeats):
        """Tile self `repeats[i]` times along each dimension (more repeats than dims: new
        leading dims), as MindSpore 2.10's Tensor.repeat(*repeats)."""
        if len(repeats) == 1 and isinstance(repeats[0], (tuple, list)):
            repeats = tuple(repeats[0])
        if not repeats or not all(isinstance(r, numbers.Integral) and not isinstance(r, bool)
                                  for r in repeats):
            raise TypeError(f"For 'Tensor.repeat', 'repeats' must be ints, but got {repeats!r}")
        if len(repeats) < self.ndim:
            raise ValueError(f"For 'Tensor.repeat', the number of 'repeats' ({len(repeats)}) "
                             f"must be >= the tensor's rank {self.ndim}")
        if any(r < 0 for r in repeats):
            raise ValueError(f"For 'Tensor.repeat', 'repeats' must be non-negative, but got "
                             f"{repeats}")
        return F.tile(self, tuple(int(r) for r in repeats))

    def split(self, split_size=None, dim=0, *, split_size_or_sections=None, axis=None):
        """split(split_size, dim=0); MindSpore 2.10's older spelling
        split(split_size_or_sections=..., axis=...) is accepted too."""
        size = split_size_or_sections if split_size is None else split_size
        return F.split(self, size, dim if axis is None else axis)

    # ---- in place -----------------------------------------------------------------------
    def add_(self, other, *, alpha=1):
        return _arith_(self, "add_", F.add, other, alpha)

    def sub_(self, other=None, alpha=1, *, y=None):
        """sub_(other, alpha=1) or sub_(y=...) (MindSpore 2.10's two spellings)."""
        return _arith_(self, "sub_", F.sub, y if other is None else other, alpha)

    def mul_(self, other):
        return _arith_(self, "mul_", F.mul, other)

    def fill_(self, value):
        """Every element becomes `value` (a number, bool, or a Tensor of one element: its
        gradient is the sum of the tensor's)."""
        Tensor = _tensor_type()
        if isinstance(value, Tensor):
            if value.shape not in ((), (1,)):
                raise ValueError(f"For 'Tensor.fill_', a Tensor 'value' must be 0-D or of shape "
                                 f"[1], but got {list(value.shape)}")
            def compute(old):
                return F.broadcast_to(F.reshape(F.cast(value, old.dtype), ()), old.shape)
        elif isinstance(value, (numbers.Number, np.generic)):
            with np.errstate(all="ignore"):
                v = np.array(value).astype(self.dtype.np)

            def compute(old):
                return F.fill(old.dtype, old.shape, v.item())
        else:
            raise TypeError(f"For 'Tensor.fill_', 'value' must be a Tensor, number or bool, but "
                            f"got {type(value).__name__}")
        return _write(self, compute)


METHODS = MathTensorMethods
