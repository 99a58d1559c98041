"""Latency of issue 13's ops (cumsum, topk, sort, einsum, interpolate, pad, float16 softmax, and
std / cross) against PyTorch at 4x4, 256x256 and 2048x2048, measured side by side.

    python benchmarks/op_latency_sizes.py [--sizes 4,256,2048] [--ops topk,sort] [--quick]
                                            [--torch-threads 2]

Each row times mindlite and torch side by side: they take turns, one batch each per round,
and the row reports the fastest batch of each (µs per call), so load from other processes on
the machine inflates both alike rather than one. Targets (issue 13): mindlite/torch <= 1.5 at
4x4 and <= 1.2 at 2048x2048; float16 softmax 256x256 <= 2x float32's.
PyTorch runs in a child process of its own (this script's --torch-child mode, started once per
run; see _torch_child.py), timing one batch per request while this process, which never imports
torch, waits; every batch on either side is followed by a wait until its process's worker
threads sleep (outside the timed region). In one process the two libraries' thread pools took
cores from each other: PyTorch's OpenMP workers spin ~8 ms after a batch, and mindlite's
2-thread splits then ran at half speed.
On a machine shared with other work, torch's intra-op threads can stall in every batch (a
parallel region waits for a worker another process holds off its core; its 1024x1024 rows then
read milliseconds, in a torch-only process too); --torch-threads 1 measures it on one thread.
Without torch the column reads '-'.
"""
import argparse
import contextlib

import numpy as np

import mindlite as ms
from mindlite import Tensor, ops

from _torch_child import LocalCase, TorchChild, serve, torch_installed

torch = F = None      # imported in the PyTorch child only (torch_child_main), for OPS' lambdas


def _k(x):
    return max(1, x.shape[-1] // 4)


OPS = {   # name: (mindlite fn, torch fn, dtype); fn(x, y) on 2-D inputs of one size
    "cumsum": (lambda x, y: ops.cumsum(x, -1), lambda x, y: torch.cumsum(x, -1), "float32"),
    "topk": (lambda x, y: ops.topk(x, _k(x)), lambda x, y: torch.topk(x, _k(x)), "float32"),
    "sort": (lambda x, y: ops.sort(x, -1), lambda x, y: torch.sort(x, -1), "float32"),
    "einsum": (lambda x, y: ops.einsum("ij,jk->ik", x, y),
               lambda x, y: torch.einsum("ij,jk->ik", x, y), "float32"),
    "interpolate": (lambda x, y: ops.interpolate(x.reshape(1, 1, *x.shape), scale_factor=2.0,
                                                 mode="bilinear", recompute_scale_factor=True),
                    lambda x, y: F.interpolate(x[None, None], scale_factor=2.0, mode="bilinear"),
                    "float32"),
    "pad": (lambda x, y: ops.pad(x, (2, 2, 2, 2), value=1.0),
            lambda x, y: F.pad(x, (2, 2, 2, 2), value=1.0), "float32"),
    "pad reflect": (lambda x, y: ops.pad(x.reshape(1, *x.shape), (2, 2, 2, 2), mode="reflect"),
                    lambda x, y: F.pad(x[None], (2, 2, 2, 2), mode="reflect"), "float32"),
    "softmax": (lambda x, y: ops.softmax(x, -1), lambda x, y: torch.softmax(x, -1), "float32"),
    "softmax fp16": (lambda x, y: ops.softmax(x, -1), lambda x, y: torch.softmax(x, -1),
                     "float16"),
    "std": (lambda x, y: ops.std(x, -1), lambda x, y: torch.std(x, -1), "float32"),
    "cross": (lambda x, y: ops.cross(x[:, :3], y[:, :3], dim=1),
              lambda x, y: torch.cross(x[:, :3], y[:, :3], dim=1), "float32"),
}


def side_by_side(cases, budget_s, rounds=15):
    """[LocalCase or the child's RemoteCase] -> fastest batch's µs per call of each; the cases
    alternate batches."""
    batches = [case.batch_size(budget_s / rounds / len(cases)) for case in cases]
    best = [float("inf")] * len(cases)
    for _ in range(rounds):
        for i, (case, n) in enumerate(zip(cases, batches)):
            best[i] = min(best[i], case.time_batch(n))
    return best


def run(sizes, budget_s, names, child):
    """One row per (size, op); `child` (a TorchChild, or None without torch) times torch's."""
    rows = []
    for n in sizes:
        for name in names:
            f_ms, _, dtype = OPS[name]
            rng = np.random.default_rng(0)
            a = rng.standard_normal((n, n)).astype(dtype)
            b = rng.standard_normal((n, n)).astype(dtype)
            cases = [LocalCase(f_ms, Tensor(a), Tensor(b))]
            if child:
                inputs = child.load(a, b)
                cases.append(child.case(name, inputs))
            times = side_by_side(cases, budget_s * (4 if n >= 2048 else 1) * len(cases))
            if child:
                child.release(inputs)
            rows.append((f"{name} {n}x{n}", times[0], times[1] if child else None))
    return rows


def print_table(rows):
    print("| op | mindlite µs | torch µs | mindlite/torch |")
    print("|---|---:|---:|---:|")
    for label, t_ms, t_t in rows:
        ratio = f"{t_ms / t_t:.2f}" if t_t else "-"
        torch_s = f"{t_t:.2f}" if t_t else "-"
        print(f"| {label} | {t_ms:.2f} | {torch_s} | {ratio} |")


def torch_child_main(threads):
    """--torch-child: this script as the PyTorch column's process (see _torch_child)."""
    global torch, F
    import torch
    F = torch.nn.functional
    serve({name: f_t for name, (_, f_t, _) in OPS.items()}, threads)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="4,256,2048")
    p.add_argument("--ops", default=",".join(OPS))
    p.add_argument("--quick", action="store_true", help="shorter measurements")
    p.add_argument("--torch-threads", type=int, default=2, help="torch.set_num_threads")
    p.add_argument("--torch-child", type=int, metavar="THREADS", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.torch_child:
        return torch_child_main(args.torch_child)
    names = args.ops.split(",")
    for name in names:
        if name not in OPS:
            p.error(f"--ops: unknown op {name!r}; expected some of {', '.join(OPS)}")
    with (TorchChild(__file__, args.torch_threads) if torch_installed()
          else contextlib.nullcontext()) as child:
        torch_s = (f"{child.version} ({child.threads} threads, in a child process)" if child
                   else "not installed")
        print(f"mindlite {ms.__version__}, numpy {np.__version__}, torch {torch_s}; "
              f"fastest batch, µs per call")
        print_table(run([int(s) for s in args.sizes.split(",")], 0.1 if args.quick else 0.4,
                        names, child))


if __name__ == "__main__":
    main()
