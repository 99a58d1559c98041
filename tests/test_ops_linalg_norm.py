"""Issue 13's ops.norm (vector and matrix ord variants, as MindSpore 2.10's composite), ops.svd
(its singular values serve 'nuc', 2, -2) and ops.cosine_similarity: hypothesis against
numpy.linalg.norm / numpy.linalg.svd (empty, non-contiguous, keepdim, dtype), MindSpore
2.10's printed values, float64 finite-difference gradients away from kinks, errors as
MindSpore words them."""
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gradcheck import check_grad
from helpers import arrays, assert_close, noncontig, tensor

import mindlite as ms
from mindlite import Tensor, ops

with_fixture = settings(suppress_health_check=list(settings.default.suppress_health_check)
                        + [HealthCheck.function_scoped_fixture], max_examples=30,
                        deadline=None)
VECTOR_ORDS = [None, 2, 1, 0, 3, 0.5, -1, math.inf, -math.inf]
MATRIX_ORDS = ["fro", "nuc", 2, -2, 1, -1, math.inf, -math.inf]


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).uniform(0.2, 1, shape) * \
        np.where(np.random.default_rng(seed + 1).uniform(size=shape) < 0.5, -1, 1)


@with_fixture
@given(data=st.data())
def test_vector_norm_against_numpy(policy, data):
    dtype = data.draw(st.sampled_from([np.float32, np.float64]))
    shape = tuple(data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    x = data.draw(arrays(dtype, shape, allow_special=False, min_value=-10, max_value=10))
    x = noncontig(x) if data.draw(st.booleans()) else x
    ord = data.draw(st.sampled_from(VECTOR_ORDS))
    dim = data.draw(st.integers(-x.ndim, x.ndim - 1))
    keep = data.draw(st.booleans())
    with np.errstate(all="ignore"):
        want = np.linalg.norm(x.astype(np.float64), ord, dim, keep)
    got = ops.norm(tensor(x), ord, dim, keep)
    assert_close(got, want.astype(dtype), rtol=1e-4, atol=1e-5)
    assert_close(tensor(x).norm(ord, dim, keep), want.astype(dtype), rtol=1e-4, atol=1e-5)


@with_fixture
@given(data=st.data())
def test_matrix_norm_against_numpy(policy, data):
    dtype = data.draw(st.sampled_from([np.float32, np.float64]))
    shape = tuple(data.draw(st.lists(st.integers(1, 4), min_size=2, max_size=3)))
    x = data.draw(arrays(dtype, shape, allow_special=False, min_value=-10, max_value=10))
    ord = data.draw(st.sampled_from(MATRIX_ORDS))
    d0 = data.draw(st.integers(0, x.ndim - 1))
    d1 = data.draw(st.integers(0, x.ndim - 1).filter(lambda d: d != d0))
    keep = data.draw(st.booleans())
    want = np.linalg.norm(x.astype(np.float64), ord, (d0, d1), keep)
    assert_close(ops.norm(tensor(x), ord, (d0, d1), keep), want.astype(dtype), rtol=1e-4,
                 atol=1e-5)


def test_norm_defaults_and_mindspore_values():
    x = Tensor(np.array([[1.0, -2, 3], [4, 5, 7]], np.float32))
    assert float(ops.norm(x)) == pytest.approx(10.198039)
    assert float(ops.norm(Tensor([[1, 2]]))) == pytest.approx(math.sqrt(5))   # ints: float32
    assert ops.norm(Tensor([[1, 2]])).dtype == ms.float32
    np.testing.assert_allclose(ops.norm(x, 0, 1).asnumpy(), [3, 3])
    np.testing.assert_allclose(ops.norm(x, -1, 1).asnumpy(), [0.5454545, 1.686747], 1e-6)
    assert float(ops.norm(x, 1, (0, 1))) == 10 and float(ops.norm(x, -1, (0, 1))) == 5
    assert float(ops.norm(x, math.inf, (0, 1))) == 16
    assert float(ops.norm(x, -math.inf, (0, 1))) == 6
    assert float(ops.norm(x, "fro")) == pytest.approx(10.198039)
    assert float(ops.norm(x, "nuc")) == pytest.approx(12.974699)
    assert float(ops.norm(x, 2, (0, 1))) == pytest.approx(9.63604736)
    assert float(ops.norm(x, -2, (0, 1))) == pytest.approx(3.33865284)
    np.testing.assert_allclose(ops.norm(Tensor(np.ones((2, 2, 3), np.float32)), 2, (1, 2))
                               .asnumpy(), [2.4494896] * 2, 1e-6)
    assert ops.norm(x, None, 1, True).shape == (2, 1)
    assert ops.norm(x, dtype=ms.float64).dtype == ms.float64
    assert float(ops.norm(Tensor(np.float32(-3)))) == 3.0
    assert float(ops.norm(Tensor(np.ones((2, 2, 2), np.float32)))) == pytest.approx(
        math.sqrt(8))
    assert float(ops.norm(Tensor(np.zeros((0, 3), np.float32)))) == 0.0


def test_norm_errors():
    x = Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="For norm, the ord mode must be in .* for matrices, "
                                         "but got 3"):
        ops.norm(x, 3, (0, 1))
    with pytest.raises(TypeError, match="For norm, ord mode can not be str for vectors"):
        ops.norm(x, "fro", 1)
    with pytest.raises(TypeError, match="For norm, the dim should be int or tuple of int"):
        ops.norm(x, dim=[0, 1])
    with pytest.raises(ValueError, match="For norm, 'dim' must be in \\[-2, 2\\)"):
        ops.norm(x, 1, 2)
    with pytest.raises(ValueError, match="For norm, 'dim' must be given"):
        ops.norm(Tensor(np.ones((2, 2, 2), np.float32)), 1)
    with pytest.raises(TypeError, match="norm.*'A' must be a Tensor"):
        ops.norm([1.0, 2.0])


