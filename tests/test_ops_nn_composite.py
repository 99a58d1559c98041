"""nn_composite_func.py (bidense, add_layer_norm, add_rms_norm, col2im, adaptive_max_pool3d,
conv3d_transpose, crop_and_resize, ctc_greedy_decoder) and the augassign / print_ / move_to
helpers against torch and numpy references of MindSpore 2.10's behaviour, with float64
gradient checks."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF

from mindlite import Tensor, ops

from gradcheck import check_grad

RNG = np.random.default_rng(17)


def test_bidense_against_torch_and_gradient():
    a, b = RNG.standard_normal((2, 3, 4)), RNG.standard_normal((2, 3, 5))
    w, bias = RNG.standard_normal((6, 4, 5)), RNG.standard_normal(6)
    got = ops.bidense(Tensor(a), Tensor(b), Tensor(w), Tensor(bias))
    want = TF.bilinear(torch.tensor(a), torch.tensor(b), torch.tensor(w), torch.tensor(bias))
    np.testing.assert_allclose(got.asnumpy(), want.numpy(), rtol=1e-12)
    check_grad(lambda u, v, k: ops.bidense(u, v, k), a[0, :2], b[0, :2], w[:2])


def test_add_norms():
    x1, x2 = RNG.standard_normal((2, 3, 4)), RNG.standard_normal((2, 3, 4))
    g, beta = RNG.standard_normal(4), RNG.standard_normal(4)
    y, mean, rstd, s = ops.add_layer_norm(Tensor(x1), Tensor(x2), Tensor(g), Tensor(beta))
    x = x1 + x2
    want = TF.layer_norm(torch.tensor(x), (4,), torch.tensor(g), torch.tensor(beta))
    np.testing.assert_allclose(y.asnumpy(), want.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(mean.asnumpy(), x.mean(-1, keepdims=True))
    np.testing.assert_allclose(s.asnumpy(), x)
    y, rstd, s = ops.add_rms_norm(Tensor(x1), Tensor(x2), Tensor(g))
    np.testing.assert_allclose(y.asnumpy(), x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-6)
                               * g, rtol=1e-10)
    check_grad(lambda u, v: ops.add_layer_norm(u, v, Tensor(g), Tensor(beta))[0], x1[0], x2[0])


def test_col2im_against_torch_fold():
    cols = RNG.standard_normal((1, 2, 4, 9))
    got = ops.col2im(Tensor(cols), Tensor(np.array([4, 4], np.int32)), 2, 1, 0, 1)
    want = TF.fold(torch.tensor(cols.reshape(1, 8, 9)), (4, 4), 2)
    np.testing.assert_allclose(got.asnumpy(), want.numpy(), rtol=1e-12)


@pytest.mark.parametrize("out", [(1, 2, 2), (2, 3, 3), 1])
def test_adaptive_max_pool3d_against_torch(out):
    x = RNG.standard_normal((2, 3, 4, 5, 6))
    got, idx = ops.adaptive_max_pool3d(Tensor(x), out, True)
    want, widx = TF.adaptive_max_pool3d(torch.tensor(x), out, True)
    np.testing.assert_array_equal(got.asnumpy(), want.numpy())
    np.testing.assert_array_equal(idx.asnumpy(), widx.numpy())
    assert ops.adaptive_max_pool3d(Tensor(x[0]), out).shape == tuple(want.shape[1:])
    check_grad(lambda u: ops.adaptive_max_pool3d(u, out), x[:1, :1, :3, :3, :3])


@pytest.mark.parametrize("kw, tkw", [
    ({}, {}),
    ({"stride": 2}, {"stride": 2}),
    ({"stride": (2, 1, 2), "pad_mode": "pad", "padding": 1, "output_padding": 1},
     {"stride": (2, 1, 2), "padding": 1, "output_padding": (1, 0, 1)}),
    ({"group": 2, "dilation": 2}, {"groups": 2, "dilation": 2}),
])
def test_conv3d_transpose_against_torch(kw, tkw):
    x = RNG.standard_normal((1, 4, 3, 3, 3))
    w = RNG.standard_normal((4, 2, 2, 3, 2))
    kw = dict(kw)
    if "output_padding" in kw:
        kw["output_padding"] = (1, 0, 1)
    got = ops.conv3d_transpose(Tensor(x), Tensor(w), **kw)
    want = TF.conv_transpose3d(torch.tensor(x), torch.tensor(w), **tkw)
    np.testing.assert_allclose(got.asnumpy(), want.numpy(), rtol=1e-10, atol=1e-12)


def test_conv3d_transpose_gradient():
    check_grad(lambda u, k: ops.conv3d_transpose(u, k, stride=2),
               RNG.standard_normal((1, 2, 2, 2, 2)), RNG.standard_normal((2, 1, 2, 2, 2)))


def _np_crop(img, boxes, ids, ch, cw, method, extra):
    """TensorFlow's CropAndResize loop, coordinates in float32, nearest rounding half away
    from zero."""
    _, h, w, c = img.shape
    f = np.float32
    out = np.zeros((len(boxes), ch, cw, c))
    for n, ((y1, x1, y2, x2), b) in enumerate(zip(boxes, ids)):
        for i in range(ch):
            y = y1 * f(h - 1) + f(i) * ((y2 - y1) * f(h - 1) / f(ch - 1)) if ch > 1 else \
                f(0.5) * (y1 + y2) * f(h - 1)
            for j in range(cw):
                x = x1 * f(w - 1) + f(j) * ((x2 - x1) * f(w - 1) / f(cw - 1)) if cw > 1 \
                    else f(0.5) * (x1 + x2) * f(w - 1)
                if not (0 <= y <= h - 1 and 0 <= x <= w - 1):
                    out[n, i, j] = extra
                elif method == "nearest":
                    out[n, i, j] = img[b, int(np.floor(y + f(0.5))), int(np.floor(x + f(0.5)))]
                else:
                    y0, x0 = int(np.floor(y)), int(np.floor(x))
                    y1_, x1_ = min(y0 + 1, h - 1), min(x0 + 1, w - 1)
                    dy, dx = y - y0, x - x0
                    top = img[b, y0, x0] + (img[b, y0, x1_] - img[b, y0, x0]) * dx
                    bot = img[b, y1_, x0] + (img[b, y1_, x1_] - img[b, y1_, x0]) * dx
                    out[n, i, j] = top + (bot - top) * dy
    return out


@pytest.mark.parametrize("method", ["bilinear", "nearest"])
def test_crop_and_resize(method):
    img = RNG.standard_normal((2, 5, 6, 3)).astype(np.float32)
    boxes = np.array([[0, 0, 1, 1], [0.2, 0.1, 0.8, 0.9], [-0.2, 0.5, 0.5, 1.3]], np.float32)
    ids = np.array([0, 1, 1], np.int32)
    got = ops.crop_and_resize(Tensor(img), Tensor(boxes), Tensor(ids), (4, 3), method, -1.0)
    np.testing.assert_allclose(got.asnumpy(),
                               _np_crop(img, boxes, ids, 4, 3, method, -1.0), rtol=1e-5,
                               atol=1e-5)


def test_ctc_greedy_decoder():
    x = np.array([[[0.6, 0.4, 0.2], [0.8, 0.6, 0.3]],
                  [[0.0, 0.6, 0.0], [0.5, 0.4, 0.5]]], np.float32)
    idx, val, shape, logp = ops.ctc_greedy_decoder(Tensor(x), Tensor(np.array([2, 2],
                                                                              np.int32)))
    np.testing.assert_array_equal(idx.asnumpy(), [[0, 0], [0, 1], [1, 0]])
    np.testing.assert_array_equal(val.asnumpy(), [0, 1, 0])
    np.testing.assert_array_equal(shape.asnumpy(), [2, 2])
    np.testing.assert_allclose(logp.asnumpy(), [[-1.2], [-1.3]], rtol=1e-6)
    _, val, _, _ = ops.ctc_greedy_decoder(Tensor(x), Tensor(np.array([2, 2], np.int32)), False)
    np.testing.assert_array_equal(val.asnumpy(), [0, 1, 0, 0])


def test_augassign_print_move_to(capsys):
    x = Tensor(np.array([1.0, 2.0], np.float32))
    np.testing.assert_array_equal(ops.augassign_add(x, x).asnumpy(), [2, 4])
    assert ops.augassign_floordiv(7, 2) == 3 and ops.augassign_mod(7, 3) == 1
    ops.print_("value", x)
    assert "value" in capsys.readouterr().out
    np.testing.assert_array_equal(ops.move_to(x, "CPU").asnumpy(), x.asnumpy())
    with pytest.raises(RuntimeError):
        ops.move_to(x, "GPU")
