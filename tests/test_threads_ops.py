"""Thread safety (issue 10, defects 1 and 2), forward work and first use.

Four threads run small ops and 2048x2048 ops at once, and every result is compared bitwise
with a single-threaded replay. A shared class-kernel instance resized for another shape between
resize and execute, a lazy Parameter first used by two threads and a seeded dropout generator
are forced deterministically. First use of ops, nn and the kernel registry from four threads
runs in fresh interpreters (subprocesses), a few times. Grad and training: test_threads.py.
"""
import hashlib
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import mindlite as ms
from mindlite import Kernel, Parameter, Tensor, ops
from mindlite.common.initializer import Initializer
from mindlite.kernels.registry import unregister_kernel
from thread_helpers import (N_THREADS, TIMEOUT, _frequent_switches,  # noqa: F401 (autouse)
                            assert_bitwise, f32, run_threads, wait_for)

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# ---- forward ops --------------------------------------------------------------------------
def _small_ops(x, y, k):
    """A mix of ops on the C fast path and on Python runners (several outputs, kernel
    allocation, casts, indexing), with a step-dependent scalar."""
    s = float(k) / 7
    z = ops.Add()(x, y) * s
    outs = [z, ops.relu(z - 0.5), ops.softmax(z, -1), ops.matmul(x, y.T), ops.exp(x * 0.1),
            ops.ReduceSum(keep_dims=True)(z, 1), ops.mean(y), ops.transpose(x, (1, 0)),
            ops.reshape(z, (-1,)), ops.concat((x, y), 0), ops.cast(z, ms.float64),
            *ops.ArgMaxWithValue(axis=1)(z), x[1], ops.split(y, 2, 0)[1], ops.sigmoid(z)]
    return [o.asnumpy() for o in outs]


def test_small_ops_in_threads_match_single_thread():
    rng = np.random.default_rng(3)
    inputs = [(Tensor(f32(rng, 16, 16)), Tensor(f32(rng, 16, 16))) for _ in range(N_THREADS)]

    def work(i):
        return [_small_ops(*inputs[i], k) for k in range(40)]
    got = run_threads(work)
    for i in range(N_THREADS):
        for k in range(40):
            assert_bitwise(got[i][k], _small_ops(*inputs[i], k), f"thread {i}, step {k}")


def _digest(t):
    return hashlib.blake2b(np.ascontiguousarray(t.asnumpy())).hexdigest()


def _large_ops(x, y, k):
    """2048x2048 ops (thread-split C++ kernels, pooled output buffers); all results are kept
    alive until digested, so a buffer handed to two threads at once would show."""
    z = ops.add(x, y * float(k + 1))
    outs = [z, ops.mul(z, x), ops.relu(z), ops.ReduceSum()(z, 1), ops.softmax(y, -1),
            ops.matmul(x[:, :64], y[:64, :])]
    return [_digest(o) for o in outs]


def test_2048_ops_in_threads_match_single_thread():
    rng = np.random.default_rng(4)
    inputs = [(Tensor(f32(rng, 2048, 2048)), Tensor(f32(rng, 2048, 2048)))
              for _ in range(N_THREADS)]

    got = run_threads(lambda i: _large_ops(*inputs[i], i))
    for i in range(N_THREADS):
        assert got[i] == _large_ops(*inputs[i], i), f"thread {i}"


class _SizedAdd(Kernel):
    """A class kernel in MindSpore Lite's style: execute uses what resize stored. In the
    thread playing "first", execute waits (up to 0.5 s) for the other thread's resize."""
    roles, entered, resized = {}, threading.Event(), threading.Event()

    def resize(self, inputs, outputs):
        self.n = inputs[0].shape[0]
        if self.roles.get(threading.get_ident()) == "second":
            self.resized.set()

    def execute(self, x, y, out):
        if self.roles.get(threading.get_ident()) == "first":
            self.entered.set()
            self.resized.wait(0.5)
        n = self.n
        out[:n] = x[:n] + y[:n]


def test_class_kernel_resize_and_execute_are_not_interleaved():
    """One class-kernel instance serves every shape of a (primitive, dtypes): another
    thread's resize must not land between this thread's resize and execute."""
    ms.register_kernel("Add", provider="sized", dtypes=(ms.float32,), kernel=_SizedAdd)
    try:
        add = ops.Add()
        xs = [Tensor(np.arange(5, dtype=np.float32)), Tensor(np.arange(3, dtype=np.float32))]

        def work(i):
            _SizedAdd.roles[threading.get_ident()] = ("first", "second")[i]
            if i == 1:
                wait_for(_SizedAdd.entered)        # the first thread is inside execute now
            return add(xs[i], xs[i]).asnumpy()
        got = run_threads(work, 2)
        assert_bitwise(got, [x.asnumpy() * 2 for x in xs], "class kernel in two threads")
    finally:
        unregister_kernel("Add", "sized")


