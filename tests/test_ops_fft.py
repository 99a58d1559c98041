"""Discrete Fourier transforms (fft_ops.py FFTC2C / FFTR2C / FFTC2R, fft_func.py): values and
dtypes against torch.fft (MindSpore 2.10 agrees with it on CPU), errors as 2.10, float64
gradients by finite differences and complex-input gradients against torch's."""
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import mindlite as ms
from mindlite import Tensor, ops

from gradcheck import check_grad

RNG = np.random.default_rng(11)
NORMS = [None, "backward", "ortho", "forward"]


def _cplx(shape):
    return RNG.standard_normal(shape) + 1j * RNG.standard_normal(shape)


def _close(got, want, rtol=1e-5, atol=1e-5):
    want = want.detach().resolve_conj().numpy() if isinstance(want, torch.Tensor) else want
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got.asnumpy(), want, rtol=rtol, atol=atol)


ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
N_D = ["fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2",
       "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"]
REAL_ONLY = {"rfft", "ihfft", "rfft2", "ihfft2", "rfftn", "ihfftn"}


@settings(max_examples=30, deadline=None)
@given(name=st.sampled_from(ONE_D), n=st.sampled_from([None, 1, 3, 4, 7]),
       dim=st.sampled_from([-1, 0, 1]), norm=st.sampled_from(NORMS),
       complex_in=st.booleans())
def test_one_dimensional_transforms_match_torch(name, n, dim, norm, complex_in):
    if complex_in and name in REAL_ONLY:
        complex_in = False
    a = _cplx((3, 5)) if complex_in else RNG.standard_normal((3, 5))
    got = getattr(ops, name)(Tensor(a), n, dim, norm)
    want = getattr(torch.fft, name)(torch.tensor(a), n, dim, norm)
    _close(got, want, 1e-10, 1e-10)


@settings(max_examples=30, deadline=None)
@given(name=st.sampled_from(N_D), norm=st.sampled_from(NORMS),
       plan=st.sampled_from([(None, None), ((3, 4), None), (None, (0, 2)), ((2, 6), (2, 0)),
                             ((4,), (-1,)), ((5,), None)]))
def test_multi_dimensional_transforms_match_torch(name, norm, plan):
    s, dim = plan
    a = RNG.standard_normal((2, 3, 4))
    if name.endswith("2") and (dim is None or len(dim) != 2):
        dim = (-2, -1) if s is None or len(s) == 2 else None
        if dim is None:
            return
    kw = {"s": s, "norm": norm}
    if dim is not None:
        kw["dim"] = dim
    got = getattr(ops, name)(Tensor(a), **kw)
    want = getattr(torch.fft, name)(torch.tensor(a), **kw)
    _close(got, want, 1e-10, 1e-10)


@pytest.mark.parametrize("dtype, want", [(np.int16, ms.complex64), (np.int32, ms.complex64),
                                         (np.int64, ms.complex64), (np.float16, ms.complex64),
                                         (np.float32, ms.complex64),
                                         (np.float64, ms.complex128)])
def test_dtypes_as_mindspore(dtype, want):
    x = Tensor(np.arange(6).reshape(2, 3).astype(dtype))
    assert ops.fft(x).dtype == want
    assert ops.rfft(x).dtype == want
    real = ms.float64 if want == ms.complex128 else ms.float32
    assert ops.irfft(x).dtype == real
    assert ops.hfft2(x).dtype == real
    np.testing.assert_allclose(ops.fft(x).asnumpy(), np.fft.fft(np.arange(6).reshape(2, 3)),
                               rtol=1e-3, atol=1e-3)


def test_errors_as_mindspore():
    x = Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(TypeError):
        ops.fft(Tensor(np.ones(3, bool)))
    with pytest.raises(ValueError, match="greater than 0"):
        ops.fft(x, n=0)
    with pytest.raises(ValueError, match="dim"):
        ops.fft(x, dim=2)
    with pytest.raises(ValueError, match="norm"):
        ops.fft(x, norm="bad")
    with pytest.raises(ValueError, match="same length"):
        ops.fft2(x, s=(3,), dim=(0, 1))
    with pytest.raises(ValueError, match="unique"):
        ops.fftn(x, dim=(0, 0))
    with pytest.raises(TypeError):
        ops.rfft(ops.fft(x))


