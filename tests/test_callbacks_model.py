"""Training callbacks of train/callback_monitor.py and callback_ckpt.py under Model.train and
Model.fit: checkpoint files (names, cadence, keep_checkpoint_max, prefix renaming, async
saves, appended info), early stopping, learning-rate changes, History and LambdaCallback."""
import os

import numpy as np
import pytest

import mindlite as ms
from mindlite import nn
from mindlite.dataset import NumpySlicesDataset
from mindlite.train import (CheckpointConfig, EarlyStopping, History, LambdaCallback,
                            LearningRateScheduler, Model, ModelCheckpoint, ReduceLROnPlateau)


def _data(n=12, batch=4):
    rng = np.random.default_rng(0)
    x = rng.random((n, 3)).astype(np.float32)
    y = (x.sum(1) > 1.5).astype(np.int32)
    return NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(batch)


def _model(lr=0.1, metrics=None):
    ms.set_seed(1)
    net = nn.Dense(3, 2)
    opt = nn.Momentum(net.trainable_params(), lr, 0.9)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    return net, opt, Model(net, loss, opt, metrics=metrics)


def test_checkpoint_names_cadence_and_keep_max(tmp_path):
    net, _, model = _model()
    cfg = CheckpointConfig(save_checkpoint_steps=2, keep_checkpoint_max=2,
                           append_info=["epoch_num", "step_num"])
    ckpt = ModelCheckpoint("net", str(tmp_path), cfg)
    model.train(2, _data(), callbacks=[ckpt])        # 3 steps per epoch: saves at 2, 4, 6
    assert sorted(os.listdir(tmp_path)) == ["net-2_1.ckpt", "net-2_3.ckpt"]
    assert ckpt.latest_ckpt_file_name == str(tmp_path / "net-2_3.ckpt")
    saved = ms.load_checkpoint(ckpt.latest_ckpt_file_name)
    assert int(saved["epoch_num"].asnumpy()) == 2 and int(saved["step_num"].asnumpy()) == 6
    for p in net.trainable_params():
        np.testing.assert_array_equal(saved[p.name].asnumpy(), p.asnumpy())
    # a second run with the same prefix does not overwrite: its files are net_1-...
    again = ModelCheckpoint("net", str(tmp_path), CheckpointConfig(save_checkpoint_steps=3))
    model.train(1, _data(), callbacks=[again])
    assert "net_1-1_3.ckpt" in os.listdir(tmp_path)


def test_async_save_writes_the_values_of_its_step(tmp_path):
    net, _, model = _model()
    cfg = CheckpointConfig(save_checkpoint_steps=3, async_save=True, keep_checkpoint_max=10)
    seen = {}

    def remember(run_context):
        cb = run_context.original_args()
        if cb.cur_step_num == 3:
            seen.update({p.name: p.asnumpy().copy() for p in net.trainable_params()})
    ckpt = ModelCheckpoint("a", str(tmp_path), cfg)
    model.train(2, _data(), callbacks=[ckpt, LambdaCallback(on_train_step_end=remember)])
    first = ms.load_checkpoint(str(tmp_path / "a-1_3.ckpt"))
    for name, value in seen.items():
        np.testing.assert_array_equal(first[name].asnumpy(), value)
    assert sorted(os.listdir(tmp_path)) == ["a-1_3.ckpt", "a-2_3.ckpt"]


def test_early_stopping_on_loss_stops_and_restores_best(tmp_path):
    net, _, model = _model(lr=0.0)       # the loss never improves after the first epoch
    hist = History()
    stop = EarlyStopping(monitor="loss", patience=2, restore_best_weights=True)
    model.train(10, _data(), callbacks=[hist, stop])
    assert hist.epoch["epoch"] == [1, 2, 3] and stop.stopped_epoch == 3
    assert len(hist.history["net_output"]) == 3


def test_reduce_lr_on_plateau_and_eval_results_under_fit():
    _, opt, model = _model(lr=1e-12, metrics={"acc"})
    hist = History()
    seen = []
    plateau = ReduceLROnPlateau(monitor="eval_loss", factor=0.5, patience=1, min_delta=1e-3)
    grab = LambdaCallback(on_train_epoch_end=lambda rc: seen.append(
        dict(rc.original_args().eval_results)))
    model.fit(4, _data(), _data(), callbacks=[hist, plateau, grab])
    assert set(seen[0]) == {"acc", "eval_loss"}
    # epoch 1 sets the best; epochs 2, 3, 4 do not improve: patience 1 halves each time
    np.testing.assert_allclose(opt.learning_rate.asnumpy(), 1e-12 * 0.125, rtol=1e-6)
    assert len(hist.history["acc"]) == 4


def test_learning_rate_scheduler_and_lambda_counts():
    _, opt, model = _model(lr=0.1)
    calls = {"step": 0, "epoch": 0}
    counter = LambdaCallback(
        on_train_step_end=lambda rc: calls.__setitem__("step", calls["step"] + 1),
        on_train_epoch_end=lambda rc: calls.__setitem__("epoch", calls["epoch"] + 1))
    sched = LearningRateScheduler(lambda lr, step: lr * 0.5)
    model.train(2, _data(), callbacks=[counter, sched])
    assert calls == {"step": 6, "epoch": 2}
    np.testing.assert_allclose(opt.learning_rate.asnumpy(), 0.1 * 0.5 ** 6, rtol=1e-6)


def test_errors():
    with pytest.raises(ValueError, match="cannot both be 0"):
        CheckpointConfig(save_checkpoint_steps=0, save_checkpoint_seconds=0)
    with pytest.raises(ValueError, match="'keep_checkpoint_max' must be an int >= 0"):
        CheckpointConfig(keep_checkpoint_max=-1)
    with pytest.raises(TypeError, match="'async_save' must be a bool"):
        CheckpointConfig(async_save=1)
    with pytest.raises(ValueError, match="'prefix' must be a non-empty str without '/'"):
        ModelCheckpoint("a/b")
    with pytest.raises(TypeError, match="'config' must be a CheckpointConfig"):
        ModelCheckpoint(config={})
    with pytest.raises(ValueError, match="'mode' should be 'auto', 'min' or 'max'"):
        EarlyStopping(mode="up")
    with pytest.raises(ValueError, match="'factor' must be in \\(0, 1\\)"):
        ReduceLROnPlateau(factor=1.5)
    with pytest.raises(TypeError, match="'learning_rate_function' must be callable"):
        LearningRateScheduler(0.1)
    with pytest.raises(TypeError, match="'on_train_end' must be callable"):
        LambdaCallback(on_train_end=3)
    net = nn.Dense(3, 2)
    opt = nn.Momentum(net.trainable_params(), nn.ExponentialDecayLR(0.1, 0.9, 1), 0.9)
    model = Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"), opt)
    with pytest.raises(ValueError, match="does not support dynamic learning rate"):
        model.train(1, _data(), callbacks=[LearningRateScheduler(lambda lr, s: lr)])
