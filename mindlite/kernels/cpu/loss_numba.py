"""numba kernels for loss_ops: SoftmaxCrossEntropyWithLogits, SparseSoftmaxCrossEntropyWithLogits
and NLLLoss (provider "numba"; loops in _loss_jit.py, loaded on the first launch: this module
does not import numba). Same results as loss_numpy.py up to rounding; labels are checked
before anything is written.
"""
import numpy as np

from ...common import dtype as mstype
from ..registry import register_kernel
from .loss_numpy import _check_labels

FLOATS = (mstype.float32, mstype.float64)
_J = None


def _small_or_narrow(logits, labels):
    """numba's scalar exp loses to numpy's vectorised exp on wide rows: measured crossover
    about 16k elements for C in the hundreds; rows of <= 32 classes win at every size."""
    return logits.size <= 16384 or logits.shape[1] <= 32


def _load():
    global _J
    from . import _loss_jit
    _J = _loss_jit
    return _J


@register_kernel("SoftmaxCrossEntropyWithLogits", provider="numba", dtypes=FLOATS,
                 when=_small_or_narrow)
def softmax_cross_entropy_with_logits_numba(logits, labels, loss, backprop):
    if logits.shape[1] == 0:
        loss[...] = 0
        return
    (_J or _load()).softmax_cross_entropy(logits, labels, loss, backprop)


@register_kernel("SparseSoftmaxCrossEntropyWithLogits", provider="numba", dtypes=FLOATS,
                 when=_small_or_narrow)
def sparse_softmax_cross_entropy_with_logits_numba(logits, labels, out, is_grad):
    n, c = logits.shape
    J = _J or _load()
    if J.first_bad_label(labels, c, 0, False) >= 0:
        _check_labels("SparseSoftmaxCrossEntropyWithLogits", labels, c)
    if n == 0:
        out[...] = 0 if is_grad else np.nan
        return
    if is_grad:
        J.sparse_softmax_cross_entropy_grad(logits, labels, out)
    else:
        out[...] = J.sparse_softmax_cross_entropy(logits, labels)


_MODES = {"none": 0, "sum": 1, "mean": 2}


@register_kernel("NLLLoss", provider="numba", dtypes=FLOATS)
def nll_loss_numba(logits, labels, weight, loss, total_weight, reduction, ignore_index):
    J = _J or _load()
    c = weight.shape[0]
    if J.first_bad_label(labels, c, ignore_index, True) >= 0:
        _check_labels("NLLLoss", labels, c, ignore_index)
    mode = _MODES[reduction]
    per = loss if mode == 0 else np.empty(labels.shape, loss.dtype)
    with np.errstate(invalid="ignore", divide="ignore"):
        total, total_w = J.nll_loss(logits, labels, weight, ignore_index, per, mode)
    total_weight[...] = total_w
    if mode:
        loss[...] = total
