"""The convolution engine on NHWC input (_C.conv_forward_fused_nhwc, FusedConvActNHWC) and the
Lite runtime's nhwc_conv_input pass (jit/passes/nhwc_conv_input.py): bit for bit the NCHW
kernel on x's transpose, and the float64 reference; the pass on a converted model."""
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mindlite as ms
from mindlite import _C, nn
from mindlite.jit.passes import nhwc_conv_input
from mindlite.ops.operations.conv_fused_ops import FusedConvAct, FusedConvActNHWC

from gradcheck import check_grad
from lite_models import nhwc, round_trip


def _out_size(h, k, s, lo, hi, d=1):
    return (h + lo + hi - d * (k - 1) - 1) // s + 1


def _both(x_nchw, w, bias, res, stride, dil, pads, act, threads):
    """(NHWC kernel's output, NCHW kernel's output on the same values)."""
    n, _, h, wd = x_nchw.shape
    o, _, kh, kw = w.shape
    shape = (n, o, _out_size(h, kh, stride[0], pads[0], pads[1], dil[0]),
             _out_size(wd, kw, stride[1], pads[2], pads[3], dil[1]))
    got, want = np.full(shape, 7.0, x_nchw.dtype), np.full(shape, 7.0, x_nchw.dtype)
    _C.set_num_threads(threads)
    try:
        _C.conv_forward_fused_nhwc(nhwc(x_nchw), w, bias, res, got, stride, dil, pads, 1, act)
        _C.conv_forward_fused(x_nchw, w, bias, res, want, stride, dil, pads, 1, act)
    finally:
        _C.set_num_threads(0)
    return got, want


def _same_bits(a, b):
    assert a.shape == b.shape and a.dtype == b.dtype
    np.testing.assert_array_equal(a.view(f"u{a.itemsize}"), b.view(f"u{b.itemsize}"))


def _reference(x, w, bias, res, stride, dil, pads, act):
    """float64 NCHW convolution + bias + residual, then the activation."""
    x64 = np.pad(x.astype(np.float64), ((0, 0), (0, 0), pads[:2], pads[2:]))
    o, c, kh, kw = w.shape
    n = x.shape[0]
    oh = _out_size(x.shape[2], kh, stride[0], pads[0], pads[1], dil[0])
    ow = _out_size(x.shape[3], kw, stride[1], pads[2], pads[3], dil[1])
    out = np.zeros((n, o, oh, ow))
    for i in range(kh):
        for j in range(kw):
            patch = x64[:, :, i * dil[0]:i * dil[0] + stride[0] * (oh - 1) + 1:stride[0],
                        j * dil[1]:j * dil[1] + stride[1] * (ow - 1) + 1:stride[1]]
            out += np.einsum("nchw,oc->nohw", patch, w[:, :, i, j].astype(np.float64))
    if bias is not None:
        out += bias.reshape(1, -1, 1, 1)
    if res is not None:
        out += res
    if act in (1, 2, 5):
        out = np.maximum(out, 0)
    if act in (2, 5):
        out = np.minimum(out, 6)
    return out


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 2), c=st.integers(1, 4), o=st.integers(1, 9), h=st.integers(1, 12),
       w=st.integers(1, 40), k=st.integers(1, 3), s=st.integers(1, 3), dil=st.integers(1, 2),
       pads=st.tuples(*[st.integers(0, 2)] * 4), act=st.sampled_from([0, 1, 2, 5]),
       bias=st.booleans(), residual=st.booleans(), threads=st.sampled_from([1, 2]),
       f64=st.booleans(), specials=st.booleans(), seed=st.integers(0, 2**16))
def test_nhwc_kernel_is_the_nchw_kernel_bit_for_bit(n, c, o, h, w, k, s, dil, pads, act, bias,
                                                   residual, threads, f64, specials, seed):
    """Every geometry (the ones the NCHW kernel runs elsewhere, pointwise and Winograd,
    included), NaN / inf / -0 inputs, 1 and 2 threads: the NCHW kernel's bits; and within
    float rounding of the float64 reference."""
    hk = dil * (k - 1) + 1
    if h + pads[0] + pads[1] < hk or w + pads[2] + pads[3] < hk:
        return
    dt = np.float64 if f64 else np.float32
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, c, h, w)).astype(dt)
    if specials:
        x.reshape(-1)[rng.integers(0, x.size, 3)] = [np.nan, np.inf, -0.0]
    wt = rng.standard_normal((o, c, k, k)).astype(dt)
    b = rng.standard_normal(o).astype(dt) if bias else None
    shape = (n, o, _out_size(h, k, s, pads[0], pads[1], dil),
             _out_size(w, k, s, pads[2], pads[3], dil))
    res = rng.standard_normal(shape).astype(dt) if residual else None
    got, want = _both(x, wt, b, res, (s, s), (dil, dil), pads, act, threads)
    _same_bits(got, want)
    if not specials:
        ref = _reference(x, wt, b, res, (s, s), (dil, dil), pads, act)
        tol = 1e-12 if f64 else 1e-4
        np.testing.assert_allclose(got, ref, rtol=tol, atol=tol)


