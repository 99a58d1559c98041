"""More loss cells (mindspore.nn), each calling its functional loss (ops/function/
loss_func.py, loss_distance_func.py, loss_margin_nll_func.py) or, for the cells MindSpore defines
with their own formula (FocalLoss, DiceLoss, MultiClassDiceLoss, RMSELoss, MAELoss), composing
primitives here. Arguments, defaults and call signatures are MindSpore 2.10's; reductions
'mean' / 'sum' / 'none'.
"""
from ... import ops
from ...common import dtype as mstype
from .loss import LossBase

__all__ = ["SmoothL1Loss", "HuberLoss", "BCELoss", "KLDivLoss", "CosineEmbeddingLoss",
           "MarginRankingLoss", "FocalLoss", "DiceLoss", "MultiClassDiceLoss",
           "TripletMarginLoss", "CTCLoss", "RMSELoss", "MAELoss", "GaussianNLLLoss",
           "PoissonNLLLoss", "SoftMarginLoss", "HingeEmbeddingLoss", "MultiMarginLoss",
           "MultiLabelSoftMarginLoss"]


class SmoothL1Loss(LossBase):
    """0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta (d = logits - labels)."""

    def __init__(self, beta=1.0, reduction="none"):
        super().__init__(reduction)
        self.beta = beta

    def construct(self, logits, labels):
        return ops.smooth_l1_loss(logits, labels, self.beta, self.reduction)


class HuberLoss(LossBase):
    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction)
        self.delta = delta

    def construct(self, logits, labels):
        return ops.huber_loss(logits, labels, self.reduction, self.delta)


class BCELoss(LossBase):
    def __init__(self, weight=None, reduction="mean"):
        super().__init__(reduction)
        self.weight = weight

    def construct(self, logits, labels):
        return ops.binary_cross_entropy(logits, labels, self.weight, self.reduction)


class KLDivLoss(LossBase):
    """labels (log(labels) - logits); reduction also 'batchmean'."""

    def __init__(self, reduction="mean"):
        if reduction == "batchmean":
            super().__init__("sum")
        else:
            super().__init__(reduction)
        self.reduction = reduction

    def construct(self, logits, labels):
        return ops.kl_div(logits, labels, self.reduction)


class CosineEmbeddingLoss(LossBase):
    def __init__(self, margin=0.0, reduction="mean"):
        super().__init__(reduction)
        self.margin = margin

    def construct(self, logits_x1, logits_x2, labels):
        return ops.cosine_embedding_loss(logits_x1, logits_x2, labels, self.margin,
                                         self.reduction)


class MarginRankingLoss(LossBase):
    def __init__(self, margin=0.0, reduction="mean"):
        super().__init__(reduction)
        self.margin = margin

    def construct(self, input1, input2, target):
        return ops.margin_ranking_loss(input1, input2, target, self.margin, self.reduction)


class TripletMarginLoss(LossBase):
    def __init__(self, p=2, swap=False, eps=1e-06, reduction="mean", margin=1.0):
        super().__init__(reduction)
        self.p, self.swap, self.eps, self.margin = p, swap, eps, margin

    def construct(self, x, positive, negative, margin=1.0):
        return ops.triplet_margin_loss(x, positive, negative, margin, self.p, self.eps,
                                       self.swap, self.reduction)


class SoftMarginLoss(LossBase):
    def construct(self, logits, labels):
        return ops.soft_margin_loss(logits, labels, self.reduction)


class HingeEmbeddingLoss(LossBase):
    def __init__(self, margin=1.0, reduction="mean"):
        super().__init__(reduction)
        self.margin = margin

    def construct(self, logits, labels):
        return ops.hinge_embedding_loss(logits, labels, self.margin, self.reduction)


class MultiMarginLoss(LossBase):
    def __init__(self, p=1, margin=1.0, reduction="mean", weight=None):
        super().__init__(reduction)
        self.p, self.margin, self.weight = p, margin, weight

    def construct(self, x, target, weight=None):
        w = weight if weight is not None else self.weight
        return ops.multi_margin_loss(x, target, self.p, self.margin, w, self.reduction)


class MultiLabelSoftMarginLoss(LossBase):
    def __init__(self, weight=None, reduction="mean"):
        super().__init__(reduction)
        self.weight = weight

    def construct(self, x, target):
        return ops.multilabel_soft_margin_loss(x, target, self.weight, self.reduction)


class GaussianNLLLoss(LossBase):
    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        super().__init__(reduction)
        self.full, self.eps = full, eps

    def construct(self, logits, labels, var):
        return ops.gaussian_nll_loss(logits, labels, var, self.full, self.eps, self.reduction)


