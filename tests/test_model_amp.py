"""train.Model with mixed precision and loss scaling (issue 14), against MindSpore 2.10.

`case` builds Model(amp_level=..., loss_scale_manager=..., keep_batchnorm_fp32=...) over a
Dense-LayerNorm-Dense net with fixed weights (LayerNorm: on the black list, and without the
moving statistics whose update differs from MindSpore's, see docs/training.md), trains 2
steps, predicts and evaluates; tests/data/model_amp_mindspore.json holds what the same
function gave with mindspore in place of mindlite. MindSpore's CPU build refuses loss-scale
update cells, so those cases are checked against their definition instead: an overflowing
step is skipped and shrinks the scale.
"""
import json
import os
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mindlite as ms
from mindlite import Tensor, amp, nn, ops
from mindlite.dataset import NumpySlicesDataset
from mindlite.train import Model

MS_VALUES = os.path.join(os.path.dirname(__file__), "data", "model_amp_mindspore.json")
CONFIGS = [("O0", {}), ("O1", {}), ("O2", {"loss_scale_manager": None}), ("O3", {}),
           ("O2", {"keep_batchnorm_fp32": False, "loss_scale_manager": None}),
           ("O3", {"loss_scale_manager": "fixed128"})]


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc, self.ln, self.fc2 = nn.Dense(4, 8), nn.LayerNorm((8,)), nn.Dense(8, 3)

    def construct(self, t):
        return self.fc2(self.ln(self.fc(t)))


def case(level, kwargs):
    """Run with the module's framework (ms, nn, amp, Model, NumpySlicesDataset): returns plain
    numbers and names."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal((16, 4)).astype(np.float32)
    y = rng.integers(0, 3, 16).astype(np.int32)
    w1 = (rng.standard_normal((8, 4)) * 0.5).astype(np.float32)
    w2 = (rng.standard_normal((3, 8)) * 0.5).astype(np.float32)
    net = Net()
    params = net.parameters_dict()
    for name, value in (("fc.weight", w1), ("fc2.weight", w2)):
        params[name].set_data(ms.Tensor(value))
    for name, size in (("fc.bias", 8), ("fc2.bias", 3)):
        params[name].set_data(ms.Tensor(np.full(size, 0.1, np.float32)))
    kwargs = dict(kwargs)
    scale = 1.0
    if kwargs.get("loss_scale_manager") == "fixed128":
        kwargs["loss_scale_manager"], scale = amp.FixedLossScaleManager(128.0, False), 128.0
    opt = nn.Momentum(net.trainable_params(), 0.1, 0.9, loss_scale=scale)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    model = Model(net, loss, opt, metrics={"acc", "loss"}, amp_level=level, **kwargs)

    def data():
        return NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(8)
    model.train(1, data())
    pred = model.predict(ms.Tensor(x[:4]))
    out = {"predict_dtype": str(pred.dtype), "predict": pred.asnumpy().astype(float).tolist(),
           "train_cell": type(model._train_network).__name__}
    for name in ("fc.weight", "fc2.weight", "ln.gamma", "ln.beta"):
        out[name] = params[name].asnumpy().astype(float).tolist()
    metrics = model.eval(data())
    out["acc"], out["loss"] = float(metrics["acc"]), float(metrics["loss"])
    return out


def _key(level, kwargs):
    return level + "".join(f",{k}={v}" for k, v in sorted(kwargs.items()))


@pytest.mark.parametrize("level, kwargs", CONFIGS)
def test_model_amp_matches_mindspore(level, kwargs):
    want = json.load(open(MS_VALUES))[_key(level, kwargs)]
    got = case(level, kwargs)
    assert got["predict_dtype"] == want["predict_dtype"]
    if level != "O0":              # the plain O0 step is not a cell (it compiles as one graph)
        assert got["train_cell"] == want["train_cell"]
    tol = 1e-5 if level == "O0" else 4e-3     # float16: within a few units in the last place
    if level != "O0":                          # and float16 did run: not the float32 result
        fp32 = json.load(open(MS_VALUES))[_key("O0", {})]["predict"]
        assert not np.allclose(got["predict"], fp32, rtol=1e-6, atol=1e-6)
    for name in ("predict", "fc.weight", "fc2.weight", "ln.gamma", "ln.beta", "loss"):
        np.testing.assert_allclose(got[name], want[name], rtol=tol, atol=tol, err_msg=name)
    assert got["acc"] == want["acc"]


def test_o2_default_dynamic_loss_scale_skips_overflow_and_shrinks():
    """O2's default manager is DynamicLossScaleManager (2**24): in float16 the first steps'
    gradients overflow, so those updates are skipped and the scale halves each time until a
    step is finite; Model keeps the manager in step with the cell."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((32, 4)).astype(np.float32)
    y = rng.integers(0, 3, 32).astype(np.int32)
    ms.set_seed(0)
    net = nn.SequentialCell([nn.Dense(4, 8), nn.BatchNorm1d(8), nn.Dense(8, 3)])
    before = net[0].weight.asnumpy().copy()
    opt = nn.SGD(net.trainable_params(), 0.05)
    model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"), opt,
                  amp_level="O2")
    cell = model._train_network
    assert isinstance(cell, nn.TrainOneStepWithLossScaleCell)
    outputs = []
    batch = (Tensor(x[:8]), Tensor(y[:8]))
    while len(outputs) < 20:
        outputs.append(cell(*batch))
        if not bool(outputs[-1][1].asnumpy()):
            break
    flags = [bool(o[1].asnumpy()) for o in outputs]
    assert flags[0] and not flags[-1]                   # overflowed first, then finite
    assert float(outputs[-1][2].asnumpy()) == 2.0 ** 24 / 2 ** (len(flags) - 1)
    assert not np.array_equal(net[0].weight.asnumpy(), before)     # the finite step updated
    manager = amp.DynamicLossScaleManager(2 ** 10, 2, 1000)
    model = Model(nn.Dense(4, 3), nn.SoftmaxCrossEntropyWithLogits(sparse=True,
                                                                   reduction="mean"),
                  nn.SGD(nn.Dense(4, 3).trainable_params(), 0.05), amp_level="O3",
                  loss_scale_manager=manager)
    assert isinstance(model._train_network, nn.TrainOneStepWithLossScaleCell)


