"""mint.nn's loss Cells (L1Loss, MSELoss, SmoothL1Loss, BCELoss, BCEWithLogitsLoss, KLDivLoss,
SoftMarginLoss, CosineEmbeddingLoss) with PyTorch's constructor arguments, each calling
mint.nn.functional / ops (the same primitives and bprops)."""
from ...nn.cell import Cell
from ...ops import functional as OF
from . import functional as F

__all__ = ['BCELoss', 'BCEWithLogitsLoss', 'CosineEmbeddingLoss', 'KLDivLoss', 'L1Loss',
           'MSELoss', 'SmoothL1Loss', 'SoftMarginLoss']

_REDUCTIONS = ("none", "mean", "sum")


class _Loss(Cell):
    def __init__(self, reduction="mean"):
        super().__init__()
        if reduction not in self.reductions:
            raise ValueError(f"For '{type(self).__name__}', 'reduction' must be one of "
                             f"{list(self.reductions)}, but got {reduction!r}")
        self.reduction = reduction

    reductions = _REDUCTIONS


class L1Loss(_Loss):
    def construct(self, input, target):
        return OF.l1_loss(input, target, self.reduction)


class MSELoss(_Loss):
    def construct(self, input, target):
        return F.mse_loss(input, target, self.reduction)


class SmoothL1Loss(_Loss):
    def __init__(self, reduction="mean", beta=1.0):
        super().__init__(reduction)
        self.beta = beta

    def construct(self, input, target):
        return OF.smooth_l1_loss(input, target, self.beta, self.reduction)


class BCELoss(_Loss):
    def __init__(self, weight=None, reduction="mean"):
        super().__init__(reduction)
        self.weight = weight

    def construct(self, input, target):
        return F.binary_cross_entropy(input, target, self.weight, self.reduction)


class BCEWithLogitsLoss(_Loss):
    def __init__(self, weight=None, reduction="mean", pos_weight=None):
        super().__init__(reduction)
        self.weight, self.pos_weight = weight, pos_weight

    def construct(self, input, target):
        return F.binary_cross_entropy_with_logits(input, target, self.weight, self.reduction,
                                                  self.pos_weight)


class KLDivLoss(_Loss):
    reductions = _REDUCTIONS + ("batchmean",)

    def __init__(self, reduction="mean", log_target=False):
        super().__init__(reduction)
        self.log_target = log_target

    def construct(self, input, target):
        return F.kl_div(input, target, self.reduction, self.log_target)


class SoftMarginLoss(_Loss):
    def construct(self, input, target):
        return F.soft_margin_loss(input, target, self.reduction)


class CosineEmbeddingLoss(_Loss):
    def __init__(self, margin=0.0, reduction="mean"):
        super().__init__(reduction)
        self.margin = margin

    def construct(self, input1, input2, target):
        return F.cosine_embedding_loss(input1, input2, target, self.margin, self.reduction)