class PoissonNLLLoss(LossBase):
    def __init__(self, log_input=True, full=False, eps=1e-08, reduction="mean"):
        super().__init__(reduction)
        self.log_input, self.full, self.eps = log_input, full, eps

    def construct(self, input, target):
        return ops.poisson_nll_loss(input, target, self.log_input, self.full, self.eps,
                                    self.reduction)


class CTCLoss(LossBase):
    """Connectionist temporal classification loss (log_probs (T, N, C))."""

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__(reduction)
        self.blank, self.zero_infinity = blank, zero_infinity

    def construct(self, log_probs, targets, input_lengths, target_lengths):
        loss, _ = ops.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                               self.reduction, self.zero_infinity)
        return loss


class MAELoss(LossBase):
    """|logits - label|, reduced."""

    def construct(self, logits, label):
        return self.get_loss(ops.abs(logits - label))


class RMSELoss(LossBase):
    """sqrt(mean((logits - label)^2))."""

    def __init__(self):
        super().__init__("mean")

    def construct(self, logits, label):
        d = logits - label
        return ops.sqrt(self.get_loss(d * d))


class FocalLoss(LossBase):
    """-(1 - p)^gamma log p of the label's class, p = softmax over axis 1; labels are class
    indices with a unit channel axis (N, 1, ...) or one-hot like the logits; `weight` per class.
    Summed over classes and averaged over the other axes by `reduction`."""

    def __init__(self, weight=None, gamma=2.0, reduction="mean"):
        super().__init__(reduction)
        if not isinstance(gamma, float):
            raise TypeError(f"For 'FocalLoss', 'gamma' must be a float, but got "
                            f"{type(gamma).__name__}")
        self.weight, self.gamma = weight, gamma

    def construct(self, logits, labels):
        if len(labels.shape) not in (2, 3, 4):
            raise ValueError(f"For 'FocalLoss', the dimensions of 'labels' must be in [2, 4], "
                             f"but got dimension of 'labels' {len(labels.shape)}.")
        c = logits.shape[1]
        if labels.shape[1] == 1 and c != 1:
            labels = ops.one_hot(ops.squeeze(ops.cast(labels, mstype.int64), 1), c, 1.0, 0.0,
                                 axis=1)
        labels = ops.cast(labels, logits.dtype)
        logp = ops.log_softmax(logits, 1)
        loss = -ops.pow(1.0 - ops.exp(logp), self.gamma) * logp * labels
        if self.weight is not None:
            shape = (1, c) + (1,) * (len(logits.shape) - 2)
            loss = loss * ops.reshape(self.weight, shape)
        return self.get_loss(ops.sum(loss, 1))


class DiceLoss(LossBase):
    """1 - 2 sum(x y) / (sum(x^2) + sum(y^2) + smooth)."""

    def __init__(self, smooth=1e-5):
        super().__init__()
        if not isinstance(smooth, float) or smooth <= 0:
            raise ValueError(f"For 'DiceLoss', 'smooth' must be a float > 0, but got {smooth!r}")
        self.smooth = smooth

    def construct(self, logits, label):
        label = ops.cast(label, logits.dtype)
        inter = ops.sum(logits * label)
        union = ops.sum(logits * logits) + ops.sum(label * label)
        return 1.0 - 2.0 * inter / (union + self.smooth)


class MultiClassDiceLoss(LossBase):
    """The mean over classes (axis 1) of DiceLoss on each class's channel, weighted by
    `weights` (shape (C, 1)), after `activation` ('softmax', 'logsoftmax' or None)."""

    def __init__(self, weights=None, ignore_indiex=None, activation="softmax"):
        super().__init__()
        if activation not in ("softmax", "logsoftmax", None):
            raise ValueError(f"For 'MultiClassDiceLoss', 'activation' must be 'softmax', "
                             f"'logsoftmax' or None, but got {activation!r}")
        self.weights, self.ignore_indiex, self.activation = weights, ignore_indiex, activation
        self.binary = DiceLoss()

    def construct(self, logits, label):
        c = label.shape[1]
        if self.weights is not None and self.weights.shape[0] != c:
            raise ValueError(f"For 'MultiClassDiceLoss', the weight_shape[0] must be equal to "
                             f"label_shape[1], but got weight_shape[0]: {self.weights.shape[0]} "
                             f"and label_shape[1]: {c}.")
        if self.activation == "softmax":
            logits = ops.softmax(logits, 1)
        elif self.activation == "logsoftmax":
            logits = ops.log_softmax(logits, 1)
        total = 0.0
        for i in range(c):
            if i == self.ignore_indiex:
                continue
            loss = self.binary(logits[:, i], label[:, i])
            if self.weights is not None:
                loss = loss * self.weights[i]
            total = total + loss
        return total / c
