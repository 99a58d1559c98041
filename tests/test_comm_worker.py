"""The per-rank program of tests/test_comm.py, started there by `mpiexec -n N python
tests/test_comm_worker.py SUITE` (no pytest test here). Each suite checks on every rank,
raises on the first difference (the test sees the exit status and output), and prints
"OK SUITE rank R" at the end. Suites: collectives (values, gradients, graph mode, errors,
groups), train (data-parallel MLP/CNN vs one process on the whole batch, buckets on/off,
train.Model with sharded datasets), killed (rank 1 dies), hung (rank 1 never calls).
"""
import os
import signal
import sys
import time
import warnings

import numpy as np
from comm_lease_checks import leases     # tests/, this script's folder


def _close(a, b, what, atol=1e-6):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or not np.allclose(a, b, rtol=0, atol=atol):
        raise AssertionError(f"{what}: got {a!r}, expected {b!r}")


def _raises(exc, words, fn):
    try:
        fn()
    except exc as e:
        for w in words:
            if w not in str(e):
                raise AssertionError(f"message {str(e)!r} lacks {w!r}") from e
        return
    raise AssertionError(f"no {exc.__name__} raised (expected one naming {words})")


def collectives():
    import mindlite as ms
    from mindlite import Tensor, nn, ops
    from mindlite.communication import (create_group, destroy_group, get_group_size,
                                        get_rank, init)
    from mindlite.ops import ReduceOp
    init()
    r, n = get_rank(), get_group_size()
    if "MINDLITE_TEST_CROWDED" in os.environ:     # the launch's CPUs against its ranks
        from mindlite.communication import _mpi
        assert _mpi.STATE["crowded"] == (os.environ["MINDLITE_TEST_CROWDED"] == "1")
    base = np.arange(12, dtype=np.float32).reshape(4, 3)
    xs = [base * (k + 1) - k for k in range(n)]            # every rank's input, known to all
    x = Tensor(xs[r])
    _close(ops.AllReduce()(x).asnumpy(), sum(xs), "AllReduce SUM")
    _close(ops.AllReduce(ReduceOp.MAX)(x).asnumpy(), np.max(xs, 0), "AllReduce MAX")
    _close(ops.AllReduce(ReduceOp.MIN)(x).asnumpy(), np.min(xs, 0), "AllReduce MIN")
    _close(ops.AllReduce(ReduceOp.PROD)(x).asnumpy(), np.prod(xs, 0), "AllReduce PROD", 1e-2)
    ints = Tensor(np.array([r, 2 * r], np.int32))
    _close(ops.AllReduce()(ints).asnumpy(), [n * (n - 1) // 2, n * (n - 1)], "int32 SUM")
    flags = Tensor(np.array([r == 0, True]))
    _close(ops.AllReduce(ReduceOp.MIN)(flags).asnumpy(), [n == 1, True], "bool MIN")
    _close(ops.AllGather()(x).asnumpy(), np.concatenate(xs), "AllGather")
    big = [np.arange(4 * n * 2, dtype=np.float64).reshape(4 * n, 2) + k for k in range(n)]
    _close(ops.ReduceScatter()(Tensor(big[r])).asnumpy(), sum(big)[4 * r:4 * (r + 1)],
           "ReduceScatter")
    out = ops.Broadcast(n - 1)((x, Tensor(np.array([r], np.int64))))
    _close(out[0].asnumpy(), xs[n - 1], "Broadcast[0]")
    _close(out[1].asnumpy(), [n - 1], "Broadcast[1]")
    a2a = [np.arange(2 * n * 3, dtype=np.float32).reshape(2 * n, 3) * (k + 1) for k in range(n)]
    got = ops.AlltoAll(n, 0, 1)(Tensor(a2a[r])).asnumpy()
    _close(got, np.concatenate([a2a[k][2 * r:2 * r + 2] for k in range(n)], 1), "AlltoAll")
    _close(ops.Barrier()().asnumpy(), [0.0], "Barrier")
    if n >= 2 and r in (0, 1):
        if r == 0:
            ops.Send(7, 1)(x)
            _close(ops.Receive(8, 1, (2,), ms.int32)().asnumpy(), [5, 6], "Receive on 0")
        else:
            _close(ops.Receive(7, 0, (4, 3), ms.float32)().asnumpy(), xs[0], "Receive on 1")
            ops.Send(8, 0)(Tensor(np.array([5, 6], np.int32)))
    _random_sweep(ops, Tensor, ReduceOp, r, n)
    _large(ms, ops, Tensor, nn, r, n)
    half = Tensor(np.array([1.5, -2.0, 3.25], np.float32) * (r + 1)).astype(ms.bfloat16)
    _close(ops.AllReduce()(half).astype(ms.float32).asnumpy(),
           np.array([1.5, -2.0, 3.25]) * n * (n + 1) / 2, "bfloat16 AllReduce", 0.1)
    _close(ops.AllGather()(half).astype(ms.float32).asnumpy(),
           np.concatenate([np.array([1.5, -2.0, 3.25]) * (k + 1) for k in range(n)]),
           "bfloat16 AllGather", 0.1)
    z = Tensor(np.array([1 + 2j, -1j], np.complex64) * (r + 1))
    _close(ops.AllReduce()(z).asnumpy(), np.array([1 + 2j, -1j]) * n * (n + 1) / 2,
           "complex64 AllReduce")
    _raises(TypeError, ["AllReduce", "complex"], lambda: ops.AllReduce(ReduceOp.MAX)(z))
    if n >= 2 and r in (0, 1):             # a Receive expecting another size names the sender
        if r == 0:
            ops.Send(9, 1)(Tensor(np.ones(3, np.float32)))
        else:
            _raises(ValueError, ["Receive", "expected 8 bytes", "rank 0 sent 12 bytes"],
                    lambda: ops.Receive(9, 0, (2,), ms.float32)())
    _gradients(ms, ops, Tensor, ReduceOp, r, n)
    _graph_mode(ms, ops, Tensor, n)
    leases(ops, Tensor, ReduceOp, r, n, _close, _raises)
    # errors: mismatched shapes and dtypes are named on every rank; unknown groups
    _raises(ValueError, ["AllReduce", "rank 0", "rank 1", "shape and dtype"],
            lambda: ops.AllReduce()(Tensor(np.ones(r + 1, np.float32))))
    _raises(ValueError, ["AllGather", f"rank {n - 1}"],
            lambda: ops.AllGather()(Tensor(np.ones(2, np.float32 if r else np.float64))))
    _raises(ValueError, ["AllReduce", "group 'nope' does not exist"],
            lambda: ops.AllReduce(group="nope")(x))
    _raises(TypeError, ["AllReduce", "op"], lambda: ops.AllReduce(op="mean"))
    _raises(ValueError, ["AlltoAll", "split_count"], lambda: ops.AlltoAll(n + 1, 0, 0))
    create_group("pair", [1, 0])
    if r in (0, 1):
        assert get_rank("pair") == 1 - r and get_group_size("pair") == 2
        _close(ops.AllReduce(group="pair")(x).asnumpy(), xs[0] + xs[1], "group AllReduce")
        _close(ms.grad(lambda t: ops.AllGather("pair")(t).sum() * (r + 1))(x).asnumpy(),
               np.full((4, 3), 3.0), "group AllGather grad")
    else:
        _raises(ValueError, ["not a member", "pair"], lambda: ops.AllReduce(group="pair")(x))
    destroy_group("pair")
    _raises(ValueError, ["'pair' does not exist"], lambda: get_rank("pair"))
    print(f"OK collectives rank {r}", flush=True)


def _large(ms, ops, Tensor, nn, r, n):
    """Buffers from 2 MB move by MPI's blocking calls (after the ranks met), smaller ones
    by non-blocking ones; both, with the shape check on and off (then a barrier meets)."""
    from mindlite.communication import _mpi
    big = np.arange(600_000, dtype=np.float32) % 1000       # 2.4 MB
    for check in (True, False):
        _mpi._CHECK[0] = check
        try:
            _close(ops.AllReduce()(Tensor(big + r)).asnumpy(), n * big + n * (n - 1) / 2,
                   f"large AllReduce (check {check})")
            _close(ops.AllGather()(Tensor(big[:300_000] * (r + 1))).asnumpy(),
                   np.concatenate([big[:300_000] * (k + 1) for k in range(n)]),
                   f"large AllGather (check {check})")
            got = ops.Broadcast(0)((Tensor(big * (r + 1)), Tensor(np.ones(3, np.float16))))
            _close(got[0].asnumpy(), big, f"large Broadcast (check {check})")
            params = [ms.Parameter(np.zeros(600_000, np.float32), name="big"),
                      ms.Parameter(np.zeros(3, np.float16), name="small")]
            reducer = nn.DistributedGradReducer(params, mean=True, bucket_size=0)
            out = reducer((Tensor(big * (r + 1)), Tensor(np.full(3, r, np.float16))))
            _close(out[0].asnumpy(), big * (n + 1) / 2, f"large reducer bucket ({check})", 1e-3)
            _close(out[1].asnumpy(), np.full(3, (n - 1) / 2), f"small reducer bucket ({check})")
        finally:
            _mpi._CHECK[0] = True


def _random_sweep(ops, Tensor, ReduceOp, r, n, cases=20):
    """Random shapes and dtypes (one seed on every rank, each rank's data from it) against
    numpy over all the ranks' inputs."""
    rng = np.random.RandomState(1234)
    for _ in range(cases):
        dtype = rng.choice([np.float32, np.float64, np.int32, np.int64, np.float16])
        shape = (n * int(rng.randint(1, 4)),) + tuple(int(d) for d in
                                                     rng.randint(0, 4, rng.randint(0, 3)))
        xs = [(rng.rand(*shape) * 8 - 4).astype(dtype) for _ in range(n)]
        x = Tensor(xs[r])
        op = rng.choice([ReduceOp.SUM, ReduceOp.MAX, ReduceOp.MIN])
        ref = {"sum": np.sum, "max": np.max, "min": np.min}[op](np.stack(xs).astype(float), 0)
        what = f"{op} {np.dtype(dtype).name}{list(shape)}"
        tol = 5e-2 if dtype == np.float16 else 1e-5
        _close(ops.AllReduce(op)(x).asnumpy(), ref.astype(dtype), f"AllReduce {what}", tol)
        _close(ops.AllGather()(x).asnumpy(), np.concatenate(xs), f"AllGather {what}")
        k = shape[0] // n
        _close(ops.ReduceScatter(op)(x).asnumpy(), ref[r * k:(r + 1) * k].astype(dtype),
               f"ReduceScatter {what}", tol)
        dim = len(shape) - 1 if len(shape) > 1 else 0
        got = ops.AlltoAll(n, 0, dim)(x).asnumpy()
        _close(got, np.concatenate([xs[j][r * k:(r + 1) * k] for j in range(n)], dim),
               f"AlltoAll {what}")


def _gradients(ms, ops, Tensor, ReduceOp, r, n):
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3) + 10 * r)
    g = ms.grad(lambda t: (ops.AllReduce()(t) * (r + 1)).sum())(x)
    _close(g.asnumpy(), np.full((2, 3), n * (n + 1) / 2), "AllReduce grad")
    g = ms.grad(lambda t: (ops.AllReduce(ReduceOp.MAX)(t) * (r + 1)).sum())(x)
    _close(g.asnumpy(), np.full((2, 3), n * (n + 1) / 2 if r == n - 1 else 0.0), "MAX grad")
    weights = [np.arange(2 * n * 3, dtype=np.float32).reshape(2 * n, 3) * (k + 1)
               for k in range(n)]
    g = ms.grad(lambda t: (ops.AllGather()(t) * Tensor(weights[r])).sum())(x)
    _close(g.asnumpy(), sum(w[2 * r:2 * r + 2] for w in weights), "AllGather grad")
    small = [w[:2] for w in weights]
    g = ms.grad(lambda t: (ops.ReduceScatter()(t) * Tensor(small[r])).sum())(
        Tensor(np.ones((2 * n, 3), np.float32)))
    _close(g.asnumpy(), np.concatenate(small), "ReduceScatter grad")
    g = ms.grad(lambda t: (ops.Broadcast(0)((t,))[0] * (r + 1)).sum())(x)
    _close(g.asnumpy(), np.full((2, 3), n * (n + 1) / 2 if r == 0 else 0.0), "Broadcast grad")
    w3 = [np.arange(2 * 3 * n, dtype=np.float32).reshape(2, 3 * n) + k for k in range(n)]
    g = ms.grad(lambda t: (ops.AlltoAll(n, 0, 1)(t) * Tensor(w3[r])).sum())(
        Tensor(np.ones((2 * n, 3), np.float32)))
    expect = np.concatenate([w3[k][:, 3 * r:3 * r + 3] for k in range(n)], 0)
    _close(g.asnumpy(), expect, "AlltoAll grad")
    if r == 0:      # x's gradient comes back from rank 1, which uses it times 3
        g = ms.grad(lambda t: (ops.Send(3, 1)(t) * 2).sum())(x)
        _close(g.asnumpy(), np.full((2, 3), 5.0), "Send grad")
    elif r == 1:
        dummy = Tensor(np.zeros(1, np.float32))
        g = ms.grad(lambda d: (ops.Receive(3, 0, (2, 3), ms.float32)(d) * 3).sum())(dummy)
        _close(g.asnumpy(), [0.0], "Receive grad (dependency input)")


