"""Inference latency: mindlite's Lite runtime vs onnxruntime on the same .ms model.

    python benchmarks/lite_infer.py [--repeat 10] [--quick]

Workloads: LeNet (1x32x32 input) and a 10-layer MLP (256 wide, ReLU between layers), at
batch 1 and 32. Each model is converted to .ms once (mindlite.lite.converter) and built
twice: by the Lite runtime (mindlite kernels), and with the onnxruntime delegate claiming
every kernel, whose ONNX model and onnxruntime session are then timed directly
(session.run with numpy feeds: no mindlite code on that path), with 1 and with 2 intra-op
threads; the ratios are against the faster of the two. Two Lite figures:
`predict` (the mindspore_lite API: Tensor.set_data_from_numpy, Model.predict,
get_data_to_numpy) and `session` (LiteSession.run on ready mindlite Tensors: the runtime
itself). Time: the best of `repeat` rounds, each the mean of N calls; the three figures'
rounds are interleaved (predict, session, onnxruntime, predict, ...), so a burst of load
from another process hits all three alike. Outputs are checked to agree first. Issue 16's
target: Lite <= 1.0x onnxruntime at batch 1. A benchmark, not a test; numbers on a shared
machine are noisy.
"""
import argparse
import os
import sys
import timeit

import numpy as np

import mindlite as ms
from mindlite import lite as mslite
from mindlite import nn
from mindlite.lite.converter import convert

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))
from lite_models import LeNet  # noqa: E402


class DeepMLP(nn.Cell):
    def __init__(self, width=256, depth=10):
        super().__init__()
        layers = []
        for i in range(depth):
            layers.append(nn.Dense(width, width))
            if i < depth - 1:
                layers.append(nn.ReLU())
        self.body = nn.SequentialCell(layers)

    def construct(self, x):
        return self.body(x)


ORT_THREADS = (1, 2)     # onnxruntime's intra-op threads: both timed, the faster compared


def best(fns, number, repeat):
    """Per call seconds of each of `fns`: the minimum over `repeat` interleaved rounds."""
    times = [[] for _ in fns]
    for _ in range(repeat):
        for t, fn in zip(times, fns):
            t.append(timeit.timeit(fn, number=number) / number)
    return [min(t) for t in times]


def bench(name, net, shape, repeat, number):
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    data = convert(net, ms.Tensor(x))
    if x.ndim == 4:                    # the model takes NHWC, as converter_lite's do
        x = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    lite = mslite.Model()
    lite.build_from_buffer(data, mslite.Context(), name)
    sessions = []
    for threads in ORT_THREADS:
        ctx = mslite.Context()
        ctx.delegate = mslite.OnnxRuntimeDelegate(threads=threads)
        delegated = mslite.Model()
        delegated.build_from_buffer(data, ctx, name)
        (ort_kernel,) = delegated._session.main.units
        sessions.append((ort_kernel.session, ort_kernel.feeds[0]))
    sess, feed = sessions[0]

    inputs = lite.get_inputs()
    inputs[0].set_data_from_numpy(x)
    got = lite.predict(inputs)[0].get_data_to_numpy()
    want = sess.run(None, {feed: x})[0]
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-4)

    def predict():
        inputs[0].set_data_from_numpy(x)
        return lite.predict(inputs)[0].get_data_to_numpy()
    session, args = lite._session, [ms.Tensor(x)]
    ort_runs = [(lambda s=s, f=f: s.run(None, {f: x})) for s, f in sessions]
    t_predict, t_session, *t_ort = best(
        [predict, lambda: session.run(args)] + ort_runs, number, repeat)
    return name, t_predict, t_session, t_ort


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    scale = 0.1 if args.quick else 1.0
    rows = []
    for batch in (1, 32):
        n = max(5, int((300 if batch == 1 else 60) * scale))
        rows.append(bench(f"LeNet b{batch}", LeNet(), (batch, 1, 32, 32), args.repeat, n))
        rows.append(bench(f"MLP10x256 b{batch}", DeepMLP(), (batch, 256), args.repeat, n))
    print("onnxruntime with 1 and 2 intra-op threads, the ratios against the faster; "
          "mindlite: its default kernels and thread pool. Times in us.")
    print(f"{'workload':<16}{'lite predict':>14}{'lite session':>14}{'ort 1 thread':>14}"
          f"{'ort 2 threads':>15}{'predict/ort':>13}{'session/ort':>13}")
    for name, tp, ts, (t1, t2) in rows:
        to = min(t1, t2)
        print(f"{name:<16}{tp * 1e6:>14.1f}{ts * 1e6:>14.1f}{t1 * 1e6:>14.1f}{t2 * 1e6:>15.1f}"
              f"{tp / to:>12.2f}x{ts / to:>12.2f}x")
    print("target (issue 16): lite <= 1.0x onnxruntime at batch 1")


if __name__ == "__main__":
    main()
