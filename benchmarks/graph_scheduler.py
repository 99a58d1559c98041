"""GraphScheduler vs the sequential runner: two independent MatMul branches (issue 17).

    python benchmarks/graph_scheduler.py [--n 2048] [--repeat 5] [--workers 2]

The graph (a @jit function) computes x1 @ w1 and x2 @ w2, n x n float32 each, with no
arrow between them. BLAS is limited to one thread per call (OPENBLAS_NUM_THREADS=1 etc.,
set below before numpy loads), so the speed-up measures the scheduler running the two
branches at once on the thread pool (numpy's BLAS releases the GIL). Prints the median
time of `repeat` runs for: jit's own C runner (sequential), the GraphCompiler's sequential
runner, and the GraphScheduler, and the speed-up of the scheduler over both; then the
same two matmuls in plain numpy, one after the other and on two threads: the concurrency
the machine gives right now (on a loaded machine that ceiling, not the scheduler, limits).
"""
import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
             "BLIS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from concurrent.futures import ThreadPoolExecutor  # noqa: E402

import numpy as np  # noqa: E402

import mindlite as ms  # noqa: E402
from mindlite import ops  # noqa: E402
from mindlite.backend.graph_compiler import compile_graph  # noqa: E402
from mindlite.backend.graph_scheduler import GraphScheduler  # noqa: E402


@ms.jit
def two_branches(x1, w1, x2, w2):
    return ops.matmul(x1, w1), ops.matmul(x2, w2)


def median_time(fn, repeat):
    fn()                                          # warm: buffers, first-call work
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=2048)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--workers", type=int, default=2)
    a = p.parse_args()
    rng = np.random.default_rng(0)
    args = [ms.Tensor(rng.standard_normal((a.n, a.n)).astype(np.float32)) for _ in range(4)]
    cg = compile_graph(two_branches.graph(*args), parallel=True)
    sched = GraphScheduler(a.workers)
    try:
        seq = [o.asnumpy() for o in cg.run(args)]
        par = [o.asnumpy() for o in sched.run(cg, args)]
        assert all(np.array_equal(s, q) for s, q in zip(seq, par)), "results differ"
        t_jit = median_time(lambda: two_branches(*args), a.repeat)
        t_seq = median_time(lambda: cg.run(args), a.repeat)
        t_par = median_time(lambda: sched.run(cg, args), a.repeat)
        arrs = [t.asnumpy() for t in args]
        pool = ThreadPoolExecutor(2)
        t_np_seq = median_time(lambda: (arrs[0] @ arrs[1], arrs[2] @ arrs[3]), a.repeat)
        t_np_par = median_time(lambda: list(pool.map(lambda i: arrs[i] @ arrs[i + 1], (0, 2))),
                               a.repeat)
        pool.shutdown()
    finally:
        sched.close()
    print(f"two independent {a.n}x{a.n} float32 MatMul branches, BLAS 1 thread per call, "
          f"{a.workers} workers, {os.cpu_count()} cores, median of {a.repeat}")
    print("| runner | ms per run | scheduler speed-up |")
    print("|---|---:|---:|")
    print(f"| jit C runner (sequential) | {t_jit * 1e3:.1f} | {t_jit / t_par:.2f}x |")
    print(f"| GraphCompiler sequential | {t_seq * 1e3:.1f} | {t_seq / t_par:.2f}x |")
    print(f"| GraphScheduler (actors) | {t_par * 1e3:.1f} | 1.00x |")
    print(f"numpy alone: {t_np_seq * 1e3:.1f} ms sequential, {t_np_par * 1e3:.1f} ms on two "
          f"threads ({t_np_seq / t_np_par:.2f}x: the machine's ceiling now)")


if __name__ == "__main__":
    main()