def test_model_updates_the_manager_per_step():
    manager = amp.DynamicLossScaleManager(2.0 ** 30, 2, 1000)
    net = nn.Dense(4, 3)
    model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                  nn.SGD(net.trainable_params(), 0.05), amp_level="O3",
                  loss_scale_manager=manager)
    x = np.random.default_rng(1).standard_normal((16, 4)).astype(np.float32)
    y = np.zeros(16, np.int32)
    model.train(1, NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(4))
    # a 2**30-scaled gradient overflows float16 in the network's backward: the cell's scale
    # and the manager's both halve on every overflowing step
    cell_scale = float(model._train_network.scale_sense.asnumpy())
    assert manager.get_loss_scale() == cell_scale < 2.0 ** 30


def test_keep_batchnorm_fp32_and_custom_mixed_precision():
    net = nn.SequentialCell([nn.Dense(4, 8), nn.BatchNorm1d(8), nn.Dense(8, 3)])
    amp.build_train_network(net, nn.SGD(net.trainable_params(), 0.1),
                            nn.SoftmaxCrossEntropyWithLogits(sparse=True), level="O2",
                            loss_scale_manager=None)
    assert net[0]._mp_dtype == ms.float16 and net[1]._mp_dtype == ms.float32
    assert net(Tensor(np.ones((2, 4), np.float32))).dtype == ms.float16
    net = nn.SequentialCell([nn.Dense(4, 8), nn.ReLU(), nn.Dense(8, 3)])
    mixed = amp.custom_mixed_precision(net, black_list=[nn.ReLU])
    assert net[1]._mp_dtype == ms.float32 and mixed(Tensor(np.ones((2, 4), np.float32))).dtype \
        == ms.float32
    net = nn.SequentialCell([nn.Dense(4, 8), nn.ReLU()])
    assert amp.custom_mixed_precision(net, white_list=[nn.ReLU]) is net
    assert net[1]._mp_dtype == ms.float16 and net[0]._mp_dtype is None


