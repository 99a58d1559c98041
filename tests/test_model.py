"""mindlite.train.Model with callbacks and metrics: exact parameter updates, MindSpore's
callback arguments and LossMonitor lines, eval metrics against numpy, and argument errors."""
import re

import numpy as np
import pytest

import mindlite.dataset as ds
from mindlite import Parameter, ParameterTuple, Tensor, nn, ops
from mindlite.train import (
    Accuracy,
    Callback,
    Loss,
    LossMonitor,
    Metric,
    Model,
    TimeMonitor,
    load_checkpoint,
    load_param_into_net,
    save_checkpoint,
)


class SGD:
    """A minimal optimizer: the interface Model needs (parameters, __call__(grads))."""

    def __init__(self, params, lr):
        self.parameters = ParameterTuple(params)
        self.lr = lr

    def __call__(self, grads):
        for p, g in zip(self.parameters, grads):
            p.set_data(Tensor(p.asnumpy() - self.lr * g.asnumpy()))
        return True


class Conv1x1(nn.Cell):
    """y[n, o] = sum_c w[o, c] x[n, c]: a linear map built on Conv2D (whose bprop exists)."""

    def __init__(self, w):
        super().__init__()
        self.w = Parameter(w, name="w")
        self.conv = ops.Conv2D(out_channel=w.shape[0], kernel_size=1)

    def construct(self, x):
        return self.conv(x, self.w)


class Linear(nn.Cell):
    def __init__(self, w, b):
        super().__init__()
        self.w = Parameter(w, name="w")
        self.b = Parameter(b, name="b")

    def construct(self, x):
        return ops.matmul(x, self.w) + self.b


class Recorder(Callback):
    """Uses MindSpore 1.x hook names (Callback maps on_train_* to them)."""

    def __init__(self):
        self.events = []

    def begin(self, run_context):
        self.events.append(("begin", run_context.original_args().epoch_num))

    def epoch_begin(self, run_context):
        self.events.append(("epoch_begin", run_context.original_args().cur_epoch_num))

    def step_end(self, run_context):
        cb = run_context.original_args()
        self.events.append(("step_end", cb.cur_epoch_num, cb.cur_step_num,
                            cb.net_outputs.asnumpy().copy()))

    def end(self, run_context):
        self.events.append(("end", run_context.original_args().cur_step_num))


def conv_setup(n=8, batch=4, lr=0.01):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, 3, 1, 1)).astype(np.float32)
    w0 = rng.standard_normal((2, 3, 1, 1)).astype(np.float32)
    net = Conv1x1(w0.copy())
    data = ds.NumpySlicesDataset({"x": x}, shuffle=False).batch(batch)
    return x, w0, net, data, SGD(net.trainable_params(), lr)


# ---- training ------------------------------------------------------------------------------------
def test_train_updates_parameters_exactly_and_reports(capsys):
    x, w0, net, data, opt = conv_setup()
    rec = Recorder()
    Model(net, optimizer=opt).train(2, data, callbacks=[rec, LossMonitor(1)])
    # loss = sum of the outputs' gradient: d/dw[o, c] = sum over the batch of x[:, c]
    w, losses = w0.copy(), []
    for _ in range(2):
        for b in range(2):
            xb = x[b * 4:(b + 1) * 4]
            losses.append(np.einsum("oc,nc->no", w[:, :, 0, 0], xb[:, :, 0, 0]))
            w -= 0.01 * np.broadcast_to(xb.sum(0)[None], w.shape)
    np.testing.assert_allclose(net.w.asnumpy(), w, rtol=1e-5, atol=1e-6)
    steps = [e for e in rec.events if e[0] == "step_end"]
    assert [(e[1], e[2]) for e in steps] == [(1, 1), (1, 2), (2, 3), (2, 4)]
    for e, want in zip(steps, losses):
        np.testing.assert_allclose(e[3][:, :, 0, 0], want, rtol=1e-5, atol=1e-6)
    assert rec.events[0] == ("begin", 2) and rec.events[-1] == ("end", 4)
    assert [e[1] for e in rec.events if e[0] == "epoch_begin"] == [1, 2]
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 4
    for line, (ep, step), want in zip(lines, [(1, 1), (1, 2), (2, 1), (2, 2)], losses):
        m = re.fullmatch(r"epoch: (\d+) step: (\d+), loss is (\S+)", line)
        assert m and (int(m[1]), int(m[2])) == (ep, step)
        assert float(m[3]) == pytest.approx(float(want.mean()), rel=1e-5, abs=1e-6)


