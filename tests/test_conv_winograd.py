"""Winograd F(2x2, 3x3) (csrc/kernels/conv_winograd.cc; off by default, _C.conv_winograd
switches it): 3 x 3 stride-1 convolutions and their stride-1 input gradients against the numpy
reference within 4 eps times the sum of the terms' magnitudes, odd planes and any padding, the
fused epilogue, the same bits on 1 and 2 threads, and what it leaves to the direct engine."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mindlite import _C
from mindlite.kernels.cpu import conv_numpy as ref


@pytest.fixture(autouse=True)
def winograd_on():
    was = _C.conv_winograd(True)
    yield
    _C.conv_winograd(was)


def _conv(fn, a, w, out_shape, pads):
    out = np.full(out_shape, 7, a.dtype)
    fn(a, w, out, (1, 1), (1, 1), pads, 1)
    return out


@settings(max_examples=15, deadline=None)
@given(n=st.integers(1, 3), c=st.integers(16, 24), o=st.integers(16, 20),
       h=st.integers(17, 26), w=st.integers(17, 26),                # >= 64 tiles: Winograd
       pads=st.tuples(*[st.integers(0, 2)] * 4), dtype=st.sampled_from([np.float32,
                                                                      np.float64]),
       seed=st.integers(0, 2**31))
def test_matches_reference(n, c, o, h, w, pads, dtype, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, c, h, w)).astype(dtype)
    wt = rng.standard_normal((o, c, 3, 3)).astype(dtype)
    shape = (n, o, h + pads[0] + pads[1] - 2, w + pads[2] + pads[3] - 2)
    got = _conv(_C.conv_forward, x, wt, shape, pads)
    want = _conv(ref.conv2d_numpy, x, wt, shape, pads)
    bound = _conv(ref.conv2d_numpy, np.abs(x), np.abs(wt), shape, pads)
    eps = 4 * np.finfo(dtype).eps
    np.testing.assert_array_less(np.abs(got - want), eps * (bound + 1))
    d = rng.standard_normal(shape).astype(dtype)
    got = _conv(_C.conv_backprop_input, d, wt, x.shape, pads)
    want = _conv(ref.conv2d_backprop_input_numpy, d, wt, x.shape, pads)
    bound = _conv(ref.conv2d_backprop_input_numpy, np.abs(d), np.abs(wt), x.shape, pads)
    np.testing.assert_array_less(np.abs(got - want), eps * (bound + 1))


def test_fused_epilogue_and_threads():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 32, 15, 12)).astype(np.float32)
    w = rng.standard_normal((24, 32, 3, 3)).astype(np.float32)
    b = rng.standard_normal(24).astype(np.float32)
    r = rng.standard_normal((2, 24, 15, 12)).astype(np.float32)
    plain = _conv(ref.conv2d_numpy, x, w, r.shape, (1, 1, 1, 1))
    want = np.clip(plain + b.reshape(-1, 1, 1) + r, 0, 6)
    runs = []
    for threads in (1, 2):
        _C.set_num_threads(threads)
        try:
            got = np.empty_like(r)
            _C.conv_forward_fused(x, w, b, r, got, (1, 1), (1, 1), (1, 1, 1, 1), 1, 2)
            runs.append(got)
        finally:
            _C.set_num_threads(0)
    np.testing.assert_array_equal(runs[0], runs[1])
    np.testing.assert_allclose(runs[0], want, rtol=1e-4, atol=1e-4)
    _C.conv_winograd(False)                     # the direct engine sums in another order
    direct = np.empty_like(r)
    _C.conv_forward_fused(x, w, b, r, direct, (1, 1), (1, 1), (1, 1, 1, 1), 1, 2)
    assert not np.array_equal(direct, runs[0])


def test_other_convolutions_keep_the_direct_engine():
    """Few tiles, few channels, strides and dead taps go to the direct engine: the same
    bits with the switch on and off."""
    rng = np.random.default_rng(2)
    for shape, k, pads in (((1, 16, 4, 4), 16, (1,) * 4),          # 4 tiles
                           ((4, 8, 16, 16), 8, (1,) * 4),           # 8 channels
                           ((16, 32, 1, 1), 32, (1,) * 4)):         # one live tap
        x = rng.standard_normal(shape).astype(np.float32)
        w = rng.standard_normal((k, shape[1], 3, 3)).astype(np.float32)
        oh = shape[2] + pads[0] + pads[1] - 2
        on = _conv(_C.conv_forward, x, w, (shape[0], k, oh, oh), pads)
        _C.conv_winograd(False)
        off = _conv(_C.conv_forward, x, w, (shape[0], k, oh, oh), pads)
        _C.conv_winograd(True)
        np.testing.assert_array_equal(on, off)
    with pytest.raises(TypeError, match="conv_winograd"):
        _C.conv_winograd(1)
