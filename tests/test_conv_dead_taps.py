"""The im2col filter gradient (mindlite/kernels/cpu/conv_cpp.py) skips taps that read only
padding (a 3 x 3 'same' convolution of a 1 x 1 or 1 x W plane, or a 5 x 5 one of a 2 x 2
plane): those weights get 0 (NaN where dout's channel holds NaN or inf, as the GEMM over
zeros gave), the live ones the numpy reference's values (float64) and the bits
of the full im2col GEMM (float32, as before the skip), with groups and strides; and through
the public op (Conv2DBackpropFilter) with the registry's choice."""
import numpy as np
import pytest

from mindlite import Tensor
from mindlite.kernels.cpu import conv_cpp
from mindlite.kernels.cpu import conv_numpy as ref
from mindlite.ops.operations import conv_ops as C

CASES = [  # x shape, w shape, stride, pad, group
    ((16, 64, 1, 1), (64, 64, 3, 3), 1, 1, 1),     # ResNet18's layer4 at 32 x 32: one live tap
    ((4, 6, 1, 2), (4, 3, 3, 3), 1, 1, 2),         # a 1 x 2 plane (3 live taps), two groups
    ((3, 4, 2, 2), (6, 4, 5, 5), 2, 2, 1),         # stride 2, a 5 x 5 kernel over 2 x 2
]


def _out_hw(xs, ws, s, p):
    return (xs[2] + 2 * p - ws[2]) // s + 1, (xs[3] + 2 * p - ws[3]) // s + 1


@pytest.mark.parametrize("xs, ws, s, p, group", CASES)
def test_dead_taps_zero_live_taps_match_reference(xs, ws, s, p, group):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(xs)
    d = rng.standard_normal((xs[0], ws[0]) + _out_hw(xs, ws, s, p))
    geo = ((s, s), (1, 1), (p,) * 4, group)
    assert conv_cpp._live_plan(xs, ws[2:], *geo[:3], d.shape[2:]) is not None
    got, want = np.full(ws, 7.0), np.full(ws, 7.0)
    conv_cpp.conv2d_backprop_filter_cpp(d, x, got, *geo)
    ref.conv2d_backprop_filter_numpy(d, x, want, *geo)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("xs, ws, s, p, group", CASES)
def test_same_bits_as_the_full_gemm(xs, ws, s, p, group, monkeypatch):
    rng = np.random.default_rng(1)
    x = rng.standard_normal(xs).astype(np.float32)
    d = rng.standard_normal((xs[0], ws[0]) + _out_hw(xs, ws, s, p)).astype(np.float32)
    geo = ((s, s), (1, 1), (p,) * 4, group)
    skip = np.empty(ws, np.float32)
    conv_cpp.conv2d_backprop_filter_cpp(d, x, skip, *geo)
    monkeypatch.setattr(conv_cpp, "_live_plan", lambda *key: None)
    full = np.empty(ws, np.float32)
    conv_cpp.conv2d_backprop_filter_cpp(d, x, full, *geo)
    np.testing.assert_array_equal(skip, full)


def test_public_op_on_a_one_by_one_plane():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((16, 64, 1, 1)).astype(np.float32)
    d = rng.standard_normal((16, 32, 1, 1)).astype(np.float32)
    got = C.Conv2DBackpropFilter(32, 3, pad_mode="pad", pad=1)(
        Tensor(d), Tensor(x), (32, 64, 3, 3)).asnumpy()
    want = np.empty((32, 64, 3, 3), np.float32)
    ref.conv2d_backprop_filter_numpy(d, x, want, (1, 1), (1, 1), (1, 1, 1, 1), 1)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    dead = np.ones((3, 3), bool)
    dead[1, 1] = False
    assert not got[:, :, dead].any()


def test_nan_or_inf_in_dout_reaches_the_dead_taps():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 1, 1))
    d = rng.standard_normal((2, 4, 1, 1))
    d[1, 0, 0, 0], d[0, 2, 0, 0] = np.nan, np.inf
    geo = ((1, 1), (1, 1), (1, 1, 1, 1), 1)
    got, want = np.empty((4, 3, 3, 3)), np.empty((4, 3, 3, 3))
    conv_cpp.conv2d_backprop_filter_cpp(d, x, got, *geo)
    ref.conv2d_backprop_filter_numpy(d, x, want, *geo)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, equal_nan=True)
    dead = np.ones((3, 3), bool)
    dead[1, 1] = False
    assert np.isnan(got[0][:, dead]).all() and np.isnan(got[2][:, dead]).all()
    assert not np.isnan(got[1]).any() and not np.isnan(got[3]).any()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_expand_taps_matches_numpy_scatter_and_threads(dtype):
    """_C.conv_expand_taps (the dead taps' zeros and the live values in one pass, rows split over
    the pool) writes what numpy's fill + fancy-index store wrote, on 1 and 2 threads; a
    non-contiguous out keeps the numpy path."""
    from mindlite import _C
    rng = np.random.default_rng(4)
    live = np.array([0, 4, 5, 8], np.intp)
    src = rng.standard_normal((70, 33 * 4)).astype(dtype)
    want = np.zeros((70, 33, 9), dtype)
    want[:, :, live] = src.reshape(70, 33, 4)
    try:
        for t in (1, 2):
            _C.set_num_threads(t)
            got = np.full((70, 33, 3, 3), 7, dtype)
            _C.conv_expand_taps(src, got, live)
            np.testing.assert_array_equal(got.reshape(70, 33, 9), want)
    finally:
        _C.set_num_threads(0)
    with pytest.raises(ValueError, match="conv_expand_taps"):
        _C.conv_expand_taps(src, np.empty((70, 33, 3, 3), dtype), live[::-1].copy())
    with pytest.raises(ValueError, match="conv_expand_taps"):
        _C.conv_expand_taps(src, np.empty((70, 32, 3, 3), dtype), live)
    with pytest.raises(ValueError, match="conv_expand_taps"):
        _C.conv_expand_taps(src, np.empty((70, 33, 3, 3), dtype), np.array([0, 4, 5, 9], np.intp))
    x = rng.standard_normal((2, 3, 1, 1)).astype(dtype)
    d = rng.standard_normal((2, 4, 1, 1)).astype(dtype)
    geo = ((1, 1), (1, 1), (1, 1, 1, 1), 1)
    dense, strided = np.empty((4, 3, 3, 3), dtype), np.empty((4, 3, 3, 6), dtype)[..., ::2]
    conv_cpp.conv2d_backprop_filter_cpp(d, x, dense, *geo)
    conv_cpp.conv2d_backprop_filter_cpp(d, x, strided, *geo)
    np.testing.assert_array_equal(strided, dense)
