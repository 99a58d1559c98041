"""The per-rank program of tests/test_comm.py's overlap test, started there by `mpiexec -n N
python tests/test_comm_overlap_worker.py overlap` (no pytest test here): the gradient reduction
overlapped with backward (nn.DistributedGradReducer, overlap=True) gives bitwise the
parameters and gradients of the reduction after backward (overlap=False), for several
bucket sizes, through TrainOneStepCell, train.Model and a value_and_grad loop; with a
parameter the loss does not use; and with two backward passes per step. Raises on the
first difference and prints "OK overlap rank R" at the end.
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def _equal(a, b, what):
    for i, (x, y) in enumerate(zip(a, b)):
        if not np.array_equal(x, y):
            raise AssertionError(f"{what}: parameter {i} differs: {x!r} vs {y!r}")
    if len(a) != len(b):
        raise AssertionError(f"{what}: {len(a)} vs {len(b)} parameters")


def _fusion(ms, bucket):
    ms.reset_auto_parallel_context()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                 gradients_mean=True,
                                 comm_fusion={"allreduce": {"mode": "size", "config": bucket}})


def _train_step(make_net, r, bucket, overlap, sens=None):
    """TrainOneStepCell, 4 steps; -> (parameters, early buckets of each step)."""
    import mindlite as ms
    from mindlite import Tensor, nn
    _fusion(ms, bucket)
    ms.set_seed(0)
    net = make_net()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss),
                               nn.Momentum(net.trainable_params(), 0.05, 0.9), sens=sens)
    step.grad_reducer.overlap = overlap
    rng = np.random.RandomState(10 + r)
    shape = (8, 1, 8, 8) if type(net).__name__ == "CNN" else (8, 64)
    early = []
    for _ in range(4):
        step(Tensor(rng.randn(*shape).astype(np.float32)),
             Tensor(rng.randint(0, 10, 8).astype(np.int32)))
        early.append(step.grad_reducer.early_buckets)
    ms.reset_auto_parallel_context()
    return [p.asnumpy().copy() for p in net.trainable_params()], early


def _train_cells(r):
    sys.path.insert(0, os.path.join(HERE, "..", "examples"))
    from train_digits import CNN, MLP
    for make in (MLP, CNN):
        for bucket in (0.0, 0.002, 0.02, 32.0):        # MB: one per gradient .. one bucket
            off, early_off = _train_step(make, r, bucket, False)
            on, early_on = _train_step(make, r, bucket, True)
            _equal(on, off, f"{make.__name__} bucket {bucket} MB overlap on vs off")
            assert early_off == [0, 0, 0, 0], early_off
            # the first step learns the buckets; later steps start them all during backward
            assert early_on[0] == 0 and min(early_on[1:]) > 0, early_on
    # grads scaled by sens after backward: the early reductions are dropped, same result
    on, early = _train_step(MLP, r, 0.002, True, sens=2.0)
    off, _ = _train_step(MLP, r, 0.002, False, sens=2.0)
    _equal(on, off, "sens=2 overlap on vs off")
    assert early == [0, 0, 0, 0], early


class _Unused:
    """A Dense net with a parameter the loss never uses (its gradient: zeros)."""

    @staticmethod
    def make():
        from mindlite import Parameter, nn, ops

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.fc = nn.Dense(6, 3)
                self.spare = Parameter(np.ones((4,), np.float32), name="spare")
                self.fc2 = nn.Dense(3, 3)

            def construct(self, x):
                return self.fc2(ops.relu(self.fc(x)))
        return Net()


def _loop(r, n, bucket, overlap, two_passes):
    """A custom loop: value_and_grad + DistributedGradReducer + optimizer."""
    import mindlite as ms
    from mindlite import Tensor, nn, ops
    _fusion(ms, bucket)
    ms.set_seed(2)
    net = _Unused.make()
    params = net.trainable_params()
    reducer = nn.DistributedGradReducer(params, overlap=overlap)
    opt = nn.SGD(params, 0.1)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    grad_fn = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), None, params)
    rng = np.random.RandomState(20 + r)
    reduced = []
    for _ in range(3):
        x = Tensor(rng.randn(4, 6).astype(np.float32))
        y = Tensor(rng.randint(0, 3, 4).astype(np.int32))
        _, grads = grad_fn(x, y)
        if two_passes == "sum":             # accumulate two backward passes, reduce the sum
            _, more = grad_fn(x * 2, y)
            grads = tuple(ops.add(a, b) for a, b in zip(grads, more))
        elif two_passes == "last":          # an extra pass first, the second one's grads reduced
            _, grads = grad_fn(x * 2, y)
        local = [g.asnumpy().copy() for g in grads]
        grads = reducer(grads)
        reduced.append(([g.asnumpy().copy() for g in grads], local, reducer.early_buckets))
        opt(grads)
    ms.reset_auto_parallel_context()
    spare = [p.name for p in params].index("spare")
    return [p.asnumpy().copy() for p in params], reduced, spare


def _custom_loops(r, n):
    from mpi4py import MPI
    for two in (None, "sum", "last"):
        for bucket in (0.0, 0.0001, 32.0):
            off, red_off, spare = _loop(r, n, bucket, False, two)
            on, red_on, _ = _loop(r, n, bucket, True, two)
            _equal(on, off, f"custom loop ({two}, bucket {bucket} MB) overlap on vs off")
            for step, ((g_on, local, early), (g_off, _, _)) in enumerate(zip(red_on, red_off)):
                _equal(g_on, g_off, f"reduced grads ({two}, step {step})")
                every = MPI.COMM_WORLD.allgather(local)          # the reference mean
                _equal(g_on[spare:spare + 1], [np.zeros(4, np.float32)], "unused parameter")
                for i, g in enumerate(g_on):
                    want = sum(e[i] for e in every) / n
                    if not np.allclose(g, want, rtol=1e-6, atol=1e-7):
                        raise AssertionError(f"reduced gradient {i}: {g!r} vs {want!r}")
                if step and two != "sum" and bucket == 0.0:
                    # one bucket per gradient: those before the unused parameter's bucket
                    # (in reverse parameter order) start early
                    assert early >= 1, (two, step, early)
                if two == "sum":
                    assert early == 0, early       # backward's grads were not the ones reduced


def _model(r, n):
    import mindlite as ms
    from mindlite import nn
    from mindlite.dataset import NumpySlicesDataset
    rng = np.random.RandomState(5)
    x = rng.randn(12 * n, 6).astype(np.float32)
    y = rng.randint(0, 3, 12 * n).astype(np.int32)
    got = []
    for overlap in (False, True):
        _fusion(ms, 0.0)
        ds = NumpySlicesDataset({"x": x, "y": y}, shuffle=False, num_shards=n, shard_id=r)
        ms.set_seed(1)
        net = nn.Dense(6, 3)
        os.environ["MINDLITE_COMM_OVERLAP"] = "1" if overlap else "0"   # read by the reducer
        model = ms.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                         nn.SGD(net.trainable_params(), 0.1))
        os.environ.pop("MINDLITE_COMM_OVERLAP")
        model.train(2, ds.batch(4))
        from mindlite.pynative.grad import FINAL_HOOKS
        hooks = [h for h in FINAL_HOOKS if id(net.weight) in h.index]
        if overlap:                     # the last step's buckets started during backward
            assert hooks and hooks[0].reducer().early_buckets == 2, hooks
        else:
            assert not hooks, hooks
        ms.reset_auto_parallel_context()
        got.append([p.asnumpy().copy() for p in net.trainable_params()])
    _equal(got[1], got[0], "Model overlap on vs off")


def main():
    from mindlite.communication import get_group_size, get_rank, init
    init()
    r, n = get_rank(), get_group_size()
    _train_cells(r)
    _custom_loops(r, n)
    _model(r, n)
    print(f"OK overlap rank {r}", flush=True)


if __name__ == "__main__":
    main()