def test_loss_monitor_period_and_stop_request(capsys):
    _, _, net, data, opt = conv_setup(n=12, batch=2)

    class StopAt(Callback):
        def on_train_step_end(self, run_context):
            if run_context.original_args().cur_step_num == 8:
                run_context.request_stop()
    rec = Recorder()
    Model(net, optimizer=opt).train(5, data, callbacks=[LossMonitor(3), StopAt(), rec])
    out = capsys.readouterr().out.splitlines()
    assert [line.split(",")[0] for line in out] == ["epoch: 1 step: 3", "epoch: 1 step: 6"]
    assert rec.events[-1] == ("end", 8)


def test_time_monitor_and_sink_mode(capsys):
    _, _, net, data, opt = conv_setup()
    with pytest.warns(UserWarning, match="sink"):
        Model(net, optimizer=opt).train(1, data, callbacks=TimeMonitor(), dataset_sink_mode=True)
    assert re.fullmatch(r"Train epoch time: \d+\.\d{3} ms, per step time: \d+\.\d{3} ms\n",
                        capsys.readouterr().out)


def test_train_errors():
    _, _, net, data, opt = conv_setup()
    with pytest.raises(TypeError, match="Model.*'network'"):
        Model(lambda x: x)
    with pytest.raises(TypeError, match="Model.*'optimizer'"):
        Model(net, optimizer=object())
    model = Model(net, optimizer=opt)
    with pytest.raises(ValueError, match="Model.train.*'epoch' must be an int >= 1"):
        model.train(0, data)
    with pytest.raises(TypeError, match="Model.train.*'train_dataset'"):
        model.train(1, [1, 2])
    with pytest.raises(TypeError, match="Model.train.*'callbacks'"):
        model.train(1, data, callbacks=[print])
    with pytest.raises(ValueError, match="Model.train.*'initial_epoch'"):
        model.train(2, data, initial_epoch=2)
    with pytest.raises(ValueError, match="Model.*data and label"):
        Model(net, loss_fn=lambda o, y: o, optimizer=opt).train(1, data)


