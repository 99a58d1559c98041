"""numpy reference kernels for loss_ops: fused, numerically stable cross entropies, NLLLoss /
NLLLossGrad and BCEWithLogitsLoss.

All alloc="runtime", computing in the input dtype. Softmax-based losses subtract the row
maximum before exponentiating; log-sigmoids are softplus(-x) = max(-x, 0) + log1p(e**-|x|).
Index checks (labels outside [0, C)) raise ValueError before any output is written.
"""
import numpy as np

from ..registry import register_kernel


def _log_softmax_rows(x):
    """(log_softmax(x), e**(x - max), row sums of the latter) along axis 1 of a 2-D array."""
    m = np.max(x, axis=1, keepdims=True)
    shifted = x - m
    e = np.exp(shifted)
    s = np.sum(e, axis=1, keepdims=True)
    shifted -= np.log(s)
    return shifted, e, s


@register_kernel("SoftmaxCrossEntropyWithLogits", provider="numpy")
def softmax_cross_entropy_with_logits_numpy(logits, labels, loss, backprop):
    if logits.shape[1] == 0:
        loss[...] = 0
        return
    with np.errstate(invalid="ignore", over="ignore"):
        logp, e, s = _log_softmax_rows(logits)
        # NOTE: 0 * log(0) is taken as 0 (a zero label ignores a -inf log-probability)
        np.einsum("nc,nc->n", labels, np.where(labels != 0, logp, 0), out=loss)
        np.negative(loss, out=loss)
        np.divide(e, s, out=backprop)
        backprop -= labels


def _check_labels(op, labels, n_classes, ignore_index=None):
    bad = (labels < 0) | (labels >= n_classes)
    if ignore_index is not None:
        bad &= labels != ignore_index
    if bad.any():
        raise ValueError(f"For '{op}', every value of 'labels' must be in [0, {n_classes})"
                         + (f" or equal 'ignore_index' {ignore_index}" if ignore_index is not None
                            else "")
                         + f", but got {labels[bad][:5].tolist()}")


@register_kernel("SparseSoftmaxCrossEntropyWithLogits", provider="numpy")
def sparse_softmax_cross_entropy_with_logits_numpy(logits, labels, out, is_grad):
    n, c = logits.shape
    _check_labels("SparseSoftmaxCrossEntropyWithLogits", labels, c)
    rows = np.arange(n)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        if n == 0 or c == 0:
            out[...] = 0 if is_grad else np.nan
            return
        logp, e, s = _log_softmax_rows(logits)
        if is_grad:
            np.divide(e, s, out=out)
            out[rows, labels] -= 1
            out /= out.dtype.type(n)
        else:
            out[...] = -np.sum(logp[rows, labels]) / out.dtype.type(n)


def _nll_weights(op, labels, weight, ignore_index):
    """(t, w, keep): keep = labels != ignore_index, t = labels with ignored rows set to 0,
    w[n] = weight[t[n]] where kept, else 0."""
    _check_labels(op, labels, weight.shape[0], ignore_index)
    keep = labels != ignore_index
    t = np.where(keep, labels, 0)
    if weight.shape[0] == 0:
        return t, np.zeros(labels.shape, weight.dtype), keep
    return t, weight[t] * keep, keep


@register_kernel("NLLLoss", provider="numpy")
def nll_loss_numpy(logits, labels, weight, loss, total_weight, reduction, ignore_index):
    t, w, keep = _nll_weights("NLLLoss", labels, weight, ignore_index)
    per = np.where(keep, -w * logits[np.arange(labels.shape[0]), t], 0) if logits.size else w
    total_weight[...] = np.sum(w)
    if reduction == "none":
        loss[...] = per
    elif reduction == "sum":
        loss[...] = np.sum(per)
    else:
        with np.errstate(invalid="ignore", divide="ignore"):
            loss[...] = np.sum(per) / total_weight


@register_kernel("NLLLossGrad", provider="numpy")
def nll_loss_grad_numpy(logits, loss_grad, labels, weight, total_weight, out, reduction,
                        ignore_index):
    t, w, keep = _nll_weights("NLLLossGrad", labels, weight, ignore_index)
    out[...] = 0
    if not out.size:
        return
    g = -w * loss_grad
    if reduction == "mean":
        with np.errstate(invalid="ignore", divide="ignore"):
            g = g / total_weight
    rows = np.arange(labels.shape[0])
    out[rows[keep], t[keep]] = g[keep]


def softplus_pair(x):
    """(softplus(x), softplus(-x)) without overflow or cancellation."""
    t = np.log1p(np.exp(-np.abs(x)))
    return np.maximum(x, 0) + t, np.maximum(-x, 0) + t


@register_kernel("BCEWithLogitsLoss", provider="numpy")
def bce_with_logits_loss_numpy(x, y, weight, pos_weight, out, reduction):
    with np.errstate(invalid="ignore", over="ignore"):
        sp_pos, sp_neg = softplus_pair(x)
        loss = weight * (pos_weight * y * sp_neg + (1 - y) * sp_pos)
    if reduction == "none":
        np.copyto(out, loss)
    elif reduction == "sum":
        out[...] = np.sum(loss)
    else:
        with np.errstate(invalid="ignore"):
            out[...] = np.mean(loss) if loss.size else np.nan
