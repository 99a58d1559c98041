"""Value checks and cumulative primitives of issue 13: IsNan, IsInf, IsFinite, IsClose
(non-differentiable, bool out) and CumSum / CumProd (with MindSpore's exclusive / reverse
attributes; CumProd's exact gradient through CumProdGrad), each with its bprop below it.
Kernels: kernels/cpu/clip_cum_numpy.py. Functional names (ops.isnan, ops.isclose,
ops.cumsum, ops.clip_by_value, ...): ops/function/clip_cum_func.py.
"""
import numbers

from ...common import dtype as mstype
from ...ir.rules import bprop_for, non_differentiable
from ...ir.primitive import Primitive, prim_attr_register
from ..validator import (broadcast_shape, check_axis, check_bool, check_dtype, check_same_dtype,
                         check_tensor, tensor)
from ._base import cached_prim, needs_grad
from .math_ops import Div, Mul, Sub
from .reduce_ops import ReduceProd, _F, _grads, _keep, _reduce_args

__all__ = ["IsNan", "IsInf", "IsFinite", "IsClose", "CumSum", "CumProd", "CumProdGrad"]

_CHECK_TYPES = (mstype.bool_,) + mstype.NUMBER_TYPES
_CUM_TYPES = mstype.NUMBER_TYPES
_mul, _div, _sub = Mul(), Div(), Sub()


class _Check(Primitive):
    """y = f(x) -> bool, same shape. Int and bool inputs are finite and never nan or inf."""
    input_names = ("x",)

    @prim_attr_register
    def __init__(self):
        pass

    def infer(self, x):
        check_dtype(self, "x", x, _CHECK_TYPES)
        return tensor(mstype.bool_, x.shape)


class IsNan(_Check):
    """y = (x is nan). Not differentiable."""


class IsInf(_Check):
    """y = (x is +inf or -inf). Not differentiable."""


class IsFinite(_Check):
    """y = (x is neither nan nor +-inf). Not differentiable."""


def _check_tol(prim, arg, value):
    """A bool, int or float tolerance (MindSpore accepts the three)."""
    if not isinstance(value, numbers.Real):
        raise TypeError(f"For '{prim.name}', the type of '{arg}' should be one of [bool, int, "
                        f"float], but got {type(value).__name__}: {value!r}")
    return float(value)


class IsClose(Primitive):
    """y = |input - other| <= atol + rtol |other| (numpy's, asymmetric in other), with
    broadcasting; equal infinities are close, nan is close to nan only with equal_nan. The
    inputs must have one dtype (no promotion, as MindSpore); ints compare in float64.
    Not differentiable."""
    input_names = ("input", "other")

    @prim_attr_register
    def __init__(self, rtol=1e-05, atol=1e-08, equal_nan=False):
        _check_tol(self, "rtol", rtol)
        _check_tol(self, "atol", atol)
        check_bool(self, "equal_nan", equal_nan)

    def infer(self, x, y):
        check_dtype(self, "input", x, _CHECK_TYPES)
        check_tensor(self, "other", y)
        check_same_dtype(self, [("input", x), ("other", y)])
        return tensor(mstype.bool_, broadcast_shape(self, x.shape, y.shape, ("input", "other")))

    def kernel_params(self, x, y):
        a = self.attrs
        return {"rtol": float(a["rtol"]), "atol": float(a["atol"]), "equal_nan": a["equal_nan"]}


non_differentiable(IsNan, IsInf, IsFinite, IsClose)


class _Cumulative(Primitive):
    """y_j = x_0 (op) ... (op) x_j along `axis` (a constant int in [-rank, rank), rank >= 1).
    exclusive: x_j is left out (y_0 is the identity); reverse: from the end. Same dtype as x
    (ints wrap as C); an empty x gives an empty y."""
    input_names = ("x", "axis")
    const_inputs = (1,)

    @prim_attr_register
    def __init__(self, exclusive=False, reverse=False):
        check_bool(self, "exclusive", exclusive)
        check_bool(self, "reverse", reverse)

    def _axis(self, x, axis):
        if len(x.shape) == 0:
            raise ValueError(f"For '{self.name}', the rank of 'x' must be greater than 0, but "
                             f"got 0")
        return check_axis(self, "axis", axis, len(x.shape))

    def infer(self, x, axis):
        check_dtype(self, "x", x, _CUM_TYPES)
        self._axis(x, axis)
        return x

    def kernel_params(self, x, axis):
        return {"axis": self._axis(x, axis), "exclusive": self.attrs["exclusive"],
                "reverse": self.attrs["reverse"]}


