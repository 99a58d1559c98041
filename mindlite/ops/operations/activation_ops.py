"""Activation primitives beyond nn_ops' core set (issue 13): LeakyReLU, Elu, SeLU, CeLU,
HSwish, HSigmoid, Hardtanh, Mish, Softsign, LogSigmoid, HShrink, each with its bprop below it.
Kernels: kernels/cpu/activation_numpy.py. Functional names (ops.leaky_relu, ops.elu, ...):
ops/function/activation_func.py.

Names and attributes are MindSpore's (HSwish, HSigmoid, Elu(alpha), SeLU, CeLU(alpha),
Mish, Softsign); MindSpore has no primitive for leaky_relu, hardtanh and logsigmoid (its
functional forms compose others), here they are primitives too, so each is one kernel.
All accept float16/32/64 tensors and compute in the input dtype; LeakyReLU, SeLU, HSwish,
HSigmoid and Hardtanh also take the integer (and bool) dtypes MindSpore 2.10's CPU kernels
take, with its integer results: attributes and constants truncated to the input dtype,
fractions truncated toward zero (each op's `valid_types` and docstring say which). The
bprops compose existing primitives (Select, Mul, ...), so higher-order gradients work.
Subgradients at kinks are PyTorch's (stated on each op); where MindSpore's composite forms
split a tie (leaky_relu, hardtanh at their kinks) it gives the average instead.
"""
import numbers

from ...ir.rules import bprop_for
from ...ir.primitive import prim_attr_register
from ...common import dtype as mstype
from ..validator import check_dtype
from ._base import FloatUnaryOp
from .logic_ops import Greater, GreaterEqual, Less, LessEqual, LogicalAnd, Select
from .math_ops import Abs, Add, Div, Mul, Sub
from .nn_ops import Sigmoid, Softplus, Tanh

__all__ = ["LeakyReLU", "Elu", "SeLU", "CeLU", "HSwish", "HSigmoid", "Hardtanh", "Mish",
           "Softsign", "LogSigmoid", "HShrink"]

_mul, _add, _sub, _div, _abs = Mul(), Add(), Sub(), Div(), Abs()
_select, _and = Select(), LogicalAnd()
_gt, _ge, _lt, _le = Greater(), GreaterEqual(), Less(), LessEqual()
_sigmoid, _softplus, _tanh = Sigmoid(), Softplus(), Tanh()

