"""Single-op latency: mindlite vs numpy vs PyTorch (when installed), measured side by side.

    python benchmarks/op_latency.py [--sizes 4,256,1024,2048] [--quick]
    python benchmarks/op_latency.py --rss 1000000      # memory over 10**6 cached calls

Prints µs per call (median of batches; mindlite, numpy and torch take turns, one batch each
per round) and the ratios mindlite/torch and mindlite/numpy, then a "grad recorded" table: the
same small ops while a gradient tape is recording, against PyTorch with requires_grad=True,
then custom operators (docs/custom_ops.md): Add overridden by a provider kernel and a
Custom numba op, with their framework overhead (call minus the kernel called alone on
preallocated arrays) against the built-in Add's (target: within 1.2x).

PyTorch runs in a child process of its own (this script's --torch-child mode, started once per
run; _torch_child.py) with its 2 threads; this process never imports torch. Its batches still
take their turn in every round: the parent sends a request and blocks on the pipe while the
child times one batch. And every batch, here and in the child, is followed (outside its timed
region) by a wait until its process's worker threads have gone to sleep. Why: the libraries'
thread pools interfered on 2 cores. After a batch PyTorch's OpenMP workers spin ~8 ms and
OpenBLAS's ~100 ms, taking the second core from the next column's batch: with all three in one
process, mindlite's 2-thread 1024x1024 rows read about 2x their torch-free times
(OMP_WAIT_POLICY=PASSIVE flipped the ratio by slowing PyTorch instead). A separate process
keeps torch's runtimes (OpenMP, MKL, allocator) out of this one; the wait keeps one column's
spinning out of the next one's batch, without changing how any library runs inside its batch.
Without torch installed the tables just lose their torch column.
"""
import argparse
import contextlib
import statistics
import time

import numpy as np

import mindlite as ms
from mindlite import Tensor, ops
from mindlite.kernels.custom import jitted
from mindlite.kernels.registry import unregister_kernel
from mindlite.ops.operations.custom_ops import selected_kernel
from mindlite.pynative.grad import GRAD_EXECUTOR

from _torch_child import LocalCase, TorchChild, serve, torch_installed

torch = None          # imported in the PyTorch child only (torch_child_main), for OPS' lambdas
TORCH_THREADS = 2