@pytest.mark.parametrize("threads", [1, 2])
def test_mobilenet_v2_stem(threads):
    """The 3 x 3 stride-2 3 -> 32 stem with ReLU6 at 224 x 224 (and a 1 x 1 output column
    tail: 225)."""
    rng = np.random.default_rng(3)
    for size in (224, 225):
        x = rng.standard_normal((1, 3, size, size)).astype(np.float32)
        w = rng.standard_normal((32, 3, 3, 3)).astype(np.float32)
        b = rng.standard_normal(32).astype(np.float32)
        got, want = _both(x, w, b, None, (2, 2), (1, 1), (0, 1, 0, 1), 2, threads)
        _same_bits(got, want)


def test_empty_and_bad_arguments():
    x = np.zeros((0, 5, 5, 3), np.float32)
    w = np.ones((4, 3, 3, 3), np.float32)
    out = np.full((0, 4, 3, 3), 7.0, np.float32)
    _C.conv_forward_fused_nhwc(x, w, None, None, out, (1, 1), (1, 1), (0, 0, 0, 0), 1, 0)
    x = np.ones((1, 5, 5, 3), np.float32)
    out = np.full((1, 4, 3, 3), 7.0, np.float32)
    with pytest.raises(ValueError, match="conv_forward_fused_nhwc"):
        _C.conv_forward_fused_nhwc(x, np.ones((4, 2, 3, 3), np.float32), None, None, out,
                                   (1, 1), (1, 1), (0, 0, 0, 0), 1, 0)
    with pytest.raises(ValueError, match="'group' must be 1"):
        _C.conv_forward_fused_nhwc(np.ones((1, 5, 5, 4), np.float32),
                                   np.ones((4, 2, 3, 3), np.float32), None, None, out,
                                   (1, 1), (1, 1), (0, 0, 0, 0), 2, 0)
    assert (out == 7).all()
    with pytest.raises(ValueError, match="'group' must be 1"):
        FusedConvActNHWC(4, 3, group=2)


def test_primitive_matches_fused_conv_act_and_gradients():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 3, 7, 9))
    w = rng.standard_normal((4, 3, 3, 3))
    b = rng.standard_normal(4)
    args = dict(out_channel=4, kernel_size=3, pad_mode="pad", pad=(1, 0, 1, 1), stride=2,
                has_bias=True, activation="relu6")
    got = FusedConvActNHWC(**args)(ms.Tensor(nhwc(x)), ms.Tensor(w), ms.Tensor(b)).asnumpy()
    want = FusedConvAct(**args)(ms.Tensor(x), ms.Tensor(w), ms.Tensor(b)).asnumpy()
    _same_bits(got, want)
    prim = FusedConvActNHWC(**{**args, "activation": "relu"})
    check_grad(lambda *a: prim(*a), nhwc(x), w, b)


class Stem(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 32, 3, stride=2, pad_mode="pad", padding=1, has_bias=True)
        self.act = nn.ReLU6()
        self.conv2 = nn.Conv2d(32, 8, 1, has_bias=True)

    def construct(self, x):
        return self.conv2(self.act(self.conv(x)))


def _steps(model):
    units = [u for u in model._session.main.units if getattr(u, "program", None) is not None]
    return Counter(type(s.prim).__name__ for u in units for s in u.program.kg.steps
                   if s.prim is not None)


def test_lite_runtime_reads_the_nhwc_input(monkeypatch):
    """Converted to .ms (NHWC input) and run by the Lite runtime: the stem reads the input
    in place (no Transpose step before it), the output bit for bit the runtime's without the
    pass, and eager mindlite's within float32 rounding."""
    net = Stem()
    x = np.random.default_rng(0).standard_normal((1, 3, 66, 61)).astype(np.float32)
    got, want, model = round_trip(net, x)
    steps = _steps(model)
    assert steps["FusedConvActNHWC"] == 1
    monkeypatch.setattr(nhwc_conv_input, "run", lambda g, m: False)
    plain, _, model0 = round_trip(net, x)
    steps0 = _steps(model0)
    assert steps0["FusedConvActNHWC"] == 0
    assert steps["Transpose"] == steps0["Transpose"] - 1
    _same_bits(plain[0], got[0])
    np.testing.assert_allclose(got[0], nhwc(want[0]) if got[0].shape != want[0].shape
                               else want[0], rtol=1e-4, atol=1e-4)
