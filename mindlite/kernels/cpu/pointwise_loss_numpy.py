"""numpy kernels for pointwise_loss_ops: SmoothL1Loss / SmoothL1LossGrad, BinaryCrossEntropy /
BinaryCrossEntropyGrad, PReLU / PReLUGrad. float16 computes in float32 (BinaryCrossEntropy in
float16 op by op, and its reductions in order, as MindSpore); reductions sum in the compute
dtype ('mean' of an empty input is NaN, as numpy and PyTorch)."""
import numpy as np

from ..registry import register_kernel

_EPS = 1e-12


def _cdt(a):
    return np.float32 if a.dtype == np.float16 else a.dtype.type


def _reduce(loss, out, reduction):
    if reduction == "none":
        out[...] = loss
    elif reduction == "sum":
        out[...] = loss.sum()
    else:
        with np.errstate(invalid="ignore", divide="ignore"):
            out[...] = loss.sum() / loss.size if loss.size else np.nan


def _scale(x, reduction):
    return 1.0 / max(x.size, 1) if reduction == "mean" else 1.0


@register_kernel("SmoothL1Loss", provider="numpy")
def smooth_l1_loss_numpy(x, y, out, beta, reduction):
    dt = _cdt(x)
    d = np.abs(x.astype(dt) - y.astype(dt))
    if beta == 0:
        loss = d
    else:
        loss = np.where(d < beta, (0.5 / beta) * d * d, d - 0.5 * beta)
    _reduce(loss, out, reduction)


@register_kernel("SmoothL1LossGrad", provider="numpy")
def smooth_l1_loss_grad_numpy(x, y, dout, out, beta, reduction):
    dt = _cdt(x)
    d = x.astype(dt) - y.astype(dt)
    c = np.sign(d) if beta == 0 else np.clip(d / dt(beta), -1, 1)
    out[...] = c * dout.astype(dt) * dt(_scale(x, reduction))


def _bce(x, y, w):
    """NOTE: in x's own dtype, float16 too, op by op (each float16 operation rounded), as
    MindSpore 2.10's CPU kernel computes: its float16 results are these bits."""
    dt = x.dtype.type
    one, eps = dt(1), dt(_EPS) if dt is not np.float16 else np.float16(_EPS)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        lp = np.log(np.maximum(x, eps))
        lq = np.log(np.maximum(one - x, eps))
        return -w.astype(dt) * (y.astype(dt) * lp + (one - y.astype(dt)) * lq)


@register_kernel("BinaryCrossEntropy", provider="numpy")
def binary_cross_entropy_numpy(x, y, w, out, reduction):
    loss = _bce(x, y, w)
    if reduction == "none" or not loss.size:
        _reduce(loss, out, reduction)
        return
    # NOTE: summed in order as MindSpore's kernel, float16 in a float32 accumulator (its
    # 'sum' values of MindSpore's own test are these bits; numpy's pairwise sum differs in
    # the last place)
    acc = np.float32 if loss.dtype == np.float16 else loss.dtype.type
    total = np.cumsum(loss.reshape(-1), dtype=acc)[-1]
    out[...] = total if reduction == "sum" else total / acc(loss.size)


@register_kernel("BinaryCrossEntropyGrad", provider="numpy")
def binary_cross_entropy_grad_numpy(x, y, dout, w, out, reduction):
    dt = _cdt(x)
    xf = x.astype(dt)
    den = np.maximum(xf * (1 - xf), dt(_EPS))
    out[...] = w.astype(dt) * (xf - y.astype(dt)) / den * dout.astype(dt) * \
        dt(_scale(x, reduction))


def _weight(w, x):
    if x.ndim >= 2 and w.size == x.shape[1] and w.size != 1:
        return w.reshape((x.shape[1],) + (1,) * (x.ndim - 2))
    return w.reshape(())


@register_kernel("PReLU", provider="numpy")
def prelu_numpy(x, w, out):
    np.multiply(x, _weight(w, x), out=out)
    np.copyto(out, x, where=x > 0)


@register_kernel("PReLUGrad", provider="numpy")
def prelu_grad_numpy(dy, x, w, dx, dw):
    pos = x > 0
    np.multiply(dy, _weight(w, x), out=dx)
    np.copyto(dx, dy, where=pos)
    contrib = np.where(pos, 0, dy.astype(_cdt(x)) * x)
    if w.size == 1 or x.ndim < 2:
        dw[...] = contrib.sum()
    else:
        dw[...] = contrib.sum(axis=tuple(i for i in range(x.ndim) if i != 1))
