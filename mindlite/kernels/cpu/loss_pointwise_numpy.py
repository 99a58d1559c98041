"""numpy reference kernels of ops/operations/loss_pointwise_ops.py: L2Loss,
SigmoidCrossEntropyWithLogits (and its Grad) and KLDivLoss. float16 inputs are computed in
float32 and rounded once; every input may be 0-d, empty or non-contiguous."""
import numpy as np

from ..registry import register_kernel


def _work(x):
    return x.astype(np.float32) if x.dtype == np.float16 else x


@register_kernel("L2Loss", provider="numpy")
def l2_loss_numpy(x, out):
    w = _work(x)
    out[...] = np.sum(w * w) / 2


@register_kernel("SigmoidCrossEntropyWithLogits", provider="numpy")
def sigmoid_cross_entropy_with_logits_numpy(logits, label, out):
    x, y = _work(logits), _work(label)
    with np.errstate(over="ignore"):
        out[...] = np.maximum(x, 0) - x * y + np.log1p(np.exp(-np.abs(x)))


@register_kernel("SigmoidCrossEntropyWithLogitsGrad", provider="numpy")
def sigmoid_cross_entropy_with_logits_grad_numpy(logits, label, dout, out):
    x, y, d = _work(logits), _work(label), _work(dout)
    with np.errstate(over="ignore"):
        out[...] = (1 / (1 + np.exp(-x)) - y) * d


@register_kernel("KLDivLoss", provider="numpy")
def kl_div_loss_numpy(x, y, out, reduction):
    x, y = _work(x), _work(y)
    with np.errstate(all="ignore"):
        loss = np.where(y > 0, y * (np.log(np.where(y > 0, y, 1)) - x), 0)
    if reduction == "none":
        out[...] = loss
        return
    total = np.sum(loss)
    if reduction == "mean":
        total = total / loss.size
    elif reduction == "batchmean":
        total = total / x.shape[0]
    out[...] = total
