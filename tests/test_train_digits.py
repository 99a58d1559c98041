"""examples/train_digits.py: the demo run end to end (--quick, in a subprocess: exit status,
checkpoints, reload check, loss plot), and its nets and training loop in-process on a
synthetic separable data set (no scikit-learn needed): the loss falls below a bar, runs with
one seed are identical, a missed accuracy bar makes the demo fail."""
import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest

import mindlite as ms
from mindlite import nn

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "examples", "train_digits.py")


def _load_demo():
    spec = importlib.util.spec_from_file_location("train_digits", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


td = _load_demo()


def _demo_deps():
    for name in ("sklearn", "tqdm", "matplotlib"):
        pytest.importorskip(name)


def _blobs(n_per_class=40, seed=0):
    """10 Gaussian blobs in 64-d, overlapping in every single pixel but separable together:
    float32 (N, 64), int32 labels."""
    rng = np.random.default_rng(seed)
    centers = rng.standard_normal((10, 64))
    y = np.repeat(np.arange(10), n_per_class)
    x = centers[y] + 1.5 * rng.standard_normal((y.size, 64))
    return x.astype(np.float32), y.astype(np.int32)


def _train_mlp(seed, epochs=4):
    x, y = _blobs()
    model = td.create_net("MLP", seed)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    optimizer = nn.SGD(model.trainable_params(), learning_rate=0.05, momentum=0.9)
    step = td.make_train_step(model, loss_fn, optimizer)
    dataset = td.create_dataset(x, y, (-1, 64), batch_size=32)
    epoch_losses = []
    for _ in range(epochs):
        losses, seconds = td.train_epoch(step, model, dataset)
        assert len(losses) == len(seconds) == dataset.get_dataset_size() == 13
        epoch_losses.append(np.mean(losses))
    return model, epoch_losses, (x, y)


def test_mlp_training_reaches_a_low_loss():
    model, epoch_losses, (x, y) = _train_mlp(seed=0)
    assert epoch_losses[0] > 1.0                        # it started from scratch (ln 10 = 2.3)
    assert epoch_losses[-1] < 0.01, epoch_losses
    assert np.mean(td.predict(model, x, (-1, 64)) == y) == 1.0


def test_same_seed_same_run_other_seed_other_run():
    _, a, _ = _train_mlp(seed=3, epochs=2)
    _, b, _ = _train_mlp(seed=3, epochs=2)
    _, c, _ = _train_mlp(seed=4, epochs=2)
    assert a == b
    assert a != c


def test_cnn_forward_shape_and_parameter_names():
    net = td.create_net("CNN", 0)
    x = ms.Tensor(np.zeros((3, 1, 8, 8), np.float32))
    assert net(x).shape == (3, 10)
    names = [n for n, _ in net.parameters_and_names()]
    assert names == ["features.0.weight", "features.0.bias", "features.3.weight",
                     "features.3.bias", "classifier.0.weight", "classifier.0.bias",
                     "classifier.2.weight", "classifier.2.bias"]


def test_cosine_decay_lr_matches_mindspore_formula():
    lr = td.cosine_decay_lr(0.01, 0.1, 6, 2, 3)
    # MindSpore: min + 0.5 (max - min) (1 + cos(pi * epoch / decay_epoch)), one value per epoch
    want = [0.1, 0.1, 0.0775, 0.0775, 0.0325, 0.0325]
    np.testing.assert_allclose(lr, want, rtol=1e-12)


def test_demo_quick_run(tmp_path):
    _demo_deps()
    out = subprocess.run([sys.executable, SCRIPT, "--quick", "--out", str(tmp_path)],
                         capture_output=True, text=True, timeout=300, cwd=ROOT, check=False)
    assert out.returncode == 0, out.stdout + out.stderr
    text = out.stdout
    assert text.count("-> identical") == 2, text       # both reload checks passed
    assert "all checks passed" in text
    assert "µs/training step" in text
    png = tmp_path / "loss_curves.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for name in ("MLP", "CNN"):
        params = ms.load_checkpoint(str(tmp_path / f"{name.lower()}.ckpt"))
        net = td.create_net(name, 0)
        assert sorted(params) == sorted(n for n, _ in net.parameters_and_names())


def test_demo_fails_when_a_bar_is_missed(tmp_path, monkeypatch, capsys):
    _demo_deps()
    monkeypatch.setitem(td.EPOCHS, "quick", 1)
    monkeypatch.setitem(td.BARS, "quick", {"MLP": 0.5, "CNN": 1.01})
    assert td.main(["--quick", "--out", str(tmp_path / "new" / "dir")]) == 1
    captured = capsys.readouterr()
    assert "CNN: test accuracy" in captured.err and "< 1.01" in captured.err
    assert "MLP: test accuracy" not in captured.err
    assert (tmp_path / "new" / "dir" / "loss_curves.png").exists()
