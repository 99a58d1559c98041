"""float16 op latency: mindlite float16 (the C++ kernels through float32 lanes, provider
cpp_f16) against mindlite float32, the numpy float16 reference kernels, and PyTorch float16
(when installed), at 4x4, 256x256 and 2048x2048.

    python benchmarks/f16_latency.py [--sizes 4,256,2048] [--ops softmax,add]

Prints µs per call (median of batches; the columns take turns, one batch each per round, in
one process), f16/f32 (issue 13's target for softmax at 256x256: <= 2) and f16/torch.
"""
import argparse
import statistics
import time

import numpy as np

import mindlite as ms
from mindlite import Tensor, ops
from mindlite.kernels import registry

try:
    import torch
    torch.set_num_threads(2)
except ImportError:                       # the table just loses its torch column
    torch = None

OPS = {   # name: (mindlite, torch)
    "add": (lambda x, y: ops.add(x, y), lambda x, y: torch.add(x, y)),
    "mul": (lambda x, y: ops.mul(x, y), lambda x, y: torch.mul(x, y)),
    "relu": (lambda x, y: ops.relu(x), lambda x, y: torch.relu(x)),
    "sigmoid": (lambda x, y: ops.sigmoid(x), lambda x, y: torch.sigmoid(x)),
    "exp": (lambda x, y: ops.exp(x), lambda x, y: torch.exp(x)),
    "sum": (lambda x, y: ops.sum(x), lambda x, y: torch.sum(x)),
    "sum(axis=0)": (lambda x, y: ops.sum(x, 0), lambda x, y: torch.sum(x, 0)),
    "amax(axis=-1)": (lambda x, y: ops.amax(x, -1), lambda x, y: torch.amax(x, -1)),
    "softmax": (lambda x, y: ops.softmax(x, -1), lambda x, y: torch.softmax(x, -1)),
    "log_softmax": (lambda x, y: ops.log_softmax(x, -1),
                    lambda x, y: torch.log_softmax(x, -1)),
}
NUMPY_OP = {"add": "Add", "mul": "Mul", "relu": "ReLU", "sigmoid": "Sigmoid", "exp": "Exp",
            "softmax": "Softmax", "log_softmax": "LogSoftmax"}


def _numpy_kernel(name):
    """The op's numpy float16 reference kernel as a call on preallocated output."""
    op = NUMPY_OP.get(name)
    if op is None:
        return None
    (k,) = [k for k in registry.kernels_for(op)
            if k.provider == "numpy" and (not k.dtypes or ms.float16 in k.dtypes)]
    if op in ("Softmax", "LogSoftmax"):
        return lambda x, y, out: k.fn(x, out, x.ndim - 1)
    if op in ("Add", "Mul"):
        return lambda x, y, out: k.fn(x, y, out)
    return lambda x, y, out: k.fn(x, out)


def _batch(fn, reps):
    t0 = time.perf_counter()
    for _ in range(reps):
        fn()
    return (time.perf_counter() - t0) / reps * 1e6


def measure(fns, n):
    """µs per call of each callable: median over rounds of one batch each, taking turns."""
    reps = 2000 if n <= 16 else (200 if n <= 65536 else 5)
    rounds = 7 if n <= 65536 else 5
    for f in fns:
        f()
    times = [[] for _ in fns]
    for _ in range(rounds):
        for i, f in enumerate(fns):
            times[i].append(_batch(f, reps))
    return [statistics.median(t) for t in times]


def row(name, side):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((side, side)).astype(np.float32)
    b = rng.standard_normal((side, side)).astype(np.float32)
    ml, th = OPS[name]
    x16, y16 = Tensor(a.astype(np.float16)), Tensor(b.astype(np.float16))
    x32, y32 = Tensor(a), Tensor(b)
    fns = [lambda: ml(x16, y16), lambda: ml(x32, y32)]
    ref = _numpy_kernel(name)
    if ref is not None:
        a16, b16, out = a.astype(np.float16), b.astype(np.float16), np.empty_like(a, np.float16)
        fns.append(lambda: ref(a16, b16, out))
    if torch is not None:
        ta, tb = torch.from_numpy(a.astype(np.float16)), torch.from_numpy(b.astype(np.float16))
        fns.append(lambda: th(ta, tb))
    t = measure(fns, side * side)
    f16, f32 = t[0], t[1]
    np_t = t[2] if ref is not None else None
    th_t = t[-1] if torch is not None else None
    return f16, f32, np_t, th_t


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="4,256,2048")
    p.add_argument("--ops", default=",".join(OPS))
    args = p.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    names = args.ops.split(",")
    print(f"kernel: {registry.select_kernel('Softmax', 'CPU', ms.float16).provider}"
          f" (float16), ISA {__import__('mindlite')._C.kernel_isa()}")
    print(f"{'op':<14}{'size':>11}{'f16 µs':>10}{'f32 µs':>10}{'np16 µs':>10}{'torch16':>10}"
          f"{'f16/f32':>9}{'f16/torch':>10}")
    fmt = lambda v: f"{v:10.1f}" if v is not None else f"{'-':>10}"   # noqa: E731
    for name in names:
        for side in sizes:
            f16, f32, np_t, th_t = row(name, side)
            ratio_t = f"{f16 / th_t:10.2f}" if th_t else f"{'-':>10}"
            print(f"{name:<14}{f'{side}x{side}':>11}{fmt(f16)}{fmt(f32)}{fmt(np_t)}{fmt(th_t)}"
                  f"{f16 / f32:9.2f}{ratio_t}")


if __name__ == "__main__":
    main()
