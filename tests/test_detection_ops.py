"""IOU, BoundingBoxDecode and NMSWithMask (detection_ops.py) against loop references of
MindSpore 2.10's CPU rules (inclusive sizes for IOU and the decode, exclusive for NMS, its
bitonic order of tied scores), MindSpore's values, and their non-differentiable marks."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mindlite import Tensor
from mindlite.ops import operations as P
from mindlite.ir.rules import NON_DIFFERENTIABLE


def _rand_boxes(rs, n, scores=False):
    xy = rs.randint(0, 50, (n, 2))
    wh = rs.randint(1, 30, (n, 2))
    b = np.concatenate([xy, xy + wh], 1).astype(np.float32)
    return np.concatenate([b, rs.rand(n, 1).astype(np.float32)], 1) if scores else b


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 6), st.integers(1, 6), st.sampled_from(["iou", "iof"]),
       st.integers(0, 2 ** 31 - 1))
def test_iou_equals_loop(n, m, mode, seed):
    rs = np.random.RandomState(seed)
    a, g = _rand_boxes(rs, n), _rand_boxes(rs, m)
    want = np.zeros((m, n))
    for i in range(m):
        for j in range(n):
            iw = min(g[i, 2], a[j, 2]) - max(g[i, 0], a[j, 0]) + 1
            ih = min(g[i, 3], a[j, 3]) - max(g[i, 1], a[j, 1]) + 1
            inter = max(iw, 0) * max(ih, 0)
            ag = (g[i, 2] - g[i, 0] + 1) * (g[i, 3] - g[i, 1] + 1)
            aa = (a[j, 2] - a[j, 0] + 1) * (a[j, 3] - a[j, 1] + 1)
            want[i, j] = inter / (ag + aa - inter) if mode == "iou" else inter / ag
    np.testing.assert_allclose(P.IOU(mode)(Tensor(a), Tensor(g)).asnumpy(), want, rtol=1e-6)


def test_mindspore_values():
    pos1 = np.array([[101, 169, 246, 429], [107, 150, 277, 400], [103, 130, 220, 400]],
                    np.float32)
    pos2 = np.array([[121, 138, 304, 374], [97, 130, 250, 400]], np.float32)
    np.testing.assert_allclose(P.IOU()(Tensor(pos1), Tensor(pos2)).asnumpy(),
                               [[0.46551168, 0.6898875, 0.4567706],
                                [0.73686045, 0.74506813, 0.76623374]], rtol=1e-6)
    decode = P.BoundingBoxDecode(max_shape=(768, 1280), means=(0.1, 0.1, 0.2, 0.2),
                                 stds=(2.0, 2.0, 3.0, 3.0), wh_ratio_clip=0.016)
    out = decode(Tensor(np.array([[4, 1, 2, 1], [2, 2, 2, 3]], np.float32)),
                 Tensor(np.array([[3, 1, 2, 2], [1, 2, 1, 4]], np.float32))).asnumpy()
    np.testing.assert_allclose(out, [[28.65, 0, 0, 33.85], [0, 0, 15.866266, 72.7]], rtol=1e-5)
    boxes, idx, keep = P.NMSWithMask(0.5)(Tensor(np.array(
        [[0, 0, 0, 0, 0.6], [0, 0, 0, 0, 0.1], [70, 70, 45, 75, 0.6], [30, 33, 43, 29, 0.1],
         [1, 1, 5, 5, 0.6]], np.float32)))
    # ties in MindSpore's bitonic order
    assert boxes.asnumpy()[:, :4].tolist() == [[1, 1, 5, 5], [0, 0, 0, 0], [70, 70, 45, 75],
                                               [30, 33, 43, 29], [0, 0, 0, 0]]
    assert idx.asnumpy().tolist() == [0, 1, 2, 3, 4] and keep.asnumpy().all()
    assert {P.IOU, P.BoundingBoxDecode, P.NMSWithMask} <= NON_DIFFERENTIABLE


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 12), st.floats(0.1, 0.9), st.integers(0, 2 ** 31 - 1))
def test_nms_equals_greedy_reference(n, thr, seed):
    rs = np.random.RandomState(seed)
    bb = _rand_boxes(rs, n, scores=True)
    boxes, _, keep = (o.asnumpy() for o in P.NMSWithMask(thr)(Tensor(bb)))
    order = np.argsort(-bb[:, 4], kind="stable")                  # distinct random scores
    np.testing.assert_array_equal(boxes, bb[order])
    want = np.ones(n, bool)
    for i in range(n):
        if not want[i]:
            continue
        for j in range(i + 1, n):
            b1, b2 = boxes[i], boxes[j]
            w = max(min(b1[2], b2[2]) - max(b1[0], b2[0]), 0)
            h = max(min(b1[3], b2[3]) - max(b1[1], b2[1]), 0)
            a1 = (b1[2] - b1[0]) * (b1[3] - b1[1])
            a2 = (b2[2] - b2[0]) * (b2[3] - b2[1])
            if w * h / (a1 + a2 - w * h) > thr:
                want[j] = False
    np.testing.assert_array_equal(keep, want)


def test_checks():
    with pytest.raises(ValueError, match="mode"):
        P.IOU("giou")
    with pytest.raises(ValueError, match=r"shape \(n, 5\)"):
        P.NMSWithMask()(Tensor(np.ones((2, 4), np.float32)))
    with pytest.raises(TypeError):
        P.IOU()(Tensor(np.ones((2, 4), np.int32)), Tensor(np.ones((2, 4), np.int32)))
