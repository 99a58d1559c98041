"""Statistics, distances and sampled ranges of issue 13: ReduceStd ((std, mean) in one pass),
Cdist / CdistGrad (p-norm distances between row sets), LinSpace, LogSpace and Meshgrid, each
with its bprop below it. Kernels: kernels/cpu/linalg_stat_numpy.py. Functional names
(ops.std, ops.var, ops.std_mean, ops.var_mean, ops.cdist, ops.linspace, ops.logspace,
ops.meshgrid): ops/function/stat_func.py.
"""
import math
import numbers

from ...common.abstract import AbstractTensor
from ...common import dtype as mstype
from ...ir.rules import bprop_for, non_differentiable
from ...ir.primitive import Primitive, prim_attr_register
from ..validator import (check_axes, check_bool, check_dtype, check_int, check_output_size,
                         check_same_dtype, check_type_arg, tensor)
from ._base import cached_prim, needs_grad
from .math_ops import Mul, Sub

__all__ = ["ReduceStd", "Cdist", "CdistGrad", "LinSpace", "LogSpace", "Meshgrid"]

_mul, _sub = Mul(), Sub()


def _F():
    from .. import functional as F  # bprops only: functional imports this module
    return F


# ---- ReduceStd -------------------------------------------------------------------------
class ReduceStd(Primitive):
    """(std, mean) of a float x over `axis` (int, tuple, list; () for all), with divisor
    N - 1 when unbiased else N (N <= 1 unbiased gives nan; an empty reduction nan), as
    MindSpore's ReduceStd. float16 is computed in float32. Gradient: d mean / N plus
    d std (x - mean) / ((N - ddof) std), 0 where std is 0 (the subgradient)."""
    input_names = ("input_x",)

    @prim_attr_register
    def __init__(self, axis=(), unbiased=True, keep_dims=False):
        if not (isinstance(axis, (tuple, list)) or (isinstance(axis, numbers.Integral)
                                                    and not isinstance(axis, bool))):
            raise TypeError(f"For '{self.name}', the type of 'axis' should be one of [int, "
                            f"tuple, list], but got {type(axis).__name__}: {axis!r}")
        check_bool(self, "unbiased", unbiased)
        check_bool(self, "keep_dims", keep_dims)

    def _axes(self, x):
        check_dtype(self, "input_x", x, mstype.FLOAT_TYPES)
        return check_axes(self, "axis", self.attrs["axis"], len(x.shape))

    def infer(self, x):
        axes = self._axes(x)
        if self.attrs["keep_dims"]:
            shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
        else:
            shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
        out = tensor(x.dtype, shape)
        return (out, out)

    def kernel_params(self, x):
        return {"axis": self._axes(x), "ddof": int(self.attrs["unbiased"]),
                "keep_dims": self.attrs["keep_dims"]}


@bprop_for(ReduceStd)
def reduce_std_bprop(prim, x, out, dout):
    if not needs_grad(x):
        return (None,)
    F = _F()
    axes = prim._axes(x._abs)
    n = math.prod(x.shape[a] for a in axes)
    std, mean = out
    dstd, dmean = dout
    if not prim.attrs["keep_dims"]:
        keep = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
        std, mean, dstd, dmean = (F.reshape(t, keep) for t in (std, mean, dstd, dmean))
    denom = _mul(std, float(n - int(prim.attrs["unbiased"])))
    zero = F.equal(denom, 0.0)                     # std 0: the subgradient 0, not 0/0
    coef = F.select(zero, F.zeros_like(denom), F.div(dstd, F.select(zero, F.ones_like(denom),
                                                                     denom)))
    g = _mul(coef, _sub(x, mean))
    return (F.add(g, F.div(dmean, float(n)) if n else dmean),)


# ---- Cdist -----------------------------------------------------------------------------
def _check_p(prim, p):
    if not isinstance(p, float):
        raise TypeError(f"For '{prim.name}', the type of 'p' should be float, but got "
                        f"{type(p).__name__}: {p!r}")
    if not p >= 0:
        raise ValueError(f"For '{prim.name}', 'p' must be a non-negative value, but got {p}")


