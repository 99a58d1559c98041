"""Loss cells of nn/loss/functional_losses.py and the functional losses of
loss_margin_nll_func.py: the values MindSpore 2.10 printed for seeded inputs
(tests/data/loss_mindspore.json, written by running `cases` with mindspore's nn and Tensor),
PyTorch for the two losses MindSpore's CPU build cannot run (SoftMarginLoss,
TripletMarginLoss) and for CTC over generated inputs, float64 finite-difference gradients,
errors."""
import json
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mindlite import Tensor, nn, ops
from gradcheck import check_grad

MS_VALUES = os.path.join(os.path.dirname(__file__), "data", "loss_mindspore.json")


def cases(nn, Tensor):  # noqa: N803  (the framework's nn and Tensor are passed in)
    """(name, cell factory, inputs) for every case; all random draws happen here, in order."""
    r = np.random.default_rng(0)

    def f(*shape):
        return r.standard_normal(shape).astype(np.float32)

    def u(*shape):
        return r.uniform(0.05, 0.95, shape).astype(np.float32)

    x, y, p = f(4, 3), f(4, 3), u(4, 3)
    t01 = (r.random((4, 3)) > 0.5).astype(np.float32)
    sgn = np.where(r.random(4) > 0.5, 1, -1).astype(np.float32)
    sgn43 = np.where(r.random((4, 3)) > 0.5, 1, -1).astype(np.float32)
    cls = r.integers(0, 3, 4).astype(np.int32)
    logp = np.log(u(4, 3) / u(4, 3).sum())
    out = []
    for red in ("mean", "sum", "none"):
        w43, w3, w3b, w3c = Tensor(u(4, 3)), Tensor(u(3)), Tensor(u(3)), Tensor(u(3))
        kl = red if red != "mean" else "batchmean"
        out += [
            (f"SmoothL1_{red}", lambda red=red: nn.SmoothL1Loss(0.5, red), (x, y)),
            (f"Huber_{red}", lambda red=red: nn.HuberLoss(red, 0.7), (x, y)),
            (f"BCE_{red}", lambda red=red, w=w43: nn.BCELoss(w, red), (p, t01)),
            (f"CosEmb_{red}", lambda red=red: nn.CosineEmbeddingLoss(0.2, red), (x, y, sgn)),
            (f"MarginRank_{red}", lambda red=red: nn.MarginRankingLoss(0.3, red),
             (x, y, sgn43)),
            (f"Focal_{red}", lambda red=red, w=w3: nn.FocalLoss(w, 1.5, red),
             (x, cls.reshape(4, 1))),
            (f"MAE_{red}", lambda red=red: nn.MAELoss(red), (x, y)),
            (f"GaussNLL_{red}", lambda red=red: nn.GaussianNLLLoss(full=True, reduction=red),
             (x, y, u(4, 3))),
            (f"PoissonNLL_{red}", lambda red=red: nn.PoissonNLLLoss(True, True, 1e-8, red),
             (x, u(4, 3) * 3)),
            (f"PoissonNLLnolog_{red}", lambda red=red: nn.PoissonNLLLoss(False, reduction=red),
             (u(4, 3), u(4, 3) * 3)),
            (f"SoftMargin_{red}", lambda red=red: nn.SoftMarginLoss(red), (x, sgn43)),
            (f"HingeEmb_{red}", lambda red=red: nn.HingeEmbeddingLoss(0.8, red), (x, sgn43)),
            (f"MultiMargin_{red}", lambda red=red, w=w3b: nn.MultiMarginLoss(2, 0.9, red, w),
             (x, cls.astype(np.int64))),
            (f"MultiLabelSoft_{red}", lambda red=red, w=w3c: nn.MultiLabelSoftMarginLoss(w, red),
             (x, t01)),
            (f"Triplet_{red}", lambda red=red: nn.TripletMarginLoss(2, True, reduction=red),
             (x, y, f(4, 3))),
            (f"KLDiv_{kl}", lambda kl=kl: nn.KLDivLoss(kl), (logp, u(4, 3))),
        ]
    w31 = Tensor(u(3, 1))
    out += [("KLDiv_mean", lambda: nn.KLDivLoss("mean"), (logp, u(4, 3))),
            ("Dice", lambda: nn.DiceLoss(smooth=1e-3), (p, t01)),
            ("MultiClassDice", lambda: nn.MultiClassDiceLoss(w31, None, "softmax"),
             (x, np.eye(3, dtype=np.float32)[cls])),
            ("RMSE", lambda: nn.RMSELoss(), (x, y)),
            ("SmoothL1_default", lambda: nn.SmoothL1Loss(), (x, y))]
    lp = np.log(r.dirichlet(np.ones(4), (6, 2)).astype(np.float32))
    targets = np.array([[1, 2, 2], [3, 1, 0]], np.int32)
    lengths = (np.array([6, 5], np.int32), np.array([3, 2], np.int32))
    for red in ("mean", "sum", "none"):
        out.append((f"CTC_{red}", lambda red=red: nn.CTCLoss(0, red), (lp, targets) + lengths))
    return out

# MindSpore 2.10's CPU build has no SoftMarginLoss / TripletMarginLoss kernel: PyTorch below
NO_MS_KERNEL = ("SoftMargin", "Triplet")


@pytest.mark.parametrize("case", [c[0] for c in cases(nn, Tensor)
                                  if not c[0].startswith(NO_MS_KERNEL)])
