"""AllReduce bandwidth and data-parallel training speed (issue 18).

    python benchmarks/allreduce.py [--quick]

Launches itself under `mpiexec` on this machine (loopback, shared memory):
1. ops.AllReduce of float32 buffers from 1 KB to 64 MB on 2 and 4 ranks, against raw
   mpi4py `Allreduce` on numpy buffers in the same run (alternating, median of repeats),
   and against raw `Iallreduce` waited for the way mindlite waits (MPI_Test, then yielding
   the CPU between tests: blocking MPI busy-polls, which on a loaded or oversubscribed
   machine takes the core a late peer needs).
   Bandwidth = buffer bytes / time. Target: mindlite >= 0.9x raw at >= 1 MB.
   mindlite's call includes its cross-rank shape/dtype check (a 16-byte allreduce) and the
   op dispatch; MINDLITE_COMM_CHECK=0 removes the check (also measured).
2. One data-parallel training step of train_digits.py's CNN, batch 64 per rank, on 2 ranks,
   against rank 0 training alone (no reducer) in windows taking turns with the 2-rank ones
   in the same launch, the other rank asleep in a barrier meanwhile (each rank single-
   threaded: BLAS and mindlite's pool at one thread); samples/s over all ranks, best and
   median window; 3 launches. Target: 2 ranks >= 1.5x one rank (on 2 cores; other load on
   the machine makes the numbers noisy).
3. The same 2-rank step with the gradient reduction overlapped with backward
   (nn.DistributedGradReducer overlap=True) and after it (overlap=False), with
   the default bucket size (32 MB: the CNN's 55 KB of gradients make one bucket, final only
   when backward ends) and 16 KB buckets (several buckets, the first ones reduced while
   backward computes the rest).
"""
import argparse
import os
import subprocess
import sys
import time

SIZES = [1 << k for k in range(10, 27, 2)]          # 1 KB .. 64 MB


def _launch(n, *args):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1",
               PYTHONUNBUFFERED="1")
    cmd = ["mpiexec", "-n", str(n), "--oversubscribe", sys.executable, __file__, "--worker",
           *args]
    res = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1200)
    if res.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{res.stdout}\n{res.stderr}")
    return res.stdout


