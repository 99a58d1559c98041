"""Normalisation and dropout primitives with their gradients and bprops: BatchNorm ->
BatchNormGrad, LayerNorm -> LayerNormGrad, Dropout -> DropoutGrad. The gradient primitives'
own bprops are written with basic primitives (math/reduce ops), so grad(grad(f)) works.
Kernels: kernels/cpu/norm_numpy.py.

BatchNorm momentum convention (MindSpore's): the primitive updates, in training mode,
    moving = (1 - momentum) * moving + momentum * batch_statistic     (default momentum 0.1)
with the biased batch variance (as MindSpore's CPU kernel); nn.BatchNorm2d(momentum=0.9)
passes 1 - 0.9 to the primitive, i.e. moving = 0.9 * moving + 0.1 * batch.
"""
import numbers

from ...cache_limits import remember
from ...common import dtype as mstype
from ...common.tensor import Tensor
from ...ir.rules import bprop_for
from ...common.buffers import own_buffer
from ...ir.primitive import Primitive, prim_attr_register
from ..validator import check_axis, check_bool, check_dtype, check_int, check_same_dtype, tensor
from .array_ops import Reshape
from .conv_ops import check_nchw
from .math_ops import Add, Div, Mul, Neg, Rsqrt, Sub
from .reduce_ops import ReduceMean, ReduceSum

__all__ = ["BatchNorm", "Dropout", "LayerNorm"]


def _check_float(prim, arg, value, lo, hi, lo_open=False):
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise TypeError(f"For '{prim.name}', '{arg}' must be a float, but got "
                        f"{type(value).__name__}: {value!r}")
    if value < lo or value > hi or (lo_open and value == lo):
        rng = f"{'(' if lo_open else '['}{lo}, {hi}]"
        raise ValueError(f"For '{prim.name}', '{arg}' must be in range {rng}, but got {value}")
    return float(value)


def _check_vector(prim, arg, t, length):
    check_dtype(prim, arg, t, mstype.FLOAT_TYPES)
    if tuple(t.shape) != (length,):
        raise ValueError(f"For '{prim.name}', '{arg}' must be a 1-D tensor of length {length} "
                         f"(the channels of 'x'), but got shape {list(t.shape)}")


def _stats_dtype(scale):
    return mstype.float64 if scale.dtype is mstype.float64 else mstype.float32


class BatchNorm(Primitive):
    """y = (x - mean) / sqrt(variance + epsilon) * scale + bias per channel (axis 1) of a
    (N, C), (N, C, L), (N, C, H, W) or (N, C, D, H, W) input. Training: batch statistics over
    every axis but 1 (biased variance), moving statistics updated in place (module docstring).
    Outputs (y, batch_mean, batch_variance, reserve_space_1, reserve_space_2): the batch
    statistics twice in training, the given mean / variance in inference; float32 (float64 for
    a float64 scale). Gradient: BatchNormGrad, plus the exact contribution of the statistics
    outputs when they are used; in inference the gradient w.r.t. mean / variance is exact too
    (MindSpore returns zeros there)."""
    input_names = ("x", "scale", "bias", "mean", "variance")

    @prim_attr_register
    def __init__(self, is_training=False, epsilon=1e-5, momentum=0.1, data_format="NCHW"):
        check_bool(self, "is_training", is_training)
        _check_float(self, "epsilon", epsilon, 0, 1, lo_open=True)
        _check_float(self, "momentum", momentum, 0, 1)
        check_nchw(self, data_format)

    def __call__(self, *args):
        """Training writes mean / variance in place: copy-on-write first, so views taken of
        the moving statistics keep their values (pynative/inplace.py). Not logged for the
        grad recorder: the training bprop never reads them."""
        if self.attrs["is_training"]:
            for t in args[3:5]:
                if isinstance(t, Tensor):
                    own_buffer(t)
        return Primitive.__call__(self, *args)

    def _check_x(self, x, arg="x"):
        check_dtype(self, arg, x, mstype.FLOAT_TYPES)
        if not 2 <= len(x.shape) <= 5:
            raise ValueError(f"For '{self.name}', '{arg}' must be 2-D to 5-D (N, C, ...), but "
                             f"got shape {list(x.shape)}")
        if self.attrs["is_training"] and x.size == 0 and x.shape[1]:
            raise ValueError(f"For '{self.name}', training needs at least one value per "
                             f"channel, but got '{arg}' of shape {list(x.shape)}")

    def infer(self, x, scale, bias, mean, variance):
        self._check_x(x)
        c = x.shape[1]
        for arg, t in (("scale", scale), ("bias", bias), ("mean", mean), ("variance", variance)):
            _check_vector(self, arg, t, c)
        check_same_dtype(self, [("scale", scale), ("bias", bias), ("mean", mean),
                                ("variance", variance)])
        stat = tensor(_stats_dtype(scale), (c,))
        return x, stat, stat, stat, stat

    def kernel_params(self, x, *rest):
        a = self.attrs
        return {"is_training": a["is_training"], "epsilon": a["epsilon"],
                "momentum": a["momentum"], "axes": _bn_axes(x)}


