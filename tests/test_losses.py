"""Loss primitives (SoftmaxCrossEntropyWithLogits, SparseSoftmaxCrossEntropyWithLogits, NLLLoss,
BCEWithLogitsLoss), their gradients (float64 finite differences) and errors; the functional
losses and the nn loss cells against float64 numpy references."""
import numpy as np
import pytest
from gradcheck import check_grad
from helpers import noncontig, tensor
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import mindlite as ms
from mindlite import Tensor, nn, ops
from mindlite.ops.function import loss_func as LF
from mindlite.ops.operations.loss_ops import NLLLossGrad

TOL = {np.float32: {"rtol": 2e-5, "atol": 2e-5}, np.float64: {"rtol": 1e-12, "atol": 1e-12}}


def log_softmax(x, axis=-1):
    x = np.asarray(x, np.float64)
    m = np.max(x, axis=axis, keepdims=True)
    return x - m - np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True))


def softplus(x):
    return np.logaddexp(0.0, np.asarray(x, np.float64))


def nll_ref(logp, t, w, ignore, red):
    keep = t != ignore
    tt = np.where(keep, t, 0)
    wn = w[tt] * keep
    per = -wn * logp[np.arange(len(t)), tt]
    total = wn.sum()
    return {"none": per, "sum": per.sum(), "mean": per.sum() / total}[red], total


def bce_ref(x, y, w, pw, red):
    x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
    loss = w * (pw * y * softplus(-x) + (1 - y) * softplus(x))
    mean = loss.mean() if loss.size else np.nan
    return {"none": loss, "sum": loss.sum(), "mean": mean}[red]


def both_policies(check):
    """Run `check()` with the selected kernels ("ms": numba where it applies) and with the
    numpy reference kernels ("vm")."""
    try:
        for policy in ("ms", "vm"):
            ms.set_context(backend_policy=policy)
            check()
    finally:
        ms.set_context(backend_policy="ms")


def close(got, want, dtype):
    got = got.asnumpy() if isinstance(got, Tensor) else got
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_allclose(got, np.asarray(want), **TOL[dtype])


logits_2d = st.tuples(st.integers(0, 6), st.integers(1, 6)).flatmap(
    lambda s: hnp.arrays(np.float64, s, elements=st.floats(-1e3, 1e3)))


# ---- primitives: forward ---------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@given(x=logits_2d, data=st.data())
def test_softmax_cross_entropy_with_logits(dtype, x, data):
    x = x.astype(dtype)
    raw = data.draw(hnp.arrays(np.float64, x.shape, elements=st.floats(0, 1)))
    labels = (raw / np.maximum(raw.sum(1, keepdims=True), 1e-3)).astype(dtype)
    logp = log_softmax(x)

    def check():
        loss, backprop = ops.SoftmaxCrossEntropyWithLogits()(tensor(noncontig(x)),
                                                             tensor(labels))
        close(loss, -(labels * logp).sum(1), dtype)
        close(backprop, np.exp(logp) - labels, dtype)
    both_policies(check)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@given(x=logits_2d, data=st.data())
def test_sparse_softmax_cross_entropy(dtype, x, data):
    x = x.astype(dtype)
    n, c = x.shape
    t = np.array(data.draw(st.lists(st.integers(0, c - 1), min_size=n, max_size=n)), np.int32)
    logp = log_softmax(x)

    def check():
        loss = ops.SparseSoftmaxCrossEntropyWithLogits()(tensor(x), tensor(t))
        grad = ops.SparseSoftmaxCrossEntropyWithLogits(is_grad=True)(tensor(noncontig(x)),
                                                                     tensor(t))
        if n == 0:
            assert loss.shape == () and np.isnan(loss.asnumpy())
        else:
            close(loss, -logp[np.arange(n), t].mean(), dtype)
        close(grad, (np.exp(logp) - np.eye(c)[t]) / max(n, 1), dtype)
    both_policies(check)


