"""Detection-box helpers of MindSpore 2.10's ops (image_func / math_func there): iou,
check_valid, bounding_box_encode, bounding_box_decode, and lrn (local response normalization
across channels). Boxes are (x1, y1, x2, y2) with inclusive pixel corners (widths x2 - x1 + 1),
as MindSpore's kernels. Compositions of elementwise ops, so they differentiate.
"""
import math

import numpy as np

from ...common.tensor import Tensor

__all__ = ["iou", "check_valid", "bounding_box_encode", "bounding_box_decode", "lrn"]


def _F():
    from .. import functional as F
    return F


def _boxes(op, arg, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"For '{op}', '{arg}' must be a Tensor, but got {type(x).__name__}")
    if len(x.shape) != 2 or x.shape[1] != 4:
        raise ValueError(f"For '{op}', '{arg}' must have shape (N, 4), but got "
                         f"{list(x.shape)}")
    return x


def _cols(F, b):
    return [F.narrow(b, 1, c, 1) for c in range(4)]        # (N, 1) each


def iou(anchor_boxes, gt_boxes, mode='iou'):
    """(M, N) overlaps of the M gt boxes with the N anchors: intersection over union ("iou")
    or over the gt box's area ("iof")."""
    F = _F()
    _boxes("iou", "anchor_boxes", anchor_boxes)
    _boxes("iou", "gt_boxes", gt_boxes)
    if mode not in ("iou", "iof"):
        raise ValueError(f"For 'iou', 'mode' must be 'iou' or 'iof', but got {mode!r}")
    ax1, ay1, ax2, ay2 = [F.reshape(c, (1, -1)) for c in _cols(F, anchor_boxes)]
    gx1, gy1, gx2, gy2 = _cols(F, gt_boxes)
    w = F.maximum(F.add(F.sub(F.minimum(ax2, gx2), F.maximum(ax1, gx1)), 1.0), 0.0)
    h = F.maximum(F.add(F.sub(F.minimum(ay2, gy2), F.maximum(ay1, gy1)), 1.0), 0.0)
    inter = F.mul(w, h)
    g_area = F.mul(F.add(F.sub(gx2, gx1), 1.0), F.add(F.sub(gy2, gy1), 1.0))
    if mode == "iof":
        return F.div(inter, g_area)
    a_area = F.mul(F.add(F.sub(ax2, ax1), 1.0), F.add(F.sub(ay2, ay1), 1.0))
    return F.div(inter, F.sub(F.add(a_area, g_area), inter))


def check_valid(bboxes, img_metas):
    """Whether each box lies in the image: x1, y1 >= 0, x2 <= width * ratio - 1 and
    y2 <= height * ratio - 1, img_metas = (height, width, ratio)."""
    F = _F()
    _boxes("check_valid", "bboxes", bboxes)
    meta = img_metas.asnumpy().reshape(-1) if isinstance(img_metas, Tensor) else \
        np.asarray(img_metas).reshape(-1)
    if meta.size != 3:
        raise ValueError(f"For 'check_valid', 'img_metas' must hold (height, width, ratio), "
                         f"but got {meta.tolist()}")
    h, w, r = (float(v) for v in meta)
    x1, y1, x2, y2 = [F.reshape(c, (-1,)) for c in _cols(F, bboxes)]
    ok = F.logical_and(F.greater_equal(x1, 0.0), F.greater_equal(y1, 0.0))
    ok = F.logical_and(ok, F.less_equal(x2, w * r - 1.0))
    return F.logical_and(ok, F.less_equal(y2, h * r - 1.0))


def _centers(F, b):
    x1, y1, x2, y2 = _cols(F, b)
    pw, ph = F.add(F.sub(x2, x1), 1.0), F.add(F.sub(y2, y1), 1.0)
    return F.mul(F.add(x1, x2), 0.5), F.mul(F.add(y1, y2), 0.5), pw, ph


def _stats(F, values):
    return Tensor(np.asarray(values, np.float32).reshape(1, 4))


