"""One training step (forward, backward, optimizer update): mindlite vs PyTorch, side by side.

    python benchmarks/train_step.py [--seconds 2] [--profile]

Workloads (float32, batch 64, the digits demo's nets, examples/train_digits.py):
- MLP 64-128-10: Dense -> ReLU -> Dense;
- CNN on 1x8x8 images: Conv2d(1, 16, 3, same) -> ReLU -> MaxPool 2 -> Conv2d(16, 32, 3, same)
  -> ReLU -> MaxPool 2 -> Flatten -> Dense(128, 64) -> ReLU -> Dense(64, 10).
- LSTM: seq 32, batch 64, 128 features, hidden 128; the last step's output -> Dense(128, 10);
- Transformer encoder layer: seq 64, batch 32, d_model 128, 4 heads, feed-forward 512,
  dropout 0; the mean over the sequence -> Dense(128, 10).
All: softmax cross entropy (mean) on class labels, SGD with momentum 0.9; mindlite
through nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.SGD), PyTorch through
zero_grad / backward / step with torch.set_num_threads(2). Same data, and PyTorch starts from
a copy of mindlite's initial weights; the losses of the first steps are compared before any
timing, so both sides are seen to compute the same thing.

Prints a markdown table: µs per step (median over many steps after warm-up; the two sides
take turns in slices, so load on a shared machine hits both alike) and the ratio
mindlite / torch. PyTorch runs in a child process (TorchChild says why), from the same
initial weights and data, its first losses checked against mindlite's. `--profile` then
prints cProfile's top functions for one mindlite step of each net.
"""
import argparse
import cProfile
import io
import json
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
from _torch_child import settle

import mindlite as ms
from mindlite import Tensor, nn

try:
    import torch
    torch.set_num_threads(2)
except ImportError:                       # the table just loses its torch column
    torch = None

BATCH = 64
LR, MOMENTUM = 0.01, 0.9


# ---- the nets ----------------------------------------------------------------------------------
def mindlite_mlp():
    return nn.SequentialCell(nn.Dense(64, 128), nn.ReLU(), nn.Dense(128, 10))


def mindlite_cnn():
    return nn.SequentialCell(
        nn.Conv2d(1, 16, 3, pad_mode="same", has_bias=True), nn.ReLU(), nn.MaxPool2d(2, 2),
        nn.Conv2d(16, 32, 3, pad_mode="same", has_bias=True), nn.ReLU(), nn.MaxPool2d(2, 2),
        nn.Flatten(), nn.Dense(32 * 2 * 2, 64), nn.ReLU(), nn.Dense(64, 10))


def torch_like(ms_net):
    """The same architecture in PyTorch, its weights copied from the mindlite net (Dense's
    (out, in) weight and Conv2d's (out, in, kh, kw) have PyTorch's layout)."""
    tnn = torch.nn
    layers = []
    for cell in ms_net:
        if isinstance(cell, nn.Dense):
            layers.append(tnn.Linear(cell.in_channels, cell.out_channels))
        elif isinstance(cell, nn.Conv2d):
            layers.append(tnn.Conv2d(cell.in_channels, cell.out_channels, cell.kernel_size,
                                     padding="same"))
        elif isinstance(cell, nn.ReLU):
            layers.append(tnn.ReLU())
        elif isinstance(cell, nn.MaxPool2d):
            layers.append(tnn.MaxPool2d(cell.kernel_size, cell.stride))
        elif isinstance(cell, nn.Flatten):
            layers.append(tnn.Flatten())
        else:
            raise TypeError(f"no PyTorch twin for {type(cell).__name__}")
    net = tnn.Sequential(*layers)
    ms_params = [p.asnumpy() for p in ms_net.trainable_params()]
    t_params = list(net.parameters())
    assert len(ms_params) == len(t_params)
    with torch.no_grad():
        for t, a in zip(t_params, ms_params):
            assert tuple(t.shape) == a.shape, (tuple(t.shape), a.shape)
            t.copy_(torch.from_numpy(a.copy()))
    return net


class SeqNet(nn.Cell):
    """A sequence body (LSTM or Transformer encoder layer) and a Dense head on its summary."""

    def __init__(self, body, kind):
        super().__init__()
        self.body, self.kind, self.head = body, kind, nn.Dense(128, 10)

    def construct(self, x):
        if self.kind == "lstm":
            return self.head(self.body(x)[0][-1])
        return self.head(self.body(x).mean(0))


def mindlite_lstm():
    return SeqNet(nn.LSTM(128, 128), "lstm")


def mindlite_encoder():
    return SeqNet(nn.TransformerEncoderLayer(128, 4, 512, dropout=0.0), "encoder")


