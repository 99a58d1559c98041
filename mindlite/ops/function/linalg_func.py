"""Linear-algebra functional ops of issue 13 with MindSpore 2.x's signatures: ops.einsum,
ops.svd, ops.norm / vector_norm / matrix_norm (vector and matrix ord variants, composites as
MindSpore's), ops.diag, ops.trace, ops.outer, ops.cross, ops.cosine_similarity, ops.baddbmm,
ops.addmm, ops.matrix_power, ops.inverse, ops.det. Primitives: ops/operations/linalg_ops.py
and svd_ops.py; composites (norms, outer, cosine_similarity, baddbmm, addmm) as MindSpore
defines them.
"""
import math
import numbers

from ...common import dtype as mstype
from ...common.tensor import Tensor
from ..operations import linalg_ops as L
from ..operations import svd_ops
from ..operations.array_ops import Cast
from ..operations.math_ops import BatchMatMul, MatMul
from ._typed_prims import typed_prim as _prim

__all__ = ["einsum", "svd", "norm", "vector_norm", "matrix_norm", "diag", "trace", "outer",
           "cross", "cosine_similarity", "baddbmm", "addmm", "matrix_power", "inverse", "det"]

_cast = Cast()
_diag, _trace = L.Diag(), L.Trace()
_inverse, _det = L.MatrixInverse(), L.MatrixDeterminant()
_bmm, _matmul = BatchMatMul(), MatMul()


def _F():
    from .. import functional as F      # functional imports this module
    return F


def _check_tensor(op, arg, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{op}', the input '{arg}' must be a Tensor, but got "
                        f"{type(x).__name__}")
    return x