def _bn_axes(x):
    return (0,) + tuple(range(2, len(x.shape)))


class BatchNormGrad(Primitive):
    """(dy, x, scale, save_mean, save_variance) -> (dx, dscale, dbias) of BatchNorm, r =
    1 / sqrt(save_variance + epsilon), xh = (x - save_mean) r, sums over every axis but 1:
    dbias = sum(dy), dscale = sum(dy xh), dx = scale r (dy - mean(dy) - xh mean(dy xh)) in
    training, scale r dy in inference (save_* are then the moving statistics)."""
    input_names = ("dy", "x", "scale", "save_mean", "save_variance")

    @prim_attr_register
    def __init__(self, is_training=False, epsilon=1e-5, data_format="NCHW"):
        check_bool(self, "is_training", is_training)
        _check_float(self, "epsilon", epsilon, 0, 1, lo_open=True)
        check_nchw(self, data_format)

    def infer(self, dy, x, scale, save_mean, save_variance):
        BatchNorm._check_x(self, x)
        check_same_dtype(self, [("x", x), ("dy", dy)])
        if dy.shape != x.shape:
            raise ValueError(f"For '{self.name}', 'dy' must have the shape of 'x' "
                             f"{list(x.shape)}, but got {list(dy.shape)}")
        c = x.shape[1]
        for arg, t in (("scale", scale), ("save_mean", save_mean),
                       ("save_variance", save_variance)):
            _check_vector(self, arg, t, c)
        return x, scale, scale

    def kernel_params(self, dy, x, *rest):
        return {"is_training": self.attrs["is_training"], "epsilon": self.attrs["epsilon"],
                "axes": _bn_axes(x)}


class LayerNorm(Primitive):
    """y = (x - mean) / sqrt(variance + epsilon) * gamma + beta, statistics over the axes from
    begin_norm_axis on (biased variance); gamma and beta have shape x.shape[begin_params_axis:].
    Outputs (y, mean, variance), the statistics of shape x.shape[:begin_norm_axis] + (1, ...),
    all of x's dtype. Gradient: LayerNormGrad, plus the statistics outputs' contribution."""
    input_names = ("x", "gamma", "beta")

    @prim_attr_register
    def __init__(self, begin_norm_axis=1, begin_params_axis=1, epsilon=1e-7):
        check_int(self, "begin_norm_axis", begin_norm_axis)
        check_int(self, "begin_params_axis", begin_params_axis)
        _check_float(self, "epsilon", epsilon, 0, float("inf"))

    def axes(self, x, arg="x"):
        """(begin_norm_axis, begin_params_axis), non-negative, for input abstract x."""
        check_dtype(self, arg, x, mstype.FLOAT_TYPES)
        rank = len(x.shape)
        if rank == 0:
            raise ValueError(f"For '{self.name}', '{arg}' must have rank >= 1, but got a 0-D "
                             f"tensor")
        return (check_axis(self, "begin_norm_axis", self.attrs["begin_norm_axis"], rank),
                check_axis(self, "begin_params_axis", self.attrs["begin_params_axis"], rank))

    def check_param(self, x, bpa, arg, t):
        if tuple(t.shape) != tuple(x.shape[bpa:]):
            raise ValueError(f"For '{self.name}', '{arg}' must have shape x.shape["
                             f"begin_params_axis:] = {list(x.shape[bpa:])}, but got "
                             f"{list(t.shape)}")

    def infer(self, x, gamma, beta):
        bna, bpa = self.axes(x)
        check_same_dtype(self, [("x", x), ("gamma", gamma), ("beta", beta)])
        self.check_param(x, bpa, "gamma", gamma)
        self.check_param(x, bpa, "beta", beta)
        stat = tensor(x.dtype, x.shape[:bna] + (1,) * (len(x.shape) - bna))
        return x, stat, stat

    def kernel_params(self, x, gamma, beta):
        bna, _ = self.axes(x)
        return {"norm_axes": tuple(range(bna, len(x.shape))), "epsilon": self.attrs["epsilon"]}