class Cdist(Primitive):
    """y[..., i, j] = ||x1[..., i, :] - x2[..., j, :]||_p for x1 [B, P, M] and x2 [B, R, M]
    (or 2-D without B; equal batch, no broadcast, as MindSpore); float16/32/64 of one
    dtype; p >= 0 a float (0: count of differing entries, inf: largest difference).
    Gradient: CdistGrad for each side (0 where the distance is 0)."""
    input_names = ("input_x", "input_y")

    @prim_attr_register
    def __init__(self, p=2.0):
        _check_p(self, p)

    def infer(self, x1, x2):
        check_dtype(self, "input_x", x1, mstype.FLOAT_TYPES)
        check_dtype(self, "input_y", x2, mstype.FLOAT_TYPES)
        check_same_dtype(self, [("input_x", x1), ("input_y", x2)])
        r1, r2 = len(x1.shape), len(x2.shape)
        if r1 not in (2, 3) or r1 != r2:
            raise ValueError(f"For '{self.name}', 'input_x' and 'input_y' must both be 2-D or "
                             f"3-D, but got shapes {list(x1.shape)} and {list(x2.shape)}")
        if x1.shape[:-2] != x2.shape[:-2] or x1.shape[-1] != x2.shape[-1]:
            raise ValueError(f"For '{self.name}', the batch and last dimensions of 'input_x' "
                             f"and 'input_y' must be equal, but got shapes {list(x1.shape)} "
                             f"and {list(x2.shape)}")
        return tensor(x1.dtype, x1.shape[:-1] + (x2.shape[-2],))

    def kernel_params(self, x1, x2):
        return {"p": self.attrs["p"]}


@bprop_for(Cdist)
def cdist_bprop(prim, x1, x2, out, dout):
    F, p = _F(), prim.attrs["p"]
    grad = cached_prim(CdistGrad, p)
    perm = tuple(range(len(x1.shape) - 2)) + (len(x1.shape) - 1, len(x1.shape) - 2)
    d1 = grad(dout, x1, x2, out) if needs_grad(x1) else None
    d2 = grad(F.transpose(dout, perm), x2, x1, F.transpose(out, perm)) \
        if needs_grad(x2) else None
    return d1, d2


class CdistGrad(Primitive):
    """dx1 of y = Cdist(p)(x1, x2) for dy = grad: sum_j grad_ij * d||x1_i - x2_j||_p / dx1_i,
    i.e. sign(diff) |diff|^(p-1) / y^(p-1) (p = 1: sign(diff); p = inf: sign(diff) at the
    largest |diff|; p = 0: 0), 0 where y is 0. Not differentiable again (as MindSpore)."""
    input_names = ("grad", "input_x", "input_y", "cdist")

    @prim_attr_register
    def __init__(self, p=2.0):
        _check_p(self, p)

    def infer(self, g, x1, x2, y):
        cached_prim(Cdist, self.attrs["p"]).infer(x1, x2)
        check_same_dtype(self, [("input_x", x1), ("grad", g), ("cdist", y)])
        want = x1.shape[:-1] + (x2.shape[-2],)
        if g.shape != want or y.shape != want:
            raise ValueError(f"For '{self.name}', 'grad' and 'cdist' must have shape "
                             f"{list(want)}, but got {list(g.shape)} and {list(y.shape)}")
        return x1

    def kernel_params(self, g, x1, x2, y):
        return {"p": self.attrs["p"]}


non_differentiable(CdistGrad)


# ---- LinSpace / LogSpace / Meshgrid ----------------------------------------------------
def _check_num(prim, arg, num, lo):
    check_int(prim, arg, num)
    if num < lo:
        raise ValueError(f"For '{prim.name}', the {arg} must be greater than {lo - 1}, but got "
                         f"{num}.")
    check_output_size(prim, f"'{arg}'", (num,))
    return int(num)


def _check_scalar(prim, arg, x, valid):
    check_dtype(prim, arg, x, valid)
    if x.shape:
        raise ValueError(f"For '{prim.name}', '{arg}' must be a 0-D Tensor, but got shape "
                         f"{list(x.shape)}")


class LinSpace(Primitive):
    """y = `num` evenly spaced values from start to stop, both ends included (num = 1:
    [start]); start and stop 0-D float32/float64 tensors of one dtype, num an int > 0.
    Gradient: d start = sum(dout (1 - t)), d stop = sum(dout t), t = linspace(0, 1)."""
    input_names = ("start", "stop", "num")
    const_inputs = (2,)

    @prim_attr_register
    def __init__(self):
        pass

    def infer(self, start, stop, num):
        valid = (mstype.float32, mstype.float64)
        _check_scalar(self, "start", start, valid)
        _check_scalar(self, "stop", stop, valid)
        check_same_dtype(self, [("start", start), ("stop", stop)])
        return tensor(start.dtype, (_check_num(self, "num", num, 1),))

    def kernel_params(self, start, stop, num):
        return {"num": int(num)}


def _unit_ramp(n, dtype):
    """t = [0, 1/(n-1), ..., 1] (n = 1: [0]) as a constant Tensor."""
    F = _F()
    if n == 1:
        return F.zeros((1,), dtype)
    return cached_prim(LinSpace)(F.zeros((), dtype), F.ones((), dtype), n)


