"""The eager backward's shortcuts (pynative/grad.py, reduce bprops) give the gradients the
general path gives: a bias broadcast over leading axes summed inline, other broadcasts through
accumulate, a mean over every axis broadcast from its 0-d gradient, and second derivatives
through all of them."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mindlite as ms
from mindlite import Parameter, Tensor, ops


def _rng(seed):
    return np.random.default_rng(seed)


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 4), st.integers(1, 5), st.integers(1, 5), st.integers(0, 2),
       st.integers(0, 1000))
def test_bias_over_leading_axes_matches_numpy(batch, n_in, n_out, extra, seed):
    """y = mean((x W + b)^2), x with `extra` more leading axes: db sums over all of them."""
    rng = _rng(seed)
    lead = (batch,) + (2,) * extra
    x = rng.standard_normal(lead + (n_in,)).astype(np.float32)
    w = rng.standard_normal((n_in, n_out)).astype(np.float32)
    b = rng.standard_normal((n_out,)).astype(np.float32)
    wp, bp = Parameter(w, name="w"), Parameter(b, name="b")

    def f(x):
        h = ops.matmul(x, wp) + bp
        return (h * h).mean()
    loss, (gw, gb) = ms.value_and_grad(f, None, [wp, bp])(Tensor(x))
    h = (x.astype(np.float64) @ w + b)
    dh = 2 * h / h.size
    np.testing.assert_allclose(loss.asnumpy(), (h * h).mean(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gb.asnumpy(), dh.reshape(-1, n_out).sum(0), rtol=1e-4,
                               atol=1e-5)
    np.testing.assert_allclose(gw.asnumpy(), x.reshape(-1, n_in).T @ dh.reshape(-1, n_out),
                               rtol=1e-4, atol=1e-5)
    assert gb.shape == (n_out,) and gb.dtype == ms.float32


@pytest.mark.parametrize("bshape", [(1, 3), (2, 1), (), (1,)])
def test_other_broadcasts_sum_to_the_input_shape(bshape):
    """Broadcasts that stretch size-1 axes (not only leading ones) and 0-d inputs."""
    x = _rng(0).standard_normal((2, 3)).astype(np.float32)
    b = _rng(1).standard_normal(bshape).astype(np.float32)

    def f(x, b):
        return ((x + b) * x).sum()
    gx, gb = ms.grad(f, (0, 1))(Tensor(x), Tensor(b))
    want_b = np.broadcast_to(x, (2, 3))
    axes = tuple(range(2 - len(bshape))) + tuple(
        i + 2 - len(bshape) for i, d in enumerate(bshape) if d == 1)
    np.testing.assert_allclose(gb.asnumpy(), want_b.sum(axes).reshape(bshape), rtol=1e-5)
    np.testing.assert_allclose(gx.asnumpy(), 2 * x + b, rtol=1e-5)
    assert gb.shape == bshape


def test_mixed_dtype_gradient_is_cast_to_the_input_dtype():
    x = Tensor(np.array([1.0, 2.0, 3.0], np.float64))
    y = Tensor(np.array([0.5, 0.25, 2.0], np.float32))

    def f(x, y):
        return (x * ops.cast(y, ms.float64)).sum()
    gx, gy = ms.grad(f, (0, 1))(x, y)
    assert gx.dtype == ms.float64 and gy.dtype == ms.float32
    np.testing.assert_array_equal(gy.asnumpy(), np.array([1, 2, 3], np.float32))


@pytest.mark.parametrize("axis", [(), 0, 1, (0, 1)])
def test_mean_and_sum_bprops(axis):
    x = _rng(2).standard_normal((3, 4)).astype(np.float32)
    gm = ms.grad(lambda t: (ops.mean(t, axis) * 3.0).sum())(Tensor(x))
    count = x.size if axis in ((), (0, 1)) else x.shape[axis]
    np.testing.assert_allclose(gm.asnumpy(), np.full(x.shape, 3.0 / count), rtol=1e-6)
    gs = ms.grad(lambda t: (ops.sum(t, axis) * 2.0).sum())(Tensor(x))
    np.testing.assert_array_equal(gs.asnumpy(), np.full(x.shape, 2.0, np.float32))


def test_second_derivative_through_mean_and_bias():
    """d/dx of d/dx mean((x + b)^3) = 6 (x + b) / n, through the 0-d mean gradient and the
    inline bias sum (both stay recorded while the outer tape is open)."""
    x = _rng(3).standard_normal((4, 3)).astype(np.float64)
    b = _rng(4).standard_normal((3,)).astype(np.float64)
    bt = Tensor(b)

    def f(x, b):
        h = x + b
        return (h * h * h).mean()

    def dfdb_sum(x, b):
        return ms.grad(f, 1)(x, b).sum()
    gxx = ms.grad(dfdb_sum, 0)(Tensor(x), bt)
    np.testing.assert_allclose(gxx.asnumpy(), 6 * (x + b) / x.size, rtol=1e-12)
    gbb = ms.grad(dfdb_sum, 1)(Tensor(x), bt)
    np.testing.assert_allclose(gbb.asnumpy(), (6 * (x + b) / x.size).sum(0), rtol=1e-12)


def test_mlp_gradients_match_finite_differences():
    """The benchmark's MLP (matmul, bias, relu, mean squared error), float64, against central
    differences of the loss."""
    rng = _rng(5)
    x = rng.standard_normal((5, 4))
    y = rng.standard_normal((5, 2))
    ws = [rng.standard_normal((4, 6)), rng.standard_normal(6), rng.standard_normal((6, 2)),
          rng.standard_normal(2)]
    params = [Parameter(w, name=f"p{i}") for i, w in enumerate(ws)]

    def loss_np(vals):
        h = np.maximum(x @ vals[0] + vals[1], 0) @ vals[2] + vals[3]
        return ((h - y) ** 2).mean()

    def loss_fn(xt, yt):
        h = ops.relu(ops.matmul(xt, params[0]) + params[1])
        d = ops.matmul(h, params[2]) + params[3] - yt
        return (d * d).mean()
    _, grads = ms.value_and_grad(loss_fn, None, params)(Tensor(x), Tensor(y))
    eps = 1e-6
    for i, g in enumerate(grads):
        num = np.zeros_like(ws[i])
        for idx in np.ndindex(ws[i].shape):
            up = [w.copy() for w in ws]
            dn = [w.copy() for w in ws]
            up[i][idx] += eps
            dn[i][idx] -= eps
            num[idx] = (loss_np(up) - loss_np(dn)) / (2 * eps)
        np.testing.assert_allclose(g.asnumpy(), num, rtol=1e-5, atol=1e-7)
