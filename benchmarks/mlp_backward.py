"""Forward + backward of a 3-layer MLP (64-128-128-10, batch 64, float32): mindlite vs PyTorch.

    python benchmarks/mlp_backward.py

Both sides compute the same function with the same weights: ReLU MLP, mean
squared error against fixed targets, gradients of every weight and bias. The two alternate
batch by batch; the table gives the min and the median of the batches' per-call times.
"""
import statistics
import time

import numpy as np

import mindlite as ms
from mindlite import Parameter, Tensor, ops

try:
    import torch
    torch.set_num_threads(2)
except ImportError:
    torch = None

SIZES = (64, 128, 128, 10)
BATCH = 64


def make_weights(seed=0):
    rng = np.random.default_rng(seed)
    ws = []
    for n_in, n_out in zip(SIZES[:-1], SIZES[1:]):
        bound = 1 / np.sqrt(n_in)
        ws.append((rng.uniform(-bound, bound, (n_in, n_out)).astype(np.float32),
                   rng.uniform(-bound, bound, (n_out,)).astype(np.float32)))
    return ws


def time_batches(fns, batches=30, per_batch=50):
    """Per contender, the per-call µs of each batch; the contenders alternate batch by batch so
    the load of a shared machine hits them alike."""
    for fn in fns:
        for _ in range(5):
            fn()
    samples = [[] for _ in fns]
    for _ in range(batches):
        for fn, out in zip(fns, samples):
            t0 = time.perf_counter_ns()
            for _ in range(per_batch):
                fn()
            out.append((time.perf_counter_ns() - t0) / per_batch / 1e3)
    return samples


def mindlite_step(weights, x, y):
    params = []
    for i, (w, b) in enumerate(weights):
        params += [Parameter(w, name=f"w{i}"), Parameter(b, name=f"b{i}")]
    xt, yt = Tensor(x), Tensor(y)

    def loss_fn(x, y):
        h = x
        for i in range(0, len(params), 2):
            h = ops.matmul(h, params[i]) + params[i + 1]
            if i + 2 < len(params):
                h = ops.relu(h)
        d = h - y
        return (d * d).mean()
    step = ms.value_and_grad(loss_fn, None, params)
    return lambda: step(xt, yt)


def torch_step(weights, x, y):
    params = []
    for w, b in weights:
        params += [torch.tensor(w, requires_grad=True), torch.tensor(b, requires_grad=True)]
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)

    def step():
        h = xt
        for i in range(0, len(params), 2):
            h = torch.matmul(h, params[i]) + params[i + 1]
            if i + 2 < len(params):
                h = torch.relu(h)
        loss = ((h - yt) ** 2).mean()
        return torch.autograd.grad(loss, params)
    return step


def main():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((BATCH, SIZES[0])).astype(np.float32)
    y = rng.standard_normal((BATCH, SIZES[-1])).astype(np.float32)
    weights = make_weights()
    fns = [mindlite_step(weights, x, y)] + ([torch_step(weights, x, y)] if torch else [])
    samples = time_batches(fns)
    best = [min(v) for v in samples]
    med = [statistics.median(v) for v in samples]
    name = f"MLP 64-128-128-10 fwd+bwd, batch {BATCH}"
    print("| workload | mindlite µs (min / median of batches) | torch µs | mindlite/torch |")
    print("|---|---:|---:|---:|")
    if torch:
        print(f"| {name} | {best[0]:.1f} / {med[0]:.1f} | {best[1]:.1f} / {med[1]:.1f} | "
              f"{best[0] / best[1]:.2f} / {med[0] / med[1]:.2f} |")
    else:
        print(f"| {name} | {best[0]:.1f} / {med[0]:.1f} | - | - |")

if __name__ == "__main__":
    main()
