"""Loss and activation primitives of issue 13 with MindSpore's constructors (behind
ops.smooth_l1_loss, ops.binary_cross_entropy and ops.prelu, and usable as ops.SmoothL1Loss
/ ops.BinaryCrossEntropy / ops.PReLU), each with a gradient primitive and bprops to second
order (the gradients' own bprops are written with elementwise primitives).
Kernels: kernels/cpu/pointwise_loss_numpy.py.

SmoothL1Loss: 0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta (d = logits - labels;
beta = 0: |d|); gradient clip(d / beta, -1, 1) (sign(d) for beta = 0).
BinaryCrossEntropy: -weight (y log x + (1 - y) log(1 - x)), the logs' arguments clamped at
1e-12; gradient wrt x weight (x - y) / max(x (1 - x), 1e-12) (MindSpore's kernel), wrt y
-weight (log x - log(1 - x)) and wrt weight the unweighted loss (MindSpore gives those two
no gradient). weight broadcasts to x. Reductions 'none', 'mean', 'sum'.
PReLU: x where x > 0 else weight * x, weight (1,) or (C,) along axis 1.
"""
import numbers

from ...common import dtype as mstype
from ...ir.rules import bprop_for
from .array_ops import sum_to
from ...ir.primitive import Primitive, prim_attr_register
from ..validator import broadcast_shape, check_dtype, check_same_dtype, tensor
from ._base import cached_prim, needs_grad
from .array_ops import Cast, Reshape
from .logic_ops import Greater, Less, Select
from .loss_ops import check_reduction
from .math_ops import Abs, Div, Log, Maximum, Mul, Neg, Square, Sub
from .reduce_ops import ReduceSum

__all__ = ["SmoothL1Loss", "BinaryCrossEntropy", "PReLU"]

_mul, _sub, _div, _neg, _abs = Mul(), Sub(), Div(), Neg(), Abs()
_log, _maximum, _square = Log(), Maximum(), Square()
_cast, _reshape, _less, _greater, _select = Cast(), Reshape(), Less(), Greater(), Select()
_sum = ReduceSum(False)
BCE_EPS = 1e-12