def _np_softmax(a):
    e = np.exp(a - a.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _np_bilinear2x(a):
    """2x bilinear upsampling with half-pixel centres (the numpy column of "interpolate")."""
    def table(k):
        src = np.maximum((np.arange(2 * k) + 0.5) / 2 - 0.5, 0)
        i0 = np.floor(src).astype(np.int64)
        return i0, np.minimum(i0 + 1, k - 1), (src - i0).astype(a.dtype)
    i0, i1, w = table(a.shape[0])
    r = a[i0] * (1 - w)[:, None] + a[i1] * w[:, None]
    j0, j1, v = table(a.shape[1])
    return r[:, j0] * (1 - v) + r[:, j1] * v


OPS = {   # name: (mindlite, numpy, torch)
    "add": (lambda x, y: ops.add(x, y), np.add, lambda x, y: torch.add(x, y)),
    "mul": (lambda x, y: ops.mul(x, y), np.multiply, lambda x, y: torch.mul(x, y)),
    "relu": (lambda x, y: ops.relu(x), lambda x, y: np.maximum(x, 0), lambda x, y: torch.relu(x)),
    "sigmoid": (lambda x, y: ops.sigmoid(x), lambda x, y: 1 / (1 + np.exp(-x)),
                lambda x, y: torch.sigmoid(x)),
    "matmul": (lambda x, y: ops.matmul(x, y), np.matmul, lambda x, y: torch.matmul(x, y)),
    "sum": (lambda x, y: ops.sum(x), lambda x, y: x.sum(), lambda x, y: torch.sum(x)),
    "softmax": (lambda x, y: ops.softmax(x, -1), lambda x, y: _np_softmax(x),
                lambda x, y: torch.softmax(x, -1)),
    "cumsum": (lambda x, y: ops.cumsum(x, -1), lambda x, y: np.cumsum(x, -1),
               lambda x, y: torch.cumsum(x, -1)),
    "topk": (lambda x, y: ops.topk(x, max(1, x.shape[-1] // 4)),        # k = n/4, last axis
             lambda x, y: np.take_along_axis(x, np.argsort(-x, -1)[:, :max(1, x.shape[-1] // 4)],
                                             -1),
             lambda x, y: torch.topk(x, max(1, x.shape[-1] // 4))),
    "sort": (lambda x, y: ops.sort(x, -1), lambda x, y: np.sort(x, -1),
             lambda x, y: torch.sort(x, -1)),
    "interpolate": (lambda x, y: ops.interpolate(x.reshape(1, 1, *x.shape), scale_factor=2.0,
                                                 mode="bilinear", recompute_scale_factor=True),
                    lambda x, y: _np_bilinear2x(x),
                    lambda x, y: torch.nn.functional.interpolate(x[None, None], scale_factor=2.0,
                                                                 mode="bilinear")),
    "pad": (lambda x, y: ops.pad(x, (2, 2, 2, 2), value=1.0),
            lambda x, y: np.pad(x, 2, constant_values=1.0),
            lambda x, y: torch.nn.functional.pad(x, (2, 2, 2, 2), value=1.0)),
    "pad reflect": (lambda x, y: ops.pad(x.reshape(1, *x.shape), (2, 2, 2, 2), mode="reflect"),
                    lambda x, y: np.pad(x, 2, mode="reflect"),
                    lambda x, y: torch.nn.functional.pad(x[None], (2, 2, 2, 2), mode="reflect")),
    "hardswish": (lambda x, y: ops.hardswish(x), lambda x, y: x * np.clip(x + 3, 0, 6) / 6,
                  lambda x, y: torch.nn.functional.hardswish(x)),
    "elu": (lambda x, y: ops.elu(x), lambda x, y: np.where(x > 0, x, np.expm1(x)),
            lambda x, y: torch.nn.functional.elu(x)),
    "mish": (lambda x, y: ops.mish(x), lambda x, y: x * np.tanh(np.logaddexp(0, x)),
             lambda x, y: torch.nn.functional.mish(x)),
    "einsum": (lambda x, y: ops.einsum("ij,jk->ik", x, y),
               lambda x, y: np.einsum("ij,jk->ik", x, y, optimize=x.shape[0] > 16),
               lambda x, y: torch.einsum("ij,jk->ik", x, y)),
}


def bench(fn, x, y, budget_s, clock=time.perf_counter_ns):
    """Median µs per call over batches sized to take ~budget_s / 15 each (`clock`: ns)."""
    return bench_side_by_side([LocalCase(fn, x, y, clock)], budget_s)[0]


def bench_side_by_side(cases, budget_s, between=None, max_batch=None, rounds=15):
    """[LocalCase or the child's RemoteCase] -> median µs per call of each. The cases take
    turns, one batch each per round, so load from other processes hits all of them alike.
    `between()`, if given, runs after every batch, outside the timed region; `max_batch` caps
    a batch's calls."""
    batches = [case.batch_size(budget_s / 15 / len(cases)) for case in cases]
    if max_batch:
        rounds = max(rounds, int(rounds * max(batches) / max_batch))
        batches = [min(b, max_batch) for b in batches]
    samples = [[] for _ in cases]
    for _ in range(rounds):
        for case, batch, out in zip(cases, batches, samples):
            out.append(case.time_batch(batch))
            if between is not None:
                between()
    return [statistics.median(s) for s in samples]


def run(sizes, budget_s, names, child):
    """The main table; `child` (a TorchChild, or None without torch) times the torch column."""
    rows = []
    for n in sizes:
        a = np.random.default_rng(0).standard_normal((n, n)).astype(np.float32)
        b = np.random.default_rng(1).standard_normal((n, n)).astype(np.float32)
        mx, my = Tensor(a), Tensor(b)
        inputs = child.load(a, b) if child else None
        for name in names:
            if name == "matmul" and n > 2048:
                continue
            f_ms, f_np, _ = OPS[name]
            cases = [LocalCase(f_ms, mx, my), LocalCase(f_np, a, b)]
            if child:
                cases.append(child.case(name, inputs))
            times = bench_side_by_side(cases, budget_s * (4 if n >= 2048 else 1) * len(cases))
            rows.append((f"{name} {n}x{n}", times[0], times[1], times[2] if child else None))
        if child:
            child.release(inputs)
    return rows


TAPE_NODES = 1000        # ops a recorded batch leaves on the tape before it is reset


def run_recorded(budget_s, child):
    """Small ops while a tape records them (inputs watched), vs torch requires_grad=True.
    The tape's nodes and tracked outputs are dropped after every batch of TAPE_NODES calls
    (outside the timed region), as a training step's tape holds a bounded number of ops and
    PyTorch frees the graph of an output nobody keeps."""
    a = np.random.default_rng(0).standard_normal((4, 4)).astype(np.float32)
    rows = []
    inputs = child.load(a, a, requires_grad=True) if child else None
    for name in ("add", "relu", "matmul"):
        x, y = Tensor(a), Tensor(a.copy())
        cases = [LocalCase(OPS[name][0], x, y)]
        if child:
            cases.append(child.case(name, inputs))
        tape = GRAD_EXECUTOR.open_tape()
        tape.watch(x)
        tape.watch(y)
        watched = set(tape.tracked)

        def reset():                 # a training step's tape: a bounded number of nodes
            tape.nodes.clear()
            tape.tracked.intersection_update(watched)
        try:
            times = bench_side_by_side(cases, budget_s * len(cases), between=reset,
                                       max_batch=TAPE_NODES)
        finally:
            GRAD_EXECUTOR.close_tape(tape)
            tape.nodes.clear()
        rows.append((f"{name} 4x4 (grad recorded)", times[0], None,
                     times[1] if child else None))
    if child:
        child.release(inputs)
    return rows


def run_rss(calls):
    """Resident memory before and after `calls` cached calls (4x4 Add, ReduceSum with an axis,
    and a pooled 256x512 ReLU every 100th call): the fast path must not leak."""
    import gc
    import resource

    def rss_mb():
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * resource.getpagesize() / 2**20
    x = Tensor(np.ones((4, 4), np.float32))
    big = Tensor(np.ones((256, 512), np.float32))
    add, rsum, relu = ops.Add(), ops.ReduceSum(), ops.ReLU()
    for _ in range(1000):
        add(x, x), rsum(x, 1), relu(big)
    gc.collect()
    before = rss_mb()
    t0 = time.perf_counter()
    for i in range(calls):
        add(x, x)
        rsum(x, 1)
        if i % 100 == 0:
            relu(big)
    seconds = time.perf_counter() - t0
    gc.collect()
    after = rss_mb()
    print("| cached calls | RSS before MB | RSS after MB | growth MB | seconds |")
    print("|---:|---:|---:|---:|---:|")
    print(f"| {calls:,} x (Add + ReduceSum) | {before:.1f} | {after:.1f} | {after - before:.2f} "
          f"| {seconds:.1f} |")


def provider_add(x, y, out):
    """A provider's Add kernel (a plain function) that overrides the built-in one."""
    np.add(x, y, out=out)


def numba_add(x, y, out):
    """The kernel of a Custom numba op (2-D elementwise add)."""
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            out[i, j] = x[i, j] + y[i, j]


ROUNDS = 10


def run_custom(budget_s, child):
    """Built-in Add, Add overridden by a provider kernel, a Custom numba add; 4x4 float32.

    Returns the table rows and the overhead rows (label, call µs, kernel alone µs); the
    kernel alone is called on the same arrays with a preallocated output. Overheads are
    differences of ~0.1 µs, so they are timed in thread CPU time (other processes on the
    machine do not count), and the cases alternate over ROUNDS rounds (the best of each)."""
    a = np.random.default_rng(0).standard_normal((4, 4)).astype(np.float32)
    b = np.random.default_rng(1).standard_normal((4, 4)).astype(np.float32)
    x, y = Tensor(a), Tensor(b)
    out = np.empty_like(a)
    add = ops.Add()
    custom = ops.Custom(numba_add, func_type="numba")
    custom(x, y)                                       # numba compiles (or loads its cache)
    t_np = bench(np.add, a, b, budget_s)
    t_t = None
    if child:
        inputs = child.load(a, b)
        t_t = bench_side_by_side([child.case("add", inputs)], budget_s)[0]
        child.release(inputs)
    cases = [("add 4x4 (built-in kernel)", None, add, selected_kernel(add, x, y).fn),
             ("add 4x4 (provider kernel)", "bench", add, provider_add),
             ("custom numba add 4x4", None, custom, jitted(numba_add))]
    rows, best = [], {}
    # priority -1: selected only when the context asks for the provider
    ms.register_kernel("Add", provider="bench", dtypes=(ms.float32,), priority=-1,
                       kernel=provider_add)
    try:
        for label, provider, prim, kernel in cases:
            ms.set_context(kernel_provider=provider)
            assert selected_kernel(prim, x, y).fn in (kernel, None), label
            rows.append((label, bench(lambda p, q, f=prim: f(p, q), x, y, budget_s), t_np, t_t))
        for _ in range(ROUNDS):
            for label, provider, prim, kernel in cases:
                ms.set_context(kernel_provider=provider)
                t = (bench(lambda p, q, f=prim: f(p, q), x, y, budget_s / ROUNDS,
                           time.thread_time_ns),
                     bench(lambda p, q, k=kernel: k(p, q, out), a, b, budget_s / ROUNDS,
                           time.thread_time_ns))
                best[label] = tuple(map(min, zip(best.get(label, t), t)))
    finally:
        ms.set_context(kernel_provider=None)
        unregister_kernel("Add", "bench")
    overhead = [(label,) + best[label] for label, *_ in cases]
    return rows, overhead


def print_overhead(rows):
    base = rows[0][1] - rows[0][2]
    print("| op (thread CPU time) | mindlite µs | kernel alone µs | framework overhead µs | "
          "overhead / built-in's |")
    print("|---|---:|---:|---:|---:|")
    for label, t_ms, t_k in rows:
        print(f"| {label} | {t_ms:.2f} | {t_k:.2f} | {t_ms - t_k:.2f} | "
              f"{(t_ms - t_k) / base:.2f} |")


def _fmt(v):
    return "-" if v is None else f"{v:.2f}"


def print_table(rows):
    print("| op | mindlite µs | numpy µs | torch µs | mindlite/torch | mindlite/numpy |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, t_ms, t_np, t_t in rows:
        r_t = f"{t_ms / t_t:.2f}" if t_t else "-"
        r_np = f"{t_ms / t_np:.2f}" if t_np else "-"
        print(f"| {label} | {_fmt(t_ms)} | {_fmt(t_np)} | {_fmt(t_t)} | {r_t} | {r_np} |")


def torch_child_main(threads):
    """--torch-child: this script as the PyTorch column's process (see _torch_child)."""
    global torch
    import torch
    serve({name: f_t for name, (_, _, f_t) in OPS.items()}, threads)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="4,256,1024,2048")
    p.add_argument("--ops", default=",".join(OPS))
    p.add_argument("--quick", action="store_true", help="shorter measurements")
    p.add_argument("--rss", type=int, default=0, metavar="CALLS",
                   help="only measure resident memory over CALLS cached calls (e.g. 1000000)")
    p.add_argument("--torch-child", type=int, metavar="THREADS", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.torch_child:
        return torch_child_main(args.torch_child)
    if args.rss:
        run_rss(args.rss)
        return
    budget = 0.15 if args.quick else 0.6
    sizes = [int(s) for s in args.sizes.split(",")]
    names = args.ops.split(",")
    for name in names:
        if name not in OPS:
            p.error(f"--ops: unknown op {name!r}; expected some of {', '.join(OPS)}")
    with (TorchChild(__file__, TORCH_THREADS) if torch_installed()
          else contextlib.nullcontext()) as child:
        torch_s = (f"{child.version} ({child.threads} threads, in a child process)" if child
                   else "not installed")
        print(f"mindlite {ms.__version__}, numpy {np.__version__}, torch {torch_s}; "
              f"float32, median µs per call")
        print_table(run(sizes, budget, names, child))
        print()
        print_table(run_recorded(budget, child))
        print()
        rows, overhead = run_custom(budget, child)
        print_table(rows)
        print()
        print_overhead(overhead)


if __name__ == "__main__":
    main()