class LayerNormGrad(LayerNorm):
    """(x, dy, variance, mean, gamma) -> (dx, dgamma, dbeta) of LayerNorm: r = 1 / sqrt(
    variance + epsilon), xh = (x - mean) r, g = dy gamma, dx = r (g - mean(g) - xh mean(g xh))
    over the normalised axes, dgamma = sum(dy xh), dbeta = sum(dy) over the axes before
    begin_params_axis."""
    input_names = ("x", "dy", "variance", "mean", "gamma")

    def infer(self, x, dy, variance, mean, gamma):
        bna, bpa = self.axes(x)
        check_same_dtype(self, [("x", x), ("dy", dy), ("variance", variance), ("mean", mean),
                                ("gamma", gamma)])
        stat_shape = x.shape[:bna] + (1,) * (len(x.shape) - bna)
        for arg, t, want in (("dy", dy, x.shape), ("variance", variance, stat_shape),
                             ("mean", mean, stat_shape)):
            if tuple(t.shape) != tuple(want):
                raise ValueError(f"For '{self.name}', '{arg}' must have shape {list(want)}, but "
                                 f"got {list(t.shape)}")
        self.check_param(x, bpa, "gamma", gamma)
        return x, gamma, gamma

    def kernel_params(self, x, *rest):
        bna, bpa = self.axes(x)
        return {"norm_axes": tuple(range(bna, len(x.shape))), "param_axes": tuple(range(bpa)),
                "epsilon": self.attrs["epsilon"]}


class Dropout(Primitive):
    """(output, mask): mask[i] = 1 with probability keep_prob else 0 (x's dtype), output =
    x * mask / keep_prob. Seed0 = Seed1 = 0: the global generator (mindlite.set_seed); else
    an own generator seeded with (global seed, Seed0, Seed1). Gradient dout * mask /
    keep_prob (DropoutGrad)."""
    input_names = ("x",)

    @prim_attr_register
    def __init__(self, keep_prob=0.5, Seed0=0, Seed1=0):
        _check_float(self, "keep_prob", keep_prob, 0, 1, lo_open=True)
        check_int(self, "Seed0", Seed0, 0)
        check_int(self, "Seed1", Seed1, 0)

    def infer(self, x):
        check_dtype(self, "x", x, mstype.FLOAT_TYPES)
        return x, x

    def kernel_params(self, x):
        a = self.attrs
        return {"keep_prob": float(a["keep_prob"]), "seed0": a["Seed0"], "seed1": a["Seed1"]}


class DropoutGrad(Primitive):
    """(dy, mask) -> dy * mask / keep_prob; linear in dy (its own adjoint)."""
    input_names = ("dy", "mask")

    @prim_attr_register
    def __init__(self, keep_prob=0.5):
        _check_float(self, "keep_prob", keep_prob, 0, 1, lo_open=True)

    def infer(self, dy, mask):
        check_dtype(self, "dy", dy, mstype.FLOAT_TYPES)
        check_same_dtype(self, [("dy", dy), ("mask", mask)])
        if dy.shape != mask.shape:
            raise ValueError(f"For '{self.name}', 'mask' must have the shape of 'dy' "
                             f"{list(dy.shape)}, but got {list(mask.shape)}")
        return dy

    def kernel_params(self, dy, mask):
        return {"keep_prob": float(self.attrs["keep_prob"])}


# ---- bprops -------------------------------------------------------------------------------
_add, _sub, _mul, _div, _neg, _rsqrt = Add(), Sub(), Mul(), Div(), Neg(), Rsqrt()
_sum, _sum_keep, _mean_keep = ReduceSum(False), ReduceSum(True), ReduceMean(True)
_reshape = Reshape()
_PRIMS = {}


def _prim(cls, *attrs):
    p = _PRIMS.get((cls, attrs))
    if p is None:
        p = remember(_PRIMS, (cls, attrs), cls(*attrs))
    return p


def _used(*cotangents):
    """NOTE: reads the cotangents of statistics outputs (per channel or per row: small). The
    grad recorder fills unused outputs with zeros; skipping them saves full-size passes."""
    return any(t.asnumpy().any() for t in cotangents)


def _channel_shape(x):
    return (1, x.shape[1]) + (1,) * (len(x.shape) - 2)


def _stats_term(x, mu, g_mean, g_var, count):
    """Gradient w.r.t. x of <g_mean, mean(x)> + <g_var, var(x)> (biased): (g_mean + 2 g_var
    (x - mu)) / count."""
    return _mul(_add(g_mean, _mul(_mul(g_var, 2.0), _sub(x, mu))), 1.0 / count)