def _graph_mode(ms, ops, Tensor, n):
    allreduce = ops.AllReduce()

    @ms.jit
    def f(t):
        # a constant input: must still communicate at every call (never folded)
        return allreduce(t) * 2 + allreduce(ops.ones((3,), ms.float32))

    t = Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    for _ in range(2):
        _close(f(t).asnumpy(), 2 * n * np.array([1.0, 2.0, 3.0]) + n, "jit AllReduce")
    g = ms.grad(f)(t)
    _close(g.asnumpy(), np.full(3, 2.0 * n), "grad of jit AllReduce")


def _data(n, steps, per_rank, shape, seed=3):
    rng = np.random.RandomState(seed)
    x = rng.randn(steps, per_rank * n, *shape).astype(np.float32)
    y = rng.randint(0, 10, (steps, per_rank * n)).astype(np.int32)
    return x, y


def _train(make_net, x, y, r, n, data_parallel, graph=False, **reducer_kw):
    import mindlite as ms
    from mindlite import Tensor, nn
    ms.reset_auto_parallel_context()
    ms.set_context(mode=ms.GRAPH_MODE if graph else ms.PYNATIVE_MODE)
    if data_parallel:
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                     gradients_mean=True, **reducer_kw)
    ms.set_seed(0)
    net = make_net()
    opt = nn.Momentum(net.trainable_params(), 0.05, 0.9)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
    assert step.reducer_flag == data_parallel
    per = x.shape[1] // n
    for xb, yb in zip(x, y):
        if data_parallel:
            xb, yb = xb[r * per:(r + 1) * per], yb[r * per:(r + 1) * per]
        step(Tensor(xb), Tensor(yb))
    ms.reset_auto_parallel_context()
    ms.set_context(mode=ms.PYNATIVE_MODE)
    return [p.asnumpy().copy() for p in net.trainable_params()]