def test_cross_entropy_is_stable_and_nan_stays_in_its_row():
    x = np.array([[1000.0, 0.0, -1000.0], [np.nan, 0.0, 1.0], [-3e38, 3e38, 0.0]], np.float32)
    labels = np.eye(3, dtype=np.float32)[[1, 1, 1]]

    def check():
        loss, bp = ops.SoftmaxCrossEntropyWithLogits()(Tensor(x), Tensor(labels))
        got = loss.asnumpy()
        assert got[0] == np.float32(1000.0) and np.isnan(got[1]) and got[2] == 0.0
        assert np.isfinite(bp.asnumpy()[[0, 2]]).all()
        sparse = ops.SparseSoftmaxCrossEntropyWithLogits()(Tensor(x[[0, 2]]),
                                                           Tensor(np.array([1, 1], np.int32)))
        np.testing.assert_allclose(sparse.asnumpy(), 500.0)
        nan_row = ops.SparseSoftmaxCrossEntropyWithLogits(True)(Tensor(x[:2]),
                                                                Tensor(np.array([1, 1])))
        assert np.isnan(nan_row.asnumpy()[1]).all() and np.isfinite(nan_row.asnumpy()[0]).all()
    both_policies(check)


def test_wide_logits_use_the_reference_kernel_and_agree():
    x = np.random.default_rng(9).standard_normal((40, 500)).astype(np.float32)
    t = Tensor(np.arange(40, dtype=np.int32) * 7)
    want = -log_softmax(x)[np.arange(40), t.asnumpy()].mean()

    def check():
        close(ops.SparseSoftmaxCrossEntropyWithLogits()(Tensor(x), t), want, np.float32)
    both_policies(check)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_nll_loss_primitive(dtype, reduction):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((6, 4)).astype(dtype)
    t = np.array([0, 3, -100, 2, 1, 3], np.int64)
    w = rng.uniform(0.5, 2, 4).astype(dtype)
    x[2, 0] = np.nan                                 # an ignored row: its loss is exactly 0
    want, want_total = nll_ref(np.nan_to_num(x.astype(np.float64)), t, w.astype(np.float64),
                               -100, reduction)

    def check():
        loss, total = ops.NLLLoss(reduction)(tensor(noncontig(x)), Tensor(t), Tensor(w))
        close(loss, want, dtype)
        close(total, want_total, dtype)
    both_policies(check)


def test_nll_loss_all_ignored_mean_is_nan():
    def check():
        loss, total = ops.NLLLoss(ignore_index=1)(Tensor(np.zeros((2, 3))), Tensor([1, 1]),
                                                  Tensor(np.ones(3)))
        assert np.isnan(loss.asnumpy()) and total.asnumpy() == 0
    both_policies(check)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@given(x=hnp.arrays(np.float64, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4),
                    elements=st.floats(-100, 100)), data=st.data())
def test_bce_with_logits_loss(dtype, reduction, x, data):
    x = x.astype(dtype)
    y = data.draw(hnp.arrays(np.float64, x.shape, elements=st.floats(0, 1))).astype(dtype)
    w = np.asarray(data.draw(st.floats(0.1, 2)), dtype)
    pw = (np.linspace(0.5, 2, x.shape[-1]) if x.ndim else np.asarray(1.5)).astype(dtype)
    got = ops.BCEWithLogitsLoss(reduction)(tensor(noncontig(x)), tensor(y), Tensor(w), Tensor(pw))
    want = bce_ref(x, y, w.astype(np.float64), pw.astype(np.float64), reduction)
    if reduction == "mean" and x.size == 0:
        assert np.isnan(got.asnumpy())
    else:
        np.testing.assert_allclose(got.asnumpy(), want, rtol=TOL[dtype]["rtol"] * 10,
                                   atol=TOL[dtype]["atol"] * 10)
    assert got.dtype == ms.dtype.float32 if dtype == np.float32 else got.dtype == ms.float64


def test_bce_with_logits_extreme_logits_are_exact():
    x = Tensor(np.array([-1e4, 1e4, 0.0], np.float32))
    y = Tensor(np.array([1.0, 0.0, 1.0], np.float32))
    one = Tensor(np.ones((), np.float32))
    got = ops.BCEWithLogitsLoss("none")(x, y, one, one).asnumpy()
    np.testing.assert_allclose(got, [1e4, 1e4, np.log(2)], rtol=1e-6)


# ---- primitives: inference errors ------------------------------------------------------------
def _raises(err, words, fn, *args):
    with pytest.raises(err) as e:
        fn(*args)
    for w in words:
        assert w in str(e.value), str(e.value)


