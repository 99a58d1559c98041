"""numpy reference kernels for activation_ops (LeakyReLU, Elu, SeLU, CeLU, HSwish, HSigmoid,
Hardtanh, Mish, Softsign, LogSigmoid).

alloc="runtime" kernels writing into the preallocated output, computing in the input dtype
(float16/32/64), with the forms documented on the primitives; inf * 0 and overflow edges
are computed silently (np.errstate), as IEEE says. np.expm1 keeps e**x - 1 exact near 0.
Integer and bool inputs (the ops that take them) follow MindSpore 2.10's CPU results:
attributes cast to the input dtype, fractions truncated toward zero.
"""
import numpy as np

from ..registry import register_kernel

# the SeLU constants of ops/operations/activation_ops.py (kernels do not import ops)
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _as_dtype(value, dtype):
    """An attribute in the input's dtype: a float for float inputs; for integer inputs the value
    truncated toward zero, then wrapped into the dtype (uint8(-2) is 254, as MindSpore's cast)."""
    if dtype.kind == "f":
        return dtype.type(value)
    return np.array(int(value)).astype(dtype)[()]


@register_kernel("LeakyReLU", provider="numpy")
def leaky_relu_numpy(x, out, alpha):
    with np.errstate(all="ignore"):
        np.multiply(x, _as_dtype(alpha, x.dtype), out=out)
        np.maximum(out, x, out=out)


def _elu_into(x, out, alpha, scale_in=1.0):
    """out = alpha (e**(x scale_in) - 1) where x <= 0, x elsewhere."""
    with np.errstate(all="ignore"):
        neg = np.minimum(x, 0, out=np.empty_like(x))    # out=: an array for 0-d x too
        if scale_in != 1.0:
            neg *= x.dtype.type(scale_in)
        np.expm1(neg, out=neg)
        neg *= x.dtype.type(alpha)
        np.copyto(out, np.where(x >= 0, x, neg))     # >=: -0.0 stays -0.0


@register_kernel("Elu", provider="numpy")
def elu_numpy(x, out):
    _elu_into(x, out, 1.0)           # Elu's only alpha


@register_kernel("SeLU", provider="numpy")
def selu_numpy(x, out):
    if x.dtype.kind != "f":          # scale and alpha truncate to 1: x, or trunc(e**x - 1)
        with np.errstate(all="ignore"):
            em1 = np.exp(np.minimum(x, 0).astype(np.float32)) - np.float32(1)
        np.copyto(out, np.where(x > 0, x, np.trunc(em1).astype(x.dtype)))
        return
    _elu_into(x, out, SELU_ALPHA)
    out *= x.dtype.type(SELU_SCALE)


@register_kernel("CeLU", provider="numpy")
def celu_numpy(x, out, alpha):
    # max(0, x) + min(0, alpha (e**(x/alpha) - 1)): for alpha < 0 the second term is 0 only
    # where e**(x/alpha) <= 1 flips, so evaluate the min as written rather than by branch
    with np.errstate(all="ignore"):
        t = np.multiply(x, x.dtype.type(1.0 / alpha), out=np.empty_like(x))
        np.expm1(t, out=t)
        t *= x.dtype.type(alpha)
        np.minimum(t, 0, out=t)
        np.maximum(x, 0, out=out)
        out += t


@register_kernel("HSwish", provider="numpy")
def hswish_numpy(x, out):
    if x.dtype.kind != "f":
        # exact in int64: r = relu6(x + 3) is 6 wherever x >= 3 (then the result is x), and
        # |x| < 3 elsewhere, so x * r never overflows; integer division truncating toward zero
        wide = x.astype(np.int64)
        r = np.clip(wide, -3, 3) + 3
        prod = wide * np.where(r == 6, 1, r)
        quot = np.where(r == 6, prod, np.abs(prod) // 6 * np.sign(prod))
        np.copyto(out, quot.astype(x.dtype))
        return
    with np.errstate(all="ignore"):
        np.add(x, 3, out=out)
        np.clip(out, 0, 6, out=out)
        out /= 6
        # NOTE: x * 0 is nan for x = -inf; hswish is exactly 0 there (and x for x >= 3)
        np.copyto(out, np.where(x <= -3, x.dtype.type(0), np.where(x >= 3, x, out * x)))


@register_kernel("HSigmoid", provider="numpy")
def hsigmoid_numpy(x, out):
    if x.dtype.kind != "f":          # relu6(x + 3) // 6
        np.copyto(out, (x >= 3).astype(x.dtype))
        return
    with np.errstate(all="ignore"):
        np.add(x, 3, out=out)
        np.maximum(out, 0, out=out)
        np.minimum(out, 6, out=out)
        out /= 6


@register_kernel("Hardtanh", provider="numpy")
def hardtanh_numpy(x, out, min_val, max_val):
    if x.dtype == np.bool_:          # MindSpore 2.10 returns bool input unchanged
        np.copyto(out, x)
        return
    np.maximum(x, _as_dtype(min_val, x.dtype), out=out)
    np.minimum(out, _as_dtype(max_val, x.dtype), out=out)


def _softplus(x):
    """log(1 + e**x) = max(x, 0) + log1p(e**-|x|), no overflow."""
    return np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))


@register_kernel("Mish", provider="numpy")
def mish_numpy(x, out):
    with np.errstate(all="ignore"):
        np.tanh(_softplus(x), out=out)
        out *= x


@register_kernel("Softsign", provider="numpy")
def softsign_numpy(x, out):
    with np.errstate(all="ignore"):
        np.abs(x, out=out)
        out += 1
        np.divide(x, out, out=out)


@register_kernel("LogSigmoid", provider="numpy")
def log_sigmoid_numpy(x, out):
    with np.errstate(all="ignore"):
        np.abs(x, out=out)
        np.negative(out, out=out)
        np.exp(out, out=out)
        np.log1p(out, out=out)
        # -(l - min(x, 0)) rather than min(x, 0) - l: -0.0 (not +0.0) where l underflows
        np.subtract(out, np.minimum(x, 0), out=out)
        np.negative(out, out=out)


@register_kernel("HShrink", provider="numpy")
def hshrink_numpy(x, out, lambd):
    np.copyto(out, np.where(np.abs(x) > x.dtype.type(lambd), x, x.dtype.type(0)))
