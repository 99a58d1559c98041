"""Local normalizations (MindSpore's primitives): LRN with its gradient LRNGrad, and
L2Normalize. Kernels: kernels/cpu/local_norm_numpy.py.

    LRN(depth_radius, bias, alpha, beta)(x)   x (N, C, H, W), float16/32/64:
        s[c] = bias + alpha * sum(x[c']^2 for |c' - c| <= depth_radius), y = x s^-beta
    LRNGrad(depth_radius, bias, alpha, beta)(dy, x, y)
        dx[c] = dy[c] s[c]^-beta - 2 alpha beta x[c] sum(dy[c'] y[c'] / s[c'], |c' - c| <= r)
    L2Normalize(axis, epsilon)(x)   x / sqrt(max(sum(x^2 over axis), epsilon))
        axis an int or a 1-tuple (MindSpore takes one axis); gradient
        (dout - y sum(y dout)) / norm where the sum reaches epsilon, dout / norm elsewhere.
LRN's gradient is LRNGrad; LRNGrad itself is not differentiable (no second derivative of LRN).
"""
from ...common import dtype as mstype
from ...ir.rules import bprop_for, non_differentiable
from ...ir.primitive import Primitive, prim_attr_register
from ..validator import check_axis, check_dtype, check_int, check_same_dtype
from ._base import cached_prim

__all__ = ["LRN", "LRNGrad", "L2Normalize"]

_LRN_TYPES = mstype.FLOAT_TYPES      # MindSpore: float16/32 (float64 is an extension)


def _check_real(prim, name, value):
    if isinstance(value, bool) or not isinstance(value, (float, int)):
        raise TypeError(f"For '{prim.name}', '{name}' must be a float, but got "
                        f"{type(value).__name__}")


class _LRNBase(Primitive):
    @prim_attr_register
    def __init__(self, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5,
                 norm_region="ACROSS_CHANNELS"):
        check_int(self, "depth_radius", depth_radius, lo=0)
        for name in ("bias", "alpha", "beta"):
            _check_real(self, name, self.attrs[name])
        if norm_region != "ACROSS_CHANNELS":
            raise ValueError(f"For '{self.name}', the 'norm_region' must be str and must be in "
                             f"['ACROSS_CHANNELS'], but got {norm_region!r}")

    def _x(self, name, x):
        check_dtype(self, name, x, _LRN_TYPES)
        if len(x.shape) != 4:
            raise ValueError(f"For '{self.name}', the rank of input must be equal to 4, but got "
                             f"{len(x.shape)}")

    def kernel_params(self, *args):
        return {k: self.attrs[k] for k in ("depth_radius", "bias", "alpha", "beta")}


class LRN(_LRNBase):
    input_names = ("x",)

    def infer(self, x):
        self._x("x", x)
        return x


class LRNGrad(_LRNBase):
    input_names = ("grads", "x", "y")

    def infer(self, dy, x, y):
        self._x("x", x)
        check_same_dtype(self, [("grads", dy), ("x", x), ("y", y)])
        if dy.shape != x.shape or y.shape != x.shape:
            raise ValueError(f"For '{self.name}', 'grads', 'x' and 'y' must have one shape, but "
                             f"got {list(dy.shape)}, {list(x.shape)}, {list(y.shape)}")
        return x


non_differentiable(LRNGrad)


@bprop_for(LRN)
def lrn_bprop(prim, x, out, dout):
    a = prim.attrs
    grad = cached_prim(LRNGrad, a["depth_radius"], a["bias"], a["alpha"], a["beta"],
                       a["norm_region"])
    return (grad(dout, x, out),)


class L2Normalize(Primitive):
    input_names = ("x",)

    @prim_attr_register
    def __init__(self, axis=0, epsilon=1e-4):
        if isinstance(axis, (tuple, list)):
            if len(axis) != 1:
                raise TypeError(f"For '{self.name}', the length of 'axis' must be 1, but got "
                                f"{len(axis)}")
            axis = axis[0]
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise TypeError(f"For '{self.name}', 'axis' must be an int or a tuple of one int, "
                            f"but got {type(axis).__name__}")
        self.add_prim_attr("axis", axis)
        _check_real(self, "epsilon", epsilon)

    def infer(self, x):
        check_dtype(self, "x", x, mstype.FLOAT_TYPES)
        check_axis(self, "axis", self.attrs["axis"], len(x.shape))
        return x

    def kernel_params(self, x):
        return {"axis": self.attrs["axis"] % max(len(x.shape), 1),
                "epsilon": float(self.attrs["epsilon"])}


@bprop_for(L2Normalize)
def l2_normalize_bprop(prim, x, out, dout):
    from .. import functional as F
    axis = prim.attrs["axis"] % max(x.ndim, 1)
    eps = float(prim.attrs["epsilon"])
    sumsq = F.sum(x * x, axis, keepdim=True)
    norm = F.sqrt(F.maximum(sumsq, eps))
    projected = dout - out * F.sum(out * dout, axis, keepdim=True)
    return (F.select(sumsq >= eps, projected, dout) / norm,)