def test_loss_primitive_errors():
    def check():
        x = Tensor(np.zeros((3, 4), np.float32))
        t = Tensor(np.array([0, 1, 2], np.int32))
        w = Tensor(np.ones(4, np.float32))
        sce, sparse = ops.SoftmaxCrossEntropyWithLogits(), ops.SparseSoftmaxCrossEntropyWithLogits()
        _raises(ValueError, ["SoftmaxCrossEntropyWithLogits", "labels", "[3, 4]"], sce, x,
                Tensor(np.zeros((3, 3), np.float32)))
        _raises(TypeError, ["SoftmaxCrossEntropyWithLogits", "labels"], sce, x,
                Tensor(np.zeros((3, 4))))
        _raises(ValueError, ["SoftmaxCrossEntropyWithLogits", "logits", "rank 2"], sce,
                Tensor(np.zeros(4, np.float32)), Tensor(np.zeros(4, np.float32)))
        _raises(TypeError, ["SparseSoftmaxCrossEntropyWithLogits", "labels"], sparse, x,
                Tensor(np.zeros(3, np.float32)))
        _raises(ValueError, ["SparseSoftmaxCrossEntropyWithLogits", "labels", "(N,)"], sparse, x,
                Tensor(np.zeros((3, 1), np.int32)))
        _raises(ValueError, ["SparseSoftmaxCrossEntropyWithLogits", "labels", "[0, 4)", "7"],
                sparse, x, Tensor(np.array([0, 7, 1], np.int32)))
        _raises(ValueError, ["NLLLoss", "weight", "[4]"], ops.NLLLoss(), x, t,
                Tensor(np.ones(3, np.float32)))
        _raises(ValueError, ["NLLLoss", "labels", "-5"], ops.NLLLoss(), x,
                Tensor(np.array([0, -5, 1], np.int32)), w)
        _raises(ValueError, ["NLLLoss", "reduction", "avg"], ops.NLLLoss, "avg")
        _raises(TypeError, ["NLLLoss", "ignore_index"], ops.NLLLoss, "mean", 1.5)
        _raises(ValueError, ["BCEWithLogitsLoss", "weight"], ops.BCEWithLogitsLoss(), x, x,
                Tensor(np.ones(3, np.float32)), w)
        _raises(ValueError, ["BCEWithLogitsLoss", "label"], ops.BCEWithLogitsLoss(), x,
                Tensor(np.ones(4, np.float32)), w, w)
        _raises(TypeError, ["SparseSoftmaxCrossEntropyWithLogits", "is_grad"],
                ops.SparseSoftmaxCrossEntropyWithLogits, 1)
    both_policies(check)


# ---- primitives: gradients (float64) ---------------------------------------------------------
RNG = np.random.default_rng(7)
X = RNG.standard_normal((4, 3))
T = np.array([2, 0, 1, 2])
P = RNG.dirichlet(np.ones(3), 4)


def test_softmax_cross_entropy_grads_both_outputs():
    check_grad(lambda x, y: ops.SoftmaxCrossEntropyWithLogits()(x, y), X, P)
    check_grad(lambda x, y: ops.SoftmaxCrossEntropyWithLogits()(x, y)[0], X, P)


def test_sparse_softmax_cross_entropy_grads():
    check_grad(lambda x, t: ops.SparseSoftmaxCrossEntropyWithLogits()(x, t), X, T, positions=(0,))
    check_grad(lambda x, t: ops.SparseSoftmaxCrossEntropyWithLogits(True)(x, t), X, T,
               positions=(0,))


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_nll_loss_grads(reduction):
    t = np.array([2, -100, 1, 0])
    w = np.array([0.5, 1.0, 2.0])
    check_grad(lambda x, t, w: ops.NLLLoss(reduction)(x, t, w)[0], X, t, w, positions=(0,))
    total = Tensor(np.array(2.5))
    g = np.ones(4) if reduction == "none" else np.array(1.5)
    check_grad(lambda g: NLLLossGrad(reduction)(Tensor(X), g, Tensor(t), Tensor(w), total), g)
    if reduction == "mean":
        check_grad(lambda tw: NLLLossGrad("mean")(Tensor(X), Tensor(np.array(1.5)), Tensor(t),
                                                  Tensor(w), tw), np.array(2.5))


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_bce_with_logits_grads(reduction):
    y = RNG.uniform(0, 1, X.shape)
    w = np.array([0.5, 1.0, 2.0])
    pw = np.array([[1.5], [0.5], [1.0], [2.0]])
    check_grad(lambda x, y, w, pw: ops.BCEWithLogitsLoss(reduction)(x, y, w, pw), X, y, w, pw,
               positions=(0, 1))


