"""Loss cells (mindspore.nn): LossBase and SoftmaxCrossEntropyWithLogits, CrossEntropyLoss,
NLLLoss, MSELoss, L1Loss, BCEWithLogitsLoss.

Each construct(logits, labels) computes per-element losses with the primitives of
ops/operations/loss_ops.py or the functional losses (ops/function/loss_func.py), then
reduces them by `reduction` ('mean', 'sum' or 'none'). Bad arguments raise TypeError /
ValueError naming the loss class.
"""
import numbers

import numpy as np

from ... import ops
from ...common import dtype as mstype
from ...common.tensor import Tensor
from ...ops.function import loss_func as LF
from ..cell import Cell

__all__ = [
    "BCEWithLogitsLoss",
    "CrossEntropyLoss",
    "L1Loss",
    "LossBase",
    "MSELoss",
    "NLLLoss",
    "SoftmaxCrossEntropyWithLogits",
]


def _check_tensor(cls, name, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{cls}', '{name}' must be a Tensor, but got {type(x).__name__}")


class LossBase(Cell):
    """Base of losses: get_loss(x, weights=1.0) multiplies by weights and reduces over every
    axis by `reduction` (float16 is reduced in float32 and cast back, as MindSpore)."""

    def __init__(self, reduction="mean", dtype=mstype.float32):
        super().__init__()
        if reduction not in ("mean", "sum", "none"):
            raise ValueError(f"For '{type(self).__name__}', the 'reduction' must be in ['mean', "
                             f"'sum', 'none'], but got {reduction!r}")
        self.reduction = reduction
        self.average = reduction == "mean"
        self.reduce = reduction != "none"
        self.reduce_mean = ops.ReduceMean()
        self.reduce_sum = ops.ReduceSum()
        self.mul = ops.Mul()
        self.cast = ops.Cast()

    def get_axis(self, x):
        return tuple(range(len(x.shape)))

    def get_loss(self, x, weights=1.0):
        in_dtype = x.dtype
        if in_dtype == mstype.float16:
            x = self.cast(x, mstype.float32)
        if not (isinstance(weights, numbers.Number) and weights == 1.0):
            x = self.mul(weights, x)
        if self.reduce:
            x = (self.reduce_mean if self.average else self.reduce_sum)(x, self.get_axis(x))
        if x.dtype != in_dtype:
            x = self.cast(x, in_dtype)
        return x

    def construct(self, logits, labels):
        raise NotImplementedError(f"'{type(self).__name__}' must define construct()")


class SoftmaxCrossEntropyWithLogits(LossBase):
    """Cross entropy of logits (N, C): labels are probabilities (N, C), or with sparse=True
    class indices (N,) of dtype int32/int64. reduction defaults to 'none' (per sample)."""

    def __init__(self, sparse=False, reduction="none"):
        super().__init__(reduction)
        if not isinstance(sparse, bool):
            raise TypeError(f"For 'SoftmaxCrossEntropyWithLogits', 'sparse' must be a bool, but "
                            f"got {type(sparse).__name__}")
        self.sparse = sparse
        self.softmax_cross_entropy = ops.SoftmaxCrossEntropyWithLogits()
        self.sparse_softmax_cross_entropy = ops.SparseSoftmaxCrossEntropyWithLogits()
        self.one_hot = ops.OneHot()

    def construct(self, logits, labels):
        _check_tensor("SoftmaxCrossEntropyWithLogits", "logits", logits)
        _check_tensor("SoftmaxCrossEntropyWithLogits", "labels", labels)
        if self.sparse:
            if labels.dtype not in mstype.INDEX_TYPES:
                raise TypeError(f"For 'SoftmaxCrossEntropyWithLogits', the dtype of 'labels' must "
                                f"be Int32 or Int64 when 'sparse' is True, but got "
                                f"{labels.dtype}")
            if len(logits.shape) != 2 or labels.shape != logits.shape[:1]:
                raise ValueError(f"For 'SoftmaxCrossEntropyWithLogits', 'logits' must have shape "
                                 f"(N, C) and sparse 'labels' shape (N,), but got "
                                 f"{list(logits.shape)} and {list(labels.shape)}")
            if self.reduction == "mean":
                return self.sparse_softmax_cross_entropy(logits, labels)
            dt = logits.dtype.np
            labels = self.one_hot(labels, logits.shape[-1], Tensor(np.ones((), dt)),
                                  Tensor(np.zeros((), dt)))
        x = self.softmax_cross_entropy(logits, labels)[0]
        return self.get_loss(x)


def _check_weight(cls, weight):
    if weight is not None and not isinstance(weight, Tensor):
        raise TypeError(f"For '{cls}', 'weight' must be a Tensor or None, but got "
                        f"{type(weight).__name__}")
    return weight


def _check_ignore_index(cls, ignore_index):
    if isinstance(ignore_index, bool) or not isinstance(ignore_index, numbers.Integral):
        raise TypeError(f"For '{cls}', 'ignore_index' must be an int, but got "
                        f"{type(ignore_index).__name__}")
    return int(ignore_index)


class CrossEntropyLoss(LossBase):
    """Cross entropy of unnormalised logits (classes on axis 1) against class indices or class
    probabilities; weight (C,), ignore_index and label_smoothing as ops.cross_entropy."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
        super().__init__(reduction)
        self.weight = _check_weight("CrossEntropyLoss", weight)
        self.ignore_index = _check_ignore_index("CrossEntropyLoss", ignore_index)
        if isinstance(label_smoothing, bool) or not isinstance(label_smoothing, numbers.Real):
            raise TypeError(f"For 'CrossEntropyLoss', 'label_smoothing' must be a float, but got "
                            f"{type(label_smoothing).__name__}")
        if not 0.0 <= label_smoothing <= 1.0:
            raise ValueError(f"For 'CrossEntropyLoss', 'label_smoothing' must be in [0, 1], but "
                             f"got {label_smoothing}")
        self.label_smoothing = float(label_smoothing)

    def construct(self, logits, labels):
        _check_tensor("CrossEntropyLoss", "logits", logits)
        _check_tensor("CrossEntropyLoss", "labels", labels)
        return LF.cross_entropy(logits, labels, self.weight, self.ignore_index, self.reduction,
                                self.label_smoothing)


class NLLLoss(LossBase):
    """Negative log-likelihood of log-probabilities (classes on axis 1) at class indices."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean"):
        super().__init__(reduction)
        self.weight = _check_weight("NLLLoss", weight)
        self.ignore_index = _check_ignore_index("NLLLoss", ignore_index)

    def construct(self, logits, labels):
        _check_tensor("NLLLoss", "logits", logits)
        _check_tensor("NLLLoss", "labels", labels)
        return LF.nll_loss(logits, labels, self.weight, self.ignore_index, self.reduction)