def _norm_vjp(x, dy, s, mu, v, eps, dx, gx, gs, gb, norm_axes, param_axes, centered):
    """Cotangents of the inputs of a normalisation gradient dx = r (g - mean(g) - xh mean(g
    xh)) (centered) or r g, g = s dy, dscale = sum(dy xh), dbias = sum(dy), given cotangents
    gx, gs, gb of (dx, dscale, dbias); s, mu, v, gs, gb broadcast against x. Returns
    (d_dy, d_s, d_x, d_mu, d_v), d_s summed over param_axes, d_mu / d_v over norm_axes (kept)."""
    r = _rsqrt(_add(v, eps))
    xc = _sub(x, mu)
    xh = _mul(xc, r)
    g = _mul(dy, s)
    if centered:
        c = _mean_keep(_mul(gx, xh), norm_axes)
        h = _mul(r, _sub(_sub(gx, _mean_keep(gx, norm_axes)), _mul(xh, c)))
        b = _mean_keep(_mul(g, xh), norm_axes)
        g_xh = _sub(_mul(gs, dy), _mul(r, _add(_mul(gx, b), _mul(g, c))))
    else:
        h = _mul(r, gx)
        g_xh = _mul(gs, dy)
    d_dy = _add(_add(gb, _mul(gs, xh)), _mul(s, h))
    d_s = _mul(dy, h)
    if param_axes:                      # () would mean 'all axes' to ReduceSum
        d_s = _sum(d_s, param_axes)
    d_x = _mul(g_xh, r)
    d_mu = _neg(_sum_keep(d_x, norm_axes))
    d_r = _add(_div(_sum_keep(_mul(gx, dx), norm_axes), r), _sum_keep(_mul(g_xh, xc), norm_axes))
    d_v = _mul(_mul(_mul(r, _mul(r, r)), d_r), -0.5)
    return d_dy, d_s, d_x, d_mu, d_v


@bprop_for(BatchNorm)
def batch_norm_bprop(prim, x, scale, bias, mean, variance, out, dout):
    training, eps = prim.attrs["is_training"], prim.attrs["epsilon"]
    save_mean, save_var = (out[3], out[4]) if training else (mean, variance)
    dx, dscale, dbias = _prim(BatchNormGrad, training, eps)(dout[0], x, scale, save_mean,
                                                            save_var)
    stats_used = _used(*dout[1:])
    if training:
        if stats_used:
            shape = _channel_shape(x)
            g_mean = _reshape(_add(dout[1], dout[3]), shape)
            g_var = _reshape(_add(dout[2], dout[4]), shape)
            term = _stats_term(x, _reshape(save_mean, shape), g_mean, g_var,
                               x.size // x.shape[1])
            dx = _add(dx, term)
        return dx, dscale, dbias, None, None
    r = _rsqrt(_add(variance, eps))
    d_mean = _neg(_mul(_mul(scale, r), dbias))
    d_var = _mul(_mul(_mul(scale, _mul(r, r)), dscale), -0.5)
    if stats_used:
        d_mean = _add(d_mean, _add(dout[1], dout[3]))
        d_var = _add(d_var, _add(dout[2], dout[4]))
    return dx, dscale, dbias, d_mean, d_var


@bprop_for(BatchNormGrad)
def batch_norm_grad_bprop(prim, dy, x, scale, save_mean, save_var, out, dout):
    shape = _channel_shape(x)
    c = (x.shape[1],)
    axes = _bn_axes(x)
    d_dy, d_s, d_x, d_mu, d_v = _norm_vjp(
        x, dy, _reshape(scale, shape), _reshape(save_mean, shape), _reshape(save_var, shape),
        prim.attrs["epsilon"], out[0], dout[0], _reshape(dout[1], shape),
        _reshape(dout[2], shape), axes, axes, prim.attrs["is_training"])
    return d_dy, d_x, d_s, _reshape(d_mu, c), _reshape(d_v, c)


@bprop_for(LayerNorm)
def layer_norm_bprop(prim, x, gamma, beta, out, dout):
    a = prim.attrs
    grad = _prim(LayerNormGrad, a["begin_norm_axis"], a["begin_params_axis"], a["epsilon"])
    dx, dgamma, dbeta = grad(x, dout[0], out[2], out[1], gamma)
    if _used(dout[1], dout[2]):
        count = x.size // max(out[1].size, 1)
        dx = _add(dx, _stats_term(x, out[1], dout[1], dout[2], count))
    return dx, dgamma, dbeta


@bprop_for(LayerNormGrad)
def layer_norm_grad_bprop(prim, x, dy, variance, mean, gamma, out, dout):
    bna, bpa = prim.axes(x._abs)
    d_dy, d_g, d_x, d_mu, d_v = _norm_vjp(
        x, dy, gamma, mean, variance, prim.attrs["epsilon"], out[0], dout[0], dout[1], dout[2],
        tuple(range(bna, len(x.shape))), tuple(range(bpa)), True)
    return d_x, d_dy, d_v, d_mu, d_g


@bprop_for(Dropout)
def dropout_bprop(prim, x, out, dout):
    return (_prim(DropoutGrad, prim.attrs["keep_prob"])(dout[0], out[1]),)


@bprop_for(DropoutGrad)
def dropout_grad_bprop(prim, dy, mask, out, dout):
    return prim(dout, mask), None