def test_errors():
    net = nn.Dense(4, 3)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True)
    opt = nn.SGD(net.trainable_params(), 0.1)
    with pytest.raises(ValueError, match="'optimizer' is None"):
        Model(net, loss, amp_level="O2")
    with pytest.raises(ValueError, match="'level' must be one of"):
        Model(net, loss, opt, amp_level="O4")
    with pytest.raises(TypeError, match="'level' must be a string"):
        Model(net, loss, opt, amp_level=2)
    with pytest.raises(ValueError, match="'boost_level' must be one of"):
        Model(net, loss, opt, boost_level="O3")
    with pytest.raises(ValueError, match="should be 'loss_scale_manager'"):
        Model(net, loss, opt, scale=2)
    with pytest.raises(ValueError, match="can not be None when 'loss_scale_manager'"):
        Model(net, loss, loss_scale_manager=amp.FixedLossScaleManager())
    with pytest.raises(TypeError, match="'loss_scale_manager' must be a LossScaleManager"):
        Model(net, loss, opt, loss_scale_manager=128)
    with pytest.raises(TypeError, match="'keep_batchnorm_fp32' must be a bool"):
        Model(net, loss, opt, keep_batchnorm_fp32=1)
    with pytest.raises(TypeError, match="'optimizer' must be an nn.Optimizer"):
        amp.build_train_network(net, None, loss)
    with pytest.raises(ValueError, match="exactly one of 'white_list' and 'black_list'"):
        amp.custom_mixed_precision(net)
    with pytest.raises(TypeError, match="'white_list' must be a list of Cell classes"):
        amp.custom_mixed_precision(net, white_list=[int])
    with pytest.raises(ValueError, match="shape of 'scale_sense' must be"):
        nn.TrainOneStepWithLossScaleCell(nn.WithLossCell(net, loss), opt,
                                         Tensor(np.ones(2, np.float32)))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        Model(net, loss, opt, boost_level="O1")
    assert any("no boost mode" in str(w.message) for w in caught)


def test_model_network_properties():
    net = nn.Dense(4, 3)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.SGD(net.trainable_params(), 0.1)
    model = Model(net, loss, opt, metrics={"acc"})
    assert model.predict_network is net
    x = Tensor(np.ones((2, 4), np.float32))
    y = Tensor(np.zeros(2, np.int32))
    train = model.train_network
    assert isinstance(train, nn.TrainOneStepCell) and train.optimizer is opt
    before = net.weight.asnumpy().copy()
    train(x, y)                                    # the same parameters and optimizer
    assert not np.array_equal(net.weight.asnumpy(), before)
    loss_value, out, label = model.eval_network(x, y)
    assert out.shape == (2, 3) and label is y and not model.eval_network.add_cast_fp32
    other = nn.Dense(4, 3)
    half = Model(other, loss, nn.SGD(other.trainable_params(), 0.1), amp_level="O3")
    assert half.eval_network.add_cast_fp32 and half.eval_network(x, y)[1].dtype == ms.float32
    assert Model(net).train_network is net and Model(net).eval_network is None


@pytest.mark.parametrize("level, kwargs", [("O1", {}), ("O2", {}), ("O3", {}),
                                           ("O0", {"loss_scale_manager": "dyn"})])
def test_amp_model_under_graph_mode_equals_pynative(level, kwargs):
    """Under GRAPH_MODE the loss-scale cells (host control flow) and the cells holding
    mixed-precision cells run eagerly, without a fallback warning, so training computes in
    float16 as in PyNative mode (compiling them would inline the float16 cells in float32)."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((16, 4)).astype(np.float32)
    y = rng.integers(0, 3, 16).astype(np.int32)
    weights, init = [], None
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        net = nn.SequentialCell([nn.Dense(4, 8), nn.LayerNorm((8,)), nn.Dense(8, 3)])
        init = init or [p.asnumpy().copy() for p in net.trainable_params()]
        for p, value in zip(net.trainable_params(), init):
            p.set_data(Tensor(value))
        kw = {"loss_scale_manager": amp.DynamicLossScaleManager(2 ** 10, 2, 3)} if kwargs \
            else {}
        model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                      nn.SGD(net.trainable_params(), 0.1), amp_level=level, **kw)
        ms.set_context(mode=mode)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                model.train(2, NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(4))
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
        weights.append([p.asnumpy() for p in net.trainable_params()])
    # the compiled float32 pieces (loss, optimizer) may round a last bit differently, which a
    # float16 step can turn into ~1e-4; computing the mixed cells in float32 moves weights ~1e-2
    for a, b in zip(*weights):
        np.testing.assert_allclose(a, b, rtol=0, atol=5e-4)


def _mindspore_update(scale, cur, last, overflow, factor, window):
    """MindSpore 2.10's DynamicLossScaleUpdateCell.construct, transcribed (its selects)."""
    scale, factor = np.float32(scale), np.float32(factor)
    on_overflow = max(scale * np.reciprocal(factor), np.float32(1)) if overflow else scale
    should_inc = window <= cur - last
    last = cur if (overflow or should_inc) else last
    scale = on_overflow * factor if (should_inc and not overflow) else on_overflow
    return scale, cur + 1, last