def bounding_box_encode(anchor_box, groundtruth_box, means=(0.0, 0.0, 0.0, 0.0),
                        stds=(1.0, 1.0, 1.0, 1.0)):
    """The deltas (dx, dy, dw, dh) taking each anchor to its gt box, normalized by means and
    stds."""
    F = _F()
    _boxes("bounding_box_encode", "anchor_box", anchor_box)
    _boxes("bounding_box_encode", "groundtruth_box", groundtruth_box)
    px, py, pw, ph = _centers(F, anchor_box)
    gx, gy, gw, gh = _centers(F, groundtruth_box)
    d = F.concat((F.div(F.sub(gx, px), pw), F.div(F.sub(gy, py), ph),
                  F.log(F.div(gw, pw)), F.log(F.div(gh, ph))), 1)
    d = F.cast(d, anchor_box.dtype) if d.dtype is not anchor_box.dtype else d
    return F.div(F.sub(d, F.cast(_stats(F, means), d.dtype)), F.cast(_stats(F, stds), d.dtype))


def bounding_box_decode(anchor_box, deltas, max_shape, means=(0.0, 0.0, 0.0, 0.0),
                        stds=(1.0, 1.0, 1.0, 1.0), wh_ratio_clip=0.016):
    """The boxes the deltas (denormalized by stds and means, dw / dh clipped to
    |log(wh_ratio_clip)|) make of the anchors, clipped to max_shape = (height, width)."""
    F = _F()
    _boxes("bounding_box_decode", "anchor_box", anchor_box)
    _boxes("bounding_box_decode", "deltas", deltas)
    d = F.add(F.mul(deltas, F.cast(_stats(F, stds), deltas.dtype)),
              F.cast(_stats(F, means), deltas.dtype))
    dx, dy, dw, dh = _cols(F, d)
    limit = abs(math.log(wh_ratio_clip))
    dw, dh = F.clamp(dw, -limit, limit), F.clamp(dh, -limit, limit)
    px, py, pw, ph = _centers(F, anchor_box)
    gw, gh = F.mul(pw, F.exp(dw)), F.mul(ph, F.exp(dh))
    gx, gy = F.add(px, F.mul(pw, dx)), F.add(py, F.mul(ph, dy))
    height, width = float(max_shape[0]), float(max_shape[1])
    x1 = F.clamp(F.add(F.sub(gx, F.mul(gw, 0.5)), 0.5), 0.0, width)
    y1 = F.clamp(F.add(F.sub(gy, F.mul(gh, 0.5)), 0.5), 0.0, height)
    x2 = F.clamp(F.sub(F.add(gx, F.mul(gw, 0.5)), 0.5), 0.0, width)
    y2 = F.clamp(F.sub(F.add(gy, F.mul(gh, 0.5)), 0.5), 0.0, height)
    return F.concat((x1, y1, x2, y2), 1)


def lrn(x, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region="ACROSS_CHANNELS"):
    """x / (bias + alpha * sum of x^2 over the channels c - r .. c + r) ** beta, for
    (N, C, H, W) x."""
    F = _F()
    if not isinstance(x, Tensor):
        raise TypeError(f"For 'lrn', 'x' must be a Tensor, but got {type(x).__name__}")
    if len(x.shape) != 4:
        raise ValueError(f"For 'lrn', 'x' must be 4-D, but got shape {list(x.shape)}")
    if norm_region != "ACROSS_CHANNELS":
        raise ValueError(f"For 'lrn', 'norm_region' must be 'ACROSS_CHANNELS', but got "
                         f"{norm_region!r}")
    r = int(depth_radius)
    c = x.shape[1]
    sq = F.mul(x, x)
    zeros = F.zeros((x.shape[0], r + 1, x.shape[2], x.shape[3]), x.dtype)
    padded = F.concat((zeros, sq, F.narrow(zeros, 1, 0, r)), 1) if r else \
        F.concat((F.narrow(zeros, 1, 0, 1), sq), 1)
    cs = F.cumsum(padded, 1)
    window = F.sub(F.narrow(cs, 1, 2 * r + 1, c), F.narrow(cs, 1, 0, c))
    return F.div(x, F.pow(F.add(F.mul(window, alpha), bias), beta))
