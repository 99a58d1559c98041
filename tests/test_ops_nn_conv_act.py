"""Issue 13's ops.conv1d, conv3d, conv_transpose2d, prelu and glu: hypothesis against
PyTorch (skipped without it), MindSpore 2.10's values, float64 finite-difference
gradients, errors naming op/argument/expected/given."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gradcheck import check_grad
from helpers import noncontig

import mindlite as ms
from mindlite import Tensor, ops

torch = pytest.importorskip("torch")
TF = torch.nn.functional
bounded = settings(max_examples=20, deadline=None)


def _arr(rng, shape, nc=False):
    x = rng.standard_normal(shape)
    return noncontig(x) if nc else x


def _t(x):
    return torch.tensor(np.ascontiguousarray(x))


@bounded
@given(data=st.data())
def test_conv1d_conv3d_against_torch(data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 16)))
    g = data.draw(st.sampled_from([1, 2]))
    k = data.draw(st.integers(1, 3))
    s, d, p = (data.draw(st.integers(1, 2)) for _ in range(3))
    nc = data.draw(st.booleans())
    x = _arr(rng, (2, 2 * g, data.draw(st.integers(k * d + 1, 9))), nc)
    w, b = _arr(rng, (2 * g, 2, k)), rng.standard_normal(2 * g)
    got = ops.conv1d(Tensor(x), Tensor(w), Tensor(b), s, "pad", p, d, g).asnumpy()
    want = TF.conv1d(_t(x), _t(w), _t(b), s, p, d, g).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)
    sp = tuple(data.draw(st.integers((k - 1) * d + 2, 6)) for _ in range(3))
    x5 = _arr(rng, (1, 2 * g) + sp, nc)
    w5 = _arr(rng, (2 * g, 2, k, data.draw(st.integers(1, 2)), k))
    stride = (s, data.draw(st.integers(1, 2)), 1)
    got = ops.conv3d(Tensor(x5), Tensor(w5), None, stride, "pad", (p, 0, 1), (d, 1, d), g)
    want = TF.conv3d(_t(x5), _t(w5), None, stride, (p, 0, 1), (d, 1, d), g)
    np.testing.assert_allclose(got.asnumpy(), want.numpy(), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("pad_mode", ["valid", "same"])
def test_conv1d_conv3d_pad_modes(pad_mode):
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((2, 4, 9)), rng.standard_normal((6, 2, 3))
    np.testing.assert_allclose(ops.conv1d(Tensor(x), Tensor(w), groups=2,
                                          pad_mode=pad_mode).asnumpy(),
                               TF.conv1d(_t(x), _t(w), groups=2, padding=pad_mode).numpy())
    x5, w5 = rng.standard_normal((1, 2, 5, 6, 7)), rng.standard_normal((4, 2, 3, 3, 1))
    np.testing.assert_allclose(ops.conv3d(Tensor(x5), Tensor(w5), pad_mode=pad_mode).asnumpy(),
                               TF.conv3d(_t(x5), _t(w5), padding=pad_mode).numpy())


def test_conv_mindspore_values():
    x = Tensor(np.arange(8, dtype=np.float32).reshape(1, 2, 4))
    w = Tensor(np.ones((1, 2, 2), np.float32))
    y = ops.conv1d(x, w, Tensor(np.ones(1, np.float32)))
    assert y.dtype == ms.float32 and y.asnumpy().ravel().tolist() == [11, 15, 19]
    x5 = Tensor(np.ones((1, 2, 5, 6, 7), np.float32))
    assert ops.conv3d(x5, Tensor(np.ones((4, 2, 2, 3, 3), np.float32))).shape == (1, 4, 4, 4, 5)
    assert ops.conv3d(x5, Tensor(np.ones((4, 2, 2, 3, 3), np.float32)), stride=(1, 2, 1),
                      dilation=2, pad_mode="pad", padding=1).shape == (1, 4, 5, 2, 5)


@bounded
@given(data=st.data())
def test_conv_transpose2d_against_torch(data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 16)))
    g = data.draw(st.sampled_from([1, 2]))
    s = (data.draw(st.integers(1, 3)), data.draw(st.integers(1, 2)))
    d = (data.draw(st.integers(1, 2)), 1)
    p = (data.draw(st.integers(0, 1)), data.draw(st.integers(0, 1)))
    op = tuple(data.draw(st.integers(0, max(si, di) - 1)) for si, di in zip(s, d))
    x = _arr(rng, (2, 2 * g, 4, 3), data.draw(st.booleans()))
    w, b = rng.standard_normal((2 * g, 3, 3, 2)), rng.standard_normal(3 * g)
    got = ops.conv_transpose2d(Tensor(x), Tensor(w), Tensor(b), s, p, op, g, d).asnumpy()
    want = TF.conv_transpose2d(_t(x), _t(w), _t(b), s, p, op, g, d).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)


@bounded
@given(data=st.data())
def test_prelu_glu_against_torch(data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2 ** 16)))
    rank = data.draw(st.integers(0, 4))
    shape = tuple(data.draw(st.integers(1, 4)) for _ in range(rank))
    x = _arr(rng, shape)
    x.ravel()[:1] = 0.0 if x.size else x.ravel()[:1]
    n = shape[1] if rank >= 2 else 1
    w = rng.uniform(-1, 1, data.draw(st.sampled_from([1, n])))
    np.testing.assert_allclose(ops.prelu(Tensor(x), Tensor(w)).asnumpy(),
                               TF.prelu(_t(x), _t(w)).numpy())
    if rank:
        axis = data.draw(st.integers(-rank, rank - 1))
        xg = _arr(rng, shape[:axis % rank] + (2 * shape[axis],) + shape[axis % rank + 1:])
        np.testing.assert_allclose(ops.glu(Tensor(xg), axis).asnumpy(),
                                   TF.glu(_t(xg), axis).numpy(), rtol=1e-12)


def test_prelu_glu_mindspore_values():
    y = ops.prelu(Tensor(np.array([-1.0, 2.0], np.float32)), Tensor(np.array([0.1], np.float32)))
    np.testing.assert_allclose(y.asnumpy(), [-0.1, 2.0])
    y = ops.glu(Tensor(np.array([[1.0, 2.0, 0.0, 3.0]], np.float32)))
    np.testing.assert_allclose(y.asnumpy(), [[0.5, 2 / (1 + np.exp(-3.0))]], rtol=1e-6)
    nan = ops.prelu(Tensor(np.array([np.nan, -np.inf])), Tensor(np.array([0.5])))
    assert np.isnan(nan.asnumpy()[0]) and nan.asnumpy()[1] == -np.inf


@pytest.mark.parametrize("fn, shapes", [
    (lambda a, b: ops.conv1d(a, b, stride=2, pad_mode="pad", padding=1, groups=2),
     [(1, 4, 6), (4, 2, 3)]),
    (lambda a, b, c: ops.conv3d(a, b, c, (2, 1, 1), "pad", 1, 1, 2),
     [(1, 4, 3, 3, 3), (2, 2, 2, 2, 2), (2,)]),
    (lambda a, b: ops.conv_transpose2d(a, b, stride=2, padding=1, output_padding=1),
     [(1, 2, 3, 3), (2, 3, 3, 3)]),
    (lambda a, b: ops.prelu(a, b), [(2, 3, 4), (3,)]),
    (lambda a: ops.glu(a, 1), [(2, 4, 3)])])
def test_gradients(fn, shapes):
    rng = np.random.default_rng(7)
    check_grad(fn, *[rng.standard_normal(s) for s in shapes])


def test_prelu_gradient_at_zero_is_weight():
    x = ms.Parameter(Tensor(np.zeros((1, 2, 1))), name="x")
    w = Tensor(np.array([0.25, 0.5]))
    gx = ops.grad(lambda a: ops.prelu(a, w).sum())(x)
    np.testing.assert_allclose(gx.asnumpy().ravel(), [0.25, 0.5])


def test_errors():
    x = Tensor(np.ones((2, 4, 9), np.float32))
    w = Tensor(np.ones((6, 2, 3), np.float32))
    with pytest.raises(ValueError, match=r"conv1d.*padding must be a tuple.*1 element.*\(1, 2\)"):
        ops.conv1d(x, w, groups=2, pad_mode="pad", padding=(1, 2))
    with pytest.raises(ValueError, match=r"conv1d.*'input' must be a 3-D.*\[2, 4\]"):
        ops.conv1d(Tensor(np.ones((2, 4), np.float32)), w)
    with pytest.raises(ValueError, match=r"Conv2D.*'pad' must be zero"):
        ops.conv1d(x, w, groups=2, padding=1)
    x5 = Tensor(np.ones((1, 2, 5, 6, 7), np.float32))
    w5 = Tensor(np.ones((4, 2, 2, 3, 3), np.float32))
    with pytest.raises(ValueError, match=r"conv3d.*'padding'.*3 integers.*\(1, 0, 1, 0, 1, 1\)"):
        ops.conv3d(x5, w5, pad_mode="pad", padding=(1, 0, 1, 0, 1, 1))
    with pytest.raises(ValueError, match=r"conv3d.*'pad_mode'.*'full'"):
        ops.conv3d(x5, w5, pad_mode="full")
    with pytest.raises(ValueError, match=r"conv3d.*'stride'.*\(1, 2\)"):
        ops.conv3d(x5, w5, stride=(1, 2))
    x4, w4 = Tensor(np.ones((1, 4, 5, 6), np.float32)), Tensor(np.ones((4, 3, 3, 3), np.float32))
    with pytest.raises(ValueError, match=r"conv_transpose2d.*'output_padding'.*smaller"):
        ops.conv_transpose2d(x4, w4, output_padding=1)
    with pytest.raises(ValueError, match=r"conv_transpose2d.*'weight'.*C_in = 4"):
        ops.conv_transpose2d(x4, Tensor(np.ones((3, 3, 3, 3), np.float32)))
    with pytest.raises(ValueError, match=r"prelu.*number of channels: 4.*\[2\]"):
        ops.prelu(x4, Tensor(np.ones(2, np.float32)))
    with pytest.raises(TypeError, match=r"prelu.*float tensors.*Int32"):
        ops.prelu(Tensor(np.array([-1, 2], np.int32)), Tensor(np.array([1], np.int32)))
    with pytest.raises(ValueError, match=r"glu.*x.shape\[2\] must be divisible by 2.*5"):
        ops.glu(x4, 2)
    with pytest.raises(ValueError, match=r"glu.*'axis'.*\[-4, 4\).*5"):
        ops.glu(x4, 5)
    with pytest.raises(TypeError, match=r"Sigmoid.*Int32"):
        ops.glu(Tensor(np.array([1, 2], np.int32)))


def test_conv_transpose2d_output_padding_beyond_stride():
    """Regression: output_padding >= stride (allowed when dilation is larger) asked
    Conv2DBackpropInput for an input size no Conv2D maps onto the input's shape."""
    rng = np.random.default_rng(11)
    x, w = rng.standard_normal((2, 2, 4, 3)), rng.standard_normal((2, 3, 3, 2))
    got = ops.conv_transpose2d(Tensor(x), Tensor(w), None, 1, (1, 0), (1, 0), 1, (2, 1))
    want = TF.conv_transpose2d(_t(x), _t(w), None, 1, (1, 0), (1, 0), 1, (2, 1))
    np.testing.assert_allclose(got.asnumpy(), want.numpy(), rtol=1e-10, atol=1e-10)
    check_grad(lambda a, b: ops.conv_transpose2d(a, b, None, 1, 1, 1, 1, 2), x[:1], w)
