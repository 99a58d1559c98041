"""train.metrics_classification against MindSpore 2.10: the same seeded inputs through mindlite's
metrics give the values MindSpore printed (tests/data/metrics_mindspore.json, written by
running this file's `compute` with mindspore.train in place of mindlite.train); plus errors,
Model.eval with named metrics and the accumulation protocol."""
import json
import os

import numpy as np
import pytest

import mindlite.train as T
from mindlite import Tensor, nn

MS_VALUES = os.path.join(os.path.dirname(__file__), "data", "metrics_mindspore.json")


def compute(T):
    """Every metric on seeded inputs (run with mindspore.train to regenerate the json)."""
    rng = np.random.default_rng(0)
    yp, y = rng.random((12, 4)), rng.integers(0, 4, 12)
    yp2, y2 = rng.random((7, 4)), np.eye(4)[rng.integers(0, 4, 7)]      # one-hot labels
    ml_p = (rng.random((6, 3)) > 0.5).astype(float)
    ml_t = (rng.random((6, 3)) > 0.4).astype(float)
    out = {}
    for name, m in [("precision", T.Precision()), ("recall", T.Recall()), ("f1", T.F1()),
                    ("f2", T.Fbeta(2.0))]:
        m.update(yp, y)
        m.update(yp2, y2)
        out[name], out[name + "_avg"] = m.eval().tolist(), float(m.eval(True))
    for name, m in [("precision_ml", T.Precision("multilabel")),
                    ("recall_ml", T.Recall("multilabel"))]:
        m.update(ml_p, ml_t)
        m.update(ml_p[:4], ml_t[1:5])
        out[name], out[name + "_avg"] = m.eval().tolist(), float(m.eval(True))
    for name, m in [("mae", T.MAE()), ("mse", T.MSE())]:
        m.update(yp, yp2.sum() * np.ones((12, 4)))
        m.update(yp[:3], yp[3:6].reshape(-1))
        out[name] = float(m.eval())
    for k in (1, 2, 3):
        m = T.TopKCategoricalAccuracy(k)
        m.update(yp, y)
        m.update(yp2, y2)
        out[f"top{k}"] = float(m.eval())
    for norm in ("no_norm", "target", "prediction", "all"):
        m = T.ConfusionMatrix(4, norm)
        m.update(yp, y)
        m.update(np.array([0, 1, 1, 3]), np.array([0, 1, 2, 2]))
        out["cm_" + norm] = m.eval().tolist()
    m = T.ConfusionMatrix(2, threshold=0.3)
    m.update(rng.random(9), rng.integers(0, 2, 9))
    out["cm_thr"] = m.eval().tolist()
    p = rng.random((10, 6))
    p /= p.sum(-1, keepdims=True)
    lab = rng.integers(0, 6, 10)
    for key, m in [("ppl", T.Perplexity()), ("ppl_ign", T.Perplexity(ignore_label=2))]:
        m.update(p, lab)
        out[key] = m.eval()
    out["auc"] = float(T.auc(np.array([0, .2, .5, 1.]), np.array([0, .4, .6, 1.])))
    out["auc_dec"] = float(T.auc(np.array([1., .5, .2, 0]), np.array([1, .6, .4, 0.])))
    out["auc_re"] = float(T.auc(np.array([.5, 0, 1., .2]), np.array([.6, 0, 1, .4]),
                                reorder=True))
    return out


def test_values_equal_mindspores():
    want = json.load(open(MS_VALUES))
    got = compute(T)
    assert sorted(got) == sorted(want)
    for key, value in want.items():
        np.testing.assert_allclose(np.asarray(got[key], float), np.asarray(value, float),
                                   rtol=1e-12, atol=1e-15, err_msg=key)


def test_inputs_as_tensors_and_lists_and_reuse_after_clear():
    m = T.Precision()
    m.update(Tensor(np.array([[0.1, 0.9], [0.8, 0.2]], np.float32)), [1, 1])
    np.testing.assert_allclose(m.eval(), [0.0, 1.0])
    m.clear()
    m.update([[0.9, 0.1]], Tensor(np.array([0])))
    np.testing.assert_allclose(m.eval(), [1.0, 0.0])
    assert T.F1()(np.array([[0.2, 0.8]]), np.array([1])).tolist() == [0.0, 1.0]


def test_model_eval_with_named_metrics():
    net = nn.Dense(3, 2)
    x = np.random.default_rng(1).random((8, 3)).astype(np.float32)
    y = (x.sum(1) > 1.5).astype(np.int32)
    model = T.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                    metrics={"acc", "precision", "top_1_accuracy"})
    from mindlite.dataset import NumpySlicesDataset
    ds = NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(4)
    res = model.eval(ds)
    logits = net(Tensor(x)).asnumpy()
    assert res["acc"] == pytest.approx(float((logits.argmax(1) == y).mean()))
    assert res["top_1_accuracy"] == pytest.approx(res["acc"])
    assert np.shape(res["precision"]) == (2,)


def test_errors():
    with pytest.raises(ValueError, match="'eval_type' must be 'classification' or 'multilabel'"):
        T.Precision("binary")
    with pytest.raises(ValueError, match="'beta' must be greater than 0"):
        T.Fbeta(0)
    with pytest.raises(TypeError, match="'k' should be int"):
        T.TopKCategoricalAccuracy(1.5)
    with pytest.raises(ValueError, match="'k' must be at least 1"):
        T.TopKCategoricalAccuracy(0)
    with pytest.raises(ValueError, match="'normalize' must be in"):
        T.ConfusionMatrix(2, "rows")
    with pytest.raises(TypeError, match="'threshold' must be a float"):
        T.ConfusionMatrix(2, threshold=1)
    with pytest.raises(RuntimeError, match="'Recall' can not be calculated"):
        T.Recall().eval()
    with pytest.raises(RuntimeError, match="call the 'update' method"):
        T.ConfusionMatrix(2).eval()
    m = T.Precision()
    m.update(np.ones((2, 3)), [0, 1])
    with pytest.raises(ValueError, match="class number not match"):
        m.update(np.ones((2, 4)), [0, 1])
    with pytest.raises(ValueError, match="class indices below 3"):
        m.update(np.ones((2, 3)), [0, 5])
    with pytest.raises(ValueError, match="needs 2 inputs"):
        T.MAE().update(np.ones(2))
    with pytest.raises(ValueError, match="increasing or decreasing"):
        T.auc(np.array([0, 1, 0.5]), np.array([0, 1, 1.0]))
    with pytest.raises(TypeError, match="must all be np.ndarray"):
        T.auc([0, 1], [0, 1])
    with pytest.raises(ValueError, match="Unknown metric name 'nope'"):
        T.get_metric_fn("nope")
