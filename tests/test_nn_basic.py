"""Basic nn layers (Dense, Flatten, Dropout, Identity, Embedding), activation cells, their reprs
and errors, and the training wrappers (WithLossCell, TrainOneStepCell) training a small MLP."""
import math

import numpy as np
import pytest
from gradcheck import check_grad

import mindlite as ms
from mindlite import Tensor, nn, ops


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


# ---- Dense -----------------------------------------------------------------------------------
def test_sequential_repr():
    assert repr(nn.SequentialCell(nn.Dense(4, 3), nn.ReLU())) == (
        "SequentialCell(\n  (0): Dense(input_channels=4, output_channels=3, has_bias=True)\n"
        "  (1): ReLU()\n)")
    assert repr(nn.Dense(2, 5, has_bias=False)) == "Dense(input_channels=2, output_channels=5)"
    assert repr(nn.Dense(2, 5, activation="relu")) == (
        "Dense(input_channels=2, output_channels=5, has_bias=True, activation=ReLU()\n"
        "  (activation): ReLU()\n)")


def test_dense_forward_layouts_and_dtypes():
    rng = np.random.default_rng(0)
    w, b = rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal(3).astype(np.float32)
    d = nn.Dense(4, 3, Tensor(w), Tensor(b))
    assert d.weight.shape == (3, 4) and d.bias.shape == (3,)
    assert d.weight.name == "weight" and d.bias.name == "bias"
    x = rng.standard_normal((5, 4)).astype(np.float32)
    np.testing.assert_allclose(d(Tensor(x)).asnumpy(), x @ w.T + b, rtol=1e-5, atol=1e-5)
    x3 = rng.standard_normal((2, 5, 4)).astype(np.float32)
    out = d(Tensor(x3))
    assert out.shape == (2, 5, 3) and out.dtype == ms.float32
    np.testing.assert_allclose(out.asnumpy(), x3 @ w.T + b, rtol=1e-5, atol=1e-5)
    act = nn.Dense(4, 3, Tensor(w), Tensor(b), activation=nn.Sigmoid())
    np.testing.assert_allclose(act(Tensor(x)).asnumpy(), _sigmoid(x @ w.T + b), rtol=1e-5)
    act = nn.Dense(4, 3, Tensor(w), has_bias=False, activation=ops.ReLU())
    np.testing.assert_allclose(act(Tensor(x)).asnumpy(), np.maximum(x @ w.T, 0), rtol=1e-5,
                               atol=1e-6)
    assert act.bias is None and [n for n, _ in act.parameters_and_names()] == ["weight"]
    d64 = nn.Dense(4, 2, dtype=ms.float64)
    assert d64.weight.dtype == ms.float64 and d64(Tensor(x.astype(np.float64))).dtype == ms.float64


def test_dense_default_init_is_uniform_over_inv_sqrt_fan_in():
    ms.set_seed(1)
    d = nn.Dense(64, 300)
    w, b = d.weight.asnumpy(), d.bias.asnumpy()
    bound = 1 / math.sqrt(64)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.95 * bound
    assert np.abs(b).max() <= bound and np.abs(b).max() > 0.9 * bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.01 * bound * 3
    assert w.dtype == np.float32


@pytest.mark.parametrize("make,x,err,words", [
    (lambda: nn.Dense(4, 3), np.ones((2, 5), np.float32), ValueError, ["Dense", "in_channels = 4",
                                                                        "[2, 5]"]),
    (lambda: nn.Dense(4, 3), np.ones(4, np.float32), ValueError, ["Dense", "rank >= 2"]),
    (lambda: nn.Dense(4, 3), [[1.0] * 4], TypeError, ["Dense", "Tensor"]),
])
def test_dense_bad_inputs(make, x, err, words):
    d = make()
    with pytest.raises(err) as e:
        d(Tensor(x) if isinstance(x, np.ndarray) else x)
    for w in words:
        assert w in str(e.value)


