"""Train an MLP and a LeNet-style CNN on scikit-learn's digits, as a MindSpore quick-start.

    python examples/train_digits.py [--quick] [--seed 0] [--out out] [--mode graph]

The data are scikit-learn's bundled 8x8 digits (1797 images, 10 classes; no download), split
75/25, stratified, with a fixed split seed (0), so every run tests on the same 450 images, and
standardised with the training set's mean and deviation; `--seed` seeds the weights and the
shuffling (mindlite.set_seed, numpy), and a run is reproducible. For each net: a
NumpySlicesDataset pipeline (shuffle + batch), nn.SoftmaxCrossEntropyWithLogits, nn.SGD with
momentum and a cosine learning-rate decay, one step = value_and_grad + optimizer(grads); the
per-epoch loss, test accuracy and time per training step are printed. Then the net is saved
with save_checkpoint, loaded into a freshly built net with load_checkpoint +
load_param_into_net, and the fresh net must predict exactly as the trained one. Loss curves
go to OUT/loss_curves.png, checkpoints to OUT/<net>.ckpt. `--mode graph` compiles each training
step (forward, backward and the optimizer update) into one graph with @jit, under GRAPH_MODE.

Exit status 1 when a net misses its test-accuracy bar (full run: MLP 0.95, CNN 0.97; --quick
trains 5 epochs, bars 0.95 and 0.95, printed) or when a reload changes a prediction.
Needs scikit-learn, tqdm and matplotlib (`pip install -e '.[demo]'` from a checkout); the nets and
the training loop below import none of them, so tests can reuse them on other data.
"""
import argparse
import os
import sys
import time

import numpy as np

import mindlite as ms
from mindlite import Tensor, nn
from mindlite.dataset import NumpySlicesDataset

SPLIT_SEED = 0
BATCH_SIZE = 32
LEARNING_RATE = 0.05
MOMENTUM = 0.9
EPOCHS = {"full": 20, "quick": 5}
BARS = {"full": {"MLP": 0.95, "CNN": 0.97}, "quick": {"MLP": 0.95, "CNN": 0.95}}


# ---- the networks ------------------------------------------------------------------------------
class MLP(nn.Cell):
    """64 pixels -> 128 hidden (ReLU) -> 10 logits."""

    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.dense_relu_sequential = nn.SequentialCell(
            nn.Dense(64, 128), nn.ReLU(),
            nn.Dense(128, 10))

    def construct(self, x):
        return self.dense_relu_sequential(self.flatten(x))


class CNN(nn.Cell):
    """LeNet-style: two 3x3 conv + ReLU + 2x2 max-pool stages (8x8 -> 4x4 -> 2x2), then
    Dense(128, 64) + ReLU and Dense(64, 10)."""

    def __init__(self):
        super().__init__()
        self.features = nn.SequentialCell(
            nn.Conv2d(1, 16, 3, pad_mode="same", has_bias=True), nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2),
            nn.Conv2d(16, 32, 3, pad_mode="same", has_bias=True), nn.ReLU(),
            nn.MaxPool2d(kernel_size=2, stride=2))
        self.flatten = nn.Flatten()
        self.classifier = nn.SequentialCell(
            nn.Dense(32 * 2 * 2, 64), nn.ReLU(),
            nn.Dense(64, 10))

    def construct(self, x):
        return self.classifier(self.flatten(self.features(x)))


NETS = {"MLP": (MLP, (-1, 64)), "CNN": (CNN, (-1, 1, 8, 8))}