def test_integer_labels_get_no_gradient():
    gx, gt = ms.grad(lambda x, t: ops.SparseSoftmaxCrossEntropyWithLogits()(x, t), (0, 1))(
        Tensor(X), Tensor(T))
    assert gx.shape == X.shape and not gt.asnumpy().any()


# ---- functional and nn losses ----------------------------------------------------------------
def ce_ref(x, t, w=None, ignore=-100, red="mean", ls=0.0):
    """Cross entropy with class indices, classes on axis 1 (axis 0 for 1-D)."""
    x = np.asarray(x, np.float64)
    if x.ndim == 1:
        x, t = x[None], np.asarray(t).reshape(1)
    c = x.shape[1]
    out_shape = (x.shape[0],) + x.shape[2:]
    rows = np.moveaxis(x, 1, -1).reshape(-1, c)
    t = np.asarray(t).reshape(-1)
    w = np.ones(c) if w is None else w
    logp = log_softmax(rows)
    keep = t != ignore
    tt = np.where(keep, t, 0)
    wn = w[tt] * keep
    nll = -wn * logp[np.arange(len(t)), tt]
    smooth = -(logp * w).sum(1) * keep
    per = (1 - ls) * nll + ls / c * smooth
    if red == "none":
        return per.reshape(out_shape)
    return per.sum() / wn.sum() if red == "mean" else per.sum()


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("ls", [0.0, 0.2])
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_class_indices(reduction, ls, weighted):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((5, 4))
    t = np.array([3, 0, -100, 1, 1])
    w = rng.uniform(0.5, 2, 4) if weighted else None
    got = nn.CrossEntropyLoss(None if w is None else Tensor(w), reduction=reduction,
                              label_smoothing=ls)(Tensor(x), Tensor(t))
    close(got, ce_ref(x, t, w, red=reduction, ls=ls), np.float64)


def test_cross_entropy_spatial_1d_probabilities_and_fast_path():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 3, 4))
    t = rng.integers(0, 3, (2, 4))
    close(LF.cross_entropy(Tensor(x), Tensor(t), reduction="none"),
          ce_ref(x, t, red="none"), np.float64)
    close(LF.cross_entropy(Tensor(x), Tensor(t)), ce_ref(x, t), np.float64)
    close(LF.cross_entropy(Tensor(x[0, :, 0]), Tensor(np.array(2))),
          ce_ref(x[0, :, 0], 2), np.float64)
    p = rng.dirichlet(np.ones(3), (2, 4)).transpose(0, 2, 1)        # (2, 3, 4)
    want = -(log_softmax(x, 1) * p).sum(1)
    close(LF.cross_entropy(Tensor(x), Tensor(p), reduction="none"), want, np.float64)
    close(LF.cross_entropy(Tensor(x), Tensor(p)), want.mean(), np.float64)
    w = np.array([0.5, 1.0, 2.0])
    want_w = -(log_softmax(x, 1) * p * w[None, :, None]).sum(1)
    close(LF.cross_entropy(Tensor(x), Tensor(p), Tensor(w), reduction="sum"), want_w.sum(),
          np.float64)
    x2, t2 = x[:, :, 0], t[:, 0].astype(np.int32)
    close(nn.CrossEntropyLoss()(Tensor(x2.astype(np.float32)), Tensor(t2)),
          ce_ref(x2, t2), np.float32)


def test_cross_entropy_matches_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    x, t, w = rng.standard_normal((6, 5, 2)), rng.integers(0, 5, (6, 2)), rng.uniform(0.5, 2, 5)
    t[1, 0] = -100
    for red in ("mean", "sum", "none"):
        want = torch.nn.functional.cross_entropy(torch.tensor(x), torch.tensor(t),
                                                 torch.tensor(w), reduction=red,
                                                 label_smoothing=0.1).numpy()
        got = LF.cross_entropy(Tensor(x), Tensor(t), Tensor(w), reduction=red,
                               label_smoothing=0.1)
        close(got, want, np.float64)


def test_cross_entropy_grads():
    check_grad(lambda x: LF.cross_entropy(x, Tensor(T)), X)
    check_grad(lambda x: LF.cross_entropy(x, Tensor(np.array([2, -100, 1, 0])),
                                          Tensor(np.array([0.5, 1.0, 2.0])),
                                          label_smoothing=0.3), X)
    check_grad(lambda x, p: LF.cross_entropy(x, p, reduction="sum"), X, P)