@pytest.mark.parametrize("args,err,words", [
    ((0, 3), ValueError, ["Dense", "in_channels"]),
    ((4, 3.0), TypeError, ["Dense", "out_channels"]),
    ((4, 3, Tensor(np.ones((4, 3), np.float32))), ValueError, ["Dense", "weight_init", "[3, 4]"]),
    ((4, 3, None, Tensor(np.ones(4, np.float32))), ValueError, ["Dense", "bias_init"]),
    ((4, 3, None, None, True, 5), TypeError, ["Dense", "activation"]),
    ((4, 3, None, None, True, "nope"), KeyError, ["Dense", "nope"]),
    ((4, 3, None, None, 1), TypeError, ["Dense", "has_bias"]),
])
def test_dense_bad_arguments(args, err, words):
    with pytest.raises(err) as e:
        nn.Dense(*args)
    for w in words:
        assert w in str(e.value)


def test_dense_gradients():
    rng = np.random.default_rng(2)
    d = nn.Dense(3, 2, Tensor(rng.standard_normal((2, 3))), Tensor(rng.standard_normal(2)),
                 activation="tanh", dtype=ms.float64)
    check_grad(lambda x: d(x), rng.standard_normal((4, 3)))
    gw, gb = ms.grad(lambda x: d(x).sum(), None, d.trainable_params())(
        Tensor(rng.standard_normal((4, 3))))
    assert gw.shape == (2, 3) and gb.shape == (2,)


# ---- Flatten, Dropout, Identity --------------------------------------------------------------
@pytest.mark.parametrize("shape,start,end,want", [
    ((2, 3, 4), 1, -1, (2, 12)), ((2, 3, 4, 5), 1, 2, (2, 12, 5)), ((2, 3, 4), 0, -1, (24,)),
    ((2, 3), 1, 1, (2, 3)), ((5,), 1, -1, (5,)), ((), 1, -1, (1,)), ((0, 3, 2), 1, -1, (0, 6)),
    ((2, 3, 4), -2, -1, (2, 12)),
])
def test_flatten(shape, start, end, want):
    x = np.arange(int(np.prod(shape))).reshape(shape).astype(np.float32)
    out = nn.Flatten(start, end)(Tensor(x))
    assert out.shape == want
    np.testing.assert_array_equal(out.asnumpy(), x.reshape(want))


def test_flatten_errors():
    with pytest.raises(ValueError, match="Flatten.*start_dim.*end_dim"):
        nn.Flatten(2, 1)(Tensor(np.ones((2, 3, 4))))
    with pytest.raises(ValueError, match="Flatten.*end_dim.*rank 3"):
        nn.Flatten(1, 5)(Tensor(np.ones((2, 3, 4))))
    with pytest.raises(TypeError, match="Flatten.*start_dim"):
        nn.Flatten(1.0)
    assert repr(nn.Flatten()) == "Flatten()"


def test_dropout_inference_identity_and_training_scaling():
    x = Tensor(np.ones((200, 50), np.float32))
    drop = nn.Dropout(p=0.2)
    assert repr(drop) == "Dropout(p=0.2)" and repr(nn.Dropout()) == "Dropout(p=0.5)"
    assert repr(nn.Dropout(keep_prob=0.8)) == "Dropout(keep_prob=0.8)"
    assert drop(x) is x                                     # inference: identity
    drop.set_train()
    out = drop(x).asnumpy()
    assert out.shape == (200, 50) and out.dtype == np.float32
    kept = out != 0
    np.testing.assert_allclose(out[kept], 1 / 0.8, rtol=1e-6)
    assert 0.75 < kept.mean() < 0.85
    assert nn.Dropout(p=0.0).set_train()(x) is x
    assert nn.Dropout(keep_prob=1.0).set_train()(x) is x