@pytest.mark.parametrize("ord", [None, 2, 1, 3, 0.5, -1, math.inf, -math.inf])
def test_vector_norm_grad(ord):
    check_grad(lambda t: ops.norm(t, ord, 1), _rand(3, 4))


@pytest.mark.parametrize("ord", MATRIX_ORDS)
def test_matrix_norm_grad(ord):
    check_grad(lambda t: ops.norm(t, ord, (0, 1)), _rand(3, 4) + np.arange(12).reshape(3, 4))


# ---- cosine_similarity -----------------------------------------------------------------
@with_fixture
@given(data=st.data())
def test_cosine_similarity_against_numpy(policy, data):
    dtype = data.draw(st.sampled_from([np.float32, np.float64]))
    shape = tuple(data.draw(st.lists(st.integers(1, 4), min_size=2, max_size=3)))
    x1 = data.draw(arrays(dtype, shape, allow_special=False, min_value=-10, max_value=10))
    x2 = data.draw(arrays(dtype, (1,) + shape[1:] if data.draw(st.booleans()) else shape,
                          allow_special=False, min_value=-10, max_value=10))
    dim = data.draw(st.integers(1, len(shape) - 1))
    a, b = np.broadcast_arrays(x1.astype(np.float64), x2.astype(np.float64))
    den = np.maximum(np.linalg.norm(a, axis=dim) * np.linalg.norm(b, axis=dim), 1e-8)
    want = (np.sum(a * b, axis=dim) / den).astype(dtype)
    assert_close(ops.cosine_similarity(tensor(x1), tensor(x2), dim), want, rtol=1e-4,
                 atol=1e-5)


def test_cosine_similarity_values_and_grad():
    x = Tensor(np.array([[1.0, -2, 3], [4, 5, 7]], np.float32))
    np.testing.assert_allclose(ops.cosine_similarity(x, Tensor([[1.0, 0, 0]])).asnumpy(),
                               [0.26726124, 0.42163703], 1e-6)
    zero = Tensor(np.zeros((1, 3), np.float32))
    assert ops.cosine_similarity(zero, zero).tolist() == [0.0]                 # eps clamp
    check_grad(lambda a, b: ops.cosine_similarity(a, b, 1), _rand(2, 3), _rand(2, 3, seed=3))


# ---- svd -------------------------------------------------------------------------------
@with_fixture
@given(data=st.data())
def test_svd_against_numpy(policy, data):
    dtype = data.draw(st.sampled_from([np.float32, np.float64]))
    shape = tuple(data.draw(st.lists(st.integers(0, 4), min_size=2, max_size=3)))
    x = data.draw(arrays(dtype, shape, allow_special=False, min_value=-10, max_value=10))
    full = data.draw(st.booleans())
    s, u, v = ops.svd(tensor(x), full_matrices=full)
    want = np.linalg.svd(x.astype(np.float64), compute_uv=False) if x.size else \
        np.zeros(shape[:-2] + (min(shape[-2:]),))
    assert_close(s, want.astype(dtype), rtol=1e-4, atol=1e-4)
    m, n = shape[-2:]
    k = min(m, n)
    assert u.shape == shape[:-2] + (m, m if full else k)
    assert v.shape == shape[:-2] + (n, n if full else k)
    rebuilt = np.einsum("...ik,...k,...jk->...ij", u.asnumpy()[..., :k], s.asnumpy(),
                        v.asnumpy()[..., :k])
    np.testing.assert_allclose(rebuilt, x, rtol=1e-4, atol=1e-3)
    assert_close(ops.svd(tensor(x), compute_uv=False), want.astype(dtype), rtol=1e-4,
                 atol=1e-4)


