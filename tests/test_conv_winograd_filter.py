"""Winograd F(2x2, 3x3) filter gradient (csrc/kernels/conv_winograd_filter.cc, through
_C.conv_winograd_filter and conv_cpp.py's Conv2DBackpropFilter): against the float64
reference within the documented bound (docs/conv_engine_rounds.md: 8 eps times the sum, over the 9
taps of the (output, input) channel pair, of the terms' magnitudes; the G^T U G transform mixes
the pair's taps, so a tap next to padding, whose own terms are few, carries the others'
rounding; measured up to 0.57), any plane, padding and channel count, float32 and float64,
the same bits on 1, 2 and 4 threads, where it applies and where it does not (NaN / inf, 1 x 1
planes, strides, groups, Winograd off), and a float64 finite-difference check of the gradient
through nn.Conv2d."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mindlite as ms
from mindlite import _C
from mindlite.abstract import abstract_tensor
from mindlite.kernels.cpu import conv_cpp
from mindlite.kernels.cpu import conv_numpy as ref
from mindlite.kernels.registry import select_kernel

from gradcheck import check_grad

BOUND = 8           # eps x the pair's sum of |terms| over its 9 taps (measured <= 0.57)
ONE = ((1, 1), (1, 1))


pytestmark = pytest.mark.usefixtures("conv_engine_settings_restored")     # conftest.py


def _reference(d, x, pads, absolute=False):
    f = np.abs if absolute else (lambda a: a)
    out = np.empty((d.shape[1], x.shape[1], 3, 3))
    ref.conv2d_backprop_filter_numpy(f(d.astype(np.float64)), f(x.astype(np.float64)), out,
                                     (1, 1), (1, 1), pads, 1)
    return out


def _winograd(d, x, pads):
    out = np.full((d.shape[1], x.shape[1], 3, 3), 7, d.dtype)
    assert _C.conv_winograd_filter(d, x, out, *ONE, pads, 1)
    return out


def _within_bound(got, d, x, pads):
    bound = _reference(d, x, pads, absolute=True).sum(axis=(2, 3), keepdims=True)
    err = np.abs(got - _reference(d, x, pads))
    tol = np.broadcast_to(BOUND * np.finfo(got.dtype).eps * bound, err.shape)
    assert (err <= tol).all(), f"largest error / bound {(err / (tol + 1e-300)).max()}"


@settings(max_examples=30, deadline=None)
@given(n=st.integers(0, 3), c=st.integers(1, 20), o=st.integers(1, 20), h=st.integers(1, 9),
       w=st.integers(1, 9), pads=st.tuples(*[st.integers(0, 2)] * 4),
       dtype=st.sampled_from([np.float32, np.float64]), uniform=st.booleans(),
       seed=st.integers(0, 2**31))
def test_matches_reference(n, c, o, h, w, pads, dtype, uniform, seed):
    """Through the registered kernel (conv_cpp.py): Winograd where the plane is 2 x 2 or more,
    the im2col GEMM elsewhere (0-size, 1-wide planes), each within the bound."""
    rng = np.random.default_rng(seed)
    oh, ow = h + pads[0] + pads[1] - 2, w + pads[2] + pads[3] - 2
    if oh < 1 or ow < 1:
        return
    gen = rng.random if uniform else rng.standard_normal
    x, d = gen((n, c, h, w)).astype(dtype), gen((n, o, oh, ow)).astype(dtype)
    got = np.full((o, c, 3, 3), 7, dtype)
    conv_cpp.conv2d_backprop_filter_cpp(d, x, got, *ONE, pads, 1)
    _within_bound(got, d, x, pads)
    applies = n > 0 and oh >= 2 and ow >= 2
    probe = np.full_like(got, 7)
    assert _C.conv_winograd_filter(d, x, probe, *ONE, pads, 1) == applies
    if applies:
        np.testing.assert_array_equal(probe, got)
    else:
        assert (probe == 7).all()


@pytest.mark.parametrize("c, h", [(64, 8), (128, 4), (256, 2)])
def test_resnet18_layers_bound_and_threads(c, h):
    """ResNet18's 3 x 3 stride-1 layers of a 32 x 32 train step: within the bound, and the same
    bits on 1, 2 and 4 threads (blocks of output channels fixed by the shape)."""
    rng = np.random.default_rng(c)
    x = rng.standard_normal((16, c, h, h)).astype(np.float32)
    d = rng.standard_normal((16, c, h, h)).astype(np.float32)
    got = {}
    for t in (1, 2, 4):
        _C.set_num_threads(t)
        got[t] = _winograd(d, x, (1,) * 4)
    np.testing.assert_array_equal(got[2], got[1])
    np.testing.assert_array_equal(got[4], got[1])
    _within_bound(got[1], d, x, (1,) * 4)


def test_non_contiguous_inputs():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 6, 7, 5)).astype(np.float32)
    d = rng.standard_normal((3, 4, 7, 5)).astype(np.float32)
    xs, ds = x.transpose(0, 1, 3, 2).copy().transpose(0, 1, 3, 2), d[:, ::-1][:, ::-1]
    want = np.empty((4, 6, 3, 3), np.float32)
    conv_cpp.conv2d_backprop_filter_cpp(d, x, want, *ONE, (1,) * 4, 1)
    got = np.empty_like(want)
    conv_cpp.conv2d_backprop_filter_cpp(ds, xs, got, *ONE, (1,) * 4, 1)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("where", ["x_nan", "x_inf", "d_inf", "d_nan"])
def test_nan_and_inf_take_the_gemm(where):
    """A NaN or infinity would spread through a tile's transforms (inf - inf) to taps whose own
    terms are finite: such calls return False and conv_cpp.py's im2col GEMM runs, with its
    bits (those of Winograd turned off)."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 16, 6, 6)).astype(np.float32)
    d = rng.standard_normal((2, 8, 6, 6)).astype(np.float32)
    arr = x if where.startswith("x") else d
    arr[1, 3, 0, 0] = np.nan if where.endswith("nan") else np.inf
    untouched = np.full((8, 16, 3, 3), 7, np.float32)
    assert not _C.conv_winograd_filter(d, x, untouched, *ONE, (1,) * 4, 1)
    assert (untouched == 7).all()
    got = {}
    for mode in (0, 1):
        _C.conv_winograd(mode)
        got[mode] = np.empty((8, 16, 3, 3), np.float32)
        conv_cpp.conv2d_backprop_filter_cpp(d, x, got[mode], *ONE, (1,) * 4, 1)
    np.testing.assert_array_equal(got[1], got[0])
    assert np.isfinite(got[1]).any() and not np.isfinite(got[1]).all()