def _size(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def _scale(prim, shape):
    """The factor a reduced loss's gradient carries: 1 / N for 'mean', else 1."""
    if prim.attrs["reduction"] == "mean":
        return 1.0 / max(_size(shape), 1)
    return 1.0


def _reduced(prim, shape):
    return tuple(shape) if prim.attrs["reduction"] == "none" else ()


def _check_pair(prim, x, y, names=("logits", "labels")):
    check_dtype(prim, names[0], x, mstype.FLOAT_TYPES)
    check_same_dtype(prim, [(names[0], x), (names[1], y)])
    if tuple(x.shape) != tuple(y.shape):
        raise ValueError(f"For '{prim.name}', '{names[1]}' must have the shape of "
                         f"'{names[0]}' {list(x.shape)}, but got {list(y.shape)}")


def _check_dout(prim, dout, x):
    check_same_dtype(prim, [("prediction", x), ("dout", dout)])
    want = _reduced(prim, x.shape)
    if tuple(dout.shape) != want:
        raise ValueError(f"For '{prim.name}', 'dout' must have the shape {list(want)}, but "
                         f"got {list(dout.shape)}")


class SmoothL1Loss(Primitive):
    """(logits, labels) -> the smooth L1 loss (see the module docstring), reduced."""
    input_names = ("logits", "labels")

    @prim_attr_register
    def __init__(self, beta=1.0, reduction="none"):
        if not isinstance(beta, numbers.Real) or isinstance(beta, bool) or beta < 0:
            raise ValueError(f"For '{self.name}', 'beta' must be a float >= 0, but got "
                             f"{beta!r}")
        check_reduction(self.name, reduction)

    def infer(self, x, y):
        _check_pair(self, x, y)
        return tensor(x.dtype, _reduced(self, x.shape))

    def kernel_params(self, *args):
        return {"beta": float(self.attrs["beta"]), "reduction": self.attrs["reduction"]}


class SmoothL1LossGrad(SmoothL1Loss):
    """(prediction, target, dout) -> d loss / d prediction."""
    input_names = ("prediction", "target", "dout")

    def infer(self, x, y, dout):
        _check_pair(self, x, y, ("prediction", "target"))
        _check_dout(self, dout, x)
        return x


@bprop_for(SmoothL1Loss)
def smooth_l1_loss_bprop(prim, x, y, out, dout):
    dx = cached_prim(SmoothL1LossGrad, prim.attrs["beta"], prim.attrs["reduction"])(x, y, dout)
    return dx, _neg(dx)


@bprop_for(SmoothL1LossGrad)
def smooth_l1_loss_grad_bprop(prim, x, y, dout, out, g):
    beta, s = float(prim.attrs["beta"]), _scale(prim, x.shape)
    cg = cached_prim(SmoothL1LossGrad, prim.attrs["beta"], "none")(x, y, g)    # c * g
    d_dout = cg if prim.attrs["reduction"] == "none" else _mul(_sum(cg, ()), s)
    if beta == 0:
        d_x = _mul(g, 0.0)
    else:
        inside = _cast(_less(_abs(_sub(x, y)), beta), x.dtype)
        d_x = _mul(_mul(_mul(g, dout), inside), s / beta)
    return d_x, _neg(d_x), d_dout


# ---- binary cross entropy ------------------------------------------------------------------
class BinaryCrossEntropy(Primitive):
    """(logits, labels, weight) -> the binary cross entropy of probabilities, reduced."""
    input_names = ("logits", "labels", "weight")

    @prim_attr_register
    def __init__(self, reduction="mean"):
        check_reduction(self.name, reduction)

    def _check(self, x, y, w):
        _check_pair(self, x, y)
        check_dtype(self, "weight", w, (x.dtype,))
        if broadcast_shape(self, x.shape, w.shape, ("logits", "weight")) != tuple(x.shape):
            raise ValueError(f"For '{self.name}', 'weight' {list(w.shape)} must broadcast to "
                             f"'logits' {list(x.shape)}")

    def infer(self, x, y, w):
        self._check(x, y, w)
        return tensor(x.dtype, _reduced(self, x.shape))

    def kernel_params(self, *args):
        return {"reduction": self.attrs["reduction"]}


class BinaryCrossEntropyGrad(BinaryCrossEntropy):
    """(logits, labels, grad_output, weight) -> d loss / d logits."""
    input_names = ("logits", "labels", "grad_output", "weight")

    def infer(self, x, y, dout, w):
        self._check(x, y, w)
        _check_dout(self, dout, x)
        return x


def _bce_terms(x):
    """(log max(x, eps), log max(1 - x, eps)) with primitives."""
    return _log(_maximum(x, BCE_EPS)), _log(_maximum(_sub(1.0, x), BCE_EPS))


def _spread(prim, dout, shape):
    """dout (reduced) times the reduction's factor, broadcastable against `shape`."""
    return _mul(dout, _scale(prim, shape))


@bprop_for(BinaryCrossEntropy)
def binary_cross_entropy_bprop(prim, x, y, w, out, dout):
    dx = dy = dw = None
    if needs_grad(x):
        dx = cached_prim(BinaryCrossEntropyGrad, prim.attrs["reduction"])(x, y, dout, w)
    if needs_grad(y) or needs_grad(w):
        lp, lq = _bce_terms(x)
        d = _spread(prim, dout, x.shape)
        if needs_grad(y):
            dy = _mul(_mul(_neg(_sub(lp, lq)), w), d)
        if needs_grad(w):
            loss = _neg(_sub(_mul(y, _sub(lp, lq)), _neg(lq)))      # -(y lp + (1 - y) lq)
            dw = sum_to(_mul(loss, d), tuple(w.shape))
    return dx, dy, dw


@bprop_for(BinaryCrossEntropyGrad)
def binary_cross_entropy_grad_bprop(prim, x, y, dout, w, out, g):
    """out = w (x - y) / den * dout * s with den = max(x (1 - x), eps)."""
    s = _scale(prim, x.shape)
    p = _mul(x, _sub(1.0, x))
    clamped = _less(p, BCE_EPS)
    den = _maximum(p, BCE_EPS)
    f = _div(_sub(x, y), den)
    # d f / d x = (den - (x - y)(1 - 2x)) / den^2 where x (1 - x) > eps, 1 / eps elsewhere
    slope = _div(_sub(den, _mul(_sub(x, y), _sub(1.0, _mul(x, 2.0)))), _square(den))
    df_dx = _select(clamped, _mul(_cast(clamped, x.dtype), 1.0 / BCE_EPS), slope)
    gd = _mul(_mul(g, _spread(prim, dout, x.shape)), w)
    d_x = _mul(gd, df_dx)
    d_y = _neg(_div(gd, den))
    wf = _mul(_mul(g, w), f)
    d_dout = _mul(wf, s) if prim.attrs["reduction"] == "none" else _mul(_sum(wf, ()), s)
    d_w = sum_to(_mul(_mul(_mul(g, f), dout), s), tuple(w.shape))
    return d_x, d_y, d_dout, d_w


# ---- PReLU ---------------------------------------------------------------------------------
def _channel_weight(w, x):
    """weight shaped to broadcast along x's axis 1 (or as a scalar)."""
    if len(x.shape) >= 2 and _size(w.shape) == x.shape[1] and _size(w.shape) != 1:
        return _reshape(w, (x.shape[1],) + (1,) * (len(x.shape) - 2))
    return _reshape(w, ())


class PReLU(Primitive):
    """(x, weight) -> x where x > 0 else weight * x; weight 1-D of 1 or C (axis 1) entries,
    x's float dtype. Gradient PReLUGrad (at x = 0 the weight's, as PyTorch)."""
    input_names = ("x", "weight")

    @prim_attr_register
    def __init__(self):
        pass

    def infer(self, x, w):
        check_dtype(self, "x", x, mstype.FLOAT_TYPES)
        check_same_dtype(self, [("x", x), ("weight", w)])
        channels = x.shape[1] if len(x.shape) >= 2 else 1
        if len(w.shape) != 1 or w.shape[0] not in (1, channels):
            raise ValueError(f"For '{self.name}', the length of 'weight' must be equal to "
                             f"number of channels: {channels}, but got {list(w.shape)}")
        return x


class PReLUGrad(Primitive):
    """(dy, x, weight) -> (dx, dweight)."""
    input_names = ("dy", "x", "weight")

    @prim_attr_register
    def __init__(self):
        pass

    def infer(self, dy, x, w):
        PReLU.infer(self, x, w)
        check_same_dtype(self, [("x", x), ("dy", dy)])
        if tuple(dy.shape) != tuple(x.shape):
            raise ValueError(f"For '{self.name}', 'dy' must have the shape of 'x' "
                             f"{list(x.shape)}, but got {list(dy.shape)}")
        return x, w


@bprop_for(PReLU)
def prelu_bprop(prim, x, w, out, dout):
    dx, dw = cached_prim(PReLUGrad)(dout, x, w)
    return dx, dw


@bprop_for(PReLUGrad)
def prelu_grad_bprop(prim, dy, x, w, out, g):
    gx, gw = g
    pos = _greater(x, 0.0)
    wb = _channel_weight(w, x)
    gwb = _channel_weight(gw, x)
    zero = _mul(x, 0.0)
    d_dy = _select(pos, gx, _mul(gx, wb)) + _select(pos, zero, _mul(gwb, x))
    d_x = _select(pos, zero, _mul(gwb, dy))
    d_w = sum_to(_select(pos, zero, _mul(gx, dy)), tuple(wb.shape))
    return d_dy, d_x, _reshape(d_w, tuple(w.shape))
