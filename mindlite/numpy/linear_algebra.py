"""mindlite.numpy's linear algebra: `dot`, `matmul`, `inner`, `outer`, `kron`, `tensordot`,
`multi_dot`, `cross`, `trace`, `norm` on MatMul / BatchMatMul / Transpose / Reduce
primitives (differentiable)."""
import numbers

from ..common import dtype as mstype
from ..ops import functional as F
from .array_creations import diagonal
from .dtypes import as_dtype, to_tensor

__all__ = ["dot", "matmul", "inner", "outer", "kron", "tensordot", "multi_dot", "cross",
           "trace", "norm"]


def _pair(a, b):
    a, b = to_tensor(a), to_tensor(b)
    dtype = mstype.promote(a.dtype, b.dtype)
    return F.cast(a, dtype), F.cast(b, dtype)


def matmul(x1, x2, dtype=None):
    """numpy.matmul: 1-D operands are promoted and the added axis removed; batches
    broadcast."""
    a, b = _pair(x1, x2)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError("For 'mindlite.numpy.matmul', the inputs cannot be scalars")
    return as_dtype(F.matmul(a, b), dtype)


def tensordot(a, b, axes=2):
    """Sum over the last `axes` axes of a and the first of b (or two explicit axis lists)."""
    a, b = _pair(a, b)
    if isinstance(axes, numbers.Integral):
        ax_a = list(range(a.ndim - axes, a.ndim))
        ax_b = list(range(axes))
    else:
        ax_a, ax_b = axes
        ax_a = [ax_a] if isinstance(ax_a, numbers.Integral) else list(ax_a)
        ax_b = [ax_b] if isinstance(ax_b, numbers.Integral) else list(ax_b)
    ax_a = [x % a.ndim for x in ax_a]
    ax_b = [x % b.ndim for x in ax_b]
    if [a.shape[x] for x in ax_a] != [b.shape[x] for x in ax_b]:
        raise ValueError(f"For 'mindlite.numpy.tensordot', the summed axes differ in size: "
                         f"{[a.shape[x] for x in ax_a]} and {[b.shape[x] for x in ax_b]}")
    free_a = [x for x in range(a.ndim) if x not in ax_a]
    free_b = [x for x in range(b.ndim) if x not in ax_b]
    k = 1
    for x in ax_a:
        k *= a.shape[x]
    at = F.reshape(F.transpose(a, tuple(free_a + ax_a)), (-1, k))
    bt = F.reshape(F.transpose(b, tuple(ax_b + free_b)), (k, -1))
    out = F.matmul(at, bt)
    return F.reshape(out, tuple(a.shape[x] for x in free_a) + tuple(b.shape[x] for x in free_b))


def dot(a, b):
    """numpy.dot: a product for scalars, the inner product for 1-D, matmul for 2-D, and a
    sum over a's last and b's second-to-last axis otherwise."""
    a, b = _pair(a, b)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    if b.ndim == 1:
        return tensordot(a, b, ([a.ndim - 1], [0]))
    return tensordot(a, b, ([a.ndim - 1], [b.ndim - 2]))


def inner(a, b):
    """Sum over the last axes of a and b."""
    a, b = _pair(a, b)
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    return tensordot(a, b, ([a.ndim - 1], [b.ndim - 1]))


def outer(a, b):
    a, b = _pair(a, b)
    return F.reshape(a, (-1, 1)) * F.reshape(b, (1, -1))


def kron(a, b):
    """The Kronecker product (ranks padded to the larger one)."""
    a, b = _pair(a, b)
    nd = max(a.ndim, b.ndim)
    a = F.reshape(a, (1,) * (nd - a.ndim) + a.shape)
    b = F.reshape(b, (1,) * (nd - b.ndim) + b.shape)
    ea = F.reshape(a, tuple(d for s in a.shape for d in (s, 1)))
    eb = F.reshape(b, tuple(d for s in b.shape for d in (1, s)))
    return F.reshape(ea * eb, tuple(x * y for x, y in zip(a.shape, b.shape)))


def multi_dot(arrays):
    """dot of a chain of matrices (first and last may be 1-D), left to right."""
    arrays = [to_tensor(a) for a in arrays]
    if len(arrays) < 2:
        raise ValueError("For 'mindlite.numpy.multi_dot', at least two arrays are needed")
    out = arrays[0]
    for a in arrays[1:]:
        out = dot(out, a)
    return out


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The cross product of 3-vectors (2-vectors get a zero z; two 2-vectors give the z
    component)."""
    a, b = _pair(a, b)
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = F.moveaxis(a, axisa, -1), F.moveaxis(b, axisb, -1)
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise ValueError("For 'mindlite.numpy.cross', the vectors must have 2 or 3 components, "
                         f"but got {a.shape[-1]} and {b.shape[-1]}")
    a0, a1 = a[..., 0], a[..., 1]
    b0, b1 = b[..., 0], b[..., 1]
    if a.shape[-1] == 2 and b.shape[-1] == 2:
        return a0 * b1 - a1 * b0
    a2 = a[..., 2] if a.shape[-1] == 3 else F.zeros_like(a0)
    b2 = b[..., 2] if b.shape[-1] == 3 else F.zeros_like(b0)
    out = F.stack((a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0), -1)
    return F.moveaxis(out, -1, axisc)


def trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    """Sum of the `offset` diagonal of the (axis1, axis2) planes."""
    d = diagonal(a, offset, axis1, axis2)
    return as_dtype(F.sum(d, -1), dtype)


def norm(x, ord=None, axis=None, keepdims=False):
    """Vector and matrix norms with numpy's `ord` and `axis` rules (ints as float32)."""
    x = to_tensor(x)
    if x.dtype not in mstype.FLOAT_TYPES:
        x = F.cast(x, mstype.float32)
    if axis is None and ord is None:
        out = F.sqrt(F.sum(x * x))
        return F.reshape(out, (1,) * x.ndim) if keepdims else out
    if axis is None:
        axis = tuple(range(x.ndim)) if x.ndim <= 2 else None
        if axis is None:
            raise ValueError("For 'mindlite.numpy.norm', an 'ord' on an input of rank > 2 "
                             "needs 'axis'")
    axis = (axis,) if isinstance(axis, numbers.Integral) else tuple(axis)
    if len(axis) == 1:
        return F.vector_norm(x, 2 if ord is None else ord, axis[0], keepdims)
    return F.matrix_norm(x, "fro" if ord is None else ord, axis, keepdims)