def _bandwidth_worker(quick):
    import numpy as np
    from mpi4py import MPI

    from mindlite import Tensor, ops
    from mindlite.communication import _mpi, init
    init()
    comm = MPI.COMM_WORLD
    allreduce = ops.AllReduce()
    rows = []
    for size in SIZES:
        n = size // 4
        a = np.random.RandomState(comm.Get_rank()).rand(n).astype(np.float32)
        out = np.empty_like(a)
        t = Tensor(a)
        calls = max(12, min(400, (64 << 20) // size // (8 if quick else 1)))
        block = max(3, min(20, calls // 6))     # back-to-back calls of one variant
        variants = {"raw": lambda: comm.Allreduce(a, out),
                    "raw_nb": lambda: _mpi.wait("raw", "world", comm.Iallreduce(a, out)),
                    "mindlite": lambda: allreduce(t), "nocheck": lambda: allreduce(t)}
        times = {k: [] for k in variants}
        for f in variants.values():              # warm-up
            f()
        for _ in range(max(2, calls // block)):
            for name, f in variants.items():
                _mpi._CHECK[0] = name != "nocheck"
                for i in range(block + 1):       # the first call of a block is not timed
                    comm.Barrier()
                    t0 = time.perf_counter()
                    f()
                    if i:
                        times[name].append(time.perf_counter() - t0)
        _mpi._CHECK[0] = True
        worst = {k: comm.allreduce(float(np.median(v)), MPI.MAX) for k, v in times.items()}
        rows.append((size, worst["raw"], worst["raw_nb"], worst["mindlite"], worst["nocheck"]))
    if comm.Get_rank() == 0:
        for row in rows:
            print("ROW", *row)


def _dp_step_worker(quick, overlap, bucket):
    import numpy as np

    import mindlite as ms
    from mindlite import Tensor, _C, nn
    from mindlite.communication import get_group_size, get_rank, init
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                    "examples"))
    from train_digits import CNN
    _C.set_num_threads(1)
    init()
    n, r = get_group_size(), get_rank()

    def make_step():
        ms.set_seed(0)
        net = CNN()
        return nn.TrainOneStepCell(nn.WithLossCell(
            net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")),
            nn.Momentum(net.trainable_params(), 0.01, 0.9))
    alone = make_step() if r == 0 else None     # one process's step: no gradient reducer
    if n > 1:
        fusion = {} if bucket is None else {
            "comm_fusion": {"allreduce": {"mode": "size", "config": bucket}}}
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                     gradients_mean=True, **fusion)
    step = make_step()
    if step.grad_reducer is not None and overlap is not None:
        step.grad_reducer.overlap = overlap
    rng = np.random.RandomState(r)
    x = Tensor(rng.randn(64, 1, 8, 8).astype(np.float32))
    y = Tensor(rng.randint(0, 10, 64).astype(np.int32))
    for _ in range(5):
        step(x, y)
        if alone is not None:
            alone(x, y)
    windows, steps = (5, 20) if quick else (10, 40)
    walls = {"alone": [], "dp": []}

    def window(kind, fn):
        ms.ops.Barrier()()
        t0 = time.perf_counter()
        if fn is not None:
            for _ in range(steps):
                fn(x, y)
        ms.ops.Barrier()()
        walls[kind].append(time.perf_counter() - t0)
    for _ in range(windows):                    # the two take turns, window by window
        window("alone", alone)                  # rank 0 alone, the others wait (asleep)
        window("dp", step)
    if r == 0:
        one = sorted(64 * steps / w for w in walls["alone"])
        every = sorted(64 * n * steps / w for w in walls["dp"])
        print(f"DP {n} {every[-1]} {every[len(every) // 2]} {one[-1]} {one[len(one) // 2]}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--worker", choices=["bandwidth", "dp"])
    parser.add_argument("--overlap", type=int, default=None, help="default: the reducer's")
    parser.add_argument("--bucket", type=float, default=None, help="MB (default: auto)")
    parser.add_argument("--dp-only", action="store_true", help="parts 2 and 3 only")
    args = parser.parse_args()
    quick = ["--quick"] if args.quick else []
    if args.worker == "bandwidth":
        return _bandwidth_worker(args.quick)
    if args.worker == "dp":
        return _dp_step_worker(args.quick, None if args.overlap is None else bool(args.overlap),
                               args.bucket)
    if not args.dp_only:
        _bandwidth(quick)
    _dp(quick)


def _bandwidth(quick):
    launches = 1 if quick else 3
    print("AllReduce of float32 buffers (algorithm bandwidth, GB/s; median time, slowest rank)")
    print("raw: comm.Allreduce (blocking); raw Iallreduce: comm.Iallreduce waited as mindlite "
          "waits (test, then yield the CPU); ratio = mindlite / raw bandwidth")
    print(f"median over {launches} launch(es) of mpiexec (each launch's buffers get other "
          "physical memory: the same call into two 16 MB buffers of one process was measured "
          "30% apart on this VM); ratio range over the launches in brackets")
    print(f"{'ranks':>5} {'bytes':>6} {'raw':>8} {'raw Iallreduce':>14} {'mindlite':>9} "
          f"{'ratio':>6} {'[range]':>11} {'vs Iallr.':>9} {'no check':>9} {'ratio':>6}")
    for n in (2, 4):
        rows = {}
        for _ in range(launches):
            for line in _launch(n, "bandwidth", *quick).splitlines():
                if line.startswith("ROW "):
                    size, *times = (float(v) for v in line.split()[1:])
                    rows.setdefault(int(size), []).append(times)
        for size, runs in rows.items():
            raw, nb, ml, nc = (_median([r[k] for r in runs]) for k in range(4))
            ratios = [r[0] / r[2] for r in runs]
            gb = [size / t / 1e9 for t in (raw, nb, ml, nc)]
            span = f"[{min(ratios):.2f}-{max(ratios):.2f}]"
            print(f"{n:>5} {_human(size):>6} {gb[0]:>8.3f} {gb[1]:>14.3f} {gb[2]:>9.3f} "
                  f"{_median(ratios):>6.2f} {span:>11} {nb / ml:>9.2f} {gb[3]:>9.3f} "
                  f"{raw / nc:>6.2f}")


def _median(values):
    values = sorted(values)
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2


def _dp_rate(n, quick, *args):
    """(best, median) samples/s of the data-parallel windows over n ranks, then (best,
    median) of rank 0 training alone in the windows between them."""
    for line in _launch(n, "dp", *quick, *args).splitlines():
        if line.startswith("DP "):
            return tuple(float(v) for v in line.split()[2:6])
    raise SystemExit("the dp worker printed no rate")


def _dp(quick):
    runs = [_dp_rate(2, quick) for _ in range(3)]
    print("\nCNN training step, batch 64 per rank, one thread per rank (samples/s, best / "
          "median window; 2-rank windows alternating with windows of rank 0 training alone "
          "in the same launch, so both see the same load):")
    for two_best, two_med, one_best, one_med in runs:
        print(f"1 rank {one_best:.0f} / {one_med:.0f}, 2 ranks {two_best:.0f} / {two_med:.0f}"
              f" -> {two_best / one_best:.2f}x / {two_med / one_med:.2f}x (target 1.5x)")
    print("\n2 ranks, gradient reduction after backward vs overlapped with it (samples/s, "
          "best window):")
    print(f"{'buckets':>12} {'after':>8} {'overlapped':>11} {'ratio':>6}")
    for label, bucket in (("32 MB (auto)", []), ("16 KB", ["--bucket", "0.015625"])):
        rates = {}
        for _ in range(2):                  # alternate the two, best of two each (noise)
            for overlap in (0, 1):
                rate = _dp_rate(2, quick, "--overlap", str(overlap), *bucket)[0]
                rates[overlap] = max(rates.get(overlap, 0.0), rate)
        print(f"{label:>12} {rates[0]:>8.0f} {rates[1]:>11.0f} {rates[1] / rates[0]:>6.2f}")


def _human(size):
    for unit in ("B", "KB", "MB"):
        if size < 1024:
            return f"{size}{unit}"
        size //= 1024
    return f"{size}GB"


if __name__ == "__main__":
    main()