class CumSum(_Cumulative):
    """Cumulative sum. Gradient: the cumulative sum of dout in the other direction, with the
    same exclusive flag."""


@bprop_for(CumSum)
def cumsum_bprop(prim, x, axis, out, dout):
    if not needs_grad(x):
        return None, None
    a = prim.attrs
    return cached_prim(CumSum, a["exclusive"], not a["reverse"])(dout, axis), None


class CumProd(_Cumulative):
    """Cumulative product. Gradient: CumProdGrad, exact where x holds zeros (MindSpore 2.10's
    reverse-cumsum(dout * y) / x gives nan there)."""


@bprop_for(CumProd)
def cumprod_bprop(prim, x, axis, out, dout):
    if not needs_grad(x):
        return None, None
    a = prim.attrs
    return cached_prim(CumProdGrad, a["exclusive"], a["reverse"])(x, dout, axis), None


class CumProdGrad(_Cumulative):
    """dx of y = CumProd(exclusive, reverse)(x, axis): dx_i = sum over the j whose product
    holds x_i of dout_j * (that product without the factor x_i), computed without dividing
    by x (exact with zeros). Float only. Its own gradient (second order through CumProd)
    divides by x: exact where x has no zeros, nan where it has (as MindSpore's first order)."""
    input_names = ("x", "dout", "axis")
    const_inputs = (2,)

    def infer(self, x, dout, axis):
        check_dtype(self, "x", x, mstype.FLOAT_TYPES)
        check_same_dtype(self, [("x", x), ("dout", dout)])
        if x.shape != dout.shape:
            raise ValueError(f"For '{self.name}', 'x' and 'dout' must have the same shape, but "
                             f"got {list(x.shape)} and {list(dout.shape)}")
        self._axis(x, axis)
        return x

    def kernel_params(self, x, dout, axis):
        return super().kernel_params(x, axis)


@bprop_for(CumProdGrad)
def cumprod_grad_bprop(prim, x, dout, axis, out, v):
    """g = J(x)^T dout, J the Jacobian of y = CumProd(x). With C = CumSum(exclusive, reverse)
    (so y_j is the product of the x_i that C sums into j) and C^T its transpose (reverse
    flipped): d dout = J v = y * C(v / x); d x = J^T (dout * C(v / x)) - v / x**2 * C^T(dout y).
    """
    e, r = prim.attrs["exclusive"], prim.attrs["reverse"]
    y = cached_prim(CumProd, e, r)(x, axis)
    s = cached_prim(CumSum, e, r)(_div(v, x), axis)
    d_dout = _mul(y, s)
    back = cached_prim(CumSum, e, not r)(_mul(dout, y), axis)
    d_x = _sub(prim(x, _mul(dout, s), axis), _mul(_div(v, _mul(x, x)), back))
    return d_x, d_dout, None


@bprop_for(ReduceProd)
def reduce_prod_bprop(prim, x, *rest):
    """dx_i = dout * (product of the other elements of x_i's slice), without dividing: the
    reduced axes are moved last and flattened, and the product of the others is the
    exclusive prefix product times the exclusive suffix product (two CumProds). Exact with
    zeros, subnormals and underflowing products (prod / x_i is not: a slice [5e-324, 0.5]
    has product 0), and its own gradient goes through CumProd's exact bprop."""
    if not needs_grad(x):
        return _grads(rest, None)
    axes, kshape, out, dout = _reduce_args(prim, x, rest)
    F = _F()
    dout = _keep(dout, kshape)
    if x.ndim == 0 or not axes:
        return _grads(rest, F.mul(F.ones_like(x), dout))
    kept = [i for i in range(x.ndim) if i not in axes]
    perm = tuple(kept) + tuple(axes)
    moved = F.transpose(x, perm) if perm != tuple(range(x.ndim)) else x
    reduced = 1
    for i in axes:
        reduced *= x.shape[i]
    flat = F.reshape(moved, tuple(x.shape[i] for i in kept) + (reduced,))
    others = F.mul(cached_prim(CumProd, True, False)(flat, -1),
                   cached_prim(CumProd, True, True)(flat, -1))
    others = F.reshape(others, moved.shape)
    if perm != tuple(range(x.ndim)):
        inverse = tuple(perm.index(i) for i in range(x.ndim))
        others = F.transpose(others, inverse)
    return _grads(rest, F.mul(others, dout))