def test_svd_errors():
    with pytest.raises(TypeError, match="Svd.*'input'.*Float32, Float64.*but got Int64"):
        ops.svd(Tensor([[1, 2], [3, 4]]))
    with pytest.raises(ValueError, match="Svd.*rank of 'input' must be at least 2"):
        ops.svd(Tensor([1.0, 2.0]))
    a = Tensor(np.ones((3, 2)))
    with pytest.raises(ValueError, match="Svd.*full_matrices=True needs a square input"):
        ms.grad(lambda t: ops.svd(t, full_matrices=True)[1].sum())(a)


@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4), (2, 3, 2)])
def test_svd_grad(shape):
    """Gauge-invariant functions of (s, u, v) (each singular vector is unique up to sign)."""
    a = _rand(*shape)
    check_grad(lambda t: ops.svd(t, compute_uv=False), a)

    def f(t):
        s, u, v = ops.svd(t)
        return s, u * u, v * v, ops.einsum("...ik,...jk->...ijk", u, v)
    check_grad(f, a)


# ---- vector_norm / matrix_norm ---------------------------------------------------------
@with_fixture
@given(data=st.data())
def test_vector_matrix_norm_against_numpy(policy, data):
    shape = tuple(data.draw(st.lists(st.integers(1, 4), min_size=2, max_size=3)))
    x = data.draw(arrays(np.float64, shape, allow_special=False, min_value=-10, max_value=10))
    ord = data.draw(st.sampled_from(VECTOR_ORDS[1:]))
    axis = data.draw(st.sampled_from([None, 0, -1, (0, 1)]))
    keep = data.draw(st.booleans())
    dims = tuple(range(x.ndim)) if axis is None else tuple(np.atleast_1d(axis) % x.ndim)
    w = np.moveaxis(x, dims, tuple(range(-len(dims), 0)))
    with np.errstate(all="ignore"):                 # the reduced axes flattened into one
        want = np.linalg.norm(w.reshape(w.shape[:x.ndim - len(dims)] + (-1,)), ord, -1)
    if keep:
        want = want.reshape(tuple(1 if i in dims else d for i, d in enumerate(x.shape)))
    assert_close(ops.vector_norm(tensor(x), ord, axis, keep), np.asarray(want), rtol=1e-9,
                 atol=1e-12)
    mord = data.draw(st.sampled_from(MATRIX_ORDS))
    assert_close(ops.matrix_norm(tensor(x), mord, (-2, -1), keep),
                 np.asarray(np.linalg.norm(x, mord, (-2, -1), keep)), rtol=1e-9, atol=1e-12)


def test_vector_matrix_norm_mindspore_values_and_errors():
    x = Tensor(np.array([[1.0, -2, 3], [4, 5, 7]], np.float32))
    assert float(ops.vector_norm(x)) == pytest.approx(10.198039)
    assert float(ops.vector_norm(x, 0)) == 6.0 and float(ops.vector_norm(x, 1)) == 22.0
    assert float(ops.vector_norm(x, math.inf)) == 7.0
    np.testing.assert_allclose(ops.vector_norm(x, 0.5, None, True).asnumpy(), [[121.61863]],
                               1e-6)
    assert float(ops.vector_norm(Tensor([[1, 2]]))) == pytest.approx(math.sqrt(5))
    assert float(ops.matrix_norm(x, "nuc")) == pytest.approx(12.974699)
    assert float(ops.matrix_norm(x, 2, (1, 0))) == pytest.approx(9.636046)
    assert ops.matrix_norm(x, "fro", (0, 1), True).shape == (1, 1)
    with pytest.raises(ValueError, match="matrix_norm.*rank >= 2"):
        ops.matrix_norm(Tensor([1.0, 2.0]))
    with pytest.raises(ValueError, match="matrix_norm.*'ord' must be one of"):
        ops.matrix_norm(x, 3)
    with pytest.raises(TypeError, match="vector_norm.*'ord' must be a number"):
        ops.vector_norm(x, "fro")
    check_grad(lambda t: ops.vector_norm(t, 3, (0, 1)), _rand(2, 3, 2))
    check_grad(lambda t: ops.matrix_norm(t, "nuc"), _rand(2, 3, 2))
