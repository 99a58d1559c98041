"""The small-convolution C++ kernels (mindlite/kernels/cpu/conv_small_cpp.py,
csrc/kernels/conv_small.cc) against the numpy reference kernels of conv_numpy.py: Conv2D,
Conv2DBackpropInput and Conv2DBackpropFilter over batch, channels, plane, kernel, stride,
padding, dilation and group; NaN / inf; non-contiguous inputs; argument errors; and that
the registry picks them for LeNet-size shapes through the public API."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mindlite as ms
from mindlite import Tensor, nn
from mindlite._C import conv_small_backprop_filter, conv_small_backprop_input, conv_small_forward
from mindlite.kernels import registry
from mindlite.kernels.cpu import conv_numpy as ref

TOL = {np.float32: dict(rtol=1e-5, atol=1e-5), np.float64: dict(rtol=1e-12, atol=1e-12)}


def _out_hw(h, w, k, stride, dil, pads):
    return ((h + pads[0] + pads[1] - dil[0] * (k[0] - 1) - 1) // stride[0] + 1,
            (w + pads[2] + pads[3] - dil[1] * (k[1] - 1) - 1) // stride[1] + 1)


@st.composite
def geometries(draw):
    group = draw(st.sampled_from([1, 1, 2, 3]))
    cg, og = draw(st.integers(1, 3)), draw(st.integers(1, 4))
    k = (draw(st.integers(1, 5)), draw(st.integers(1, 5)))
    stride = (draw(st.sampled_from([1, 1, 1, 2, 3])), draw(st.sampled_from([1, 1, 1, 2, 3])))
    dil = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    pads = tuple(draw(st.integers(0, 3)) for _ in range(4))
    h = draw(st.integers(max(1, dil[0] * (k[0] - 1) + 1 - pads[0] - pads[1]), 12))
    w = draw(st.integers(max(1, dil[1] * (k[1] - 1) + 1 - pads[2] - pads[3]), 12))
    n = draw(st.integers(1, 10))
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    return dict(n=n, c=cg * group, o=og * group, h=h, w=w, k=k, stride=stride, dil=dil,
                pads=pads, group=group, dtype=dtype)


def _arrays(g, seed):
    rng = np.random.default_rng(seed)
    dt = g["dtype"]
    x = rng.standard_normal((g["n"], g["c"], g["h"], g["w"])).astype(dt)
    w = rng.standard_normal((g["o"], g["c"] // g["group"]) + g["k"]).astype(dt)
    oh, ow = _out_hw(g["h"], g["w"], g["k"], g["stride"], g["dil"], g["pads"])
    d = rng.standard_normal((g["n"], g["o"], oh, ow)).astype(dt)
    return x, w, d


def _all_three(x, w, d, g):
    """(forward, input gradient, filter gradient) of the C++ kernels and of numpy's."""
    p = (g["stride"], g["dil"], g["pads"], g["group"])
    got = [np.empty(a.shape, a.dtype) for a in (d, x, w)]
    want = [np.empty(a.shape, a.dtype) for a in (d, x, w)]
    conv_small_forward(x, w, got[0], *p)
    conv_small_backprop_input(d, w, got[1], *p)
    conv_small_backprop_filter(d, x, got[2], *p)
    ref.conv2d_numpy(x, w, want[0], *p)
    ref.conv2d_backprop_input_numpy(d, w, want[1], *p)
    ref.conv2d_backprop_filter_numpy(d, x, want[2], *p)
    return got, want


