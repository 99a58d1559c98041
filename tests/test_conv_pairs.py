"""Convolutions of tiny planes (up to 4 positions, 64+ channels) as GEMMs per pair of positions
(csrc/kernels/conv_pairs.cc), the input gradient (through _C.conv_backprop_input) and the
forward with its epilogue (_C.conv_forward, _C.conv_forward_fused): against the float64
reference within 16 eps times each output's sum of term magnitudes, any kernel size, stride,
dilation and padding, 0-size batches, float32 / float64; fused = the unfused composition, bit
for bit; the same bits on 1, 2
and 4 threads; a NaN or infinite weight keeps the engine's rule (the padding's zeros times
the weight: NaN on every output whose window holds it)."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mindlite import _C
from mindlite.kernels.cpu import conv_numpy as ref

BOUND = 16


@pytest.fixture(autouse=True)
def restore_threads():
    yield
    _C.set_num_threads(0)


def _out_hw(h, w, k, s, dil, pads):
    """The output plane of a k x k convolution (stride s, dilation dil), None when empty."""
    span = dil * (k - 1) + 1
    if h + pads[0] + pads[1] < span or w + pads[2] + pads[3] < span:
        return None
    return (h + pads[0] + pads[1] - span) // s + 1, (w + pads[2] + pads[3] - span) // s + 1


def _dx(d, w, shape, dil, pads, stride=(1, 1)):
    dx = np.full(shape, 7, d.dtype)
    _C.conv_backprop_input(d, w, dx, stride, dil, pads, 1)
    return dx


def _ref(d, w, shape, dil, pads, stride=(1, 1), absolute=False):
    f = np.abs if absolute else (lambda a: a)
    out = np.empty(shape)
    ref.conv2d_backprop_input_numpy(f(d.astype(np.float64)), f(w.astype(np.float64)), out,
                                    stride, dil, pads, 1)
    return out


@settings(max_examples=25, deadline=None)
@given(n=st.integers(0, 3), c=st.sampled_from([64, 80]), o=st.sampled_from([64, 96]),
       hw=st.sampled_from([(1, 1), (2, 2), (1, 4), (4, 1), (1, 3), (2, 1), (4, 4), (3, 4)]),
       k=st.integers(1, 3), s=st.integers(1, 2), dil=st.integers(1, 2),
       pads=st.tuples(*[st.integers(0, 2)] * 4), dtype=st.sampled_from([np.float32, np.float64]),
       seed=st.integers(0, 2**31))
def test_matches_reference(n, c, o, hw, k, s, dil, pads, dtype, seed):
    h, w = hw
    out_hw = _out_hw(h, w, k, s, dil, pads)
    if out_hw is None:
        return
    oh, ow = out_hw
    rng = np.random.default_rng(seed)
    d = rng.standard_normal((n, o, oh, ow)).astype(dtype)
    wt = rng.standard_normal((o, c, k, k)).astype(dtype)
    shape, geo = (n, c, h, w), ((dil, dil), pads, (s, s))
    got = _dx(d, wt, shape, *geo)
    err = np.abs(got - _ref(d, wt, shape, *geo))
    tol = BOUND * np.finfo(dtype).eps * _ref(d, wt, shape, *geo, absolute=True)
    assert (err <= tol).all(), (err / (tol + 1e-300)).max()


@pytest.mark.parametrize("c, o, h, stride", [(256, 256, 2, 1), (256, 512, 2, 2), (512, 512, 1, 1),
                                             (128, 256, 4, 2)])
def test_resnet18_layers_threads(c, o, h, stride):
    rng = np.random.default_rng(1)
    oh = (h + 2 - 3) // stride + 1
    d = rng.standard_normal((16, o, oh, oh)).astype(np.float32)
    w = rng.standard_normal((o, c, 3, 3)).astype(np.float32)
    got = {}
    for t in (1, 2, 4):
        _C.set_num_threads(t)
        got[t] = _dx(d, w, (16, c, h, h), (1, 1), (1,) * 4, (stride, stride))
    np.testing.assert_array_equal(got[2], got[1])
    np.testing.assert_array_equal(got[4], got[1])


@pytest.mark.parametrize("val", [np.inf, np.nan])
def test_non_finite_weight_keeps_the_engine_rule(val):
    rng = np.random.default_rng(2)
    d = rng.standard_normal((2, 64, 2, 2))
    w = rng.standard_normal((64, 64, 3, 3))
    w[5, 7, 0, 0] = val      # a corner tap: reads padding for 3 of the 4 positions
    got = _dx(d, w, d.shape, (1, 1), (1,) * 4)
    # the engine's rule: every dx position of channel 7 has the corner tap in its window, on
    # dout (position (0, 0): inf times dout) or on its padding (inf times 0: NaN); the pairs
    # alone would leave those three finite, as the numpy reference does
    ch = got[:, 7].reshape(2, 4)
    assert not np.isfinite(ch[:, 0]).any() and np.isnan(ch[:, 1:]).all()
    assert np.isfinite(np.delete(got, 7, axis=1)).all()


def test_gradcheck_float64_through_conv2d():
    """ops.conv2d's input gradient in float64 on a 2 x 2 plane of 64 channels (the registry
    gives Conv2DBackpropInput to the engine, which takes the pairs) against central
    differences."""
    import mindlite as ms
    from mindlite.abstract import abstract_tensor
    from mindlite.kernels.registry import select_kernel

    from gradcheck import check_grad
    k = select_kernel("Conv2DBackpropInput", "CPU", ms.float64, input_abstracts=(
        abstract_tensor(ms.float64, (1, 64, 2, 2)), abstract_tensor(ms.float64, (64, 64, 3, 3)),
        (1, 64, 2, 2)))
    assert k.name == "conv_backprop_input"
    rng = np.random.default_rng(6)
    x, w = rng.standard_normal((1, 64, 2, 2)), rng.standard_normal((64, 64, 3, 3))

    def fn(xt, wt):
        return ms.ops.conv2d(xt, wt, padding=1, pad_mode="pad")
    check_grad(fn, x, w, positions=(0,))


def _fwd_ref(x, w, shape, stride, dil, pads, absolute=False):
    f = np.abs if absolute else (lambda a: a)
    out = np.empty(shape)
    ref.conv2d_numpy(f(x.astype(np.float64)), f(w.astype(np.float64)), out, stride, dil, pads, 1)
    return out


@settings(max_examples=20, deadline=None)
@given(n=st.integers(0, 17), c=st.sampled_from([64, 72]), o=st.sampled_from([64, 80]),
       hw=st.sampled_from([(1, 1), (2, 2), (1, 4), (4, 1), (1, 3), (2, 1)]),
       k=st.integers(1, 3), s=st.integers(1, 2), dil=st.integers(1, 2),
       pads=st.tuples(*[st.integers(0, 2)] * 4), dtype=st.sampled_from([np.float32, np.float64]),
       seed=st.integers(0, 2**31))
def test_forward_matches_reference(n, c, o, hw, k, s, dil, pads, dtype, seed):
    h, w = hw
    out_hw = _out_hw(h, w, k, s, dil, pads)
    if out_hw is None:
        return
    oh, ow = out_hw
    if oh * ow > 4:
        return
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, c, h, w)).astype(dtype)
    wt = rng.standard_normal((o, c, k, k)).astype(dtype)
    shape, geo = (n, o, oh, ow), ((s, s), (dil, dil), pads)
    got = np.full(shape, 7, dtype)
    _C.conv_forward(x, wt, got, *geo, 1)
    err = np.abs(got - _fwd_ref(x, wt, shape, *geo))
    tol = BOUND * np.finfo(dtype).eps * _fwd_ref(x, wt, shape, *geo, absolute=True)
    assert (err <= tol).all(), (err / (tol + 1e-300)).max()


@pytest.mark.parametrize("act", [0, 1, 2, 3, 4, 5])
def test_forward_fused_equals_unfused_and_threads(act):
    """ResNet18's layer3 3 x 3 at 2 x 2 (batch 16): act(conv + bias + residual) fused is the
    engine's epilogue applied to the unfused convolution's bits, on 1 and 2 threads."""
    rng = np.random.default_rng(act)
    x = rng.standard_normal((16, 256, 2, 2)).astype(np.float32)
    w = rng.standard_normal((256, 256, 3, 3)).astype(np.float32)
    bias = rng.standard_normal(256).astype(np.float32)
    res = rng.standard_normal((16, 256, 2, 2)).astype(np.float32)
    geo = ((1, 1), (1, 1), (1,) * 4, 1)
    plain = {}
    for t in (1, 2):
        _C.set_num_threads(t)
        plain[t] = np.empty((16, 256, 2, 2), np.float32)
        _C.conv_forward(x, w, plain[t], *geo)
        fused = np.empty_like(plain[t])
        _C.conv_forward_fused(x, w, bias, res, fused, *geo, act)
        v = plain[t] + bias[None, :, None, None] + res
        if act in (1, 2):
            v = np.where(v <= 0, np.float32(0), v)
        if act == 2:
            v = np.where(v >= 6, np.float32(6), v)
        if act == 5:
            v = np.clip(v, 0, 6)
        if act == 3:
            t3 = np.minimum(v + np.float32(3), np.float32(6))
            v = np.where(v <= -3, np.float32(0), v * (t3 / np.float32(6)))
        if act == 4:
            v = v * (np.float32(1) / (np.float32(1) + np.exp(-v)))
        if act in (0, 1, 2, 5):
            np.testing.assert_array_equal(fused, v)
        else:
            np.testing.assert_allclose(fused, v, rtol=1e-6, atol=1e-6)
    np.testing.assert_array_equal(plain[2], plain[1])


def test_forward_non_finite_weight_keeps_the_engine_rule():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 64, 2, 2))
    w = rng.standard_normal((64, 64, 3, 3))
    w[5, 7, 0, 0] = np.inf    # read on x at output (1, 1), on the padding at the other three
    out = np.empty((4, 64, 2, 2))
    _C.conv_forward(x, w, out, (1, 1), (1, 1), (1,) * 4, 1)
    ch = out[:, 5].reshape(4, 4)
    assert np.isnan(ch[:, :3]).all() and not np.isfinite(ch[:, 3]).any()
    assert np.isfinite(np.delete(out, 5, axis=1)).all()
