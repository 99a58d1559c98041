"""FusedSparseAdam and FusedSparseFtrl (sparse_optim_ops.py): updates against numpy references
over random sparse gradients (repeated rows summed, out-of-range rows skipped), MindSpore
2.10's values (dense Adam on the scattered gradient; Nesterov moving only the indexed rows;
FTRL on the indexed rows only), in place, and MindSpore's checks."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mindlite import Parameter, Tensor
from mindlite.ops import operations as P


def _par(a, dtype=np.float32):
    return Parameter(Tensor(np.asarray(a, dtype)), name="p")


def _dense(shape, grad, idx):
    g = np.zeros(shape)
    for r, row in zip(idx, grad):
        if 0 <= r < shape[0]:
            g[r] += row
    return g


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2 ** 31 - 1), st.booleans())
def test_adam_equals_numpy(seed, nesterov):
    rs = np.random.RandomState(seed)
    var, m, v = rs.randn(4, 3), rs.randn(4, 3), rs.rand(4, 3)
    idx = rs.randint(-1, 5, 5).astype(np.int32)                 # repeats, out of range
    grad = rs.randn(5, 3)
    b1p, b2p, lr, b1, b2, eps = 0.9, 0.999, 0.01, 0.9, 0.999, 1e-8
    g = _dense(var.shape, grad, idx)
    new_m = b1 * m + (1 - b1) * g
    new_v = b2 * v + (1 - b2) * g * g
    rate = lr * np.sqrt(1 - b2p) / (1 - b1p)
    want = var.copy()
    if nesterov:
        rows = np.unique(idx[(idx >= 0) & (idx < 4)])
        want[rows] -= (rate * (b1 * new_m + (1 - b1) * g) / (np.sqrt(new_v) + eps))[rows]
    else:
        want -= rate * new_m / (np.sqrt(new_v) + eps)
    states = [_par(a) for a in (var, m, v)]
    out = P.FusedSparseAdam(use_nesterov=nesterov)(*states, b1p, b2p, lr, b1, b2, eps,
                                                    Tensor(grad.astype(np.float32)),
                                                    Tensor(idx))
    for got, w in zip(out, (want, new_m, new_v)):
        np.testing.assert_allclose(got.asnumpy(), w, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(states[0].asnumpy(), out[0].asnumpy())      # in place


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2 ** 31 - 1))
def test_ftrl_equals_numpy(seed):
    rs = np.random.RandomState(seed)
    var, acc, lin = rs.randn(4, 3), rs.rand(4, 3) + 0.1, rs.randn(4, 3)
    idx = rs.randint(0, 4, 5).astype(np.int32)
    grad = rs.randn(5, 3)
    lr, l1, l2, p = 0.01, 0.1, 0.2, -0.5
    g = _dense(var.shape, grad, idx)
    rows = np.unique(idx)
    want = [var.copy(), acc.copy(), lin.copy()]
    new_a = acc[rows] + g[rows] ** 2
    new_l = lin[rows] + g[rows] - (new_a ** -p - acc[rows] ** -p) / lr * var[rows]
    quad = new_a ** -p / lr + 2 * l2
    want[0][rows] = np.where(np.abs(new_l) > l1, (np.sign(new_l) * l1 - new_l) / quad, 0)
    want[1][rows], want[2][rows] = new_a, new_l
    out = P.FusedSparseFtrl(lr, l1, l2, p)(*[_par(a) for a in (var, acc, lin)],
                                           Tensor(grad.astype(np.float32)), Tensor(idx))
    for got, w in zip(out, want):
        np.testing.assert_allclose(got.asnumpy(), w, rtol=1e-4, atol=1e-5)


def test_mindspore_values():
    var, m, v = _par(np.ones((3, 3, 3))), _par(np.ones((3, 3, 3))), _par(np.ones((3, 3, 3)))
    P.FusedSparseAdam()(var, m, v, 0.9, 0.999, 0.001, 0.9, 0.999, 1e-8,
                        Tensor(np.ones((3, 3, 3), np.float32)), Tensor(np.array([0, 1, 2],
                                                                                np.int32)))
    assert (var.asnumpy() == np.float32(0.9996838)).all()
    var, acc, lin = (_par(np.ones((3, 3, 3))) for _ in range(3))
    P.FusedSparseFtrl(lr=0.001, l1=0.0, l2=0.0, lr_power=-0.5)(
        var, acc, lin, Tensor(np.ones((3, 3, 3), np.float32)),
        Tensor(np.array([0, 1, 2], np.int32)))
    assert (var.asnumpy() == np.float32(0.291479)).all()


@pytest.mark.parametrize("args,err", [
    (dict(m=(3, 2, 3)), ValueError), (dict(idx=[0, 1]), ValueError), (dict(idx=0), ValueError),
    (dict(grad=()), ValueError), (dict(grad=(3, 2, 3)), ValueError),
    (dict(idx_dtype=np.float32), TypeError), (dict(idx_list=True), TypeError)])
def test_mindspore_checks(args, err):
    states = [_par(np.ones(args.get("m", (3, 3, 3)) if i == 1 else (3, 3, 3))) for i in range(3)]
    grad = Tensor(np.ones(args.get("grad", (3, 3, 3)), np.float32))
    idx = Tensor(np.array(args.get("idx", [0, 1, 2]), args.get("idx_dtype", np.int32)))
    with pytest.raises(err):
        P.FusedSparseAdam()(*states, 0.9, 0.999, 0.001, 0.9, 0.999, 1e-8, grad,
                            [idx, idx] if args.get("idx_list") else idx)
    with pytest.raises(err):
        P.FusedSparseFtrl(0.01, 0.0, 0.0, -0.5)(*states, grad,
                                                [idx, idx] if args.get("idx_list") else idx)