@settings(max_examples=20, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=30), st.integers(1, 4),
       st.sampled_from([2.0, 3.0]))
def test_dynamic_loss_scale_follows_mindspores_rule(overflows, window, factor):
    cell = nn.DynamicLossScaleUpdateCell(2.0 ** 12, factor, window)
    scale = ms.Parameter(Tensor(np.array(2.0 ** 12, np.float32)), name="scale")
    manager = amp.DynamicLossScaleManager(2.0 ** 12, factor, window)
    want, cur, last = 2.0 ** 12, 1, 0
    manager_scale, m_cur, m_last = 2.0 ** 12, 1, 0
    for flag in overflows:
        cell(scale, Tensor(np.array(flag)))
        manager.update_loss_scale(flag)
        want, cur, last = _mindspore_update(want, cur, last, flag, factor, window)
        # MindSpore's manager: grows when (cur - last overflow) % window == 0
        if flag:
            manager_scale, m_last = max(manager_scale * (1 / factor), 1.0), m_cur
        elif (m_cur - m_last) % window == 0:
            manager_scale *= factor
        m_cur += 1
        assert float(scale.asnumpy()) == want
        assert manager.get_loss_scale() == manager_scale
    assert int(cell.cur_iter.asnumpy()) == cur and int(cell.last_overflow_iter.asnumpy()) == last


class _CustomLossScaleStep(nn.TrainOneStepWithLossScaleCell):
    """The pattern of MindSpore's model-zoo steps: the gradients by `self.grad` with an
    explicit sensitivity, then the overflow helpers."""

    def construct(self, x, y):
        loss = self.network(x, y)
        scaling_sens = self.scale_sense
        status, scaling_sens = self.start_overflow_check(loss, scaling_sens)
        sens = ops.ones_like(loss) * ops.cast(scaling_sens, loss.dtype)
        grads = self.grad(self.network, self.weights)(x, y, sens)
        grads = tuple(g / ops.cast(scaling_sens, g.dtype) for g in grads)
        cond = self.get_overflow_status(status, grads)
        overflow = self.process_loss_scale(cond)
        if not bool(overflow.asnumpy()):
            self.optimizer(grads)
        return loss, cond, scaling_sens


def test_custom_loss_scale_step_subclass_equals_the_cell():
    x = Tensor(np.random.default_rng(5).standard_normal((4, 3)).astype(np.float32))
    y = Tensor(np.ones((4, 1), np.float32))
    big = Tensor(np.full((4, 3), 3e38, np.float32))
    runs = []
    for cls in (nn.TrainOneStepWithLossScaleCell, _CustomLossScaleStep):
        net = nn.Dense(3, 1)
        net.weight.set_data(Tensor(np.full((1, 3), 0.5, np.float32)))
        net.bias.set_data(Tensor(np.zeros(1, np.float32)))
        update = nn.DynamicLossScaleUpdateCell(2.0 ** 8, 2, 2)
        step = cls(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.01),
                   update)
        flags = [bool(step(*batch)[1].asnumpy()) for batch in ((x, y), (big, y), (x, y))]
        runs.append((flags, net.weight.asnumpy().copy(), float(step.scale_sense.asnumpy())))
    assert runs[0][0] == runs[1][0] == [False, True, False]
    np.testing.assert_allclose(runs[0][1], runs[1][1], rtol=1e-6)
    assert runs[0][2] == runs[1][2] == 2.0 ** 7


def test_dynamic_manager_gives_up_after_1000_overflows_in_a_row():
    manager = amp.DynamicLossScaleManager(2.0 ** 4, 2, 10)
    for _ in range(1000):
        manager.update_loss_scale(True)
    assert manager.get_loss_scale() == 1.0
    manager.update_loss_scale(False)                       # a clean step resets the count
    for _ in range(1000):
        manager.update_loss_scale(True)
    with pytest.raises(RuntimeError, match="overflowed 1001 steps in a row"):
        manager.update_loss_scale(True)
