"""CPU vs the GPU device plugin on CuPy (examples/devices/cupy_device, issue 17).

    python benchmarks/device_cupy.py [--n 4096] [--batch 256] [--hidden 1024] [--repeat 5]

Prints the median time of `repeat` runs on CPU and on GPU, and CPU/GPU, for:
  eager MatMul n x n      one op; on GPU it includes copying both inputs in and the result
                          out (eager values are host Tensors between ops)
  jit 4 x MatMul chain    x @ w @ w @ w @ w as one graph: values stay on the GPU between
                          the kernels; only the boundaries are copied
  kernel MatMul           the plugin's MatMul kernel on device-resident inputs (no copies)
  MLP training step       GRAPH_MODE TrainOneStepCell (Dense x3, ReLU, MSELoss, Momentum):
                          the optimizer updates run on CPU, so weights and gradients cross
                          each step
Exits with a message when cupy is missing or sees no GPU.
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np

import mindlite as ms
from mindlite import nn, ops

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "examples", "devices", "cupy_device"))


def gpu_or_reason():
    try:
        import cupy
        if cupy.cuda.runtime.getDeviceCount() < 1:
            return "cupy sees no CUDA device"
    except Exception as err:              # noqa: BLE001  (missing cupy, driver, device)
        return f"cupy unavailable ({type(err).__name__}: {err})"
    return None


def median_time(fn, repeat):
    fn()
    fn()                                  # warm: kernel compilation, pools, jit caches
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def on(device, fn, repeat):
    ms.set_context(device_target=device)
    try:
        return median_time(fn, repeat)
    finally:
        ms.set_context(device_target="CPU")


def row(name, cpu, gpu):
    print(f"{name:<34} CPU {cpu * 1e3:10.2f} ms   GPU {gpu * 1e3:10.2f} ms   "
          f"CPU/GPU {cpu / gpu:7.2f}x")


def train_step_time(device, args):
    ms.set_context(device_target=device, mode=ms.GRAPH_MODE)
    try:
        ms.set_seed(0)
        h = args.hidden
        net = nn.SequentialCell([nn.Dense(h, h), nn.ReLU(), nn.Dense(h, h), nn.ReLU(),
                                 nn.Dense(h, 10)])
        opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
        step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
        rng = np.random.default_rng(0)
        x = ms.Tensor(rng.standard_normal((args.batch, h)).astype(np.float32))
        y = ms.Tensor(rng.standard_normal((args.batch, 10)).astype(np.float32))
        return median_time(lambda: step(x, y).asnumpy(), args.repeat)
    finally:
        ms.set_context(device_target="CPU", mode=ms.PYNATIVE_MODE)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=4096)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--hidden", type=int, default=1024)
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args()
    reason = gpu_or_reason()
    if reason:
        print(f"device_cupy: skipped: {reason}")
        return
    import cupy
    from mindlite_cupy_device import make_context
    ms.device.register_device("GPU", make_context, override=True)
    ctx = ms.device.get_device_context("GPU")
    gpu_name = cupy.cuda.runtime.getDeviceProperties(0)["name"]
    gpu_name = gpu_name.decode() if isinstance(gpu_name, bytes) else gpu_name
    print(f"GPU: {gpu_name}, cupy {cupy.__version__}; n={args.n}, "
          f"MLP {args.batch}x{args.hidden}, median of {args.repeat}")

    rng = np.random.default_rng(0)
    n = args.n
    a = ms.Tensor(rng.standard_normal((n, n)).astype(np.float32))
    b = ms.Tensor((rng.standard_normal((n, n)) / np.sqrt(n)).astype(np.float32))

    def eager():
        return ops.matmul(a, b).asnumpy()
    row(f"eager MatMul {n}^2", on("CPU", eager, args.repeat), on("GPU", eager, args.repeat))

    chain = ms.jit(lambda x, w: ops.matmul(ops.matmul(ops.matmul(ops.matmul(x, w), w), w), w))
    row(f"jit 4 x MatMul {n}^2", on("CPU", lambda: chain(a, b).asnumpy(), args.repeat),
        on("GPU", lambda: chain(a, b).asnumpy(), args.repeat))

    req = ms.device.KernelRequest("MatMul", [a._abs, b._abs], [a._abs],
                                  {"transpose_a": False, "transpose_b": False})
    kernel = ctx.kernel_executor.select_kernel(req)
    rm = ctx.res_manager
    da, db = rm.to_device(a.asnumpy()), rm.to_device(b.asnumpy())
    dc = rm.alloc_address((n, n), np.float32)
    cpu_k = ms.device.get_device_context("CPU").kernel_executor.select_kernel(req)
    ha, hb, hc = (ms.device.device_address(t) for t in (a, b, ms.Tensor(np.empty((n, n),
                                                                             np.float32))))

    def gpu_kernel():
        ctx.kernel_executor.launch(kernel, [da, db], [dc])
        rm.sync_stream()
    row(f"kernel MatMul {n}^2 (no copies)",
        median_time(lambda: cpu_k.launch([ha, hb], [hc]), args.repeat),
        median_time(gpu_kernel, args.repeat))

    rm.reset_counts()
    cpu_step = train_step_time("CPU", args)
    gpu_step = train_step_time("GPU", args)
    row(f"MLP step {args.batch}x{args.hidden}", cpu_step, gpu_step)
    print(f"GPU copies over the MLP runs: {rm.counts}")


if __name__ == "__main__":
    main()
