"""BleuScore, CosineSimilarity, Dice, ROC (train and nn) and nn.get_metrics: MindSpore 2.10's
results on the same inputs (recorded from its CPU build), ROC against scikit-learn."""
import numpy as np
import pytest

import mindlite as ms
from mindlite import nn, train

CANDS = [["The", "cat", "The", "cat", "on", "the", "mat"]]
REFS = [[["The", "cat", "is", "on", "the", "mat"],
         ["There", "is", "a", "cat", "on", "the", "mat"]]]


def test_bleu_as_mindspore():
    m = train.BleuScore()
    m.update(CANDS, REFS)
    assert m.eval() == pytest.approx(0.46713797772820015, rel=1e-12)
    m = nn.BleuScore(n_gram=2, smooth=True)
    m.update(CANDS, REFS)
    assert m.eval() == pytest.approx(0.7319250547114, rel=1e-12)
    with pytest.raises(ValueError, match="'BleuScore'.*'n_gram'"):
        train.BleuScore(5)


def test_cosine_similarity_as_mindspore():
    x = np.array([[1., 0., 1.], [1., 1., 0.], [0., 0., 1.]])
    m = train.CosineSimilarity()
    m.update(x)
    np.testing.assert_allclose(m.eval(), [[0, 0.5, 0.70710678], [0.5, 0, 0],
                                          [0.70710678, 0, 0]], rtol=1e-7)
    m = train.CosineSimilarity(similarity="dot", reduction="sum", zero_diagonal=False)
    m.update(x)
    np.testing.assert_allclose(m.eval(), [4, 3, 2])
    m = train.CosineSimilarity(reduction="mean")
    m.update(ms.Tensor(x))
    np.testing.assert_allclose(m.eval(), [0.40236893, 0.16666667, 0.23570226], rtol=1e-7)


def test_dice_as_mindspore():
    m = train.Dice(smooth=1e-5)
    m.update(ms.Tensor(np.array([[0.2, 0.5], [0.3, 0.1], [0.9, 0.6]])),
             ms.Tensor(np.array([[0, 1], [1, 0], [0, 1]])))
    assert m.eval() == pytest.approx(0.2046779137180255, rel=1e-12)


def test_roc_as_mindspore_and_sklearn():
    m = train.ROC(pos_label=2)
    m.update(ms.Tensor(np.array([1, 2, 3, 4])), ms.Tensor(np.array([1, 2, 2, 2])))
    fpr, tpr, th = m.eval()
    np.testing.assert_allclose(fpr, [0, 0, 0, 0, 1])
    np.testing.assert_allclose(tpr, [0, 1 / 3, 2 / 3, 1, 1])
    assert th.tolist() == [5, 4, 3, 2, 1] and th.dtype == np.int64
    m = train.ROC(class_num=4)
    m.update(ms.Tensor(np.array([[0.28, 0.55, 0.15, 0.05], [0.10, 0.20, 0.05, 0.05],
                                 [0.20, 0.05, 0.15, 0.05], [0.05, 0.05, 0.05, 0.75]])),
             ms.Tensor(np.array([0, 1, 3, 2])))
    fprs, tprs, ths = m.eval()
    np.testing.assert_allclose(fprs[0], [0, 0, 1 / 3, 2 / 3, 1])
    np.testing.assert_allclose(tprs[1], [0, 0, 1, 1])
    np.testing.assert_allclose(ths[3], [1.75, 0.75, 0.05])
    metrics = pytest.importorskip("sklearn.metrics", reason="scikit-learn checks ROC")
    rng = np.random.default_rng(0)
    s, y = rng.uniform(size=50), rng.integers(0, 2, 50)
    m = train.ROC()
    m.update(s, y)
    f, t, _ = m.eval()
    fs, ts, _ = metrics.roc_curve(y, s, drop_intermediate=False)
    np.testing.assert_allclose(f, fs)
    np.testing.assert_allclose(t, ts)


def test_nn_lists_the_train_metrics_and_get_metrics():
    assert nn.Accuracy is train.Accuracy and nn.auc is train.auc
    got = nn.get_metrics({"accuracy", "mae"})
    assert isinstance(got["accuracy"], train.Accuracy) and isinstance(got["mae"], train.MAE)
    assert nn.get_metrics(None) is None
    with pytest.raises(TypeError, match="get_metrics"):
        nn.get_metrics(3)