# ---- data --------------------------------------------------------------------------------------
def load_data():
    """-> (x_train, y_train, x_test, y_test): float32 pixels (N, 64) standardised with the
    training set's mean and standard deviation, int32 labels."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    digits = load_digits()
    x_train, x_test, y_train, y_test = train_test_split(
        digits.data, digits.target, test_size=0.25, random_state=SPLIT_SEED,
        stratify=digits.target)
    mean, std = x_train.mean(), x_train.std()
    return ((x_train - mean) / std).astype(np.float32), y_train.astype(np.int32), \
        ((x_test - mean) / std).astype(np.float32), y_test.astype(np.int32)


def create_dataset(x, y, shape, batch_size=BATCH_SIZE, shuffle=True):
    """A mindlite.dataset pipeline of (image, label) batches; images reshaped to `shape`."""
    data = {"image": x.reshape(shape), "label": y}
    return NumpySlicesDataset(data, shuffle=shuffle).batch(batch_size)


# ---- training ----------------------------------------------------------------------------------
def make_train_step(model, loss_fn, optimizer, graph=False):
    """One step: forward, gradients of the loss w.r.t. the optimizer's parameters, update
    (with graph=True: compiled into one graph by @jit)."""
    def forward_fn(data, label):
        logits = model(data)
        return loss_fn(logits, label), logits

    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)

    def train_step(data, label):
        (loss, _), grads = grad_fn(data, label)
        optimizer(grads)
        return loss
    return ms.jit(train_step) if graph else train_step


def train_epoch(train_step, model, dataset, progress=None):
    """One pass over `dataset`. -> (per-step losses, per-step seconds). `progress`: an
    object with update(n) and set_postfix_str(s) (a tqdm bar) or None."""
    model.set_train(True)
    losses, seconds = [], []
    for data, label in dataset.create_tuple_iterator(num_epochs=1):
        t0 = time.perf_counter()
        loss = train_step(data, label)
        seconds.append(time.perf_counter() - t0)
        losses.append(float(loss.asnumpy()))
        if progress is not None:
            progress.update(1)
            progress.set_postfix_str(f"loss {losses[-1]:.4f}", refresh=False)
    return losses, seconds


def predict(model, x, shape):
    """Class predictions for the images `x` (inference mode)."""
    model.set_train(False)
    return model(Tensor(x.reshape(shape))).asnumpy().argmax(axis=1)


def create_net(name, seed):
    """A fresh net `name` ("MLP" or "CNN") whose initial weights come from `seed`."""
    ms.set_seed(seed)
    np.random.seed(seed)
    return NETS[name][0]()


def cosine_decay_lr(min_lr, max_lr, total_step, step_per_epoch, decay_epoch):
    """One learning rate per step, falling from max_lr to min_lr along a half cosine and
    constant within an epoch (as mindspore.nn.cosine_decay_lr)."""
    return [min_lr + 0.5 * (max_lr - min_lr)
            * (1 + np.cos(np.pi * min(i // step_per_epoch, decay_epoch) / decay_epoch))
            for i in range(total_step)]


def fit(name, data, epochs, seed, graph=False):
    """Train net `name` for `epochs` epochs. -> (model, per-step losses, steps per epoch)."""
    from tqdm import tqdm
    x_train, y_train, x_test, y_test = data
    shape = NETS[name][1]
    dataset = create_dataset(x_train, y_train, shape)
    steps = dataset.get_dataset_size()
    model = create_net(name, seed)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    lr = cosine_decay_lr(0.0, LEARNING_RATE, steps * epochs, steps, epochs)
    optimizer = nn.SGD(model.trainable_params(), learning_rate=lr, momentum=MOMENTUM)
    train_step = make_train_step(model, loss_fn, optimizer, graph)
    print(f"\n{name}: {sum(p.size for p in model.trainable_params())} parameters, "
          f"{steps} steps/epoch of batch {BATCH_SIZE}, SGD momentum {MOMENTUM}, learning rate "
          f"{LEARNING_RATE} -> 0 (cosine)")
    all_losses = []
    for epoch in range(1, epochs + 1):
        t0 = time.perf_counter()
        with tqdm(total=steps, desc=f"{name} epoch {epoch}/{epochs}", leave=False,
                  file=sys.stderr) as bar:
            losses, seconds = train_epoch(train_step, model, dataset, bar)
        wall = time.perf_counter() - t0
        all_losses += losses
        acc = float(np.mean(predict(model, x_test, shape) == y_test))
        print(f"{name} epoch {epoch:2d}: loss {np.mean(losses):.4f}, test accuracy {acc:.4f}, "
              f"{np.median(seconds) * 1e6:.0f} µs/training step (median), epoch {wall:.2f} s",
              flush=True)
    return model, all_losses, steps


def check_reload(name, model, data, out_dir, seed):
    """Save `model`, load it into a new net and compare predictions. -> (path, accuracy, ok)."""
    x_test, y_test, shape = data[2], data[3], NETS[name][1]
    path = os.path.join(out_dir, f"{name.lower()}.ckpt")
    ms.save_checkpoint(model, path)
    fresh = create_net(name, seed + 1)                # other initial weights
    param_dict = ms.load_checkpoint(path)
    not_loaded, _ = ms.load_param_into_net(fresh, param_dict)
    before, after = predict(model, x_test, shape), predict(fresh, x_test, shape)
    acc, acc_reloaded = float(np.mean(before == y_test)), float(np.mean(after == y_test))
    ok = not not_loaded and np.array_equal(before, after)
    print(f"{name}: checkpoint {path}; reloaded into a fresh {name}: test accuracy "
          f"{acc_reloaded:.4f} (trained net {acc:.4f}) -> "
          f"{'identical' if ok else 'MISMATCH'}"
          + (f"; parameters not loaded: {not_loaded}" if not_loaded else ""))
    return path, acc, ok


def plot_losses(curves, path):
    """Per-step loss (smoothed, thin) and per-epoch mean (dots) of each net against the
    epoch, on a log scale."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(7, 4.2))
    lowest = np.inf
    for name, (losses, steps) in curves.items():
        losses = np.asarray(losses)
        smooth, ema = np.empty_like(losses), losses[0]
        for i, v in enumerate(losses):              # exponential moving average, 0.8
            ema = 0.8 * ema + 0.2 * v
            smooth[i] = ema
        line, = ax.plot(np.arange(1, len(losses) + 1) / steps, smooth, lw=0.8, alpha=0.5)
        means = losses[:len(losses) // steps * steps].reshape(-1, steps).mean(axis=1)
        ax.plot(np.arange(1, len(means) + 1), means, "o-", ms=4, color=line.get_color(),
                label=f"{name} (epoch mean; thin: per step, smoothed)")
        lowest = min(lowest, means.min())
    ax.set_yscale("log")
    ax.set_ylim(bottom=lowest / 5)
    ax.set_xlabel("epoch")
    ax.set_ylabel("training loss (cross entropy)")
    ax.set_title("mindlite on scikit-learn digits")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true",
                   help=f"{EPOCHS['quick']} epochs per net instead of {EPOCHS['full']}, with "
                        "lower accuracy bars (for tests)")
    p.add_argument("--seed", type=int, default=0, help="seed of the weights and the shuffling")
    p.add_argument("--out", default="out", help="folder for the checkpoints and the loss plot")
    p.add_argument("--mode", choices=("pynative", "graph"), default="pynative",
                   help="graph: each training step is one compiled graph (GRAPH_MODE + @jit)")
    args = p.parse_args(argv)
    graph = args.mode == "graph"
    ms.set_context(mode=ms.GRAPH_MODE if graph else ms.PYNATIVE_MODE)
    mode = "quick" if args.quick else "full"
    epochs, bars = EPOCHS[mode], BARS[mode]
    os.makedirs(args.out, exist_ok=True)
    t_start = time.perf_counter()
    data = load_data()
    print(f"mindlite {ms.__version__}: digits, {len(data[0])} train / {len(data[2])} test "
          f"images, {mode} run ({epochs} epochs per net), seed {args.seed}, {args.mode} mode")
    curves, failures = {}, []
    for name in NETS:
        model, losses, steps = fit(name, data, epochs, args.seed, graph)
        curves[name] = (losses, steps)
        _, acc, ok = check_reload(name, model, data, args.out, args.seed)
        if not ok:
            failures.append(f"{name}: the reloaded net predicts differently")
        verdict = "ok" if acc >= bars[name] else "MISSED"
        print(f"{name}: test accuracy {acc:.4f}, bar for a {mode} run {bars[name]:.2f} -> "
              f"{verdict}")
        if acc < bars[name]:
            failures.append(f"{name}: test accuracy {acc:.4f} < {bars[name]:.2f}")
    png = os.path.join(args.out, "loss_curves.png")
    plot_losses(curves, png)
    print(f"\nloss curves: {png}; total {time.perf_counter() - t_start:.1f} s")
    if failures:
        print("FAILED: " + "; ".join(failures), file=sys.stderr)
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
