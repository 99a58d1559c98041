"""Linear-algebra primitives of issue 13: Einsum, Cross, Diag / DiagPart, Trace, MatrixInverse,
MatrixDeterminant, MatrixPower, each with its bprop below it (built from primitives, so
gradients are differentiable again). Kernels: kernels/cpu/linalg_numpy.py. Functional names
(ops.einsum, ops.cross, ops.diag, ops.trace, ops.inverse, ops.det, ops.matrix_power, ...):
ops/function/linalg_func.py.
"""
import numbers

from ...common import dtype as mstype
from ...ir.rules import bprop_for
from ...ir.primitive import Primitive, prim_attr_register
from ..validator import (broadcast_shape, check_dtype, check_int, check_same_dtype,
                         check_tensor, tensor)
from ._base import cached_prim, needs_grad
from .einsum_spec import einsum_grad_specs, parse_einsum
from .math_ops import BatchMatMul, Mul, Neg

__all__ = ["Einsum", "Cross", "Diag", "DiagPart", "Trace", "MatrixInverse",
           "MatrixDeterminant", "MatrixPower"]

_mul, _neg = Mul(), Neg()


def _F():
    from .. import functional as F  # bprops only: functional imports this module
    return F


def _sum_to(dx, shape):
    from .array_ops import sum_to
    return sum_to(dx, shape)


# ---- Einsum ----------------------------------------------------------------------------
class Einsum(Primitive):
    """y = the contraction `equation` names (numpy.einsum's grammar: letters, '...',
    implicit output in sorted order) over a tuple of float tensors of one dtype.
    Gradient: for each operand, an einsum of dout with the other operands (repeated
    labels: through an identity, summed-out labels: broadcast back)."""
    input_names = ("x",)

    @prim_attr_register
    def __init__(self, equation):
        if not isinstance(equation, str):
            raise TypeError(f"For '{self.name}', the type of 'equation' should be str, but got "
                            f"{type(equation).__name__}: {equation!r}")

    def _spec(self, xs):
        if not isinstance(xs, tuple) or not xs:
            raise TypeError(f"For '{self.name}', 'x' must be a non-empty tuple or list of "
                            f"Tensors, but got {xs!r}")
        for i, x in enumerate(xs):
            check_dtype(self, f"x[{i}]", x, mstype.FLOAT_TYPES)
        check_same_dtype(self, [(f"x[{i}]", x) for i, x in enumerate(xs)])
        return parse_einsum(self.name, self.attrs["equation"], [x.shape for x in xs])

    def infer(self, xs):
        spec = self._spec(xs)
        return tensor(xs[0].dtype, spec.out_shape)

    def kernel_params(self, xs):
        return {"equation": self._spec(xs).explicit}


@bprop_for(Einsum)
def einsum_bprop(prim, xs, out, dout):
    spec = prim._spec(tuple(x._abs for x in xs))
    F, dxs = _F(), []
    for i, x in enumerate(xs):
        if not needs_grad(x):
            dxs.append(None)
            continue
        eq, eyes, (kept, full) = einsum_grad_specs(spec, i)
        ops_in = [dout] + [xs[j] for j in range(len(xs)) if j != i]
        ops_in += [F.eye(n, n, x.dtype) for n in eyes]
        g = cached_prim(Einsum, eq)(tuple(ops_in))
        if kept != full:                           # labels summed out in x alone
            g = F.broadcast_to(F.reshape(g, kept), full)
        dxs.append(_sum_to(g, x.shape))            # ellipsis dims x broadcast
    return (dxs,)


# ---- Cross -----------------------------------------------------------------------------
class Cross(Primitive):
    """y = input x other (the 3-vector cross product) along `dim`, with broadcasting; dim
    -65530 (MindSpore's default): the first dimension of size 3. Same dtype, numbers.
    Gradient: d input = other x dout, d other = dout x input."""
    input_names = ("input", "other")

    @prim_attr_register
    def __init__(self, dim=-65530):
        check_int(self, "dim", dim)

    def _dim(self, x, y):
        check_dtype(self, "input", x, mstype.NUMBER_TYPES)
        check_tensor(self, "other", y)
        check_same_dtype(self, [("input", x), ("other", y)])
        shape = broadcast_shape(self, x.shape, y.shape, ("input", "other"))
        dim = self.attrs["dim"]
        if dim == -65530:
            dims = [i for i, d in enumerate(shape) if d == 3]
            if not dims:
                raise ValueError(f"For '{self.name}', the size of inputs dim must contain 3, "
                                 f"but got {list(shape)}")
            return dims[0], shape
        if not -len(shape) <= dim < len(shape):
            raise ValueError(f"For '{self.name}', 'dim' must be in [{-len(shape)}, "
                             f"{len(shape)}), but got {dim}")
        dim %= len(shape)
        if shape[dim] != 3:
            raise ValueError(f"For '{self.name}', the size of inputs along 'dim' {dim} must be "
                             f"3, but got shape {list(shape)}")
        return dim, shape

    def infer(self, x, y):
        return tensor(x.dtype, self._dim(x, y)[1])

    def kernel_params(self, x, y):
        return {"dim": self._dim(x, y)[0]}


