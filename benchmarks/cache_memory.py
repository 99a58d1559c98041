"""Cache memory at full counts: RSS growth and per-call time for distinct shapes and rows.

    python benchmarks/cache_memory.py [--shapes 10000] [--rows 20000]

Prints, with the default caps of mindlite/cache_limits.py:
  1. `for row in x` over a (rows, 4) float32 tensor, twice: µs per row (wall, and the
     thread's CPU time, which a loaded machine inflates less) and RSS growth of each pass
     (index values are runtime inputs, so no pass adds runners);
  2. `--shapes` distinct input shapes through relu + add + a row index: RSS after each
     quarter, and the growth after the caps were reached (the first quarter fills them);
  3. the size of every bounded cache against its cap.
Not a test: tests/test_cache_bounds.py checks the same bounds at smaller counts.
"""
import argparse
import gc
import time

import numpy as np

from mindlite import Tensor, abstract, cache_limits, ops
from mindlite.backend.session import session_factory
from mindlite.ops.function import index_func
from mindlite.ops.primitive import RUNNER_CACHES, runner_count
from mindlite.pynative.executor import PYNATIVE_EXECUTOR


def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20


def rows_pass(x):
    """(wall µs, thread CPU µs) per row and the RSS growth in MB of one `for row in x`."""
    gc.collect()
    r0, t0, c0 = rss_mb(), time.perf_counter(), time.thread_time()
    for _ in x:
        pass
    t1, c1 = time.perf_counter(), time.thread_time()
    gc.collect()
    n = x.shape[0]
    return (t1 - t0) / n * 1e6, (c1 - c0) / n * 1e6, rss_mb() - r0


def shape_step(i, relu, add):
    x = Tensor(np.ones((i % 100 + 1, i // 100 + 1), np.float32))
    add(relu(x), x)[0]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shapes", type=int, default=10000)
    p.add_argument("--rows", type=int, default=20000)
    a = p.parse_args()
    x = Tensor(np.random.default_rng(0).standard_normal((a.rows, 4)).astype(np.float32))
    for _ in x[:3]:
        pass
    print(f"row iteration over {a.rows} x 4 float32")
    for name in ("first pass", "second pass"):
        us, cpu, grown = rows_pass(x)
        print(f"  {name}: {us:.2f} µs per row ({cpu:.2f} µs thread CPU), RSS {grown:+.1f} MB, "
              f"runners held {runner_count()}")

    relu, add = ops.ReLU(), ops.Add()
    print(f"{a.shapes} distinct shapes (relu, add, x[0] each)")
    gc.collect()
    start = rss_mb()
    quarter = max(1, a.shapes // 4)
    after_first = None
    t0 = time.perf_counter()
    for i in range(a.shapes):
        shape_step(i, relu, add)
        if (i + 1) % quarter == 0:
            gc.collect()
            now = rss_mb()
            after_first = now if after_first is None else after_first
            print(f"  after {i + 1:6d}: RSS {now - start:+.1f} MB, runners held "
                  f"{runner_count()}")
    per_shape = (time.perf_counter() - t0) / a.shapes * 1e6
    gc.collect()
    print(f"  {per_shape:.0f} µs per new shape (first calls); growth after the first quarter: "
          f"{rss_mb() - after_first:+.1f} MB")

    graphs = session_factory("CPU").graphs
    print("caches (held / cap):")
    rows = [("runners, both generations", runner_count(), 2 * cache_limits.RUNNER_CAP),
            ("runner caches (per attrs)", len(RUNNER_CACHES), cache_limits.RUNNER_CACHES_CAP),
            ("inferred abstracts", len(PYNATIVE_EXECUTOR.forward_executor.infer_cache),
             cache_limits.INFER_CAP),
            ("kernel graphs", len(graphs), cache_limits.GRAPH_CAP),
            ("interned abstracts (strong tables)", max(abstract.interned_count()),
             cache_limits.ABSTRACT_CAP),
            ("getitem plans", len(index_func._BASIC_PLANS), cache_limits.GETITEM_PLAN_CAP)]
    for name, held, cap in rows:
        print(f"  {name:36s} {held:6d} / {cap}")


if __name__ == "__main__":
    main()