@bprop_for(LinSpace)
def linspace_bprop(prim, start, stop, num, out, dout):
    F = _F()
    t = _unit_ramp(int(num), out.dtype)
    d_stop = F.sum(_mul(dout, t))
    return _sub(F.sum(dout), d_stop), d_stop, None


class LogSpace(Primitive):
    """y = base ** linspace(start, end, steps), computed in float64 and cast to `dtype`
    (float16/32/64); start, end 0-D float tensors; steps an int >= 0 (0: empty), base an
    int >= 0, as MindSpore's LogSpace. Gradient: dy ln(base) y times (1 - t) and t."""
    input_names = ("start", "end")

    @prim_attr_register
    def __init__(self, steps=10, base=10, dtype=mstype.float32):
        for arg, v in (("steps", steps), ("base", base)):
            if not isinstance(v, numbers.Integral) or isinstance(v, bool):
                raise TypeError(f"For '{self.name}', the type of '{arg}' should be 'int', but got "
                                f"type '{type(v).__name__}'")
        _check_num(self, "steps", steps, 0)
        if base < 0:
            raise ValueError(f"For '{self.name}', the 'base' must be int and must >= 0, but got "
                             f"'{base}' with type 'int'.")
        t = check_type_arg(self, "dtype", dtype)
        if t not in mstype.FLOAT_TYPES:
            raise TypeError(f"For '{self.name}', the 'dtype' should be one of [float16, float32, "
                            f"float64], but got '{t}'.")

    def infer(self, start, end):
        _check_scalar(self, "start", start, mstype.FLOAT_TYPES)
        _check_scalar(self, "end", end, mstype.FLOAT_TYPES)
        return tensor(check_type_arg(self, "dtype", self.attrs["dtype"]),
                      (self.attrs["steps"],))

    def kernel_params(self, start, end):
        return {"steps": self.attrs["steps"], "base": self.attrs["base"]}


@bprop_for(LogSpace)
def logspace_bprop(prim, start, end, out, dout):
    F, n, base = _F(), prim.attrs["steps"], prim.attrs["base"]
    if n == 0 or base == 0:
        return F.zeros_like(start), F.zeros_like(end)
    g = _mul(_mul(dout, out), math.log(base))
    t = _unit_ramp(n, out.dtype)
    d_end = F.sum(_mul(g, t))
    d_start = _sub(F.sum(g), d_end)
    return (F.cast(d_start, start.dtype), F.cast(d_end, end.dtype))


class Meshgrid(Primitive):
    """Coordinate grids from 1-D tensors of one dtype: output i has shape (n_0, ..., n_k)
    ('ij') or with the first two swapped ('xy'), holding input i along its axis.
    Gradient: dout_i summed over every other axis."""
    input_names = ("inputs",)

    @prim_attr_register
    def __init__(self, indexing="xy"):
        if indexing not in ("xy", "ij"):
            raise ValueError(f"For '{self.name}', 'indexing' must be 'xy' or 'ij', but got "
                             f"{indexing!r}")

    def _shape(self, xs):
        if not isinstance(xs, tuple) or not xs or \
                not all(isinstance(x, AbstractTensor) for x in xs):
            raise TypeError(f"For '{self.name}', 'inputs' must be a non-empty tuple of "
                            f"Tensors, but got {xs!r}")
        check_same_dtype(self, [(f"inputs[{i}]", x) for i, x in enumerate(xs)])
        for i, x in enumerate(xs):
            if len(x.shape) != 1:
                raise ValueError(f"For '{self.name}', each input must be 1-D, but 'inputs[{i}]' "
                                 f"has shape {list(x.shape)}")
        shape = [x.shape[0] for x in xs]
        if self.attrs["indexing"] == "xy" and len(shape) > 1:
            shape[0], shape[1] = shape[1], shape[0]
        return tuple(check_output_size(self, "the grid", shape))

    def infer(self, xs):
        shape = self._shape(xs)
        return tuple(tensor(x.dtype, shape) for x in xs)

    def kernel_params(self, xs):
        return {"indexing": self.attrs["indexing"]}


def meshgrid_axis(indexing, i, k):
    """The output axis that holds input i of k."""
    if indexing == "xy" and k > 1 and i < 2:
        return 1 - i
    return i


@bprop_for(Meshgrid)
def meshgrid_bprop(prim, xs, out, dout):
    F, k, ix = _F(), len(xs), prim.attrs["indexing"]
    dxs = []
    for i, (x, d) in enumerate(zip(xs, dout)):
        if not needs_grad(x):
            dxs.append(None)
            continue
        a = meshgrid_axis(ix, i, k)
        dxs.append(F.sum(d, tuple(j for j in range(k) if j != a)) if k > 1 else d)
    return (dxs,)