def train():
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                    "examples"))
    from train_digits import CNN, MLP
    from mindlite.communication import get_group_size, get_rank, init
    init()
    r, n = get_rank(), get_group_size()
    for name, make, shape in (("MLP", MLP, (64,)), ("CNN", CNN, (1, 8, 8))):
        x, y = _data(n, 4, 8, shape)
        ref = _train(make, x, y, r, n, False)
        fused = _train(make, x, y, r, n, True)
        unfused = _train(make, x, y, r, n, True,
                         comm_fusion={"allreduce": {"mode": "size", "config": 0}})
        by_index = _train(make, x, y, r, n, True,
                          comm_fusion={"allreduce": {"mode": "index", "config": [1, 3]}})
        runs = [(fused, "bucketed"), (unfused, "unbucketed"), (by_index, "index")]
        if name == "MLP":
            with warnings.catch_warnings():
                warnings.simplefilter("error")        # no fallback warning: nothing to compile
                runs.append((_train(make, x, y, r, n, True, graph=True), "GRAPH_MODE"))
        for got, what in runs:
            assert len(got) == len(ref)
            for i, (a, b) in enumerate(zip(got, ref)):
                _close(a, b, f"{name} {what} data-parallel parameter {i} vs one process")
    _model_train(r, n)
    _parameter_broadcast(r)
    _reducer_property(r, n)
    print(f"OK train rank {r}", flush=True)


