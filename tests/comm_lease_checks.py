"""AllReduce's leased shape check (communication/_lease.py), run on every rank by the
collectives suite of tests/test_comm_worker.py (not a pytest module): results of leased
calls, a rank leaving the leased signature (an error on every rank, or a new common
signature), the doubling of the checked calls a signature needs after its lease ended, and
an op differing across ranks, the leases' lifetime, and two threads reducing on two groups
at once. Raises on the first difference."""
import threading

import numpy as np


def leases(ops, Tensor, ReduceOp, r, n, close, raises):
    from mindlite.communication import _lease, _mpi, create_group, destroy_group, init, release
    world = _mpi.STATE["world_name"]
    _lease.forget()

    def lease():
        return _lease._LEASES[world]

    def reduce(shape, k, op=ReduceOp.SUM, dtype=np.float32):
        x = np.arange(np.prod(shape), dtype=dtype).reshape(shape) + r * k
        got = ops.AllReduce(op)(Tensor(x)).asnumpy()
        want = sum(np.arange(np.prod(shape), dtype=dtype).reshape(shape) + q * k
                   for q in range(n)) if op == ReduceOp.SUM else x - r * k + (n - 1) * k
        close(got, want, f"AllReduce {op} of {shape}, call {k}")

    a, b = (2, 3), (5,)
    for k in range(6):                       # leased from the third call on
        reduce(a, k)
        assert (lease().sig is not None) == (k >= 1), (k, lease().sig)
    sig_a = lease().sig
    raises(ValueError, ["AllReduce", "rank 0", "same shape and dtype", "float32[2, 3]"],
           lambda: ops.AllReduce()(Tensor(np.ones((3, 2) if r == 0 else a, np.float32))))
    assert lease().sig is None and lease().need[sig_a] == 4, (lease().sig, lease().need)
    raises(ValueError, ["AllReduce", f"rank {n - 1}", "op=max", "op=sum"],
           lambda: ops.AllReduce(ReduceOp.MAX if r == n - 1 else ReduceOp.SUM)(
               Tensor(np.ones(a, np.float32))))
    for k in range(4):                       # four checked calls in a row lease it again
        reduce(a, k)
    assert lease().sig == sig_a
    reduce(b, 1)                             # every rank moves on: no error, a new size
    assert lease().sig is None and lease().need[sig_a] == 8
    for k in range(15):                      # A A B A A B ...: one more lease at most
        reduce(b if k % 3 == 2 else a, k)
    assert lease().need[sig_a] == 8, lease().need
    for k in range(3):                       # a leased MAX, then an int32 whose size differs
        reduce((4,), k, ReduceOp.MAX)
    raises(ValueError, ["AllReduce", "int32[", "float32[4]"],
           lambda: ops.AllReduce(ReduceOp.MAX)(
               Tensor(np.ones(4, np.float32) if r else np.ones(7, np.int32))))
    held, lease().meet = lease().meet, False     # an MPI 3 library: a fresh flag allreduce
    for k in range(3):
        reduce((7,), k)
    assert lease().sig is not None
    raises(ValueError, ["AllReduce", "float32[7]", "float32[8]"],
           lambda: ops.AllReduce()(Tensor(np.ones(7 + (r == n - 1), np.float32))))
    lease().meet = held
    big = (1 << 18,)                         # 1 MB: the blocking data call after the flag
    for k in range(3):
        reduce(big, k)
    assert lease().sig is not None
    raises(ValueError, ["AllReduce", "float32[262144]", "float32[262145]"],
           lambda: ops.AllReduce()(Tensor(np.ones(big[0] + (r == 0), np.float32))))
    reduce(big, 5)
    create_group("leased", [1, 0])          # a group's lease is freed with the group
    if r < 2:
        for k in range(3):
            got = ops.AllReduce(group="leased")(Tensor(np.full(3, r + k, np.float32)))
            close(got.asnumpy(), np.full(3, 1 + 2 * k), "group AllReduce")
        assert _lease._LEASES["leased"].sig is not None
    destroy_group("leased")
    assert "leased" not in _lease._LEASES
    release()                               # and every lease with the communicators
    assert not _lease._LEASES
    init()
    for k in range(3):
        reduce(a, k + 20)
    assert lease().sig == sig_a and not lease().need    # a fresh lease on the new world
    _threads_on_two_groups(ops, Tensor, r, n, create_group, destroy_group, _lease)


def _threads_on_two_groups(ops, Tensor, r, n, create_group, destroy_group, _lease):
    """Two threads of every rank reduce on two groups at once (MPI_THREAD_MULTIPLE): each
    group's lease serves its own calls, and every result is right."""
    create_group("thread_a", list(range(n)))
    create_group("thread_b", list(range(n)))
    errors = []

    def work(group, shape, scale):
        try:
            for k in range(30):
                x = np.full(shape, (r + 1) * scale + k, np.float32)
                got = ops.AllReduce(group=group)(Tensor(x)).asnumpy()
                want = sum((q + 1) * scale + k for q in range(n))
                if not (got == want).all():
                    raise AssertionError(f"{group} call {k}: {got.ravel()[:3]} != {want}")
        except Exception as e:              # reported after the join
            errors.append(repr(e))
    threads = [threading.Thread(target=work, args=("thread_a", (5,), 1.0)),
               threading.Thread(target=work, args=("thread_b", (1 << 18,), 10.0))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors and not any(t.is_alive() for t in threads), errors
    assert _lease._LEASES["thread_a"].sig is not None
    assert _lease._LEASES["thread_b"].sig is not None
    destroy_group("thread_a")
    destroy_group("thread_b")