@settings(max_examples=20, deadline=None)
@given(geometries(), st.integers(0, 2**31))
def test_matches_numpy_reference(g, seed):
    """Within the rounding two summation orders may differ by: eps times the sum of the
    terms' magnitudes (the same convolutions of |x|, |w|, |d|), which a fixed tolerance is
    not where the terms cancel (a float32 output of 0.27 from terms of ~20 differed by
    1.3e-5)."""
    x, w, d = _arrays(g, seed)
    got, want = _all_three(x, w, d, g)
    _, bound = _all_three(np.abs(x), np.abs(w), np.abs(d), g)
    eps = 8 * np.finfo(g["dtype"]).eps
    for a, b, m in zip(got, want, bound):
        np.testing.assert_array_less(np.abs(a - b), eps * (m + 1))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", [
    # (n, c, o, h, w, k, stride, dilation, pads, group): the stride-1 implicit-GEMM paths
    (1, 1, 6, 32, 32, (5, 5), (1, 1), (1, 1), (0, 0, 0, 0), 1),
    (2, 6, 16, 14, 14, (5, 5), (1, 1), (1, 1), (2, 2, 2, 2), 1),
    (3, 4, 6, 9, 7, (3, 2), (1, 1), (2, 3), (1, 0, 3, 1), 2),
    (1, 3, 3, 5, 6, (3, 3), (1, 1), (1, 1), (4, 3, 5, 2), 3),      # pads past the kernel
    (2, 2, 4, 1, 9, (1, 3), (1, 1), (1, 2), (0, 0, 0, 0), 1),
    (1, 2, 2, 4, 4, (1, 1), (1, 1), (1, 1), (0, 0, 0, 0), 1),
    (2, 3, 5, 8, 8, (3, 3), (2, 1), (1, 1), (1, 1, 1, 1), 1),      # stride: im2col paths
    # more samples than output positions: the batch-innermost filter gradient
    (12, 4, 6, 3, 3, (3, 3), (1, 1), (1, 1), (1, 1, 1, 1), 2),
    (10, 3, 4, 5, 6, (2, 3), (2, 3), (2, 1), (0, 2, 1, 0), 1),
])
def test_fixed_geometries(case, dtype):
    n, c, o, h, w, k, stride, dil, pads, group = case
    g = dict(n=n, c=c, o=o, h=h, w=w, k=k, stride=stride, dil=dil, pads=pads, group=group,
             dtype=dtype)
    x, wt, d = _arrays(g, 7)
    got, want = _all_three(x, wt, d, g)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, **TOL[dtype])


LENET = dict(n=1, c=6, o=16, h=14, w=14, k=(5, 5), stride=(1, 1), dil=(1, 1),
             pads=(0, 0, 0, 0), group=1, dtype=np.float32)


def test_non_contiguous_inputs():
    x, w, d = _arrays(LENET, 1)
    xs = np.asfortranarray(x)
    ws = np.ascontiguousarray(np.swapaxes(w, 2, 3)).swapaxes(2, 3)    # same values, strided
    ds = np.asfortranarray(d)
    got, want = _all_three(xs, ws, ds, LENET)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, **TOL[np.float32])
    assert not xs.flags.c_contiguous and not ws.flags.c_contiguous


def test_nan_and_inf_propagate():
    g = dict(LENET, pads=(1, 1, 2, 2))
    x, w, d = _arrays(g, 2)
    x[0, 1, 3, 4], x[0, 2, 7, 7] = np.nan, np.inf
    d[0, 3, 2, 2] = np.nan
    got, want = _all_three(x, w, d, g)
    for a, b in zip(got, want):
        np.testing.assert_array_equal(np.isnan(a), np.isnan(b))
        np.testing.assert_array_equal(np.isinf(a), np.isinf(b))
        fin = np.isfinite(b)
        np.testing.assert_allclose(a[fin], b[fin], **TOL[np.float32])


def test_argument_errors():
    x, w, d = _arrays(LENET, 3)
    out = np.empty_like(d)
    p = ((1, 1), (1, 1), (0, 0, 0, 0), 1)
    with pytest.raises(ValueError, match="conv_small_forward.*output plane"):
        conv_small_forward(x, w, np.empty((1, 16, 9, 10), np.float32), *p)
    with pytest.raises(ValueError, match="do not describe one convolution"):
        conv_small_forward(x, w, out, (1, 1), (1, 1), (0, 0, 0, 0), 4)
    with pytest.raises(TypeError, match="'stride' must be a sequence of 2 ints"):
        conv_small_forward(x, w, out, 1, (1, 1), (0, 0, 0, 0), 1)
    with pytest.raises(ValueError, match="stride"):
        conv_small_forward(x, w, out, (0, 1), (1, 1), (0, 0, 0, 0), 1)
    with pytest.raises(TypeError, match="dtype"):
        conv_small_forward(x.astype(np.float64), w, out, *p)
    with pytest.raises(ValueError, match="4-D"):
        conv_small_forward(x[0], w, out, *p)
    with pytest.raises(ValueError, match="writeable"):
        out.flags.writeable = False
        conv_small_forward(x, w, out, *p)
    # a geometry whose padded planes no buffer holds: refused before anything is allocated
    dil, pad = 2 ** 38, 2 ** 40      # 4 * dil: the 5 x 5 kernel's extent, all in the padding
    with pytest.raises(MemoryError, match="padded planes"):
        conv_small_forward(x, w, np.empty((1, 16, 14, 14), np.float32), (1, 1), (dil, dil),
                           (pad, 0, pad, 0), 1)
    with pytest.raises(ValueError, match="dilated kernel extent"):
        conv_small_forward(x, w, np.empty_like(d), (1, 1), (2 ** 40, 1), (0, 0, 0, 0), 1)
    with pytest.raises(TypeError, match="expected 7 arguments|7"):
        conv_small_backprop_filter(d, x, np.empty_like(w))