class MSELoss(LossBase):
    """(logits - labels)**2, broadcast, then reduced."""

    def __init__(self, reduction="mean"):
        super().__init__(reduction)
        self.square = ops.Square()
        self.sub = ops.Sub()

    def construct(self, logits, labels):
        _check_tensor("MSELoss", "logits", logits)
        _check_tensor("MSELoss", "labels", labels)
        return self.get_loss(self.square(self.sub(logits, labels)))


class L1Loss(LossBase):
    """|logits - labels|, broadcast, then reduced."""

    def __init__(self, reduction="mean"):
        super().__init__(reduction)
        self.abs = ops.Abs()
        self.sub = ops.Sub()

    def construct(self, logits, labels):
        _check_tensor("L1Loss", "logits", logits)
        _check_tensor("L1Loss", "labels", labels)
        return self.get_loss(self.abs(self.sub(logits, labels)))


class BCEWithLogitsLoss(LossBase):
    """Binary cross entropy on logits (stable), with optional weight and pos_weight tensors
    that broadcast to the logits' shape."""

    def __init__(self, reduction="mean", weight=None, pos_weight=None):
        super().__init__(reduction)
        self.weight = _check_weight("BCEWithLogitsLoss", weight)
        if pos_weight is not None and not isinstance(pos_weight, Tensor):
            raise TypeError(f"For 'BCEWithLogitsLoss', 'pos_weight' must be a Tensor or None, but "
                            f"got {type(pos_weight).__name__}")
        self.pos_weight = pos_weight

    def construct(self, logits, labels):
        _check_tensor("BCEWithLogitsLoss", "logits", logits)
        _check_tensor("BCEWithLogitsLoss", "labels", labels)
        return LF.binary_cross_entropy_with_logits(logits, labels, self.weight, self.pos_weight,
                                                   self.reduction)