def test_linear_regression_converges_like_numpy(tmp_path):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((64, 3)).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)
    w0, b0 = np.zeros((3, 1), np.float32), np.zeros(1, np.float32)
    net = Linear(w0.copy(), b0.copy())

    def mse(out, label):
        d = out - label
        return (d * d).sum() * (1.0 / 16)
    data = ds.NumpySlicesDataset((x, y), column_names=["x", "y"], shuffle=False).batch(16)
    model = Model(net, loss_fn=mse, optimizer=SGD(net.trainable_params(), 0.1),
                  metrics={"loss": Loss()})
    first = model.eval(data)["loss"]
    model.train(20, data)
    w, b = w0.copy(), b0.copy()                          # the same SGD, in numpy
    for _ in range(20):
        for i in range(4):
            xb, yb = x[i * 16:(i + 1) * 16], y[i * 16:(i + 1) * 16]
            g = 2 * (xb @ w + b - yb) / 16
            w, b = w - 0.1 * xb.T @ g, b - 0.1 * g.sum(0)
    np.testing.assert_allclose(net.w.asnumpy(), w, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(net.b.asnumpy(), b, rtol=1e-4, atol=1e-5)
    assert model.eval(data)["loss"] < first * 1e-3
    path = str(tmp_path / "lin.ckpt")
    save_checkpoint(net, path)
    fresh = Linear(w0.copy(), b0.copy())
    assert load_param_into_net(fresh, load_checkpoint(path)) == ([], [])
    np.testing.assert_array_equal(Model(fresh).predict(Tensor(x)).asnumpy(),
                                  model.predict(Tensor(x)).asnumpy())


# ---- eval / predict / fit ------------------------------------------------------------------------
def classifier_setup():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((10, 4)).astype(np.float32)
    w = rng.standard_normal((4, 3)).astype(np.float32)
    labels = rng.integers(0, 3, 10).astype(np.int32)
    net = Linear(w, np.zeros(3, np.float32))

    def loss_fn(out, label):                              # forward only: no gradient needed
        return (out * out).mean()
    data = ds.NumpySlicesDataset((x, labels), shuffle=False).batch(4)
    return x, w, labels, net, loss_fn, data


def test_eval_metrics_against_numpy():
    x, w, labels, net, loss_fn, data = classifier_setup()
    model = Model(net, loss_fn=loss_fn, metrics={"acc": Accuracy(), "loss": Loss()})
    got = model.eval(data)
    logits = x @ w
    assert got["acc"] == pytest.approx(np.mean(logits.argmax(1) == labels))
    batch_losses = [np.mean(logits[i:i + 4] ** 2) for i in (0, 4, 8)]
    assert got["loss"] == pytest.approx(np.mean(batch_losses), rel=1e-6)
    assert model.eval(data) == got                       # metrics are cleared between runs
    assert Model(net, loss_fn=loss_fn, metrics={"accuracy"}).eval(data).keys() == {"accuracy"}
    np.testing.assert_allclose(model.predict(Tensor(x)).asnumpy(), logits, rtol=1e-6)
    with pytest.raises(ValueError, match="Model.eval.*no metrics"):
        Model(net, loss_fn=loss_fn).eval(data)
    with pytest.raises(ValueError, match="Model.eval.*'loss_fn' or an 'eval_network'"):
        Model(net, metrics={"acc"}).eval(data)
    with pytest.raises(ValueError, match="Unknown metric name 'f1'"):
        Model(net, metrics={"f1"})


def test_eval_network_and_indexes():
    x, w, labels, net, _, data = classifier_setup()

    def eval_net(xb, yb):
        return yb, net(xb)                              # (label, logits): custom order
    acc = Accuracy().set_indexes([1, 0])
    got = Model(net, metrics={"acc": acc}, eval_network=eval_net).eval(data)
    assert got["acc"] == pytest.approx(np.mean((x @ w).argmax(1) == labels))


def test_fit_runs_eval_each_epoch(capsys):
    _, _, net, data, opt = conv_setup()

    def zero_loss(out, label):
        return (out * 0.0).sum()
    rec_metrics = []

    class Grab(Callback):
        def on_train_epoch_end(self, run_context):
            rec_metrics.append(run_context.original_args().metrics)
    xdata = ds.NumpySlicesDataset((np.ones((4, 3, 1, 1), np.float32), np.zeros(4, np.int32)),
                                  shuffle=False).batch(2)
    model = Model(net, optimizer=opt, eval_network=lambda a, b: (zero_loss(net(a), b),),
                  metrics={"loss": Loss()})
    model.fit(2, data, valid_dataset=xdata, callbacks=[Grab(), LossMonitor(0)])
    assert rec_metrics == [{"loss": 0.0}, {"loss": 0.0}]
    assert capsys.readouterr().out.count("Eval result: epoch") == 2


# ---- metrics -------------------------------------------------------------------------------------
def test_accuracy_and_loss_metrics():
    acc = Accuracy()
    acc.update(Tensor(np.array([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7]], np.float32)),
               Tensor(np.array([1, 1, 1], np.int32)))
    assert acc.eval() == pytest.approx(2 / 3)
    acc.update(np.array([[1.0, 0.0]]), np.array([[1, 0]]))    # one-hot labels
    assert acc.eval() == pytest.approx(3 / 4)
    with pytest.raises(ValueError, match="class number 3"):
        acc.update(np.zeros((1, 3)), np.zeros(1))
    ml = Accuracy("multilabel")
    ml.update(np.array([[1, 0, 1], [0, 1, 1]]), np.array([[1, 0, 1], [0, 0, 1]]))
    assert ml.eval() == 0.5
    acc.clear()
    with pytest.raises(RuntimeError, match="'Accuracy' can not be calculated"):
        acc.eval()
    with pytest.raises(ValueError, match="Accuracy.update.*2 inputs"):
        acc.update(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="eval_type"):
        Accuracy("top5")
    loss = Loss()
    loss.update(Tensor(np.float32(2.0)))
    loss.update(np.array([1.0, 3.0]))
    assert loss.eval() == pytest.approx(2.0)
    with pytest.raises(ValueError, match="Loss.update.*scalar or 1-D"):
        loss.update(np.zeros((2, 2)))
    assert isinstance(loss, Metric) and Loss()(np.float32(4.0)) == 4.0
    with pytest.raises(TypeError, match="Loss.update"):
        loss.update("1.0")


def test_loss_monitor_rejects_nan():
    _, w0, net, data, _ = conv_setup()
    net.w.set_data(Tensor(np.full_like(w0, np.nan)))
    with pytest.raises(ValueError, match="epoch: 1 step: 1. Invalid loss"):
        Model(net, optimizer=SGD(net.trainable_params(), 0.1)).train(
            1, data, callbacks=LossMonitor())
    with pytest.raises(ValueError, match="LossMonitor.*per_print_times"):
        LossMonitor(-1)


def test_model_without_optimizer_runs_the_network_as_the_step():
    calls = []

    class Step(nn.Cell):
        def construct(self, x):
            calls.append(x.shape)
            return x.sum()
    data = ds.NumpySlicesDataset(np.ones((6, 2), np.float32), shuffle=False).batch(3)
    Model(Step()).train(2, data)
    assert calls == [(3, 2)] * 4
