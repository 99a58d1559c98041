"""numpy reference kernels of ops/operations/loss_pointwise_ops.py: L2Loss and
SigmoidCrossEntropyWithLogits. float16 inputs are computed in float32 and rounded once;
every input may be 0-d, empty or non-contiguous."""
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
