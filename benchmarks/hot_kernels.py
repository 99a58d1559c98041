"""The hot fixed kernels, launch by launch: numpy reference vs numba vs C++ (and PyTorch where
it has the same op and is installed), at small and large sizes, measured side by side.

    python benchmarks/hot_kernels.py [--quick] [--op Argmax] [--clock cpu] [--threads 1]

Each kernel is called directly on preallocated arrays (no framework overhead: what kernel
selection compares). The cases take turns, one batch each per round, so load from other
processes hits all alike; medians of the batches (--clock cpu: process CPU time instead of
wall time, steadier on a loaded machine; --threads k: C++ launches forced to k threads, 0 =
the measured split). Prints µs per launch and the ratios
cpp/numpy, cpp/numba and cpp/torch (C++ time / other time: below 1 means C++ is faster).
Ops: softmax cross-entropy (dense, sparse, sparse gradient), NLLLoss, Argmax,
ArgMaxWithValue, ReduceAll, ReduceAny, ApplyMomentum, SGD, Adam, AdamWeightDecay.
"""
import argparse
import statistics
import time

import numpy as np

from mindlite import _C
from mindlite.kernels.registry import registered_kernels

try:
    import torch
    torch.set_num_threads(2)
except ImportError:                       # the table just loses its torch column
    torch = None

F32 = np.float32
RNG = np.random.default_rng(0)


def _kernel(op, provider):
    for k in registered_kernels(op):
        if k.provider == provider:
            return k.fn
    return None


def _h(v, dt=F32):
    return np.array([v], dt)


def _cases(quick):
    """(label, op, args, torch callable or None) for each case."""
    out = []
    for n, c in ((64, 10), (512, 1000)) + (() if quick else ((4096, 100),)):
        x = RNG.standard_normal((n, c)).astype(F32)
        y = RNG.random((n, c)).astype(F32)
        t = RNG.integers(0, c, n).astype(np.int32)
        tx, tt = (torch.from_numpy(x), torch.from_numpy(t.astype(np.int64))) if torch else (0, 0)
        out.append((f"SCE {n}x{c}", "SoftmaxCrossEntropyWithLogits",
                    (x, y, np.empty(n, F32), np.empty((n, c), F32)), None))
        out.append((f"SparseSCE {n}x{c}", "SparseSoftmaxCrossEntropyWithLogits",
                    (x, t, np.empty((), F32), False),
                    torch and (lambda tx=tx, tt=tt: torch.nn.functional.cross_entropy(tx, tt))))
        out.append((f"SparseSCE grad {n}x{c}", "SparseSoftmaxCrossEntropyWithLogits",
                    (x, t, np.empty((n, c), F32), True), None))
        out.append((f"NLLLoss mean {n}x{c}", "NLLLoss",
                    (x, t, np.ones(c, F32), np.empty((), F32), np.empty((), F32), "mean", -100),
                    torch and (lambda tx=tx, tt=tt: torch.nn.functional.nll_loss(tx, tt))))
        for axis in (1, 0):
            m = c if axis == 0 else n
            tx = torch.from_numpy(x) if torch else None
            out.append((f"Argmax {n}x{c} axis {axis}", "Argmax",
                        (x, np.empty(m, np.int32), axis),
                        torch and (lambda tx=tx, a=axis: torch.argmax(tx, a))))
            out.append((f"ArgMaxWithValue {n}x{c} axis {axis}", "ArgMaxWithValue",
                        (x, np.empty(m, np.int32), np.empty(m, F32), axis, False),
                        torch and (lambda tx=tx, a=axis: torch.max(tx, a))))
    for shape in ((64, 10), (1000, 1000)) + (() if quick else ((4000, 1000),)):
        b = RNG.random(shape) < 0.999
        tb = torch.from_numpy(b) if torch else None
        for op, tf in (("ReduceAll", "all"), ("ReduceAny", "any")):
            out.append((f"{op} {shape[0]}x{shape[1]} full", op,
                        (b, np.empty((), bool), (0, 1), False),
                        torch and (lambda tb=tb, tf=tf: getattr(torch, tf)(tb))))
            out.append((f"{op} {shape[0]}x{shape[1]} axis 0", op,
                        (b, np.empty(shape[1], bool), (0,), False),
                        torch and (lambda tb=tb, tf=tf: getattr(torch, tf)(tb, 0))))
    for n in (1000, 100_000) + (() if quick else (4_000_000,)):
        w, g = RNG.standard_normal(n).astype(F32), RNG.standard_normal(n).astype(F32) * 1e-3
        a, m, v, s = np.zeros(n, F32), np.zeros(n, F32), np.zeros(n, F32), np.ones(n, F32)
        out.append((f"ApplyMomentum {n}", "ApplyMomentum",
                    (w, a, _h(1e-6), g, _h(0.9), False, False, 1.0), None))
        out.append((f"SGD {n}", "SGD", (w, g, _h(1e-6), a, _h(0.9), s, 0.0, 0.0, False), None))
        out.append((f"Adam {n}", "Adam", (w, m, v, _h(0.9), _h(0.999), _h(1e-6), _h(0.9),
                                          _h(0.999), _h(1e-8), g, False, False), None))
        out.append((f"AdamWeightDecay {n}", "AdamWeightDecay",
                    (w, m, v, _h(1e-6), _h(0.9), _h(0.999), _h(1e-8), _h(0.01), g, False), None))
    return out


