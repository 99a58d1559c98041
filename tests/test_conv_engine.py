"""The convolution engine (csrc/kernels/conv_engine.h: dense Conv2D and its two gradients, the
fused bias / residual / activation epilogue) and the depthwise kernels (conv_depthwise.h)
against the numpy reference kernels of conv_numpy.py: hypothesis over batch (0 included),
channels, planes (1 x 1 included), kernels, strides, dilations, paddings and groups; taps that
read only padding; NaN / inf; the same bits on 1 and 2 threads; argument errors; the registry's
choice; float64 finite-difference gradients through ops.conv2d with these kernels selected."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mindlite as ms
from mindlite import Tensor, _C, ops
from mindlite.kernels import registry
from mindlite.kernels.cpu import conv_depthwise_cpp, conv_engine_cpp
from mindlite.kernels.cpu import conv_numpy as ref

from gradcheck import check_grad

ENGINE = (_C.conv_forward, _C.conv_backprop_input, _C.conv_backprop_filter)
DEPTHWISE = (_C.conv_depthwise_forward, _C.conv_depthwise_input, _C.conv_depthwise_filter)
REFERENCE = (ref.conv2d_numpy, ref.conv2d_backprop_input_numpy,
             ref.conv2d_backprop_filter_numpy)


@pytest.fixture(autouse=True)
def direct_engine():
    """The direct engine's own rules and bounds; Winograd (which 3 x 3 stride-1 layers of 16+
    channels take by default) has test_conv_winograd.py."""
    was = _C.conv_winograd(0)
    yield
    _C.conv_winograd(was)


def _out_hw(h, w, k, stride, dil, pads):
    return ((h + pads[0] + pads[1] - dil[0] * (k[0] - 1) - 1) // stride[0] + 1,
            (w + pads[2] + pads[3] - dil[1] * (k[1] - 1) - 1) // stride[1] + 1)


@st.composite
def geometries(draw, depthwise=False):
    group = draw(st.integers(1, 5)) if depthwise else draw(st.sampled_from([1, 1, 2, 3]))
    cg = 1 if depthwise else draw(st.integers(1, 5))
    og = draw(st.integers(1, 3)) if depthwise else draw(st.integers(1, 14))
    k = (draw(st.integers(1, 5)), draw(st.integers(1, 5)))
    stride = (draw(st.sampled_from([1, 1, 2, 3])), draw(st.sampled_from([1, 1, 2, 3])))
    dil = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    pads = tuple(draw(st.integers(0, 3)) for _ in range(4))
    h = draw(st.integers(max(1, dil[0] * (k[0] - 1) + 1 - pads[0] - pads[1]), 11))
    w = draw(st.integers(max(1, dil[1] * (k[1] - 1) + 1 - pads[2] - pads[3]), 40))
    return dict(n=draw(st.integers(0, 4)), c=cg * group, o=og * group, h=h, w=w, k=k,
                stride=stride, dil=dil, pads=pads, group=group,
                dtype=draw(st.sampled_from([np.float32, np.float64])))


def _arrays(g, seed):
    rng = np.random.default_rng(seed)
    dt = g["dtype"]
    x = rng.standard_normal((g["n"], g["c"], g["h"], g["w"])).astype(dt)
    w = rng.standard_normal((g["o"], g["c"] // g["group"]) + g["k"]).astype(dt)
    oh, ow = _out_hw(g["h"], g["w"], g["k"], g["stride"], g["dil"], g["pads"])
    d = rng.standard_normal((g["n"], g["o"], oh, ow)).astype(dt)
    return x, w, d


def _three(fns, x, w, d, g):
    p = (g["stride"], g["dil"], g["pads"], g["group"])
    out = [np.full(a.shape, 7, a.dtype) for a in (d, x, w)]
    for fn, args, o in zip(fns, ((x, w), (d, w), (d, x)), out):
        fn(*args, o, *p)
    return out


def _check(fns, g, seed):
    """Within eps times the sum of the terms' magnitudes (the same convolutions of |x|, |w|,
    |d|): two summation orders may differ by that much where the terms cancel."""
    x, w, d = _arrays(g, seed)
    got = _three(fns, x, w, d, g)
    want = _three(REFERENCE, x, w, d, g)
    bound = _three(REFERENCE, np.abs(x), np.abs(w), np.abs(d), g)
    eps = 8 * np.finfo(g["dtype"]).eps
    for a, b, m in zip(got, want, bound):
        np.testing.assert_array_less(np.abs(a - b), eps * (m + 1))


@settings(max_examples=30, deadline=None)
@given(geometries(), st.integers(0, 2**31))
def test_engine_matches_reference(g, seed):
    _check(ENGINE, g, seed)


@settings(max_examples=30, deadline=None)
@given(geometries(depthwise=True), st.integers(0, 2**31))
def test_depthwise_matches_reference(g, seed):
    _check(DEPTHWISE, g, seed)


@pytest.mark.parametrize("fns", [ENGINE, DEPTHWISE], ids=["engine", "depthwise"])
def test_resnet_and_mobilenet_layers(fns):
    """Planes and channel counts of the benchmark nets (32 x 32 training, batch 2), where the
    GEMM's panels, K blocks and thread split are all in use; a 1 x 1 plane with 3 x 3 'same'
    padding runs the centre tap alone."""
    for c, o, h, k, s in ((64, 64, 8, 3, 1), (64, 128, 8, 3, 2), (256, 256, 2, 3, 1),
                          (48, 40, 1, 3, 1), (3, 64, 32, 7, 2), (96, 24, 16, 1, 1)):
        depthwise = fns is DEPTHWISE
        g = dict(n=2, c=c, o=c if depthwise else o, h=h, w=h, k=(k, k), stride=(s, s),
                 dil=(1, 1), pads=(k // 2,) * 4, group=c if depthwise else 1, dtype=np.float32)
        _check(fns, g, 0)


@pytest.mark.parametrize("fns", [ENGINE, DEPTHWISE], ids=["engine", "depthwise"])
def test_same_bits_on_one_and_two_threads(fns):
    g = dict(n=3, c=32, o=32, h=9, w=13, k=(3, 3), stride=(1, 1), dil=(1, 1),
             pads=(1, 1, 1, 1), group=32 if fns is DEPTHWISE else 1, dtype=np.float32)
    x, w, d = _arrays(g, 1)
    runs = []
    for threads in (1, 2):
        _C.set_num_threads(threads)
        try:
            runs.append(_three(fns, x, w, d, g))
        finally:
            _C.set_num_threads(0)
    for a, b in zip(*runs):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("fns", [ENGINE, DEPTHWISE], ids=["engine", "depthwise"])
def test_nan_and_inf_propagate(fns):
    g = dict(n=1, c=4, o=4, h=5, w=5, k=(3, 3), stride=(1, 1), dil=(1, 1), pads=(1,) * 4,
             group=4 if fns is DEPTHWISE else 1, dtype=np.float64)
    x, w, d = _arrays(g, 2)
    x[0, 0, 2, 2], x[0, 1, 0, 0] = np.nan, np.inf
    got, want = _three(fns, x, w, d, g), _three(REFERENCE, x, w, d, g)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)   # equal_nan by default


ACTS = {0: lambda v: v, 1: lambda v: np.maximum(v, 0), 2: lambda v: np.clip(v, 0, 6),
        3: lambda v: v * np.clip(v + 3, 0, 6) / 6, 4: lambda v: v / (1 + np.exp(-v))}


@pytest.mark.parametrize("act", sorted(ACTS))
@pytest.mark.parametrize("bias,residual", [(False, False), (True, False), (True, True),
                                           (False, True)])
def test_fused_epilogue(act, bias, residual):
    rng = np.random.default_rng(act)
    x = rng.standard_normal((2, 6, 7, 9)).astype(np.float32) * 3
    w = rng.standard_normal((10, 6, 3, 3)).astype(np.float32)
    y = np.empty((2, 10, 7, 9), np.float32)
    ref.conv2d_numpy(x, w, y, (1, 1), (1, 1), (1, 1, 1, 1), 1)
    b = rng.standard_normal(10).astype(np.float32) if bias else None
    r = rng.standard_normal(y.shape).astype(np.float32) if residual else None
    want = ACTS[act](y + (b.reshape(-1, 1, 1) if bias else 0) + (r if residual else 0))
    got = np.empty_like(y)
    _C.conv_forward_fused(x, w, b, r, got, (1, 1), (1, 1), (1, 1, 1, 1), 1, act)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_argument_errors_name_the_function():
    x, w = np.zeros((1, 4, 5, 5), np.float32), np.zeros((3, 4, 3, 3), np.float32)
    with pytest.raises(ValueError, match="conv_forward.*do not describe one convolution"):
        _C.conv_forward(x, w[:, :2], np.zeros((1, 3, 3, 3), np.float32), (1, 1), (1, 1),
                        (0, 0, 0, 0), 1)
    with pytest.raises(ValueError, match="conv_forward.*output plane"):
        _C.conv_forward(x, w, np.zeros((1, 3, 4, 4), np.float32), (1, 1), (1, 1),
                        (0, 0, 0, 0), 1)
    with pytest.raises(TypeError, match="conv_forward.*stride"):
        _C.conv_forward(x, w, np.zeros((1, 3, 3, 3), np.float32), 1, (1, 1), (0, 0, 0, 0), 1)
    with pytest.raises(ValueError, match="conv_depthwise_forward.*group"):
        _C.conv_depthwise_forward(x, np.zeros((4, 2, 3, 3), np.float32),
                                  np.zeros((1, 4, 3, 3), np.float32), (1, 1), (1, 1),
                                  (0, 0, 0, 0), 2)
    with pytest.raises(ValueError, match="conv_forward_fused.*act"):
        _C.conv_forward_fused(x, w, None, None, np.zeros((1, 3, 3, 3), np.float32), (1, 1),
                              (1, 1), (0, 0, 0, 0), 1, 9)
    with pytest.raises(ValueError, match="conv_forward_fused.*bias"):
        _C.conv_forward_fused(x, w, np.zeros(4, np.float32), None,
                              np.zeros((1, 3, 3, 3), np.float32), (1, 1), (1, 1),
                              (0, 0, 0, 0), 1, 0)


class _Abstract:
    def __init__(self, shape):
        self.shape, self.dtype = shape, ms.float32


def test_registry_picks_the_engine_and_depthwise_kernels():
    A = _Abstract
    pick = registry.select_kernel
    assert pick("Conv2D", "CPU", ms.float32,
                input_abstracts=[A((16, 64, 8, 8)), A((64, 64, 3, 3))]).fn is _C.conv_forward
    assert pick("Conv2D", "CPU", ms.float32,
                input_abstracts=[A((16, 96, 16, 16)), A((96, 1, 3, 3))]).fn \
        is _C.conv_depthwise_forward
    assert pick("Conv2DBackpropFilter", "CPU", ms.float32,
                input_abstracts=[A((16, 96, 8, 8)), A((16, 96, 16, 16)),
                                 (96, 1, 3, 3)]).fn is _C.conv_depthwise_filter
    assert pick("Conv2D", "CPU", ms.float32,     # LeNet size: the small-convolution kernel
                input_abstracts=[A((1, 1, 32, 32)), A((6, 1, 5, 5))]).fn \
        is _C.conv_small_forward


@pytest.mark.parametrize("group,stride", [(1, 1), (1, 2), (4, 1), (4, 2)])
def test_float64_gradients_through_ops(monkeypatch, group, stride):
    """ops.conv2d's gradients with these kernels selected for every size (float64 central
    differences, tests/gradcheck.py)."""
    monkeypatch.setattr(conv_engine_cpp, "MIN_MACS", 0)
    monkeypatch.setattr(conv_engine_cpp, "MIN_ROWS", 0)
    c, o = 4, 4 if group == 4 else 3
    rng = np.random.default_rng(group + stride)
    x = rng.standard_normal((2, c, 5, 4))
    w = rng.standard_normal((o, c // group, 3, 3))
    sel = registry.select_kernel("Conv2D", "CPU", ms.float64,
                                 input_abstracts=[_Abstract(x.shape), _Abstract(w.shape)])
    assert sel.fn is (_C.conv_depthwise_forward if group == 4 else _C.conv_forward)

    def fn(a, b):
        return ops.conv2d(a, b, stride=stride, pad_mode="pad", padding=1, groups=group)
    check_grad(fn, x, w)
    assert conv_depthwise_cpp.PRIORITY > conv_engine_cpp.PRIORITY


def test_empty_batch_through_ops():
    x = Tensor(np.zeros((0, 8, 6, 6), np.float32))
    w = Tensor(np.ones((8, 8, 3, 3), np.float32))
    assert ops.conv2d(x, w, pad_mode="same").shape == (0, 8, 6, 6)


@pytest.mark.parametrize("h,stride", [(1, 1), (2, 1), (2, 2), (4, 2), (8, 1), (9, 1)])
def test_depthwise_small_planes_and_epilogue(h, stride):
    """Planes up to 8 wide run channels last (conv_depthwise.h); a 9-wide one the row loops."""
    rng = np.random.default_rng(h + stride)
    c, g = 40, dict(n=3, c=40, o=40, h=h, w=h, k=(3, 3), stride=(stride, stride), dil=(1, 1),
                    pads=(1, 1, 1, 1), group=40, dtype=np.float32)
    _check(DEPTHWISE, g, h)
    x = rng.standard_normal((3, c, h, h)).astype(np.float32) * 4
    w = rng.standard_normal((c, 1, 3, 3)).astype(np.float32)
    b = rng.standard_normal(c).astype(np.float32)
    oh = (h + 2 - 3) // stride + 1
    y = np.empty((3, c, oh, oh), np.float32)
    ref.conv2d_numpy(x, w, y, (stride, stride), (1, 1), (1, 1, 1, 1), c)
    got = np.empty_like(y)
    _C.conv_forward_fused(x, w, b, None, got, (stride, stride), (1, 1), (1, 1, 1, 1), c, 2)
    np.testing.assert_allclose(got, np.clip(y + b.reshape(-1, 1, 1), 0, 6), rtol=1e-5,
                               atol=1e-5)


@pytest.mark.parametrize("c, h, stride", [(40, 7, 1), (37, 4, 1), (96, 8, 2), (20, 5, 1)])
def test_depthwise_small_planes_same_bits_on_any_thread_count(c, h, stride):
    """The channels-last path's split (chunks on whole vectors of channels, a lane-wise tail)
    never changes a bit, with every activation and the bias."""
    rng = np.random.default_rng(c + h)
    x = rng.standard_normal((2, c, h, h)).astype(np.float32) * 4
    w = rng.standard_normal((c, 1, 3, 3)).astype(np.float32)
    b = rng.standard_normal(c).astype(np.float32)
    oh = (h + 2 - 3) // stride + 1
    for act in range(6):
        runs = []
        for threads in (1, 2, 3, 4):
            got = np.empty((2, c, oh, oh), np.float32)
            _C.set_num_threads(threads)
            try:
                _C.conv_forward_fused(x, w, b, None, got, (stride, stride), (1, 1),
                                      (1, 1, 1, 1), c, act)
            finally:
                _C.set_num_threads(0)
            runs.append(got)
        for got in runs[1:]:
            np.testing.assert_array_equal(runs[0], got)
    y = np.empty((2, c, oh, oh), np.float32)
    ref.conv2d_numpy(x, w, y, (stride, stride), (1, 1), (1, 1, 1, 1), c)
    np.testing.assert_allclose(runs[0], np.clip(y + b.reshape(-1, 1, 1), 0, 6), rtol=1e-5,
                               atol=1e-5)          # the last act: 5, Clip(0, 6)