class _CountingInit(Initializer):
    """Fills with the number of its calls; the first call waits (up to 0.5 s) for a second."""

    def __init__(self):
        super().__init__()
        self.calls, self.entered, self.second = 0, threading.Event(), threading.Event()

    def _fill(self, shape):
        self.calls += 1
        if self.calls == 1:
            self.entered.set()
            self.second.wait(0.5)
        else:
            self.second.set()
        return np.full(shape, float(self.calls))


def test_lazy_parameter_is_initialised_once_across_threads():
    """Two threads using a lazily initialised Parameter first at once: it is materialised once
    and both compute with the values it keeps."""
    init = _CountingInit()
    p = Parameter(ms.initializer(init, (2, 3)), name="lazy")

    def work(i):
        if i == 1:
            wait_for(init.entered)                 # the first thread is materialising p now
        return ops.Add()(p, 0.0).asnumpy()
    got = run_threads(work, 2)
    assert init.calls == 1
    assert_bitwise(got, [p.asnumpy()] * 2, "lazy Parameter in two threads")


def test_seeded_dropout_generator_is_derived_once_across_threads(monkeypatch):
    """Two threads' first Dropout(Seed0, Seed1) at once share one derived generator: their
    masks are its first two draws, never the first draw twice."""
    from mindlite import random_state
    x = Tensor(np.ones((64,), np.float32))
    ms.set_seed(7)
    want = sorted(ops.Dropout(0.5, 3, 4)(x)[1].asnumpy().tobytes() for _ in range(2))
    ms.set_seed(7)                      # a fresh global generator: the seeded one is re-derived
    entered, released = threading.Event(), threading.Event()
    get_seed = random_state.get_seed

    def slow_get_seed():                # the first thread waits while deriving (up to 0.5 s)
        if not entered.is_set():
            entered.set()
            released.wait(0.5)
        else:
            released.set()
        return get_seed()
    monkeypatch.setattr(random_state, "get_seed", slow_get_seed)

    def work(i):
        if i == 1:
            wait_for(entered)
        return ops.Dropout(0.5, 3, 4)(x)[1].asnumpy()
    got = run_threads(work, 2)
    assert sorted(m.tobytes() for m in got) == want


# ---- first use ------------------------------------------------------------------------------
FIRST_USE = r"""
import sys, threading
import numpy as np
import mindlite as ms
from mindlite import Tensor, nn, ops

mode = sys.argv[1]
if mode == "kernels":          # the namespaces complete, no kernel selected yet
    ops.relu, ops.matmul, ops.Add, ops.softmax, nn.Dense
x = Tensor(np.arange(16, dtype=np.float32).reshape(4, 4) / 10)


STEPS = [lambda: ops.matmul(x, x), lambda: ops.relu(x - 0.7), lambda: ops.Add()(x, x),
         lambda: ops.softmax(x, -1), lambda: nn.Dense(4, 2, "ones", "zeros")(x),
         lambda: nn.ReLU()(x - 1.0), lambda: ops.ReduceMax()(x, 1)]


def use(i):
    order = list(range(i, len(STEPS))) + list(range(i))   # each thread starts elsewhere
    out = {k: STEPS[k]().asnumpy() for k in order}
    return [out[k] for k in range(len(STEPS))]


barrier = threading.Barrier(4)
results, errors = [None] * 4, []


def target(i):
    try:
        barrier.wait(30)
        results[i] = use(i)
    except BaseException as e:
        errors.append(f"thread {i}: {e!r}")
        barrier.abort()


threads = [threading.Thread(target=target, args=(i,)) for i in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join(60)
assert not errors, errors
want = use(0)
for i, got in enumerate(results):
    assert got is not None and len(got) == len(want), i
    for g, w in zip(got, want):
        assert g.tobytes() == w.tobytes(), (i, g, w)
print("first use OK")
"""


@pytest.mark.parametrize("mode", ["namespaces", "kernels"])
def test_first_use_from_four_threads_in_fresh_interpreters(mode):
    """namespaces: ops / nn attributes first touched by four threads at once (lazy exports);
    kernels: the first kernel selections of four ops at once (lazy kernel registration)."""
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    for _ in range(3):
        res = subprocess.run([sys.executable, "-c", FIRST_USE, mode], capture_output=True,
                             text=True, timeout=180, env=env, cwd=REPO)
        assert res.returncode == 0 and "first use OK" in res.stdout, res.stderr[-3000:]
