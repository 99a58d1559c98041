"""Cost of mindlite.profiler.Profiler: cached 4x4 op calls with the profiler off and on.

    python benchmarks/profiler_overhead.py [--rounds 30]

Times `prim(*inputs)` for cached 4x4 float32 calls (ReLU, Add, Mul, MatMul, Add with a
recording grad tape), min and median µs over `--rounds` batches, with the profiler off and
on taking turns one batch each, in one process. "on - off" is the recorder's cost per op
(target <= 0.2 µs). The off figure is the number to compare with the same script run
against a build without the profiler hooks (`--off-only` for that: no Profiler needed).
"""
import argparse
import statistics
import tempfile
import time

import numpy as np

from mindlite import Tensor, ops
from mindlite.pynative.grad import GRAD_EXECUTOR

N = 20_000


def batch(call):
    t0 = time.perf_counter_ns()
    for _ in range(N):
        call()
    return (time.perf_counter_ns() - t0) / N / 1e3


def cases():
    rng = np.random.default_rng(0)
    x = Tensor(rng.standard_normal((4, 4)).astype(np.float32))
    y = Tensor(rng.standard_normal((4, 4)).astype(np.float32))
    relu, add, mul, matmul = ops.ReLU(), ops.Add(), ops.Mul(), ops.MatMul()
    return [("ReLU 4x4", lambda: relu(x), False), ("Add 4x4", lambda: add(x, y), False),
            ("Mul 4x4", lambda: mul(x, y), False), ("MatMul 4x4", lambda: matmul(x, y), False),
            ("Add 4x4 (grad recorded)", lambda: add(x, y), True)], x


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=30)
    p.add_argument("--off-only", action="store_true", help="no Profiler (an older build)")
    args = p.parse_args()
    rows, x = cases()
    Profiler = None
    if not args.off_only:
        from mindlite.profiler import Profiler
    print(f"µs per call, min / median of {args.rounds} batches of {N} calls")
    print(f"{'op':<26}{'off min':>9}{'off med':>9}{'on min':>9}{'on med':>9}{'on-off':>9}")
    with tempfile.TemporaryDirectory() as tmp:
        for name, call, grad in rows:
            tape = GRAD_EXECUTOR.open_tape() if grad else None
            if tape is not None:
                tape.watch(x)
            call()
            off, on = [], []
            for _ in range(args.rounds):
                off.append(batch(call))
                if tape is not None:
                    tape.nodes.clear()
                if Profiler is not None:
                    prof = Profiler(output_path=tmp)
                    on.append(batch(call))
                    prof.stop()
                if tape is not None:
                    tape.nodes.clear()
            if tape is not None:
                GRAD_EXECUTOR.close_tape(tape)
            line = f"{name:<26}{min(off):9.3f}{statistics.median(off):9.3f}"
            if on:
                line += (f"{min(on):9.3f}{statistics.median(on):9.3f}"
                         f"{min(on) - min(off):9.3f}")
            print(line)


if __name__ == "__main__":
    main()
