"""numpy kernels of detection_ops (IOU, BoundingBoxDecode, NMSWithMask; the rules are in that
module). float16 is computed in float32 (NMSWithMask in its own dtype, as MindSpore)."""
import math

import numpy as np

from ..registry import register_kernel


@register_kernel("IOU", provider="numpy")
def iou_numpy(anchors, gts, out, mode):
    a, g = anchors.astype(np.float32), gts.astype(np.float32)
    x1 = np.maximum(g[:, None, 0], a[None, :, 0])
    y1 = np.maximum(g[:, None, 1], a[None, :, 1])
    x2 = np.minimum(g[:, None, 2], a[None, :, 2])
    y2 = np.minimum(g[:, None, 3], a[None, :, 3])
    inter = np.maximum(x2 - x1 + 1, 0) * np.maximum(y2 - y1 + 1, 0)
    area_g = (g[:, 2] - g[:, 0] + 1) * (g[:, 3] - g[:, 1] + 1)
    area_a = (a[:, 2] - a[:, 0] + 1) * (a[:, 3] - a[:, 1] + 1)
    with np.errstate(all="ignore"):
        if mode == "iou":
            out[...] = inter / (area_g[:, None] + area_a[None, :] - inter)
        else:
            out[...] = inter / area_g[:, None]


@register_kernel("BoundingBoxDecode", provider="numpy")
def bounding_box_decode_numpy(anchors, deltas, out, max_shape, means, stds, wh_ratio_clip):
    a, d = anchors.astype(np.float32), deltas.astype(np.float32)
    d = d * np.asarray(stds, np.float32) + np.asarray(means, np.float32)
    limit = abs(math.log(wh_ratio_clip))
    dx, dy = d[:, 0], d[:, 1]
    dw, dh = np.clip(d[:, 2], -limit, limit), np.clip(d[:, 3], -limit, limit)
    pw, ph = a[:, 2] - a[:, 0] + 1, a[:, 3] - a[:, 1] + 1
    px, py = a[:, 0] + 0.5 * (pw - 1), a[:, 1] + 0.5 * (ph - 1)
    gw, gh = pw * np.exp(dw), ph * np.exp(dh)
    gx, gy = px + pw * dx, py + ph * dy
    boxes = np.stack([gx - 0.5 * (gw - 1), gy - 0.5 * (gh - 1), gx + 0.5 * (gw - 1),
                      gy + 0.5 * (gh - 1)], axis=1)
    h, w = max_shape
    boxes[:, 0::2] = np.clip(boxes[:, 0::2], 0, w - 1)
    boxes[:, 1::2] = np.clip(boxes[:, 1::2], 0, h - 1)
    out[...] = boxes


def _bitonic_order(scores):
    """The box order of MindSpore's CPU kernel: an ascending bitonic sort of the scores padded
    with the dtype's max to a power of two, read backwards over the first n entries."""
    n = len(scores)
    size = 1 << max(n - 1, 0).bit_length() if n > 1 else 1
    data = np.full(size, np.finfo(scores.dtype).max, scores.dtype)
    data[:n] = scores
    index = np.arange(size)
    tid = np.arange(size)
    i = 2
    while i <= size:
        j = i >> 1
        while j > 0:
            comp = tid ^ j
            active = comp > tid
            up = (tid & i) == 0
            a, b = data[tid], data[comp]
            swap = active & np.where(up, a > b, a < b)
            t, c = tid[swap], comp[swap]
            data[t], data[c] = data[c], data[t].copy()
            index[t], index[c] = index[c], index[t].copy()
            j >>= 1
        i <<= 1
    return index[:n][::-1]


@register_kernel("NMSWithMask", provider="numpy")
def nms_with_mask_numpy(bboxes, out, sel_idx, sel_mask, iou_threshold):
    n = bboxes.shape[0]
    boxes = bboxes[_bitonic_order(bboxes[:, 4].copy())] if n else bboxes
    out[...] = boxes
    sel_idx[...] = np.arange(n, dtype=np.int32)
    dt = boxes.dtype.type
    x1 = np.maximum(boxes[:, None, 0], boxes[None, :, 0])
    y1 = np.maximum(boxes[:, None, 1], boxes[None, :, 1])
    x2 = np.minimum(boxes[:, None, 2], boxes[None, :, 2])
    y2 = np.minimum(boxes[:, None, 3], boxes[None, :, 3])
    inter = np.maximum(x2 - x1, dt(0)) * np.maximum(y2 - y1, dt(0))
    area = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    with np.errstate(all="ignore"):
        iou = inter / (area[:, None] + area[None, :] - inter)
    keep_pair = ~(iou > dt(iou_threshold))            # row i against a later box j
    keep = np.ones(n, bool)
    for i in range(n - 1):
        if keep[i]:
            keep[i + 1:] &= keep_pair[i, i + 1:]
    sel_mask[...] = keep