def test_softmax_cross_entropy_cell():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((4, 3)).astype(np.float32)
    t = np.array([0, 2, 1, 2], np.int32)
    logp = log_softmax(x)
    per = -logp[np.arange(4), t]
    close(nn.SoftmaxCrossEntropyWithLogits(sparse=True)(Tensor(x), Tensor(t)), per, np.float32)
    close(nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")(Tensor(x), Tensor(t)),
          per.mean(), np.float32)
    close(nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="sum")(
        Tensor(x), Tensor(t.astype(np.int64))), per.sum(), np.float32)
    close(nn.SoftmaxCrossEntropyWithLogits()(Tensor(x), Tensor(np.eye(3, dtype=np.float32)[t])),
          per, np.float32)
    cell = nn.SoftmaxCrossEntropyWithLogits(sparse=True)
    _raises(TypeError, ["SoftmaxCrossEntropyWithLogits", "labels", "Int32"], cell, Tensor(x),
            Tensor(t.astype(np.float32)))
    _raises(ValueError, ["SoftmaxCrossEntropyWithLogits", "labels", "(N,)"], cell, Tensor(x),
            Tensor(t.reshape(4, 1)))
    _raises(TypeError, ["SoftmaxCrossEntropyWithLogits", "logits"], cell, x, Tensor(t))


def test_regression_losses_and_reductions():
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal(4)
    d = a - b
    for red, f in (("mean", np.mean), ("sum", np.sum), ("none", lambda v: v)):
        close(nn.MSELoss(red)(Tensor(a), Tensor(b)), f(d ** 2), np.float64)
        close(nn.L1Loss(red)(Tensor(a), Tensor(b)), f(np.abs(d)), np.float64)
        close(LF.mse_loss(Tensor(a), Tensor(b), red), f(d ** 2), np.float64)
        close(LF.l1_loss(Tensor(a), Tensor(b), red), f(np.abs(d)), np.float64)
    h = nn.MSELoss()(Tensor(a.astype(np.float16)), Tensor(b.astype(np.float16)))
    assert h.dtype == ms.float16
    np.testing.assert_allclose(h.asnumpy(), np.mean(d ** 2), rtol=5e-3)
    _raises(ValueError, ["MSELoss", "reduction"], nn.MSELoss, "avg")
    base = nn.LossBase("sum")
    close(base.get_loss(Tensor(a), Tensor(np.full(4, 2.0))), 2 * a.sum(), np.float64)


def test_nll_and_bce_cells():
    rng = np.random.default_rng(6)
    logp = log_softmax(rng.standard_normal((5, 3)))
    t = np.array([0, 2, 2, -100, 1])
    w = np.array([1.0, 0.5, 2.0])
    close(nn.NLLLoss(Tensor(w))(Tensor(logp), Tensor(t)), nll_ref(logp, t, w, -100, "mean")[0],
          np.float64)
    t2 = np.where(t < 0, 2, t)
    close(nn.NLLLoss(reduction="none", ignore_index=2)(Tensor(logp), Tensor(t2)),
          nll_ref(logp, t2, np.ones(3), 2, "none")[0], np.float64)
    x, y = rng.standard_normal((4, 3)), rng.uniform(0, 1, (4, 3))
    close(nn.BCEWithLogitsLoss(weight=Tensor(w), pos_weight=Tensor(w[::-1].copy()))(
        Tensor(x), Tensor(y)), bce_ref(x, y, w, w[::-1], "mean"), np.float64)
    close(LF.binary_cross_entropy_with_logits(Tensor(x), Tensor(y), reduction="sum"),
          bce_ref(x, y, 1.0, 1.0, "sum"), np.float64)
    _raises(TypeError, ["CrossEntropyLoss", "weight"], nn.CrossEntropyLoss, [1.0, 2.0])
    _raises(ValueError, ["CrossEntropyLoss", "label_smoothing"], nn.CrossEntropyLoss, None,
            -100, "mean", 1.5)


def test_dense_functional():
    rng = np.random.default_rng(8)
    x, w, b = rng.standard_normal((2, 3, 4)), rng.standard_normal((5, 4)), rng.standard_normal(5)
    close(LF.dense(Tensor(x), Tensor(w), Tensor(b)), x @ w.T + b, np.float64)
    close(LF.dense(Tensor(x[0, 0]), Tensor(w)), x[0, 0] @ w.T, np.float64)
    _raises(ValueError, ["dense", "in_channels", "[5, 3]"], LF.dense, Tensor(x),
            Tensor(np.ones((5, 3))))