def _reducer_property(r, n):
    """hypothesis (derandomized: every rank draws the same examples): for any parameter
    shapes, dtypes, bucket size and mean flag, the reducer's result is each gradient summed
    over the ranks (divided by n with mean), whatever the buckets."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    import mindlite as ms
    from mindlite import Parameter, Tensor, nn
    shapes = st.lists(st.lists(st.integers(0, 5), max_size=3).map(tuple), min_size=1,
                      max_size=6)

    @settings(max_examples=20, deadline=None, derandomize=True, database=None)
    @given(shapes, st.lists(st.sampled_from(["float16", "float32", "float64"]), min_size=6,
                            max_size=6),
           st.integers(0, 200), st.booleans())
    def check(shapes, dtypes, bucket, mean):
        params = [Parameter(np.zeros(s, d), name=f"p{i}")
                  for i, (s, d) in enumerate(zip(shapes, dtypes))]
        grads = [[(np.arange(int(np.prod(s))).reshape(s) * (k + 1) + i).astype(d)
                  for i, (s, d) in enumerate(zip(shapes, dtypes))] for k in range(n)]
        reducer = nn.DistributedGradReducer(params, mean=mean, bucket_size=bucket)
        out = reducer(tuple(Tensor(g) for g in grads[r]))
        for i, o in enumerate(out):
            expect = sum(g[i] for g in grads) / (n if mean else 1)
            assert o.dtype == ms.dtype.to_type(dtypes[i])
            _close(o.asnumpy(), expect, f"reducer gradient {i} (bucket {bucket} B)",
                   0.5 if dtypes[i] == "float16" else 1e-4)

    check()


def _parameter_broadcast(r):
    import mindlite as ms
    from mindlite import nn
    ms.set_auto_parallel_context(parallel_mode="data_parallel", parameter_broadcast=True)
    from mpi4py import MPI
    ms.set_seed(100 + r)                     # different initial weights on every rank
    net = nn.Dense(3, 2)
    before = [p.asnumpy().copy() for p in net.trainable_params()]
    rank0 = MPI.COMM_WORLD.bcast(before, root=0)       # pickled by mpi4py: the reference
    if r:
        assert not np.array_equal(before[0], rank0[0])
    nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1))
    ms.reset_auto_parallel_context()
    for a, b in zip(net.trainable_params(), rank0):
        _close(a.asnumpy(), b, "parameter_broadcast", 0)


def _model_train(r, n):
    """train.Model under DATA_PARALLEL on a dataset sharded by num_shards/shard_id equals
    one process training on the whole (unsharded) batches."""
    import mindlite as ms
    from mindlite import nn
    from mindlite.dataset import NumpySlicesDataset
    rng = np.random.RandomState(5)
    x = rng.randn(12 * n, 6).astype(np.float32)
    y = rng.randint(0, 3, 12 * n).astype(np.int32)

    def run(parallel):
        ms.reset_auto_parallel_context()
        if parallel:
            ms.set_auto_parallel_context(parallel_mode="data_parallel", gradients_mean=True)
            ds = NumpySlicesDataset({"x": x, "y": y}, shuffle=False, num_shards=n, shard_id=r)
            ds = ds.batch(4)
        else:
            ds = NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(4 * n)
        ms.set_seed(1)
        net = nn.Dense(6, 3)
        model = ms.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                         nn.SGD(net.trainable_params(), 0.1))
        model.train(2, ds)
        ms.reset_auto_parallel_context()
        return [p.asnumpy().copy() for p in net.trainable_params()]

    for a, b in zip(run(True), run(False)):
        _close(a, b, "Model data-parallel vs one process")


def killed():
    from mindlite import Tensor, ops
    from mindlite.communication import get_rank, init
    init()
    if get_rank() == 1:
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(0.5)
    ops.AllReduce()(Tensor(np.ones(4, np.float32)))
    print("UNREACHED: AllReduce returned although rank 1 died", flush=True)


def hung():
    from mindlite import Tensor, ops
    from mindlite.communication import get_rank, init
    init()
    if get_rank() == 1:
        time.sleep(120)
    ops.AllReduce()(Tensor(np.ones(4, np.float32)))
    print("UNREACHED: AllReduce returned although rank 1 hung", flush=True)


if __name__ == "__main__":
    {"collectives": collectives, "train": train, "killed": killed, "hung": hung}[sys.argv[1]]()