@pytest.mark.parametrize("kwargs,err", [
    ({"p": 1.0}, ValueError), ({"p": -0.1}, ValueError), ({"p": "0.5"}, TypeError),
    ({"keep_prob": 0.0}, ValueError), ({"keep_prob": 1.5}, ValueError),
])
def test_dropout_argument_errors(kwargs, err):
    with pytest.raises(err, match="Dropout"):
        nn.Dropout(**kwargs)


def test_identity():
    x = Tensor(np.ones(3))
    assert nn.Identity()(x) is x


# ---- activation cells ------------------------------------------------------------------------
def test_activation_cells_forward_and_repr():
    x = np.linspace(-8, 8, 33).reshape(3, 11).astype(np.float64)
    lsm = x - np.log(np.exp(x).sum(-1, keepdims=True))
    cases = [
        (nn.ReLU(), np.maximum(x, 0), "ReLU()"),
        (nn.ReLU6(), np.clip(x, 0, 6), "ReLU6()"),
        (nn.Sigmoid(), _sigmoid(x), "Sigmoid()"),
        (nn.Tanh(), np.tanh(x), "Tanh()"),
        (nn.SiLU(), x * _sigmoid(x), "SiLU()"),
        (nn.GELU(), 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3))),
         "GELU()"),
        (nn.GELU(approximate=False),
         0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2))), "GELU()"),
        (nn.Softmax(), np.exp(lsm), "Softmax()"),
        (nn.LogSoftmax(), lsm, "LogSoftmax()"),
        (nn.Softmax(0), np.exp(x) / np.exp(x).sum(0), "Softmax()"),
    ]
    for cell, want, text in cases:
        np.testing.assert_allclose(cell(Tensor(x)).asnumpy(), want, rtol=1e-10, atol=1e-12)
        assert repr(cell) == text
    assert isinstance(nn.get_activation("relu"), nn.ReLU) and nn.get_activation(None) is None
    with pytest.raises(TypeError, match="GELU.*approximate"):
        nn.GELU(approximate="tanh")
    with pytest.raises(TypeError, match="Softmax.*axis"):
        nn.Softmax(1.5)


# ---- Embedding -------------------------------------------------------------------------------
def test_embedding_lookup_one_hot_and_padding():
    ms.set_seed(3)
    emb = nn.Embedding(10, 4, padding_idx=2)
    table = emb.embedding_table.asnumpy()
    assert table.shape == (10, 4) and table.dtype == np.float32 and not table[2].any()
    assert emb.embedding_table.name == "embedding_table"
    assert 0 < np.abs(table).max() < 0.1                    # 'normal': sigma 0.01
    ids = np.array([[1, 2, 9], [0, 0, 5]], np.int32)
    out = emb(Tensor(ids))
    assert out.shape == (2, 3, 4)
    np.testing.assert_array_equal(out.asnumpy(), table[ids])
    one_hot = nn.Embedding(10, 4, use_one_hot=True, embedding_table=Tensor(table))
    np.testing.assert_allclose(one_hot(Tensor(ids.astype(np.int64))).asnumpy(), table[ids],
                               rtol=1e-6)
    assert repr(emb) == ("Embedding(vocab_size=10, embedding_size=4, use_one_hot=False, "
                         "embedding_table=Parameter (name=embedding_table, shape=(10, 4), "
                         "dtype=Float32, requires_grad=True), dtype=Int32, padding_idx=2)")
    with pytest.raises(TypeError, match="Embedding.*ids.*int32"):
        emb(Tensor(ids.astype(np.float32)))
    with pytest.raises(ValueError, match="Embedding.*padding_idx"):
        nn.Embedding(10, 4, padding_idx=10)
    with pytest.raises(ValueError, match="Embedding.*embedding_table"):
        nn.Embedding(10, 4, embedding_table=Tensor(np.ones((4, 10), np.float32)))


def test_embedding_gradient_accumulates_repeated_ids():
    emb = nn.Embedding(5, 2, embedding_table=Tensor(np.zeros((5, 2), np.float32)))
    g = ms.grad(lambda ids: emb(ids).sum(), None, emb.trainable_params())(
        Tensor(np.array([1, 1, 3], np.int32)))[0].asnumpy()
    np.testing.assert_array_equal(g, [[0, 0], [2, 2], [0, 0], [1, 1], [0, 0]])


