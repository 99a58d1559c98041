"""Box primitives of MindSpore's detection models (observed on MindSpore 2.10's CPU kernels):
IOU, BoundingBoxDecode and NMSWithMask; none is differentiable. Kernels:
kernels/cpu/detection_numpy.py. Boxes are rows (x1, y1, x2, y2[, score]).

    IOU(mode='iou')(anchor_boxes (N, 4), gt_boxes (M, 4)) -> (M, N): overlap of gt i with
        anchor j, widths and heights counted inclusively (x2 - x1 + 1); 'iou' divides by the
        union, 'iof' by gt i's area.
    BoundingBoxDecode(max_shape, means, stds, wh_ratio_clip)(anchor_box (n, 4), deltas (n, 4))
        deltas * stds + means applied to the anchors (centers x1 + (w - 1) / 2, sizes
        x2 - x1 + 1; dw, dh clipped to |log(wh_ratio_clip)|), boxes clipped to
        [0, max_shape[1] - 1] x [0, max_shape[0] - 1].
    NMSWithMask(iou_threshold=0.5)(bboxes (N, 5)) -> (the boxes sorted by score, descending,
        in MindSpore's bitonic-sort order of ties; int32 arange(N); bool mask of the kept ones).
        A box is dropped when its IoU (exclusive sizes) with a kept higher-scored one exceeds
        the threshold.
"""
from ...common import dtype as mstype
from ...ir.rules import non_differentiable
from ...ir.primitive import Primitive, prim_attr_register
from ..validator import check_dtype, check_same_dtype, tensor

__all__ = ["IOU", "BoundingBoxDecode", "NMSWithMask"]

_TYPES = (mstype.float16, mstype.float32)


def _boxes(prim, name, x, cols=4):
    check_dtype(prim, name, x, _TYPES)
    if len(x.shape) != 2 or x.shape[1] != cols:
        raise ValueError(f"For '{prim.name}', '{name}' must have shape (n, {cols}), but got "
                         f"{list(x.shape)}")


class IOU(Primitive):
    input_names = ("anchor_boxes", "gt_boxes")

    @prim_attr_register
    def __init__(self, mode="iou"):
        if mode not in ("iou", "iof"):
            raise ValueError(f"For '{self.name}', 'mode' must be 'iou' or 'iof', but got "
                             f"{mode!r}")

    def infer(self, anchors, gts):
        _boxes(self, "anchor_boxes", anchors)
        _boxes(self, "gt_boxes", gts)
        check_same_dtype(self, [("anchor_boxes", anchors), ("gt_boxes", gts)])
        return tensor(anchors.dtype, (gts.shape[0], anchors.shape[0]))

    def kernel_params(self, anchors, gts):
        return {"mode": self.attrs["mode"]}


class BoundingBoxDecode(Primitive):
    input_names = ("anchor_box", "deltas")

    @prim_attr_register
    def __init__(self, max_shape, means=(0.0, 0.0, 0.0, 0.0), stds=(1.0, 1.0, 1.0, 1.0),
                 wh_ratio_clip=0.016):
        for name, n in (("max_shape", 2), ("means", 4), ("stds", 4)):
            v = self.attrs[name]
            if not isinstance(v, (tuple, list)) or len(v) != n:
                raise ValueError(f"For '{self.name}', '{name}' must be a tuple of {n} numbers, "
                                 f"but got {v!r}")
        if any(s == 0 for s in stds):
            raise ValueError(f"For '{self.name}', 'stds' must not contain 0, but got {stds}")
        if isinstance(wh_ratio_clip, bool) or not isinstance(wh_ratio_clip, (int, float)) or \
                wh_ratio_clip <= 0:
            raise ValueError(f"For '{self.name}', 'wh_ratio_clip' must be a positive float, but "
                             f"got {wh_ratio_clip!r}")

    def infer(self, anchors, deltas):
        _boxes(self, "anchor_box", anchors)
        _boxes(self, "deltas", deltas)
        check_same_dtype(self, [("anchor_box", anchors), ("deltas", deltas)])
        if anchors.shape != deltas.shape:
            raise ValueError(f"For '{self.name}', 'anchor_box' and 'deltas' must have one shape, "
                             f"but got {list(anchors.shape)} and {list(deltas.shape)}")
        return anchors

    def kernel_params(self, anchors, deltas):
        params = {k: tuple(float(v) for v in self.attrs[k])
                  for k in ("max_shape", "means", "stds")}
        params["wh_ratio_clip"] = float(self.attrs["wh_ratio_clip"])
        return params


class NMSWithMask(Primitive):
    input_names = ("bboxes",)

    @prim_attr_register
    def __init__(self, iou_threshold=0.5):
        if isinstance(iou_threshold, bool) or not isinstance(iou_threshold, (int, float)):
            raise TypeError(f"For '{self.name}', 'iou_threshold' must be a float, but got "
                            f"{type(iou_threshold).__name__}")

    def infer(self, bboxes):
        _boxes(self, "bboxes", bboxes, 5)
        n = bboxes.shape[0]
        return bboxes, tensor(mstype.int32, (n,)), tensor(mstype.bool_, (n,))

    def kernel_params(self, bboxes):
        return {"iou_threshold": float(self.attrs["iou_threshold"])}


non_differentiable(IOU, BoundingBoxDecode, NMSWithMask)