class _TorchSeqNet(torch.nn.Module if torch else object):
    def __init__(self, body, kind):
        super().__init__()
        self.body, self.kind, self.head = body, kind, torch.nn.Linear(128, 10)

    def forward(self, x):
        if self.kind == "lstm":
            return self.head(self.body(x)[0][-1])
        return self.head(self.body(x).mean(0))


def torch_seq_like(ms_net):
    """The PyTorch twin of a SeqNet with mindlite's weights (names mapped: dense1/2 ->
    linear1/2, norm gamma/beta -> weight/bias)."""
    if ms_net.kind == "lstm":
        body = torch.nn.LSTM(128, 128)
    else:
        body = torch.nn.TransformerEncoderLayer(128, 4, 512, dropout=0.0)
    net = _TorchSeqNet(body, ms_net.kind)
    ours = dict(ms_net.parameters_and_names())
    with torch.no_grad():
        for name, t in net.named_parameters():
            key = name.replace("linear1", "dense1").replace("linear2", "dense2")
            parts = key.split(".")
            if len(parts) > 2 and parts[-2].startswith("norm"):
                key = key.replace(".weight", ".gamma").replace(".bias", ".beta")
            t.copy_(torch.from_numpy(ours[key].asnumpy().copy()))
    return net


# ---- one step on each side ---------------------------------------------------------------------
def mindlite_step(net, x, y):
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.SGD(net.trainable_params(), learning_rate=LR, momentum=MOMENTUM)
    train = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
    train.set_train()
    xt, yt = Tensor(x), Tensor(y)
    return lambda: train(xt, yt)


def torch_step(net, x, y):
    opt = torch.optim.SGD(net.parameters(), lr=LR, momentum=MOMENTUM)
    loss_fn = torch.nn.CrossEntropyLoss()
    xt, yt = torch.from_numpy(x), torch.from_numpy(y.astype(np.int64))

    def step():
        opt.zero_grad()
        loss = loss_fn(net(xt), yt)
        loss.backward()
        opt.step()
        return loss
    return step


# ---- measuring ---------------------------------------------------------------------------------
def median_us(steps, seconds, rounds=6, warmup=20):
    """{side: step} -> {side: median µs per step}. The sides take turns in `rounds` slices
    of the `seconds` budget (per side), so a change in machine load hits both alike."""
    for step in steps.values():
        for _ in range(warmup):
            step()
    samples = {side: [] for side in steps}
    for _ in range(rounds):
        for side, step in steps.items():
            end = time.perf_counter() + seconds / rounds
            while time.perf_counter() < end:
                t0 = time.perf_counter_ns()
                step()
                samples[side].append((time.perf_counter_ns() - t0) / 1e3)
    return {side: statistics.median(v) for side, v in samples.items()}


def profile(name, step, steps=200, top=15):
    for _ in range(20):
        step()
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(steps):
        step()
    prof.disable()
    out = io.StringIO()
    stats = pstats.Stats(prof, stream=out)
    total = stats.total_tt
    print(f"\n### {name}: {total / steps * 1e6:.0f} µs/step under cProfile, top by own time\n")
    print("| function | own µs/step | own share | cumulative share |")
    print("|---|---:|---:|---:|")
    rows = sorted(stats.stats.items(), key=lambda kv: -kv[1][2])[:top]
    for (fname, line, func), (_, _, tt, ct, _) in rows:
        where = f"{fname.split('mindlite/')[-1]}:{line} {func}"
        print(f"| `{where}` | {tt / steps * 1e6:.1f} | {tt / total:.0%} | {ct / total:.0%} |")


WORKLOADS = (("MLP 64-128-10", mindlite_mlp, (BATCH, 64)),
             ("CNN 1x8x8 (2 conv, 2 dense)", mindlite_cnn, (BATCH, 1, 8, 8)),
             ("LSTM seq 32, hidden 128", mindlite_lstm, (32, BATCH, 128)),
             ("Transformer encoder layer seq 64, d 128, 4 heads", mindlite_encoder,
              (64, 32, 128)))


def _data(rng, make, shape):
    x = rng.standard_normal(shape).astype(np.float32)
    batch = shape[1] if make in (mindlite_lstm, mindlite_encoder) else shape[0]
    return x, rng.integers(0, 10, batch).astype(np.int32)


def _losses(step, n=5):
    """The losses of the next n steps, as floats (a mindlite Tensor or a torch scalar)."""
    out = []
    for _ in range(n):
        v = step()
        out.append(float(v.asnumpy()) if hasattr(v, "asnumpy") else float(v.item()))
    return out


