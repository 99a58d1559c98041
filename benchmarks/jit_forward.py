"""Forward passes, eager vs @jit: a 10-layer 1024-wide MLP (batch 512) and LeNet inference
(batch 1 and 64). Prints a table of time per call, peak memory, compile time and ratios.

    python benchmarks/jit_forward.py [--repeat 5] [--quick]

Time: the best of `repeat` rounds, each the mean of N calls (N per workload below).
Compile: `JitFunction.compiled` on a fresh @jit function (parse, passes, lint); lower:
kernel_graph.program_for (the KernelGraph, its buffer plan and the C runner); 1st run +ms:
the first call's extra time over a steady call (the first arena).
Peak memory: in a fresh process per workload and mode (the model built and its weights
initialised, the @jit graph compiled and lowered, nothing run yet), the peak of
tracemalloc's traced bytes over the first call, above what was traced before it. numpy
reports its buffers to tracemalloc, so this counts eager's pooled output buffers
(runtime/memory.py: the pool grows to as many buffers as are live at once) and the graph
runner's arena (jit/memory_plan.py), plus the small one-time objects of a first call.
Issue 11's targets are printed beside the ratios; this is a benchmark, not a test.
"""
import argparse
import gc
import subprocess
import sys
import time
import timeit
import tracemalloc

import numpy as np

import mindlite as ms
from mindlite import nn
from mindlite.jit import kernel_graph


class MLP(nn.Cell):
    def __init__(self, width=1024, depth=10):
        super().__init__()
        layers = []
        for _ in range(depth):
            layers += [nn.Dense(width, width), nn.ReLU()]
        self.body = nn.SequentialCell(layers)

    def construct(self, x):
        return self.body(x)


class LeNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid")
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()
        self.fc1 = nn.Dense(16 * 5 * 5, 120)
        self.fc2 = nn.Dense(120, 84)
        self.fc3 = nn.Dense(84, 10)

    def construct(self, x):
        x = self.pool(self.relu(self.conv1(x)))
        x = self.pool(self.relu(self.conv2(x)))
        x = self.flatten(x)
        return self.fc3(self.relu(self.fc2(self.relu(self.fc1(x)))))


def _jit_of(net):
    def forward(x):
        return net(x)
    return ms.jit(forward)


def best_time(fn, x, number, repeat):
    return min(timeit.repeat(lambda: fn(x), number=number, repeat=repeat)) / number


def peak_bytes(fn, x):
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        out = fn(x)
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    del out
    return peak


def _workloads(quick):
    k = 0.2 if quick else 1.0
    rng = np.random.default_rng(0)
    mlp, lenet = MLP(), LeNet()
    cases = [("MLP 10x1024, batch 512", mlp, (512, 1024), 3),
             ("LeNet, batch 1", lenet, (1, 1, 32, 32), 200),
             ("LeNet, batch 64", lenet, (64, 1, 32, 32), 20)]
    return [(name, net, ms.Tensor(rng.standard_normal(shape).astype(np.float32)),
             max(1, int(number * k))) for name, net, shape, number in cases]


def _peak_child(index, mode):
    """In a fresh process: the first call's peak traced bytes (see the module docstring)."""
    _, net, x, _ = _workloads(True)[index]
    for p in net.get_parameters():          # weights exist before either mode's first call
        p.init_data()
    fn = net
    if mode == "jit":
        fn = _jit_of(net)
        kernel_graph.program_for(fn.compiled((x,), {}))     # compile and lower, not run
    print(peak_bytes(fn, x))


def peak_in_fresh_process(index, mode):
    out = subprocess.run([sys.executable, __file__, "--peak-of", str(index), mode],
                         capture_output=True, text=True, check=True)
    return int(out.stdout.split()[-1])


def measure(index, name, net, x, number, repeat):
    eager_t = (net(x), best_time(net, x, number, repeat))[1]
    jf = _jit_of(net)
    t0 = time.perf_counter()
    graph_entry = jf.compiled((x,), {})
    compile_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    prog = kernel_graph.program_for(graph_entry)
    lower_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    out = jf(x)
    first_s = time.perf_counter() - t0
    np.testing.assert_allclose(out.asnumpy(), net(x).asnumpy(), rtol=1e-4, atol=1e-4)
    jit_t = best_time(jf, x, number, repeat)
    return dict(name=name, eager=eager_t, jit=jit_t, compile=compile_s, lower=lower_s,
                first=max(first_s - jit_t, 0.0), how="runner" if prog else "interpreter",
                eager_peak=peak_in_fresh_process(index, "eager"),
                jit_peak=peak_in_fresh_process(index, "jit"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="fewer calls per round")
    ap.add_argument("--peak-of", nargs=2, metavar=("INDEX", "MODE"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.peak_of:
        return _peak_child(int(args.peak_of[0]), args.peak_of[1])
    rows = [measure(i, name, net, x, number, args.repeat)
            for i, (name, net, x, number) in enumerate(_workloads(args.quick))]
    head = (f"{'workload':<24}{'eager ms':>10}{'jit ms':>9}{'jit/eager':>10}"
            f"{'eager MiB':>10}{'jit MiB':>8}{'jit/eager':>10}{'compile ms':>11}"
            f"{'lower ms':>9}{'1st run +ms':>12}  run by")
    print(head)
    print("-" * len(head))
    mib = 1 << 20
    for r in rows:
        print(f"{r['name']:<24}{r['eager'] * 1e3:>10.3f}{r['jit'] * 1e3:>9.3f}"
              f"{r['jit'] / r['eager']:>10.2f}{r['eager_peak'] / mib:>10.2f}"
              f"{r['jit_peak'] / mib:>8.2f}{r['jit_peak'] / max(r['eager_peak'], 1):>10.2f}"
              f"{r['compile'] * 1e3:>11.1f}{r['lower'] * 1e3:>9.1f}{r['first'] * 1e3:>12.1f}"
              f"  {r['how']}")
    mlp_row, lenet1 = rows[0], rows[1]
    print()
    print(f"targets (issue 11): LeNet batch-1 jit/eager {lenet1['jit'] / lenet1['eager']:.2f} "
          f"(<= 0.5); MLP peak memory jit/eager "
          f"{mlp_row['jit_peak'] / max(mlp_row['eager_peak'], 1):.2f} (<= 0.6); MLP compile "
          f"{mlp_row['compile'] * 1e3:.1f} ms (<= 50)")


if __name__ == "__main__":
    main()