def einsum(equation, *operands):
    """The contraction `equation` names over `operands` (float Tensors of one dtype), with
    numpy.einsum's grammar: 'ij,jk->ik', 'ii->i', '...ij,...jk', implicit outputs."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    return _prim(L.Einsum, equation)(tuple(operands))


def svd(input, full_matrices=False, compute_uv=True):
    """(s, u, v) with input = u diag(s) v^T over the last two axes (s descending); only s
    when compute_uv is False."""
    _check_tensor("svd", "input", input)
    s, u, v = _prim(svd_ops.Svd, full_matrices, compute_uv)(input)
    return (s, u, v) if compute_uv else s


# ---- norm ------------------------------------------------------------------------------
_MATRIX_ORDS = (2, -2, 1, -1, math.inf, -math.inf, "fro", "nuc", None)


def _norm_dims(A, ord, dim):
    nd = A.ndim
    if dim is None:
        if ord is None:
            return None
        if nd not in (1, 2):
            raise ValueError(f"For norm, 'dim' must be given when 'ord' is {ord!r} and the input "
                             f"has rank {nd} (only 1-D and 2-D inputs have a default dim)")
        dim = tuple(range(nd))
    if isinstance(dim, numbers.Integral) and not isinstance(dim, bool):
        dim = (dim,)
    if not isinstance(dim, tuple) or not all(isinstance(d, numbers.Integral)
                                             and not isinstance(d, bool) for d in dim):
        raise TypeError(f"For norm, the dim should be int or tuple of int, but got {type(dim)}")
    if len(dim) not in (1, 2):
        raise ValueError(f"For norm, 'dim' must hold 1 or 2 dimensions, but got {dim}")
    lim = max(nd, 1)
    for d in dim:
        if not -lim <= d < lim:
            raise ValueError(f"For norm, 'dim' must be in [{-lim}, {lim}), but got {dim}")
    dim = tuple(d % lim for d in dim)
    if len(dim) == 2 and dim[0] == dim[1]:
        raise ValueError(f"For norm, the two dims must differ, but got {dim}")
    return dim


def _vector_norm(F, A, p, dim, keepdim):
    if p is None or p == 2:
        return F.sqrt(F.sum(F.mul(A, A), dim, keepdim))
    a = F.abs(A)
    if p == math.inf:
        return F.amax(a, dim, keepdim)
    if p == -math.inf:
        return F.amin(a, dim, keepdim)
    if p == 0:
        return F.sum(F.cast(F.not_equal(A, 0.0), A.dtype), dim, keepdim)
    if p == 1:
        return F.sum(a, dim, keepdim)
    return F.pow(F.sum(F.pow(a, float(p)), dim, keepdim), 1.0 / float(p))


def _matrix_norm(F, A, ord, dim, keepdim):
    d0, d1 = dim
    if ord == "fro":
        return F.sqrt(F.sum(F.mul(A, A), dim, keepdim))
    if ord in ("nuc", 2, -2):
        rest = tuple(i for i in range(A.ndim) if i not in dim)
        s = _prim(svd_ops.Svd, False, False)(F.transpose(A, rest + dim))[0]
        out = {"nuc": F.sum, 2: F.amax, -2: F.amin}[ord](s, -1)
        for d in sorted(dim) if keepdim else ():
            out = F.expand_dims(out, d)
        return out
    if ord in (math.inf, -math.inf):
        d0, d1 = d1, d0                          # row sums instead of column sums
    pick = F.amax if ord in (1, math.inf) else F.amin
    out = pick(F.sum(F.abs(A), d0, True), d1, True)
    return out if keepdim else F.squeeze(out, tuple(sorted(dim)))


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """Vector norms (dim an int or 1-tuple; ord None/2, inf, -inf, 0, any other number) and
    matrix norms (dim a 2-tuple; ord 'fro', 'nuc', 2, -2, 1, -1, inf, -inf; the singular
    value ones through Svd) as MindSpore's ops.norm; with
    dim None and ord None the 2-norm of the flattened input. Int inputs are computed as
    float32; `dtype` casts first."""
    _check_tensor("norm", "A", A)
    F = _F()
    dims = _norm_dims(A, ord, dim)
    if isinstance(ord, str) and dims is not None and len(dims) == 1:
        raise TypeError(f"For norm, ord mode can not be str for vectors, but got {ord}.")
    if dims is not None and len(dims) == 2 and ord not in _MATRIX_ORDS:
        raise ValueError(f"For norm, the ord mode must be in [2, -2, 1, -1, float('inf'), "
                         f"-float('inf'), 'fro', 'nuc', None] for matrices, but got {ord}.")
    if ord is not None and not isinstance(ord, (str, numbers.Real)) or isinstance(ord, bool):
        raise TypeError(f"For norm, 'ord' must be a number, 'fro', 'nuc' or None, but got "
                        f"{ord!r}")
    if dtype is not None:
        A = _cast(A, dtype)
    elif A.dtype.kind != "f":
        A = _cast(A, mstype.float32)
    if dims is None:
        return F.sqrt(F.sum(F.mul(A, A), None, keepdim))
    if len(dims) == 1:
        return _vector_norm(F, A, ord, dims, keepdim)
    return _matrix_norm(F, A, "fro" if ord is None else ord, dims, keepdim)


def _float_input(op, x, dtype):
    _check_tensor(op, "x", x)
    if dtype is not None:
        return _cast(x, dtype)
    return x if x.dtype.kind == "f" else _cast(x, mstype.float32)


def vector_norm(x, ord=2, axis=None, keepdims=False, *, dtype=None):
    """The vector p-norm over `axis` (None: all elements; an int or a tuple of any length)
    with ord a number (inf, -inf, 0 included), as MindSpore's ops.vector_norm."""
    if isinstance(ord, bool) or not isinstance(ord, numbers.Real):
        raise TypeError(f"For 'vector_norm', 'ord' must be a number, but got {ord!r}")
    nd = _check_tensor("vector_norm", "x", x).ndim
    if axis is None:
        axis = tuple(range(nd))
    elif isinstance(axis, numbers.Integral) and not isinstance(axis, bool):
        axis = (axis,)
    if not isinstance(axis, (tuple, list)) or not all(
            isinstance(a, numbers.Integral) and not isinstance(a, bool) for a in axis):
        raise TypeError(f"For 'vector_norm', 'axis' must be None, an int or a tuple of ints, "
                        f"but got {axis!r}")
    lim = max(nd, 1)
    if any(not -lim <= a < lim for a in axis):
        raise ValueError(f"For 'vector_norm', 'axis' must be in [{-lim}, {lim}), but got "
                         f"{tuple(axis)}")
    dims = tuple(sorted({a % lim for a in axis})) if nd else ()
    return _vector_norm(_F(), _float_input("vector_norm", x, dtype), ord, dims, keepdims)


