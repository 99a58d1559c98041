"""Functional vector and matrix products of MindSpore 2.10 beyond linalg_func: inner, dot,
vdot, mv, addmv, addr, addbmm, tensor_dot, and the shrink / threshold activations
(hardshrink, softshrink, tanhshrink, threshold, softmin) with approximate_equal. Each
composes MatMul / BatchMatMul, Mul, Select and the reductions, so gradients come from
those primitives' bprops.
"""
import numbers

from ...common.tensor import Tensor

__all__ = ['inner', 'dot', 'dot_1d', 'vdot', 'ger', 'mv', 'addmv', 'addr', 'addbmm', 'tensor_dot',
           'hardshrink', 'softshrink', 'soft_shrink', 'tanhshrink', 'threshold', 'softmin',
           'approximate_equal', 'swiglu', 'mse_loss_ext', 'accumulate_n']


def _F():
    from .. import functional as F
    return F


def _tensor(op, arg, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{op}', '{arg}' must be a Tensor, but got {type(x).__name__}")
    return x


def _scaled(op, beta, base, alpha, prod):
    for name, v in (("beta", beta), ("alpha", alpha)):
        if not isinstance(v, numbers.Number) or isinstance(v, bool):
            raise TypeError(f"For '{op}', '{name}' must be a number, but got {type(v).__name__}")
    F = _F()
    left = base if beta == 1 else F.mul(base, beta)
    return F.add(left, prod if alpha == 1 else F.mul(prod, alpha))


def inner(input, other):
    """The sum over the last dims of input and other (a product when either is 0-D);
    result shape input.shape[:-1] + other.shape[:-1]."""
    F = _F()
    _tensor("inner", "input", input)
    _tensor("inner", "other", other)
    if input.ndim == 0 or other.ndim == 0:
        return F.mul(input, other)
    k = input.shape[-1]
    if other.shape[-1] != k:
        raise ValueError(f"For 'inner', the last dims must match, but got {list(input.shape)} "
                         f"and {list(other.shape)}")
    a = F.reshape(input, (-1, k))
    b = F.reshape(other, (-1, k))
    out = F.matmul(a, F.transpose(b, (1, 0)))
    return F.reshape(out, input.shape[:-1] + other.shape[:-1])


def dot(input, other):
    """MindSpore's ops.dot: the sum over input's last dim and other's second-to-last (both
    at least 2-D): shape input.shape[:-1] + other.shape[:-2] + other.shape[-1:]."""
    for arg, x in (("input", input), ("other", other)):
        if _tensor("dot", arg, x).ndim < 2:
            raise ValueError(f"For 'dot', the inputs x1, x2 should have 'dimension >= 2', but "
                             f"got '{arg}' of shape {list(x.shape)}")
    return tensor_dot(input, other, ((input.ndim - 1,), (other.ndim - 2,)))


def dot_1d(input, other):
    """The dot product of two 1-D tensors (a 0-D result): mint.dot, Tensor.dot."""
    F = _F()
    for arg, x in (("input", input), ("other", other)):
        if _tensor("dot", arg, x).ndim != 1:
            raise ValueError(f"For 'dot', '{arg}' must be 1-D, but got shape {list(x.shape)}")
    if input.dtype is not other.dtype:
        raise TypeError(f"For 'dot', 'input' and 'other' must have one dtype, but got "
                        f"{input.dtype} and {other.dtype}")
    return F.sum(F.mul(input, other))


def vdot(input, other):
    """dot(conj(input), other) of two 1-D tensors."""
    F = _F()
    return dot_1d(F.conj(input) if input.dtype.kind == "c" else input, other)


def ger(input, vec2):
    """The outer product of two 1-D tensors."""
    for arg, x in (("input", input), ("vec2", vec2)):
        if _tensor("ger", arg, x).ndim != 1:
            raise ValueError(f"For 'ger', the '{arg}' rank must be equal to 1, but got "
                             f"{x.ndim}.")
    return _F().outer(input, vec2)


def mv(mat, vec):
    """matrix (n, m) @ vector (m,) -> (n,)."""
    F = _F()
    if _tensor("mv", "mat", mat).ndim != 2 or _tensor("mv", "vec", vec).ndim != 1:
        raise ValueError(f"For 'mv', 'mat' must be 2-D and 'vec' 1-D, but got shapes "
                         f"{list(mat.shape)} and {list(vec.shape)}")
    return F.matmul(mat, vec)


def addmv(input, mat, vec, *, beta=1, alpha=1):
    """beta * input + alpha * (mat @ vec)."""
    return _scaled("addmv", beta, input, alpha, mv(mat, vec))


def addr(x, vec1, vec2, *, beta=1, alpha=1):
    """beta * x + alpha * outer(vec1, vec2)."""
    return _scaled("addr", beta, x, alpha, _F().outer(vec1, vec2))


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """beta * input + alpha * sum_b batch1[b] @ batch2[b]."""
    F = _F()
    return _scaled("addbmm", beta, input, alpha, F.sum(F.bmm(batch1, batch2), 0))


def tensor_dot(x1, x2, axes):
    """The sum of products over x1's and x2's `axes` (an int: the last / first n axes; or two
    sequences of axes)."""
    F = _F()
    _tensor("tensor_dot", "x1", x1)
    _tensor("tensor_dot", "x2", x2)
    if isinstance(axes, int):
        a1 = list(range(x1.ndim - axes, x1.ndim))
        a2 = list(range(axes))
    else:
        a1, a2 = ([a] if isinstance(a, int) else list(a) for a in axes)
    a1 = [a % x1.ndim for a in a1]
    a2 = [a % x2.ndim for a in a2]
    free1 = [d for d in range(x1.ndim) if d not in a1]
    free2 = [d for d in range(x2.ndim) if d not in a2]
    k = 1
    for d in a1:
        k *= x1.shape[d]
    left = F.reshape(F.transpose(x1, tuple(free1 + a1)), (-1, k))
    right = F.reshape(F.transpose(x2, tuple(a2 + free2)), (k, -1))
    shape = tuple(x1.shape[d] for d in free1) + tuple(x2.shape[d] for d in free2)
    return F.reshape(F.matmul(left, right), shape)


def hardshrink(input, lambd=0.5):
    """input where |input| > lambd, else 0."""
    F = _F()
    _tensor("hardshrink", "input", input)
    return F.where(F.greater(F.abs(input), lambd), input, F.zeros_like(input))


def softshrink(input, lambd=0.5):
    """input - lambd above lambd, input + lambd below -lambd, else 0."""
    F = _F()
    _tensor("softshrink", "input", input)
    if lambd < 0:
        raise ValueError(f"For 'softshrink', 'lambd' must be >= 0, but got {lambd}")
    zero = F.zeros_like(input)
    return F.where(F.greater(input, lambd), F.sub(input, lambd),
                   F.where(F.less(input, -lambd), F.add(input, lambd), zero))


soft_shrink = softshrink


def tanhshrink(input):
    """input - tanh(input)."""
    F = _F()
    return F.sub(_tensor("tanhshrink", "input", input), F.tanh(input))


def threshold(input, thr, value):
    """input where input > thr, else value."""
    F = _F()
    _tensor("threshold", "input", input)
    return F.where(F.greater(input, thr), input, F.cast(Tensor(value), input.dtype))


def softmin(x, axis=-1, *, dtype=None):
    """softmax(-x) along axis."""
    F = _F()
    _tensor("softmin", "x", x)
    if dtype is not None:
        x = F.cast(x, dtype)
    return F.softmax(F.neg(x), axis)


def swiglu(input, dim=-1):
    """a * silu(b) for the two halves (a, b) of input along dim."""
    F = _F()
    _tensor("swiglu", "input", input)
    if not input.shape or input.shape[dim] % 2:
        raise ValueError(f"For 'Swiglu', the dimension specified by 'dim' must be divisible by "
                         f"2, but got x_shape[dim]: {input.shape[dim] if input.shape else 0}")
    a, b = F.chunk(input, 2, dim)
    return F.mul(a, F.silu(b))


def mse_loss_ext(input, target, reduction="mean"):
    return _F().mse_loss(input, target, reduction)


def accumulate_n(x):
    """The sum of a tuple or list of tensors (AddN)."""
    return _F().addn(x)


def approximate_equal(x, y, tolerance=1e-05):
    """|x - y| < tolerance, elementwise."""
    F = _F()
    return F.less(F.abs(F.sub(x, y)), float(tolerance))