@bprop_for(Cross)
def cross_bprop(prim, x, y, out, dout):
    dim = prim._dim(x._abs, y._abs)[0]
    p = cached_prim(Cross, dim)
    dx = _sum_to(p(y, dout), x.shape) if needs_grad(x) else None
    dy = _sum_to(p(dout, x), y.shape) if needs_grad(y) else None
    return dx, dy


# ---- Diag / DiagPart / Trace -----------------------------------------------------------
class Diag(Primitive):
    """y of shape x.shape + x.shape with y[i..., i...] = x[i...] and zeros elsewhere (rank of
    x >= 1). Gradient: DiagPart(dout)."""
    input_names = ("input",)

    @prim_attr_register
    def __init__(self):
        pass

    def infer(self, x):
        check_dtype(self, "input", x, mstype.NUMBER_TYPES)
        if not x.shape:
            raise ValueError(f"For '{self.name}', the input rank must be greater than or equal "
                             f"to 1, but got 0")
        return tensor(x.dtype, x.shape + x.shape)


@bprop_for(Diag)
def diag_bprop(prim, x, out, dout):
    return (cached_prim(DiagPart)(dout) if needs_grad(x) else None,)


class DiagPart(Primitive):
    """The inverse of Diag: x of shape s + s (even rank >= 2) -> y[i...] = x[i..., i...].
    Gradient: Diag(dout)."""
    input_names = ("input_x",)

    @prim_attr_register
    def __init__(self):
        pass

    def infer(self, x):
        check_dtype(self, "input_x", x, mstype.NUMBER_TYPES)
        r = len(x.shape)
        if r == 0 or r % 2 or x.shape[:r // 2] != x.shape[r // 2:]:
            raise ValueError(f"For '{self.name}', 'input_x' must have an even rank >= 2 and "
                             f"shape s + s, but got {list(x.shape)}")
        return tensor(x.dtype, x.shape[:r // 2])


@bprop_for(DiagPart)
def diag_part_bprop(prim, x, out, dout):
    return (cached_prim(Diag)(dout) if needs_grad(x) else None,)


class Trace(Primitive):
    """y = sum_i x[i, i] of a 2-D number tensor (not bool), in x's dtype (ints wrap).
    Gradient: dout on the diagonal, zero elsewhere."""
    input_names = ("x",)

    @prim_attr_register
    def __init__(self):
        pass

    def infer(self, x):
        check_dtype(self, "x", x, mstype.NUMBER_TYPES)
        if len(x.shape) != 2:
            raise ValueError(f"For '{self.name}', the rank of the input must be 2, but got "
                             f"{len(x.shape)}")
        return tensor(x.dtype, ())


@bprop_for(Trace)
def trace_bprop(prim, x, out, dout):
    if not needs_grad(x):
        return (None,)
    F = _F()
    return (_mul(F.eye(x.shape[0], x.shape[1], x.dtype), dout),)


# ---- MatrixInverse / MatrixDeterminant / MatrixPower ------------------------------------
def _check_square(prim, arg, x, valid):
    check_dtype(prim, arg, x, valid)
    if len(x.shape) < 2:
        raise ValueError(f"For '{prim.name}', the {arg} rank must be greater than or equal to "
                         f"2, but got {len(x.shape)}")
    if x.shape[-1] != x.shape[-2]:
        raise ValueError(f"For '{prim.name}', the last two dimensions of '{arg}' must be equal "
                         f"(square matrices), but got shape {list(x.shape)}")


_T_A, _T_B = BatchMatMul(True, False), BatchMatMul(False, True)


def _mT(t):
    """t with its last two axes swapped."""
    r = len(t.shape)
    return _F().transpose(t, tuple(range(r - 2)) + (r - 1, r - 2))


class MatrixInverse(Primitive):
    """y = x^-1 over the last two axes (float32 / float64, square, batched); adjoint: the
    inverse of x^T. A singular matrix gives nan entries, no error (MindSpore raises none
    either; its values there are LU by-products). Gradient: -y^T dout y^T."""
    input_names = ("x",)

    @prim_attr_register
    def __init__(self, adjoint=False):
        if not isinstance(adjoint, bool):
            raise TypeError(f"For '{self.name}', the type of 'adjoint' should be bool, but got "
                            f"{type(adjoint).__name__}")

    def infer(self, x):
        _check_square(self, "x", x, (mstype.float32, mstype.float64))
        return x

    def kernel_params(self, x):
        return {"adjoint": self.attrs["adjoint"]}


@bprop_for(MatrixInverse)
def matrix_inverse_bprop(prim, x, out, dout):
    if not needs_grad(x):
        return (None,)
    g = _neg(_T_B(_T_A(out, dout), out))            # -y^T dout y^T
    return (_mT(g) if prim.attrs["adjoint"] else g,)


class MatrixDeterminant(Primitive):
    """y = det(x) over the last two axes (float32 / float64, square, batched; singular
    matrices give 0). Gradient: dout * y * x^-T (nan where x is singular, as MindSpore)."""
    input_names = ("x",)

    @prim_attr_register
    def __init__(self):
        pass

    def infer(self, x):
        _check_square(self, "x", x, (mstype.float32, mstype.float64))
        return tensor(x.dtype, x.shape[:-2])


@bprop_for(MatrixDeterminant)
def matrix_determinant_bprop(prim, x, out, dout):
    if not needs_grad(x):
        return (None,)
    F = _F()
    scale = F.expand_dims(F.expand_dims(_mul(dout, out), -1), -1)
    return (_mul(scale, cached_prim(MatrixInverse, True)(x)),)      # x^-T


class MatrixPower(Primitive):
    """y = x^n (matrix power over the last two axes; x square with rank 2 to 4 as
    MindSpore; n = 0 gives the identity; n < 0: the inverse's power, float only, and a
    singular matrix is a ValueError at the call). Ints wrap as C. Gradient:
    sum_k (x^T)^k dout (x^T)^(n-1-k), through the inverse for n < 0."""
    input_names = ("x",)

    @prim_attr_register
    def __init__(self, n):
        if not isinstance(n, numbers.Integral) or isinstance(n, bool):
            raise TypeError(f"For '{self.name}', the type of 'n' should be 'int', but got "
                            f"type '{type(n).__name__}'")

    def infer(self, x):
        check_dtype(self, "x", x, mstype.NUMBER_TYPES)
        if not 2 <= len(x.shape) <= 4:
            raise ValueError(f"For '{self.name}', the rank of 'x' must be in [2, 4], but got "
                             f"{len(x.shape)}")
        if x.shape[-1] != x.shape[-2]:
            raise ValueError(f"For {self.name}, dim[-1] and dim[-2] of x should be the same, but "
                             f"got dim[-1]: {x.shape[-1]} and dim[-2]: {x.shape[-2]}.")
        if self.attrs["n"] < 0 and x.dtype.kind != "f":
            raise ValueError(f"For {self.name}, integral types are not supported for n < 0, "
                             f"but got {x.dtype}")
        return x

    def kernel_params(self, x):
        return {"n": int(self.attrs["n"])}


def _power_sum_grad(a, dout, m):
    """sum_{k<m} (a^T)^k dout (a^T)^(m-1-k), the VJP of a -> a^m (m >= 1)."""
    g = None
    for k in range(m):
        term = dout
        if k:
            term = _T_A(cached_prim(MatrixPower, k)(a), term)
        if m - 1 - k:
            term = _T_B(term, cached_prim(MatrixPower, m - 1 - k)(a))
        g = term if g is None else _F().add(g, term)
    return g


@bprop_for(MatrixPower)
def matrix_power_bprop(prim, x, out, dout):
    if not needs_grad(x):
        return (None,)
    n = int(prim.attrs["n"])
    if n == 0:
        return (_F().zeros_like(x),)
    if n > 0:
        return (_power_sum_grad(x, dout, n),)
    b = cached_prim(MatrixInverse)(x)
    db = _power_sum_grad(b, dout, -n)
    return (_neg(_T_B(_T_A(b, db), b)),)           # d inv: -b^T db b^T