def matrix_norm(A, ord="fro", axis=(-2, -1), keepdims=False, *, dtype=None):
    """The matrix norm ('fro', 'nuc', 2, -2, 1, -1, inf, -inf) over the two dims `axis`, as
    MindSpore's ops.matrix_norm."""
    if _check_tensor("matrix_norm", "A", A).ndim < 2:
        raise ValueError(f"For 'matrix_norm', 'A' must have rank >= 2, but got shape "
                         f"{list(A.shape)}")
    if ord is None or ord not in _MATRIX_ORDS:
        raise ValueError(f"For 'matrix_norm', 'ord' must be one of 'fro', 'nuc', 2, -2, 1, "
                         f"-1, inf, -inf, but got {ord!r}")
    if not isinstance(axis, tuple) or len(axis) != 2:
        raise TypeError(f"For 'matrix_norm', 'axis' must be a tuple of two ints, but got "
                        f"{axis!r}")
    return norm(A, ord, axis, keepdims, dtype=dtype)


# ---- matrices and products ---------------------------------------------------------------
def diag(input):
    """A tensor of shape input.shape * 2 with input on its diagonal (1-D: a diagonal matrix)."""
    return _diag(input)


def trace(input):
    """The sum of a 2-D tensor's diagonal, in its dtype."""
    return _trace(input)


def outer(input, vec2):
    """input (flattened) as a column times vec2: input.reshape(-1, 1) * vec2."""
    _check_tensor("outer", "input", input)
    _check_tensor("outer", "vec2", vec2)
    F = _F()
    return F.mul(F.reshape(input, (-1, 1)), vec2)


def cross(input, other, dim=None):
    """The cross product along `dim` (None: the first dimension of size 3)."""
    return _prim(L.Cross, -65530 if dim is None else dim)(input, other)


def cosine_similarity(x1, x2, dim=1, eps=1e-08):
    """sum(x1 x2, dim) / max(||x1||_2 ||x2||_2, eps) (broadcasting), as MindSpore."""
    F = _F()
    num = F.sum(F.mul(x1, x2), dim)
    den = F.clamp(F.mul(norm(x1, 2, dim), norm(x2, 2, dim)), eps)
    return F.div(num, den)


def _check_scale(op, name, v, dtype):
    if dtype.kind == "f":
        ok = isinstance(v, (int, float)) and not isinstance(v, bool)
        want = "a real number"
    else:
        ok = isinstance(v, int) and not isinstance(v, bool)
        want = "an int for a non-float input"
    if not ok:
        raise TypeError(f"For '{op}', '{name}' must be {want}, but got {type(v).__name__}: "
                        f"{v!r}")


def baddbmm(input, batch1, batch2, beta=1, alpha=1):
    """beta * input + alpha * (batch1 @ batch2) per batch; all three of one dtype."""
    for name, t in (("input", input), ("batch1", batch1), ("batch2", batch2)):
        _check_tensor("baddbmm", name, t)
    if not input.dtype is batch1.dtype is batch2.dtype:
        raise TypeError(f"For 'baddbmm', the inputs should be the same dtype, but got "
                        f"{input.dtype}, {batch1.dtype} and {batch2.dtype}")
    _check_scale("baddbmm", "beta", beta, input.dtype)
    _check_scale("baddbmm", "alpha", alpha, input.dtype)
    F = _F()
    return F.add(F.mul(beta, input), F.mul(alpha, _bmm(batch1, batch2)))


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """beta * input + alpha * (mat1 @ mat2)."""
    for name, v in (("alpha", alpha), ("beta", beta)):
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            raise TypeError(f"For 'addmm', parameter '{name}' must be an int or float, but got "
                            f"{type(v)}.")
    F = _F()
    return F.add(F.mul(beta, input), F.mul(alpha, _matmul(mat1, mat2)))


def matrix_power(input, n):
    """input^n over the last two axes (n < 0: of the inverse)."""
    return _prim(L.MatrixPower, n)(input)


def inverse(input):
    """The inverse of each square matrix over the last two axes (float32 / float64)."""
    _check_tensor("inverse", "input", input)
    return _inverse(input)


def det(input):
    """The determinant of each square matrix over the last two axes (float32 / float64)."""
    return _det(input)