def test_shift_and_frequencies():
    a = np.arange(12).reshape(3, 4)
    for dim in (None, 0, 1, (0, 1), (-1,)):
        np.testing.assert_array_equal(ops.fftshift(Tensor(a), dim).asnumpy(),
                                      np.fft.fftshift(a, dim))
        np.testing.assert_array_equal(ops.ifftshift(Tensor(a), dim).asnumpy(),
                                      np.fft.ifftshift(a, dim))
    f = ops.fftfreq(5)
    assert f.dtype == ms.float32
    np.testing.assert_allclose(f.asnumpy(), np.fft.fftfreq(5), rtol=1e-6)
    np.testing.assert_allclose(ops.fftfreq(4, 0.5, ms.float64).asnumpy(),
                               np.fft.fftfreq(4, 0.5))
    np.testing.assert_allclose(ops.rfftfreq(6, 2.0).asnumpy(), np.fft.rfftfreq(6, 2.0),
                               rtol=1e-6)


@pytest.mark.parametrize("kw", [{}, {"hop_length": 4}, {"center": False, "onesided": False},
                                {"normalized": True}, {"win_length": 4},
                                {"pad_mode": "CONSTANT"}, {"window": "hann"}])
@pytest.mark.parametrize("batched", [False, True])
def test_stft_matches_torch(kw, batched):
    a = RNG.standard_normal((2, 20) if batched else (20,))
    kw = dict(kw)
    tkw = dict(kw)
    if kw.get("window") == "hann":
        w = np.hanning(8)
        kw["window"], tkw["window"] = Tensor(w), torch.tensor(w)
    if "pad_mode" in tkw:
        tkw["pad_mode"] = tkw["pad_mode"].lower()
    got = ops.stft(Tensor(a), 8, return_complex=True, **kw)
    want = torch.stft(torch.tensor(a), 8, return_complex=True, **tkw)
    _close(got, want, 1e-10, 1e-10)
    pair = ops.stft(Tensor(a), 8, **kw)
    _close(pair, torch.view_as_real(want), 1e-10, 1e-10)


def _real_view(z):
    return ops.stack((ops.real(z), ops.imag(z)), -1)


@pytest.mark.parametrize("name, n, norm", [("fft", None, None), ("fft", 7, "ortho"),
                                           ("ifft", 3, "forward"), ("rfft", None, None),
                                           ("rfft", 6, "ortho"), ("rfft", 3, "forward"),
                                           ("ihfft", 4, None), ("irfft", None, None),
                                           ("irfft", 5, "ortho"), ("hfft", 6, "forward")])
def test_real_input_gradients(name, n, norm):
    fn = getattr(ops, name)

    def f(x):
        y = fn(x, n, -1, norm)
        return _real_view(y) if y.dtype.kind == "c" else y
    check_grad(f, RNG.standard_normal((2, 5)))


@pytest.mark.parametrize("name, kw", [("fft2", {}), ("rfftn", {"s": (3, 6)}),
                                      ("irfft2", {"s": (3, 4), "norm": "ortho"}),
                                      ("hfftn", {}), ("ihfft2", {"norm": "forward"}),
                                      ("ifftn", {"dim": (0,)})])
def test_multi_dimensional_gradients(name, kw):
    fn = getattr(ops, name)

    def f(x):
        y = fn(x, **kw)
        return _real_view(y) if y.dtype.kind == "c" else y
    check_grad(f, RNG.standard_normal((3, 4)))


def test_stft_gradient():
    w = np.hanning(8)

    def f(x):
        return ops.stft(x, 8, hop_length=3, window=Tensor(w))
    check_grad(f, RNG.standard_normal(16))


@pytest.mark.parametrize("name, n", [("fft", None), ("fft", 3), ("ifft", 7), ("irfft", None),
                                     ("irfft", 5), ("irfft", 8), ("hfft", 6)])
def test_complex_input_gradients_match_torch(name, n):
    a = _cplx((2, 4))
    wr = RNG.standard_normal((2, 16))

    def loss_ml(x):
        y = getattr(ops, name)(x, n)
        y = _real_view(y).reshape(2, -1) if y.dtype.kind == "c" else y
        return (y * Tensor(wr[:, :y.shape[-1]])).sum()
    g = ms.grad(loss_ml)(Tensor(a))
    t = torch.tensor(a, requires_grad=True)
    y = getattr(torch.fft, name)(t, n)
    y = torch.view_as_real(y).reshape(2, -1) if y.is_complex() else y
    (y * torch.tensor(wr[:, :y.shape[-1]])).sum().backward()
    np.testing.assert_allclose(g.asnumpy(), t.grad.resolve_conj().numpy(), rtol=1e-10, atol=1e-10)


def test_graph_mode():
    @ms.jit
    def f(x):
        return ops.irfft(ops.rfft(x, dim=0), 4, dim=0)
    a = RNG.standard_normal((4, 3))
    np.testing.assert_allclose(f(Tensor(a)).asnumpy(), a, rtol=1e-12, atol=1e-12)