class _Abstract:
    def __init__(self, shape):
        self.shape = shape


def test_lenet_through_api_uses_small_kernels():
    """nn.Conv2d forward and both gradients on LeNet's first layer: the registry chooses the
    small kernels for these shapes, and the results equal the numpy provider's."""
    A = _Abstract
    picks = [("Conv2D", [A((1, 1, 32, 32)), A((6, 1, 5, 5))]),
             ("Conv2DBackpropInput", [A((1, 6, 28, 28)), A((6, 1, 5, 5)), (1, 1, 32, 32)]),
             ("Conv2DBackpropFilter", [A((1, 6, 28, 28)), A((1, 1, 32, 32)), (6, 1, 5, 5)])]
    for op, abstracts in picks:
        k = registry.select_kernel(op, "CPU", ms.float32, input_abstracts=abstracts)
        assert k.name.startswith("conv_small_"), (op, k.name)
    x = Tensor(np.random.default_rng(4).standard_normal((1, 1, 32, 32)).astype(np.float32))
    conv = nn.Conv2d(1, 6, 5, pad_mode="valid")
    fn = ms.value_and_grad(lambda a: (conv(a) ** 2).sum(), grad_position=0,
                           weights=conv.trainable_params())
    loss, (dx, (dw,)) = fn(x)
    xa, wa = x.asnumpy(), conv.weight.asnumpy()
    y = np.empty((1, 6, 28, 28), np.float32)
    p = ((1, 1), (1, 1), (0, 0, 0, 0), 1)
    ref.conv2d_numpy(xa, wa, y, *p)
    want_dx, want_dw = np.empty_like(xa), np.empty_like(wa)
    ref.conv2d_backprop_input_numpy(2 * y, wa, want_dx, *p)
    ref.conv2d_backprop_filter_numpy(2 * y, xa, want_dw, *p)
    np.testing.assert_allclose(float(loss.asnumpy()), float((y.astype(np.float64) ** 2).sum()),
                               rtol=1e-5)
    np.testing.assert_allclose(dx.asnumpy(), want_dx, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(dw.asnumpy(), want_dw, rtol=1e-4, atol=1e-3)


def test_selection_predicates():
    # the engine / depthwise kernels (conv_engine_cpp.py, conv_depthwise_cpp.py) rank above
    def small(op, name):
        return next(k for k in registry.registered_kernels(op) if k.name == name)
    conv = small("Conv2D", "conv_small_forward")
    A = _Abstract
    assert conv.supports(ms.float32, [A((1, 1, 32, 32)), A((6, 1, 5, 5))])
    assert conv.supports(ms.float32, [A((64, 16, 4, 4)), A((32, 16, 3, 3))])
    assert not conv.supports(ms.float32, [A((8, 64, 64, 64)), A((64, 64, 3, 3))])
    assert not conv.supports(ms.float16, [A((1, 1, 32, 32)), A((6, 1, 5, 5))])
    grad_in = small("Conv2DBackpropInput", "conv_small_backprop_input")
    assert grad_in.supports(ms.float32, [A((1, 16, 10, 10)), A((16, 6, 5, 5)), (1, 6, 14, 14)])
    assert not grad_in.supports(ms.float32, [A((64, 16, 8, 8)), A((16, 1, 3, 3)),
                                             (64, 1, 8, 8)])
    assert grad_in.supports(ms.float32, [A((64, 32, 4, 4)), A((32, 16, 3, 3)), (64, 16, 4, 4)])
    filt = small("Conv2DBackpropFilter", "conv_small_backprop_filter")
    assert filt.supports(ms.float32, [A((1, 6, 28, 28)), A((1, 1, 32, 32)), (6, 1, 5, 5)])
    assert filt.supports(ms.float32, [A((64, 32, 4, 4)), A((64, 16, 4, 4)), (32, 16, 3, 3)])
    # 9 weights per output channel (digits CNN layer 1): the BLAS kernel wins there
    assert not filt.supports(ms.float32, [A((64, 16, 8, 8)), A((64, 1, 8, 8)), (16, 1, 3, 3)])
