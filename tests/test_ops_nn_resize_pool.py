"""Issue 13's ops.pad, ops.interpolate, adaptive pooling, avg/max_pool1d and 3d: hypothesis
against PyTorch (skipped without it; non-contiguous, NaN), MindSpore 2.10's printed
values, float64 finite-difference gradients (and of the gradient primitives, whose bprops
are their adjoints), errors naming op/argument/expected/given."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradcheck import check_grad
from helpers import noncontig

import mindlite as ms
from mindlite import Tensor, ops
from mindlite.ops.operations import pool_nd_ops as PN
from mindlite.ops.operations import resize_pad_ops as R

torch = pytest.importorskip("torch")
TF = torch.nn.functional
bounded = settings(max_examples=25, deadline=None)


def _x(data, shape, dtype=np.float64):
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 16)))
    x = rng.standard_normal(shape).astype(dtype)
    if data.draw(st.booleans()):
        x = noncontig(x)
    return x


# ---- pad -----------------------------------------------------------------------------------
@bounded
@given(data=st.data())
def test_pad_against_torch(data):
    mode = data.draw(st.sampled_from(["constant", "reflect", "replicate", "circular"]))
    pairs = data.draw(st.integers(1, 3))
    rank = pairs + data.draw(st.integers(1, 2)) if mode != "constant" else \
        data.draw(st.integers(pairs, 4))
    shape = tuple(data.draw(st.integers(2, 4)) for _ in range(rank))
    x = _x(data, shape)
    pads = []
    for i in range(pairs):
        n = shape[-1 - i]
        lo_min = -1 if mode != "circular" and n >= 3 else 0
        pads += [data.draw(st.integers(lo_min, n - 1)), data.draw(st.integers(lo_min, n - 1))]
    value = data.draw(st.floats(-3, 3)) if mode == "constant" else None
    got = ops.pad(Tensor(x), tuple(pads), mode=mode, value=value).asnumpy()
    want = TF.pad(torch.tensor(np.ascontiguousarray(x)), pads, mode=mode,
                  value=value if value is not None else 0.0).numpy() if mode == "constant" \
        else TF.pad(torch.tensor(np.ascontiguousarray(x)), pads, mode=mode).numpy()
    np.testing.assert_allclose(got, want)


def test_pad_mindspore_values_and_dtypes():
    x = Tensor(np.arange(12, dtype=np.float32).reshape(1, 3, 4))
    np.testing.assert_array_equal(ops.pad(x, (1, 1), mode="replicate").asnumpy()[0, 0],
                                  [0, 0, 1, 2, 3, 3])
    y = ops.pad(Tensor(np.arange(4, dtype=np.int32)), (1, 1), value=2.5)
    assert y.dtype == ms.int32 and y.asnumpy().tolist() == [2, 0, 1, 2, 3, 2]
    b = ops.pad(Tensor(np.array([True, False])), (1, 1), value=True)
    assert b.asnumpy().tolist() == [True, True, False, True]
    assert ops.pad(Tensor(np.ones((0, 3), np.float32)), (1, 1)).shape == (0, 5)
    x4 = Tensor(np.arange(12, dtype=np.float32).reshape(1, 1, 3, 4))
    assert ops.pad(x4, (-1, 1, 1, 1), mode="reflect").shape == (1, 1, 5, 4)
    assert ops.pad(x4, (1, 1), value=Tensor(np.float32(7))).asnumpy()[0, 0, 0, 0] == 7


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad_gradient(mode):
    rng = np.random.default_rng(1)
    pads = (2, 1, -1, 2) if mode != "circular" else (2, 1, 1, 2)
    check_grad(lambda a: ops.pad(a, pads, mode=mode), rng.standard_normal((1, 2, 4, 3)))


@pytest.mark.parametrize("mode", ["constant", "reflect", "edge", "circular"])
def test_pad_grad_primitive_gradient_is_its_adjoint(mode):
    d = np.random.default_rng(2).standard_normal((1, 2, 6, 6))
    check_grad(lambda g: R.PadV3Grad(mode)(g, (2, 1, 1, 1), (1, 2, 4, 3)), d)


def test_pad_errors_leave_input_unchanged():
    x = Tensor(np.arange(12, dtype=np.float32).reshape(1, 1, 3, 4))
    before = x.asnumpy().copy()
    with pytest.raises(ValueError, match=r"pad.*divisible by 2.*1"):
        ops.pad(x, (1,))
    with pytest.raises(TypeError, match=r"pad.*tuple of int.*1\.0"):
        ops.pad(x, (1.0, 1))
    with pytest.raises(TypeError, match=r"pad.*'input_x' must be Tensor.*ndarray"):
        ops.pad(x.asnumpy(), (1, 1))
    with pytest.raises(ValueError, match=r"'mode'.*zeros"):
        ops.pad(x, (1, 1), mode="zeros")
    with pytest.raises(ValueError, match=r"reflect.*can not set value"):
        ops.pad(x, (1, 1), mode="reflect", value=1.0)
    with pytest.raises(ValueError, match=r"PadV3.*reflect.*less than.*\(4,4\)"):
        ops.pad(x, (4, 4, 1, 1), mode="reflect")
    with pytest.raises(ValueError, match=r"PadV3.*pads 5 axes.*only 4"):
        ops.pad(x, (1,) * 10)
    with pytest.raises(ValueError, match=r"PadV3.*reflect mode pads 1 to 3"):
        ops.pad(Tensor(np.ones((2, 2, 2, 2, 2), np.float32)), (1, 1), mode="reflect")
    np.testing.assert_array_equal(x.asnumpy(), before)


# ---- interpolate ---------------------------------------------------------------------------
@bounded
@given(data=st.data())
def test_interpolate_against_torch(data):
    mode = data.draw(st.sampled_from(["nearest", "bilinear", "linear", "area"]))
    spatial = {"bilinear": 2, "linear": 1}.get(mode, data.draw(st.integers(1, 2)))
    shape = (2, 3) + tuple(data.draw(st.integers(1, 7)) for _ in range(spatial))
    size = tuple(data.draw(st.integers(1, 9)) for _ in range(spatial))
    ac = data.draw(st.sampled_from([None, False, True])) if mode in ("bilinear", "linear") \
        else None
    x = _x(data, shape, data.draw(st.sampled_from([np.float32, np.float64])))
    got = ops.interpolate(Tensor(x), size=size, mode=mode, align_corners=ac).asnumpy()
    want = TF.interpolate(torch.tensor(np.ascontiguousarray(x)), size=size, mode=mode,
                          align_corners=ac).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_interpolate_mindspore_values():
    x = Tensor(np.arange(12, dtype=np.float32).reshape(1, 1, 3, 4))
    y = ops.interpolate(x, size=(5, 7), mode="bilinear", align_corners=True)
    np.testing.assert_allclose(y.asnumpy()[0, 0, 1, :4], [2, 2.5, 3, 3.5])
    y = ops.interpolate(x, scale_factor=(1.7, 1.5), mode="bilinear", recompute_scale_factor=True)
    np.testing.assert_allclose(y.asnumpy().ravel()[:6], [0, 0.5, 1.1666667, 1.8333335, 2.5, 3],
                               rtol=1e-6)
    y = ops.interpolate(x, scale_factor=1.7, mode="nearest", recompute_scale_factor=True)
    assert y.shape == (1, 1, 5, 6)
    assert y.asnumpy().ravel()[:8].tolist() == [0, 0, 1, 2, 2, 3, 0, 0]
    y = ops.interpolate(Tensor(np.ones((1, 1, 2, 2, 2), np.float32)), scale_factor=2.0)
    assert y.shape == (1, 1, 4, 4, 4)
    assert ops.interpolate(Tensor(np.ones((1, 1, 2, 2), np.float16)), size=(3, 3)).dtype == \
        ms.float16
    nan = Tensor(np.array([[[1.0, np.nan, 3.0]]]))
    # as PyTorch: a NaN neighbour with weight 0 still gives NaN (MindSpore's CPU kernel: 1.0)
    assert np.isnan(ops.interpolate(nan, size=5, mode="linear").asnumpy()).sum() == 4


@pytest.mark.parametrize("mode, shape, size, ac", [
    ("bilinear", (1, 2, 3, 4), (5, 7), False), ("bilinear", (1, 2, 4, 3), (3, 2), True),
    ("nearest", (1, 2, 3, 4), (2, 7), None), ("linear", (1, 2, 3), (5,), True),
    ("linear", (2, 1, 5), (3,), False), ("nearest", (1, 1, 2, 3, 2), (3, 2, 4), None),
    ("area", (1, 2, 5, 4), (2, 3), None)])
def test_interpolate_gradient(mode, shape, size, ac):
    x = np.random.default_rng(3).standard_normal(shape)
    check_grad(lambda a: ops.interpolate(a, size=size, mode=mode, align_corners=ac), x)


@pytest.mark.parametrize("cls, shape, size", [
    (R.ResizeBilinearGrad, (1, 2, 3, 4), (5, 7)), (R.ResizeNearestNeighborV2Grad, (1, 2, 3, 4),
                                                     (2, 7)),
    (R.ResizeLinear1DGrad, (1, 2, 3), (5,))])
def test_resize_grad_primitive_gradient(cls, shape, size):
    d = np.random.default_rng(4).standard_normal(shape[:2] + size)
    check_grad(lambda g: cls()(g, shape), d)


def test_interpolate_errors():
    x = Tensor(np.ones((1, 1, 3, 4), np.float32))
    with pytest.raises(ValueError, match="'size' and 'scale_factor' cannot be set simult"):
        ops.interpolate(x, size=(5, 7), scale_factor=2.0)
    with pytest.raises(ValueError, match="cannot be both empty"):
        ops.interpolate(x)
    with pytest.raises(ValueError, match="'scale_factor' option cannot.*bilinear.*4D"):
        ops.interpolate(x, scale_factor=2.0, mode="bilinear")
    with pytest.raises(ValueError, match="'align_corners'.*nearest"):
        ops.interpolate(x, size=(5, 7), align_corners=True)
    with pytest.raises(ValueError, match=r"linear only support '\[3\]'D, but got 4D"):
        ops.interpolate(x, size=(5, 7), mode="linear")
    with pytest.raises(ValueError, match="'mode' must be in.*foo"):
        ops.interpolate(x, size=(5, 7), mode="foo")
    with pytest.raises(NotImplementedError, match="interpolate.*bicubic"):
        ops.interpolate(x, size=(5, 7), mode="bicubic")
    with pytest.raises(ValueError, match=r"size\[0\]' must be int and must > 0.*'0'"):
        ops.interpolate(x, size=(0, 7))
    with pytest.raises(TypeError, match="'size' must be int, but got 'float'"):
        ops.interpolate(x, size=5.0)
    with pytest.raises(ValueError, match="same spatial dimensions.*2D.*1D"):
        ops.interpolate(x, size=(5,))
    with pytest.raises(ValueError, match="ResizeNearestNeighborV2.*spatial axes.*non-empty"):
        ops.interpolate(Tensor(np.ones((1, 1, 0, 3), np.float32)), size=(3, 3))
    with pytest.raises(TypeError, match="ResizeNearestNeighborV2.*'x'.*Int32"):
        ops.interpolate(Tensor(np.ones((1, 1, 2, 2), np.int32)), size=(3, 3))


# ---- pooling -------------------------------------------------------------------------------
@bounded
@given(data=st.data())
def test_adaptive_pools_against_torch(data):
    shape = tuple(data.draw(st.integers(1, 3)) for _ in range(data.draw(st.integers(1, 2)))) + \
        (data.draw(st.integers(1, 8)), data.draw(st.integers(1, 8)))
    size = (data.draw(st.integers(1, 6)), data.draw(st.integers(1, 6)))
    x = _x(data, shape)
    t = torch.tensor(np.ascontiguousarray(x))
    np.testing.assert_allclose(ops.adaptive_avg_pool2d(Tensor(x), size).asnumpy(),
                               TF.adaptive_avg_pool2d(t, size).numpy(), rtol=1e-12, atol=1e-12)
    out, idx = ops.adaptive_max_pool2d(Tensor(x), size, return_indices=True)
    want, widx = TF.adaptive_max_pool2d(t, size, return_indices=True)
    np.testing.assert_array_equal(out.asnumpy(), want.numpy())
    np.testing.assert_array_equal(idx.asnumpy(), widx.numpy())
    assert idx.dtype == ms.int64


@bounded
@given(data=st.data())
def test_pool_1d_3d_against_torch(data):
    k = data.draw(st.integers(1, 3))
    s = data.draw(st.integers(1, 3))
    p = data.draw(st.integers(0, k // 2))
    ceil = data.draw(st.booleans())
    include = data.draw(st.booleans())
    x3 = _x(data, (2, 2, data.draw(st.integers(k, 9))))
    t3 = torch.tensor(np.ascontiguousarray(x3))
    np.testing.assert_allclose(ops.avg_pool1d(Tensor(x3), k, s, p, ceil, include).asnumpy(),
                               TF.avg_pool1d(t3, k, s, p, ceil, include).numpy())
    out, idx = ops.max_pool1d(Tensor(x3), k, s, p, 1, ceil, True)
    want, widx = TF.max_pool1d(t3, k, s, p, 1, ceil, True)
    np.testing.assert_array_equal(out.asnumpy(), want.numpy())
    np.testing.assert_array_equal(idx.asnumpy(), widx.numpy())
    x5 = _x(data, (1, 2) + tuple(data.draw(st.integers(k, 5)) for _ in range(3)))
    t5 = torch.tensor(np.ascontiguousarray(x5))
    np.testing.assert_allclose(ops.avg_pool3d(Tensor(x5), k, s, p, ceil, include).asnumpy(),
                               TF.avg_pool3d(t5, k, s, p, ceil, include).numpy())
    d = data.draw(st.integers(1, 2))
    if (k - 1) * d + 1 <= min(x5.shape[2:]) + 2 * p:
        out, idx = ops.max_pool3d(Tensor(x5), k, s, p, d, ceil, True)
        want, widx = TF.max_pool3d(t5, k, s, p, d, ceil, True)
        np.testing.assert_array_equal(out.asnumpy(), want.numpy())
        np.testing.assert_array_equal(idx.asnumpy(), widx.numpy())


def test_pool_mindspore_values():
    x = Tensor(np.arange(12, dtype=np.float32).reshape(1, 1, 3, 4))
    out, idx = ops.adaptive_max_pool2d(x, (2, 3), return_indices=True)
    assert idx.asnumpy().ravel().tolist() == [5, 6, 7, 9, 10, 11]
    np.testing.assert_allclose(ops.adaptive_avg_pool2d(x, (2, None)).asnumpy().ravel(),
                               [2, 3, 4, 5, 6, 7, 8, 9])
    x3 = Tensor(np.arange(12, dtype=np.float32).reshape(1, 3, 4))
    np.testing.assert_allclose(
        ops.avg_pool1d(x3, 3, 2, padding=1, ceil_mode=True, count_include_pad=False).asnumpy()
        .ravel()[:3], [0.5, 2, 3])
    ones = Tensor(np.ones((1, 1, 4, 4, 4), np.float32))
    np.testing.assert_allclose(ops.avg_pool3d(ones, 3, 2, 1, divisor_override=5).asnumpy()
                               .ravel()[:4], [1.6, 2.4, 2.4, 3.6], rtol=1e-6)
    r = ops.max_pool3d(Tensor(np.arange(64, dtype=np.float32).reshape(1, 1, 4, 4, 4)), 2, 2,
                       return_indices=True)
    assert r[1].asnumpy().ravel().tolist() == [21, 23, 29, 31, 53, 55, 61, 63]
    nan = np.zeros((1, 1, 2, 2, 2))
    nan[0, 0, 1, 1, 0] = np.nan
    out, idx = ops.max_pool3d(Tensor(nan), 2, return_indices=True)
    assert np.isnan(out.asnumpy()).all() and idx.asnumpy().item() == 6


@pytest.mark.parametrize("fn, shape", [
    (lambda a: ops.adaptive_avg_pool2d(a, (2, 3)), (1, 2, 5, 4)),
    (lambda a: ops.adaptive_avg_pool1d(a, 3), (2, 2, 9)),      # 2.10: 3 divides the length
    (lambda a: ops.adaptive_max_pool2d(a, (2, 3)), (2, 5, 4)),
    (lambda a: ops.avg_pool3d(a, 2, 1, 1, False, False), (1, 1, 3, 3, 4)),
    (lambda a: ops.avg_pool3d(a, (2, 1, 2), (1, 2, 1), 0, True, True, 3), (1, 2, 3, 3, 4)),
    (lambda a: ops.max_pool3d(a, 2, 1, 1), (1, 1, 3, 3, 4)),
    (lambda a: ops.avg_pool1d(a, 3, 2, 1), (1, 2, 7)),
    (lambda a: ops.max_pool1d(a, 3, 2, 1), (1, 2, 7))])
def test_pool_gradients(fn, shape):
    check_grad(fn, np.random.default_rng(5).standard_normal(shape))


def test_pool_grad_primitives_gradients():
    rng = np.random.default_rng(6)
    x = rng.standard_normal((1, 2, 4, 4, 4))
    out, idx = ops.max_pool3d(Tensor(x), 2, return_indices=True)
    check_grad(lambda g: PN.MaxPool3DGradWithArgmax()(Tensor(x), g, idx), rng.standard_normal(
        out.shape))
    check_grad(lambda g: PN.AvgPool3DGrad(2, 2)(Tensor(x), g), rng.standard_normal(out.shape))
    x2 = rng.standard_normal((2, 5, 4))
    out, idx = ops.adaptive_max_pool2d(Tensor(x2), 2, return_indices=True)
    check_grad(lambda g: PN.AdaptiveMaxPool2DGrad()(Tensor(x2), g, idx),
               rng.standard_normal(out.shape))
    check_grad(lambda g: PN.AdaptiveAvgPool2DGrad(2)(Tensor(x2), g),
               rng.standard_normal(out.shape))


def test_pool_errors():
    x3 = Tensor(np.ones((1, 3, 4), np.float32))
    with pytest.raises(ValueError, match="adaptive_avg_pool1d input must have 3 dim, but got 4"):
        ops.adaptive_avg_pool1d(Tensor(np.ones((1, 1, 3, 4), np.float32)), 2)
    with pytest.raises(ValueError, match="adaptive_avg_pool1d.*'output_size'.*>= 1.*'0'"):
        ops.adaptive_avg_pool1d(x3, 0)
    with pytest.raises(ValueError, match="AdaptiveAvgPool2D.*'output_size'.*-1"):
        ops.adaptive_avg_pool2d(x3, (-1, 2))
    with pytest.raises(ValueError, match="AdaptiveMaxPool2D.*'x'.*rank 3 or 4.*\\[3, 4\\]"):
        ops.adaptive_max_pool2d(Tensor(np.ones((3, 4), np.float32)), 2)
    with pytest.raises(ValueError, match="AdaptiveMaxPool2D.*last two axes.*non-empty"):
        ops.adaptive_max_pool2d(Tensor(np.ones((1, 2, 0, 4), np.float32)), 2)
    assert ops.adaptive_avg_pool2d(Tensor(np.ones((0, 2, 4, 4), np.float32)), 2).shape == \
        (0, 2, 2, 2)
    with pytest.raises(TypeError, match="AdaptiveAvgPool2D.*'x'.*Int64"):
        ops.adaptive_avg_pool2d(Tensor(np.ones((1, 3, 4), np.int64)), 2)
    with pytest.raises(ValueError, match="avg_pool3d.*'input_x'.*5-D.*\\[1, 4, 4, 4\\]"):
        ops.avg_pool3d(Tensor(np.ones((1, 4, 4, 4), np.float32)), 2, 2)
    with pytest.raises(ValueError, match="MaxPool3DWithArgmax.*does not fit"):
        ops.max_pool3d(Tensor(np.ones((1, 1, 2, 2, 2), np.float32)), 3)
    with pytest.raises(ValueError, match="AvgPool3D.*padding.*at most half"):
        ops.avg_pool3d(Tensor(np.ones((1, 1, 4, 4, 4), np.float32)), 2, 1, 2)
    with pytest.raises(ValueError, match="max_pool1d.*'kernel_size'.*>= 1.*0"):
        ops.max_pool1d(x3, 0)
    with pytest.raises(ValueError, match="avg_pool1d.*'input_x'.*3-D"):
        ops.avg_pool1d(Tensor(np.ones((3, 4), np.float32)), 2)


@settings(max_examples=15, deadline=None)
@given(st.integers(1, 3), st.integers(1, 3), st.integers(1, 4), st.sampled_from([1, 2, 3]),
       st.booleans())
def test_adaptive_max_pool1d_equals_numpy(n, c, out, mult, strided):
    """MindSpore 2.10's rule: windows of L - (out - 1) (L // out), stride L // out."""
    length = out * mult
    x = np.random.RandomState(n * 7 + c).randn(n, c, length).astype(np.float32)
    x[0, 0, 0] = np.nan
    t = Tensor(noncontig(x) if strided else x)
    s = length // out
    k = length - (out - 1) * s
    want = np.stack([x[..., i * s:i * s + k].max(-1) for i in range(out)], -1)
    np.testing.assert_array_equal(ops.adaptive_max_pool1d(t, out).asnumpy(), want)


def test_adaptive_max_pool1d_gradient_and_errors():
    x = np.random.RandomState(0).permutation(12).reshape(1, 2, 6) * 1.0   # distinct values
    check_grad(lambda t: ops.adaptive_max_pool1d(ops.cast(t, ms.float32), 2), x, eps=1e-2,
               atol=1e-4)
    with pytest.raises(ValueError, match="adaptive_max_pool1d"):
        ops.adaptive_max_pool1d(Tensor(np.ones((1, 2, 5), np.float32)), 2)
