"""Train an LSTM and a small Transformer encoder to reverse digit sequences (no download).

    python examples/train_sequence.py [--quick] [--seed 0] [--out out]

The task: a sequence of 8 random digits in, the same digits reversed out, one class per
position (so every output needs the whole input: a bidirectional LSTM, or attention). Both
models embed the digits (nn.Embedding), then
- LSTM: a 1-layer bidirectional nn.LSTM (hidden 128) and a Dense per position;
- Transformer: learned position embeddings, 2 nn.TransformerEncoderLayer (d 64, 4 heads,
  feed-forward 128, dropout 0) and a Dense per position,
trained with nn.Adam on fresh random batches (a GeneratorDataset, seeded), cross entropy per
position. Per-position accuracy on 1000 held-out sequences is printed with a tqdm progress
bar; the loss curves go to OUT/sequence_losses.png. Exit status 1 when a model misses its bar
(full: 0.99 for both; --quick trains fewer steps, bars 0.9).
Needs tqdm and matplotlib (`pip install -e '.[demo]'` from a checkout).
"""
import argparse
import os
import sys

import numpy as np

import mindlite as ms
from mindlite import Tensor, nn, ops
from mindlite.dataset import GeneratorDataset

LENGTH, DIGITS, BATCH = 8, 10, 64
STEPS = {"full": {"LSTM": 1000, "Transformer": 800}, "quick": {"LSTM": 500, "Transformer": 350}}
BARS = {"full": 0.99, "quick": 0.9}


class LSTMReverser(nn.Cell):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(DIGITS, 32)
        self.lstm = nn.LSTM(32, 128, batch_first=True, bidirectional=True)
        self.head = nn.Dense(256, DIGITS)

    def construct(self, x):
        out, _ = self.lstm(self.embed(x))
        return self.head(out)


class TransformerReverser(nn.Cell):
    def __init__(self, d=64):
        super().__init__()
        self.embed = nn.Embedding(DIGITS, d)
        self.pos = nn.Embedding(LENGTH, d)
        layer = nn.TransformerEncoderLayer(d, 4, 128, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2)
        self.head = nn.Dense(d, DIGITS)
        self.positions = Tensor(np.arange(LENGTH, dtype=np.int32))

    def construct(self, x):
        return self.head(self.encoder(self.embed(x) + self.pos(self.positions)))


def batches(seed):
    """Endless random digit sequences and their reversals."""
    rng = np.random.default_rng(seed)
    while True:
        x = rng.integers(0, DIGITS, (BATCH, LENGTH)).astype(np.int32)
        yield x, x[:, ::-1].copy()


def accuracy(net, x, y):
    pred = net(Tensor(x)).asnumpy().argmax(-1)
    return float((pred == y).mean())


LEARNING_RATE = {"LSTM": 1e-2, "Transformer": 3e-3}


def train(name, net, steps, seed, progress):
    loss_fn = nn.CrossEntropyLoss()
    opt = nn.Adam(net.trainable_params(), learning_rate=LEARNING_RATE[name])

    def forward(x, y):
        logits = net(x)
        return loss_fn(ops.reshape(logits, (-1, DIGITS)), ops.reshape(y, (-1,)))
    step = ms.value_and_grad(forward, None, opt.parameters)
    data = GeneratorDataset(lambda: batches(seed), ["x", "y"], shuffle=False).take(steps)
    losses = []
    net.set_train()
    bar = progress(data.create_tuple_iterator(num_epochs=1), total=steps, desc=name)
    for x, y in bar:
        loss, grads = step(x, y)
        opt(grads)
        losses.append(float(loss.asnumpy()))
        if len(losses) % 25 == 0:
            bar.set_postfix(loss=f"{np.mean(losses[-25:]):.3f}")
    net.set_train(False)
    return losses


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="fewer steps, lower bars")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default="out")
    args = p.parse_args(argv)
    from tqdm import tqdm
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    mode = "quick" if args.quick else "full"
    ms.set_seed(args.seed)
    test_rng = np.random.default_rng(12345)
    x_test = test_rng.integers(0, DIGITS, (1000, LENGTH)).astype(np.int32)
    y_test = x_test[:, ::-1]
    os.makedirs(args.out, exist_ok=True)
    ok, curves = True, {}
    for name, make in (("LSTM", LSTMReverser), ("Transformer", TransformerReverser)):
        net = make()
        curves[name] = train(name, net, STEPS[mode][name], args.seed, tqdm)
        acc = accuracy(net, x_test, y_test)
        passed = acc >= BARS[mode]
        ok &= passed
        print(f"{name}: per-position test accuracy {acc:.4f} (bar {BARS[mode]}) "
              f"{'ok' if passed else 'MISSED'}")
    plt.figure(figsize=(6, 4))
    for name, losses in curves.items():
        plt.plot(np.convolve(losses, np.ones(10) / 10, mode="valid"), label=name)
    plt.xlabel("step")
    plt.ylabel("cross entropy (10-step mean)")
    plt.yscale("log")
    plt.legend()
    plt.tight_layout()
    path = os.path.join(args.out, "sequence_losses.png")
    plt.savefig(path)
    print(f"loss curves: {path}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