_F = mstype.FLOAT_TYPES
_I = (mstype.int8, mstype.int16, mstype.int32, mstype.int64)

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _check_number(prim, arg, value):
    """A real number attribute (int or float, not bool); returned as float."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"For '{prim.name}', '{arg}' must be an int or a float, but got "
                        f"{type(value).__name__} {value!r}")
    return float(value)


def _check_float(prim, arg, value):
    """A float attribute (MindSpore's CeLU and Elu take float only)."""
    if not isinstance(value, float):
        raise TypeError(f"For '{prim.name}', '{arg}' must be a float, but got "
                        f"{type(value).__name__} {value!r}")
    return value


class _Activation(FloatUnaryOp):
    input_names = ("input_x",)

    def infer(self, x):
        check_dtype(self, "input_x", x, self.valid_types)
        return x


class LeakyReLU(_Activation):
    """y = max(alpha x, x) (MindSpore's form: for alpha > 1 that is alpha x on x > 0).
    Gradient max(1, alpha) for x > 0, min(1, alpha) for x <= 0 (at 0: alpha for alpha < 1,
    as PyTorch). Integer inputs: alpha truncated to the dtype first (MindSpore: leaky_relu of
    int32 [-3, 2] with alpha 0.2 is [0, 2]); bool passes through."""
    valid_types = _F + _I + (mstype.uint8, mstype.uint32, mstype.uint64, mstype.bool_)

    @prim_attr_register
    def __init__(self, alpha=0.2):
        _check_number(self, "alpha", alpha)

    def kernel_params(self, x):
        return {"alpha": float(self.attrs["alpha"])}


@bprop_for(LeakyReLU)
def leaky_relu_bprop(prim, x, out, dout):
    alpha = float(prim.attrs["alpha"])
    hi, lo = max(1.0, alpha), min(1.0, alpha)
    return (_select(_gt(x, 0.0), _mul(dout, hi), _mul(dout, lo)),)


class Elu(_Activation):
    """y = x for x > 0, alpha (e**x - 1) for x <= 0; MindSpore accepts alpha = 1.0 only (so the
    kernels take no alpha). elu(-inf) = -alpha, elu(-0.0) = -0.0. Gradient 1 for x > 0,
    y + alpha for x <= 0 (continuous at 0)."""

    @prim_attr_register
    def __init__(self, alpha=1.0):
        _check_float(self, "alpha", alpha)
        if alpha != 1.0:
            raise ValueError(f"For '{self.name}', 'alpha' must be 1.0, but got {alpha}")


@bprop_for(Elu)
def elu_bprop(prim, x, out, dout):
    alpha = prim.attrs["alpha"]
    return (_select(_gt(x, 0.0), dout, _mul(dout, _add(out, alpha))),)


class SeLU(_Activation):
    """y = scale x for x > 0, scale alpha (e**x - 1) for x <= 0, with MindSpore's (and the
    paper's) alpha = 1.67326..., scale = 1.05070.... Gradient scale for x >= 0 (MindSpore's
    value at 0), y + scale alpha for x < 0 (MindSpore 2.10's own gradient is wrong for x < 0;
    this is the exact one). int8/int32 inputs (as MindSpore): scale and alpha truncate to 1,
    so x for x > 0 and e**x - 1 (float32) truncated toward zero otherwise: -1 from x <= -18."""
    valid_types = _F + (mstype.int8, mstype.int32)


@bprop_for(SeLU)
def selu_bprop(prim, x, out, dout):
    return (_select(_ge(x, 0.0), _mul(dout, SELU_SCALE),
                    _mul(dout, _add(out, SELU_SCALE * SELU_ALPHA))),)


class CeLU(_Activation):
    """y = max(0, x) + min(0, alpha (e**(x / alpha) - 1)); alpha a float (as MindSpore), not 0.
    Gradient 1 for x > 0, e**(x / alpha) = y / alpha + 1 for x <= 0 (for any sign of alpha)."""

    @prim_attr_register
    def __init__(self, alpha=1.0):
        _check_float(self, "alpha", alpha)
        if alpha == 0:
            raise ValueError(f"For '{self.name}', 'alpha' must be not equal to 0, but got "
                             f"{alpha}")

    def kernel_params(self, x):
        return {"alpha": float(self.attrs["alpha"])}


@bprop_for(CeLU)
def celu_bprop(prim, x, out, dout):
    alpha = float(prim.attrs["alpha"])
    return (_select(_gt(x, 0.0), dout, _mul(dout, _add(_div(out, alpha), 1.0))),)


class HSwish(_Activation):
    """y = x relu6(x + 3) / 6: 0 for x <= -3, x for x >= 3 (hswish(-inf) = 0, (+inf) = inf).
    Gradient 0 for x < -3, (2x + 3) / 6 for -3 <= x <= 3, 1 for x > 3 (PyTorch's and
    MindSpore's: -0.5 at -3, 1.5 at 3). Signed integer inputs: x relu6(x + 3) / 6 truncated
    toward zero, as MindSpore (hswish of int32 2 is 1)."""
    valid_types = _F + _I


@bprop_for(HSwish)
def hswish_bprop(prim, x, out, dout):
    mid = _mul(dout, _add(_div(x, 3.0), 0.5))
    inner = _select(_le(x, 3.0), mid, dout)
    return (_select(_lt(x, -3.0), _mul(dout, 0.0), inner),)


class HSigmoid(_Activation):
    """y = relu6(x + 3) / 6 = min(max(x / 6 + 1/2, 0), 1). Gradient 1/6 for -3 < x < 3, else 0
    (0 at both kinks). int8/int32/int64 inputs (as MindSpore): truncated, so 1 for x >= 3,
    else 0."""
    valid_types = _F + (mstype.int8, mstype.int32, mstype.int64)


@bprop_for(HSigmoid)
def hsigmoid_bprop(prim, x, out, dout):
    inside = _and(_gt(x, -3.0), _lt(x, 3.0))
    return (_select(inside, _div(dout, 6.0), _mul(dout, 0.0)),)


class Hardtanh(_Activation):
    """y = min(max(x, min_val), max_val) (max_val wins where min_val > max_val, as MindSpore);
    nan stays nan (PyTorch; MindSpore 2.10 returns min_val). Gradient 1 for
    min_val < x < max_val, else 0 (0 at the kinks, PyTorch's). Integer inputs: the bounds are
    truncated to the dtype (wrapping for uint8, as MindSpore); bool passes through unchanged."""
    valid_types = _F + _I + (mstype.uint8, mstype.bool_)

    @prim_attr_register
    def __init__(self, min_val=-1.0, max_val=1.0):
        _check_number(self, "min_val", min_val)
        _check_number(self, "max_val", max_val)

    def kernel_params(self, x):
        return {"min_val": float(self.attrs["min_val"]), "max_val": float(self.attrs["max_val"])}


@bprop_for(Hardtanh)
def hardtanh_bprop(prim, x, out, dout):
    inside = _and(_gt(x, float(prim.attrs["min_val"])), _lt(x, float(prim.attrs["max_val"])))
    return (_select(inside, dout, _mul(dout, 0.0)),)


class Mish(_Activation):
    """y = x tanh(softplus(x)), softplus in its stable form; mish(+inf) = inf, mish(-inf) = nan
    (-inf * 0; MindSpore 2.10 gives nan for both). Gradient t + x sigmoid(x) (1 - t**2),
    t = tanh(softplus(x))."""


@bprop_for(Mish)
def mish_bprop(prim, x, out, dout):
    t = _tanh(_softplus(x))
    grad = _add(t, _mul(_mul(x, _sigmoid(x)), _sub(1.0, _mul(t, t))))
    return (_mul(dout, grad),)


class Softsign(_Activation):
    """y = x / (1 + |x|); softsign(+-inf) = nan (inf / inf, as MindSpore). Gradient
    1 / (1 + |x|)**2."""


@bprop_for(Softsign)
def softsign_bprop(prim, x, out, dout):
    d = _add(_abs(x), 1.0)
    return (_div(dout, _mul(d, d)),)


class LogSigmoid(_Activation):
    """y = log(sigmoid(x)) = min(x, 0) - log1p(e**-|x|) (stable: no overflow, exact for large
    |x|); logsigmoid(+inf) = 0, (-inf) = -inf. Gradient sigmoid(-x) = 1 - sigmoid(x)."""


@bprop_for(LogSigmoid)
def log_sigmoid_bprop(prim, x, out, dout):
    return (_mul(dout, _sub(1.0, _sigmoid(x))),)


class HShrink(_Activation):
    """y = x where |x| > lambd, else 0 (MindSpore's HShrink; x = +-lambd gives 0). A float
    lambd (MindSpore accepts a negative one: then every x passes). float16/32 (and float64).
    Gradient dout where |x| > lambd, else 0."""

    @prim_attr_register
    def __init__(self, lambd=0.5):
        _check_float(self, "lambd", lambd)

    def kernel_params(self, x):
        return {"lambd": self.attrs["lambd"]}


@bprop_for(HShrink)
def hshrink_bprop(prim, x, out, dout):
    return (_select(_gt(_abs(x), prim.attrs["lambd"]), dout, 0.0),)