def test_values_equal_mindspores(case):
    want = json.load(open(MS_VALUES))
    make, args = {n: (m, a) for n, m, a in cases(nn, Tensor)}[case]
    got = make()(*[Tensor(a) for a in args]).asnumpy()
    np.testing.assert_allclose(got, want[case], rtol=2e-5, atol=1e-6)


@pytest.mark.parametrize("red", ["mean", "sum", "none"])
def test_soft_margin_and_triplet_equal_torch(red):
    torch = pytest.importorskip("torch")
    tf = torch.nn.functional
    r = np.random.default_rng(1)
    x, y, z = (r.standard_normal((5, 4)) for _ in range(3))
    s = np.where(r.random((5, 4)) > 0.5, 1.0, -1.0)
    np.testing.assert_allclose(nn.SoftMarginLoss(red)(Tensor(x), Tensor(s)).asnumpy(),
                               tf.soft_margin_loss(torch.tensor(x), torch.tensor(s),
                                                   reduction=red).numpy(), rtol=1e-10)
    for swap in (False, True):
        got = nn.TripletMarginLoss(3, swap, 1e-6, red)(Tensor(x), Tensor(y), Tensor(z), 0.7)
        want = tf.triplet_margin_loss(torch.tensor(x), torch.tensor(y), torch.tensor(z),
                                      margin=0.7, p=3, eps=1e-6, swap=swap, reduction=red)
        np.testing.assert_allclose(got.asnumpy(), want.numpy(), rtol=1e-8)


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 7), st.integers(1, 3), st.integers(2, 5), st.integers(0, 4),
       st.booleans(), st.integers(0, 2**31 - 1))
def test_ctc_equals_torch(t, n, c, s, zero_inf, seed):
    """Generated lengths include impossible alignments (target longer than the input)."""
    torch = pytest.importorskip("torch")
    r = np.random.default_rng(seed)
    lp = np.log(r.dirichlet(np.ones(c), (t, n)))
    targets = r.integers(1, c, (n, max(s, 1)))
    in_len = r.integers(1, t + 1, n)
    tg_len = r.integers(0, s + 1, n)
    for red in ("mean", "sum", "none"):
        got, _ = ops.ctc_loss(Tensor(lp), Tensor(targets), Tensor(in_len), Tensor(tg_len), 0,
                              red, zero_inf)
        want = torch.nn.functional.ctc_loss(torch.tensor(lp), torch.tensor(targets),
                                            torch.tensor(in_len), torch.tensor(tg_len), 0, red,
                                            zero_inf)
        np.testing.assert_allclose(got.asnumpy(), want.numpy(), rtol=1e-9, atol=1e-9)


def test_gradients_float64():
    r = np.random.default_rng(2)
    x, y = r.standard_normal((3, 4)), r.standard_normal((3, 4))
    s = np.where(r.random((3, 4)) > 0.5, 1.0, -1.0)
    t01 = (r.random((3, 4)) > 0.5).astype(np.float64)
    check_grad(lambda a: ops.soft_margin_loss(a, Tensor(s)), x)
    check_grad(lambda a: ops.hinge_embedding_loss(a, Tensor(s), 0.3, "sum"), x + 0.05)
    check_grad(lambda a: ops.multi_margin_loss(a, Tensor(np.array([0, 3, 1])), 2, 0.9,
                                               Tensor(np.array([0.5, 1.0, 2.0, 1.5]))), x)
    check_grad(lambda a: ops.multilabel_soft_margin_loss(a, Tensor(t01), None, "none"), x)
    check_grad(lambda a, b, v: ops.gaussian_nll_loss(a, b, v, True), x, y,
               r.uniform(0.5, 2.0, (3, 4)))
    check_grad(lambda a: ops.poisson_nll_loss(a, Tensor(np.abs(y) * 3), True, True), x)
    lp = np.log(r.dirichlet(np.ones(4), (5, 2)))
    check_grad(lambda a: ops.ctc_loss(a, Tensor(np.array([[1, 2], [3, 3]])),
                                      Tensor(np.array([5, 4])), Tensor(np.array([2, 2])))[0], lp)
    check_grad(lambda a: nn.FocalLoss(None, 2.0)(a, Tensor(np.array([[0], [2], [1]]))), x)
    check_grad(lambda a: nn.DiceLoss()(a, Tensor(t01)), np.abs(x))


def test_errors():
    x = Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="'reduction' must be 'mean', 'sum' or 'none'"):
        ops.soft_margin_loss(x, x, "avg")
    with pytest.raises(ValueError, match="'p' must be 1 or 2"):
        ops.multi_margin_loss(x, Tensor(np.array([0, 1])), p=3)
    with pytest.raises(ValueError, match="'input_lengths' and 'target_lengths' must hold 2"):
        ops.ctc_loss(Tensor(np.zeros((4, 2, 3), np.float32)), Tensor(np.ones((2, 2), np.int32)),
                     Tensor(np.array([5, 4])), Tensor(np.array([1, 1])))
    with pytest.raises(ValueError, match="the dimensions of 'labels' must be in \\[2, 4\\]"):
        nn.FocalLoss()(x, Tensor(np.array([0, 1])))
    with pytest.raises(TypeError, match="'gamma' must be a float"):
        nn.FocalLoss(gamma=2)
    with pytest.raises(ValueError, match="weight_shape\\[0\\] must be equal to label_shape\\[1\\]"):
        nn.MultiClassDiceLoss(Tensor(np.ones((2, 1), np.float32)))(x, x)
    with pytest.raises(ValueError, match="'smooth' must be a float > 0"):
        nn.DiceLoss(0.0)