class TorchChild:
    """The PyTorch side in a child process, taking turns with mindlite slice by slice: its
    OpenMP pool and mindlite's threads must not share one process's two cores (a spinning
    pool takes the core the other side's second thread needs), and mindlite's malloc policy
    (csrc/runtime/malloc_policy.cc) must not speed PyTorch up (MINDLITE_MALLOC_TUNE=0 there:
    PyTorch gets glibc's defaults, as a PyTorch user does). JSON lines on its stdin/stdout."""

    def __init__(self, folder):
        env = dict(os.environ, MINDLITE_MALLOC_TUNE="0")
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--torch-child",
                                      folder], env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, bufsize=1)
        self.errs = self._reply()          # {name: first-5-losses diff}, once all are built

    def _reply(self):
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"the PyTorch side failed (exit {self.proc.wait()}): see above")
        return json.loads(line)

    def slice(self, name, seconds):
        """Per-step µs of PyTorch's `name` step run for `seconds`."""
        self.proc.stdin.write(json.dumps([name, seconds]) + "\n")
        return self._reply()

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def _slice(step, seconds):
    out, end = [], time.perf_counter() + seconds
    while time.perf_counter() < end:
        t0 = time.perf_counter_ns()
        step()
        out.append((time.perf_counter_ns() - t0) / 1e3)
    settle()                      # the slice's spinning threads asleep before the other side's
    return out


def torch_child_main(folder):
    """Rebuilds each net from the saved initial weights and checks PyTorch's first losses
    against mindlite's; then runs the timing slices the parent asks for."""
    steps, errs = {}, {}
    for i, (name, make, _) in enumerate(WORKLOADS):
        data = np.load(os.path.join(folder, f"{i}.npz"))
        net = make()
        for k, p in enumerate(net.trainable_params()):
            p.set_data(Tensor(data[f"arr_{k}"]))
        twin = torch_seq_like if isinstance(net, SeqNet) else torch_like
        t_step = torch_step(twin(net), data["x"], data["y"])
        ref = list(data["ref"])
        got = _losses(t_step)
        errs[name] = max(abs(u - v) for u, v in zip(ref, got))
        if errs[name] > 1e-4 * max(1.0, max(abs(v) for v in got)):
            raise SystemExit(f"mindlite and PyTorch disagree on {name}: {ref} vs {got}")
        for _ in range(20):
            t_step()
        steps[name] = t_step
    print(json.dumps(errs), flush=True)
    for line in sys.stdin:
        name, seconds = json.loads(line)
        print(json.dumps(_slice(steps[name], seconds)), flush=True)


def interleaved_us(name, ms_step, child, seconds, rounds=6):
    """Median µs per step of mindlite and PyTorch, taking turns in `rounds` slices each."""
    for _ in range(20):
        ms_step()
    mine, theirs = [], []
    for _ in range(rounds):
        mine += _slice(ms_step, seconds / rounds)
        if child is not None:
            theirs += child.slice(name, seconds / rounds)
    return statistics.median(mine), statistics.median(theirs) if theirs else None


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seconds", type=float, default=2.0, help="timing budget per side and net")
    p.add_argument("--profile", action="store_true", help="cProfile one mindlite step of each")
    p.add_argument("--torch-child", help=argparse.SUPPRESS)    # the child process's mode
    args = p.parse_args()
    if args.torch_child:
        return torch_child_main(args.torch_child)
    rng = np.random.default_rng(0)
    rows, steps, made = [], {}, []
    with tempfile.TemporaryDirectory() as tmp:
        for i, (name, make, shape) in enumerate(WORKLOADS):
            ms.set_seed(0)
            x, y = _data(rng, make, shape)
            net = make()
            init = [p.asnumpy().copy() for p in net.trainable_params()]   # before training
            ms_step = mindlite_step(net, x, y)
            steps[name] = ms_step
            ref = _losses(ms_step)
            np.savez(os.path.join(tmp, f"{i}.npz"), *init, x=x, y=y, ref=np.asarray(ref))
            made.append((name, y.size, ms_step))
        child = TorchChild(tmp) if torch else None
        for name, batch, ms_step in made:
            us, t_us = interleaved_us(name, ms_step, child, args.seconds)
            if child is not None:
                rows.append(f"| {name}, batch {batch} | {us:.1f} | {t_us:.1f} | "
                            f"{us / t_us:.2f} | {child.errs[name]:.1e} |")
            else:
                rows.append(f"| {name}, batch {batch} | {us:.1f} | - | - | - |")
        if child is not None:
            child.close()
    print(f"One training step (forward + backward + SGD momentum {MOMENTUM}), float32, "
          f"median µs, torch threads: {torch.get_num_threads() if torch else '-'}\n")
    print("| workload | mindlite µs | torch µs | mindlite/torch | first-5-steps loss diff |")
    print("|---|---:|---:|---:|---:|")
    print("\n".join(rows))
    if args.profile:
        for name, step in steps.items():
            profile(name, step)


if __name__ == "__main__":
    main()