def side_by_side(fns, budget_s, rounds=11, clock=time.perf_counter_ns):
    """Median µs per call of each fn (`clock`: ns), batches sized to ~budget_s / rounds /
    len(fns)."""
    sizes = []
    for fn in fns:
        fn()
        t0, k = time.perf_counter(), 0
        while time.perf_counter() - t0 < budget_s / rounds / len(fns):
            fn()
            k += 1
        sizes.append(max(1, k))
    samples = [[] for _ in fns]
    for _ in range(rounds):
        for fn, k, out in zip(fns, sizes, samples):
            t0 = clock()
            for _ in range(k):
                fn()
            out.append((clock() - t0) / k / 1e3)
    return [statistics.median(s) for s in samples]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer sizes, shorter batches")
    ap.add_argument("--op", help="only cases of this op (e.g. Argmax)")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    ap.add_argument("--threads", type=int, default=0, help="C++ threads (0: measured split)")
    args = ap.parse_args()
    _C.set_num_threads(args.threads)
    clock = time.perf_counter_ns if args.clock == "wall" else time.process_time_ns
    budget = 0.15 if args.quick else 0.6
    head = f"{'case':34s} {'numpy':>9s} {'numba':>9s} {'cpp':>9s}"
    head += f"{'torch':>9s}" * bool(torch) + "   cpp/numpy cpp/numba" + " cpp/torch" * bool(torch)
    print(f"µs per launch (median, {args.clock} clock, C++ threads {args.threads or 'auto'}); "
          "ratios = C++ time / other time, lower is better")
    print(head)
    for label, op, kargs, tfn in _cases(args.quick):
        if args.op and op != args.op:
            continue
        provs = [p for p in ("numpy", "numba", "cpp") if _kernel(op, p)]
        fns = [lambda f=_kernel(op, p): f(*kargs) for p in provs]
        if torch and tfn:
            fns.append(tfn)
        t = dict(zip(provs + ["torch"] * bool(torch and tfn),
                     side_by_side(fns, budget, clock=clock)))
        cols = "".join(f"{t[p]:9.1f}" if p in t else f"{'-':>9s}"
                       for p in ("numpy", "numba", "cpp") + ("torch",) * bool(torch))
        ratios = "".join(f"{t['cpp'] / t[p]:10.2f}" if p in t and "cpp" in t else f"{'-':>10s}"
                         for p in ("numpy", "numba") + ("torch",) * bool(torch))
        print(f"{label:34s} {cols}  {ratios}")


if __name__ == "__main__":
    main()