# ---- wrappers and training -------------------------------------------------------------------
def _blobs(n=120, seed=0):
    rng = np.random.default_rng(seed)
    centers = np.array([[2, 2, 0, 0], [-2, 0, 2, 0], [0, -2, -2, 1]], np.float32)
    y = rng.integers(0, 3, n)
    x = centers[y] + 0.5 * rng.standard_normal((n, 4)).astype(np.float32)
    return Tensor(x.astype(np.float32)), Tensor(y.astype(np.int32))


def test_train_mlp_with_momentum_to_low_loss():
    ms.set_seed(0)
    net = nn.SequentialCell(nn.Dense(4, 16), nn.ReLU(), nn.Dense(16, 3))
    loss_net = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True,
                                                                     reduction="mean"))
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    train = nn.TrainOneStepCell(loss_net, opt)
    x, y = _blobs()
    first = float(train(x, y).asnumpy())
    for _ in range(60):
        loss = train(x, y)
    assert loss.shape == () and float(loss.asnumpy()) < 0.05 < first
    acc = (net(x).asnumpy().argmax(1) == y.asnumpy()).mean()
    assert acc == 1.0
    assert int(opt.global_step.asnumpy()[0]) == 61
    names = {p.name for p in train.get_parameters()}
    assert {"0.weight", "2.bias", "moments.0.weight", "moments.2.bias"} <= names


def test_train_one_step_matches_manual_step_and_sens():
    ms.set_seed(4)
    x, y = _blobs(20, seed=1)
    nets = [nn.Dense(4, 3) for _ in range(2)]
    nets[1].weight.set_data(Tensor(nets[0].weight.asnumpy().copy()))
    nets[1].bias.set_data(Tensor(nets[0].bias.asnumpy().copy()))
    loss_fn = nn.CrossEntropyLoss()
    step = nn.TrainOneStepCell(nn.WithLossCell(nets[0], loss_fn),
                               nn.SGD(nets[0].trainable_params(), 0.5), sens=2.0,
                               return_grad=True)
    loss, grads = step(x, y)
    assert set(grads) == {"weight", "bias"}
    ref_loss, (gw, _gb) = ms.value_and_grad(lambda a, b: loss_fn(nets[1](a), b), None,
                                           nets[1].trainable_params())(x, y)
    np.testing.assert_allclose(loss.asnumpy(), ref_loss.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(grads["weight"].asnumpy(), 2 * gw.asnumpy(), rtol=1e-5)
    w1 = nets[1].weight.asnumpy() - np.float32(0.5) * 2 * gw.asnumpy()
    np.testing.assert_allclose(nets[0].weight.asnumpy(), w1, rtol=1e-5, atol=1e-6)
    with pytest.raises(TypeError, match="TrainOneStepCell.*sens"):
        nn.TrainOneStepCell(nets[0], step.optimizer, sens="1")
    with pytest.raises(TypeError, match="TrainOneStepCell.*optimizer"):
        nn.TrainOneStepCell(nets[0], object())


def test_with_loss_and_eval_cells_keep_parameter_names():
    net = nn.Dense(4, 3)
    wl = nn.WithLossCell(net, nn.MSELoss())
    assert [n for n, _ in wl.parameters_and_names()] == ["_backbone.weight", "_backbone.bias"]
    assert net.weight.name == "weight" and wl.backbone_network is net
    x, y = Tensor(np.ones((2, 4), np.float32)), Tensor(np.zeros((2, 3), np.float32))
    loss, out, label = nn.WithEvalCell(net, nn.MSELoss())(x, y)
    np.testing.assert_allclose(loss.asnumpy(), (net(x).asnumpy() ** 2).mean(), rtol=1e-6)
    assert label is y and out.shape == (2, 3)