@pytest.mark.parametrize("stride, dilation, group, kernel, plane, mode", [
    ((2, 2), (1, 1), 1, 3, 6, 1), ((1, 1), (2, 2), 1, 3, 6, 1), ((1, 1), (1, 1), 2, 3, 6, 1),
    ((1, 1), (1, 1), 1, 5, 6, 1), ((1, 1), (1, 1), 1, 3, 1, 1), ((1, 1), (1, 1), 1, 3, 6, 0)])
def test_where_it_does_not_apply(stride, dilation, group, kernel, plane, mode):
    _C.conv_winograd(mode)
    x = np.ones((1, 4, plane, plane), np.float32)
    oh = (plane + 2 - dilation[0] * (kernel - 1) - 1) // stride[0] + 1
    d = np.ones((1, 4, oh, oh), np.float32)
    dw = np.full((4, 4 // group, kernel, kernel), 7, np.float32)
    assert not _C.conv_winograd_filter(d, x, dw, stride, dilation, (1,) * 4, group)
    assert (dw == 7).all()


def test_argument_errors():
    x, d = np.ones((1, 4, 5, 5), np.float32), np.ones((1, 3, 5, 5), np.float32)
    with pytest.raises(ValueError, match="conv_winograd_filter"):
        _C.conv_winograd_filter(d, x, np.empty((3, 4, 2, 2), np.float32), *ONE, (1,) * 4, 1)
    with pytest.raises(TypeError, match="conv_winograd_filter"):
        _C.conv_winograd_filter(d, x.astype(np.float64), np.empty((3, 4, 3, 3), np.float32),
                                *ONE, (1,) * 4, 1)
    with pytest.raises(TypeError, match="conv_winograd_filter"):
        _C.conv_winograd_filter(d, x, np.empty((3, 4, 3, 3), np.float32), *ONE, (1,) * 4)


def test_gradcheck_float64_through_conv2d():
    """ops.conv2d's weight gradient in float64 (this geometry's Conv2DBackpropFilter is
    conv_cpp's kernel, which takes Winograd) against central differences."""
    k = select_kernel("Conv2DBackpropFilter", "CPU", ms.float64, input_abstracts=(
        abstract_tensor(ms.float64, (1, 3, 4, 5)), abstract_tensor(ms.float64, (1, 2, 4, 5)),
        (3, 2, 3, 3)))
    assert k.name == "conv2d_backprop_filter_cpp"
    rng = np.random.default_rng(5)
    x = rng.standard_normal((1, 2, 4, 5))
    w = rng.standard_normal((3, 2, 3, 3))

    def fn(xt, wt):
        return ms.ops.conv2d(xt, wt, padding=1, pad_mode="pad")
    check_grad(fn, x, w)
    got = np.empty((3, 2, 3, 3))
    d = rng.standard_normal((1, 3, 4, 5))
    assert _C.conv_winograd_filter(d, x, got, *ONE, (1,) * 4, 1)
    np.testing.assert_allclose(got, _reference(d, x, (1,) * 4), rtol=1e-12, atol=1e-12)
