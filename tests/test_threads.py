"""Thread safety (issue 10, defects 1 and 2): grad state is per thread, first use is safe.

Four threads run the same kinds of work at once -- small ops, 2048x2048 ops, grad calls on
relu(matmul(x, w)).sum() w.r.t. Parameters, value_and_grad training steps of a small Dense
net -- and every result is compared bitwise with a single-threaded replay of the same work.
Custom-bprop cells that wait on events force the interleavings that broke the process-global
recorder (one thread's backward pass reading another's tracked ids, one thread's recording
switched off by another's custom-bprop cell) deterministically, as do a shared class-kernel
instance resized for another shape between resize and execute, and a lazy Parameter first
used by two threads. First use of ops, nn and the kernel registry from four threads runs in
fresh interpreters (subprocesses), a few times.
"""
import hashlib
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import mindlite as ms
from mindlite import Kernel, Parameter, Tensor, _C, nn, ops
from mindlite.common.initializer import Initializer
from mindlite.kernels.registry import unregister_kernel
from mindlite.pynative.grad import GRAD_EXECUTOR

N_THREADS = 4
TIMEOUT = 60
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(autouse=True)
def _frequent_switches():
    """Switch threads every 10 µs instead of 5 ms: more interleavings per test second."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    yield
    sys.setswitchinterval(old)


def run_threads(work, n=N_THREADS):
    """[work(0), ..., work(n - 1)], each in its own thread, all released at once."""
    barrier = threading.Barrier(n)
    results, errors = [None] * n, []

    def target(i):
        try:
            barrier.wait(TIMEOUT)
            results[i] = work(i)
        except BaseException as e:      # noqa: BLE001  (re-raised in the test's thread)
            errors.append(e)
            barrier.abort()
    threads = [threading.Thread(target=target, args=(i,), daemon=True) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(TIMEOUT)
    assert not any(t.is_alive() for t in threads), "a worker thread did not finish"
    if errors:
        raise errors[0]
    return results


def f32(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


def assert_bitwise(got, want, what):
    assert len(got) == len(want), what
    for k, (g, w) in enumerate(zip(got, want)):
        assert g.dtype == w.dtype and g.shape == w.shape, f"{what}, result {k}"
        assert g.tobytes() == w.tobytes(), f"{what}, result {k}: {g!r} != {w!r}"


# ---- grad calls ---------------------------------------------------------------------------
def _grad_jobs():
    """Per thread: x, its own w, and one bias Parameter shared by all threads."""
    rng = np.random.default_rng(0)
    b = Parameter(Tensor(f32(rng, 4)), name="b_shared")
    jobs = []
    for i in range(N_THREADS):
        x = Tensor(f32(rng, 8, 16))
        w = Parameter(Tensor(f32(rng, 16, 4)), name=f"w{i}")
        fn = ms.grad(lambda x, w=w: ops.relu(ops.matmul(x, w) + b).sum(), grad_position=None,
                     weights=[w, b])
        jobs.append((fn, x))
    return jobs


def test_grad_calls_in_threads_match_single_thread():
    jobs = _grad_jobs()
    want = [[g.asnumpy() for g in fn(x)] for fn, x in jobs]
    assert all(np.abs(w).sum() > 0 for ws in want for w in ws)

    def work(i):
        fn, x = jobs[i]
        for k in range(150):                  # the old global state: ~1 in 100 calls wrong
            assert_bitwise([g.asnumpy() for g in fn(x)], want[i], f"thread {i}, call {k}")
        return GRAD_EXECUTOR.tapes, GRAD_EXECUTOR.recording
    for tapes, recording in run_threads(work):
        assert tapes == [] and recording is False


def test_recording_is_per_thread():
    """A tape open in this thread sees nothing of another thread's ops, even on a tensor it
    watches, and the other thread does not record at all."""
    w = Parameter(Tensor(np.ones((3, 3), np.float32)), name="w")
    tape = GRAD_EXECUTOR.open_tape()
    try:
        tape.watch(w)
        seen = []

        def other():
            seen.append((_C.grad_recording(), GRAD_EXECUTOR.recording, list(GRAD_EXECUTOR.tapes)))
            ops.relu(ops.matmul(w, w))                      # C fast runners
            ops.ArgMaxWithValue(axis=1)(w)                    # a Python runner
        t = threading.Thread(target=other)
        t.start()
        t.join(TIMEOUT)
        assert seen == [(False, False, [])]
        assert tape.nodes == [] and _C.grad_recording() is True
    finally:
        GRAD_EXECUTOR.close_tape(tape)
    assert _C.grad_recording() is False


class _Gate(nn.Cell):
    """Identity with a custom bprop; construct and bprop call the hooks they are given."""

    def __init__(self, on_forward=None, on_backward=None):
        super().__init__()
        self.on_forward, self.on_backward = on_forward, on_backward

    def construct(self, x):
        if self.on_forward:
            self.on_forward()
        return x * 1.0

    def bprop(self, x, out, dout):
        if self.on_backward:
            self.on_backward()
        return (dout,)


def _wait(event):
    assert event.wait(TIMEOUT), "the other thread never got there"


def _dense_grad(rng, gate):
    x = Tensor(f32(rng, 8, 16))
    w = Parameter(Tensor(f32(rng, 16, 4)), name="w")
    fn = ms.grad(lambda x: gate(ops.relu(ops.matmul(x, w))).sum(), grad_position=None,
                 weights=w)
    return fn, x


def test_overlapping_backward_passes_keep_their_own_tracked_ids():
    """Thread A's backward pass continues while thread B's is in progress: A's bprops must
    follow A's tape (the old global tracked-id stack gave A all-zero gradients)."""
    rng = np.random.default_rng(1)
    a_inside, b_inside, a_done = threading.Event(), threading.Event(), threading.Event()
    gate_a, gate_b = _Gate(), _Gate()
    jobs = [_dense_grad(rng, gate_a), _dense_grad(rng, gate_b)]
    want = [fn(x).asnumpy() for fn, x in jobs]
    gate_a.on_backward = lambda: (a_inside.set(), _wait(b_inside))  # A's backward starts first
    gate_b.on_forward = lambda: _wait(a_inside)        # and waits for B's to start,
    gate_b.on_backward = lambda: (b_inside.set(), _wait(a_done))    # which waits for A's end

    def work(i):
        fn, x = jobs[i]
        try:
            return fn(x).asnumpy()
        finally:
            if i == 0:
                a_done.set()
    got = run_threads(work, 2)
    assert_bitwise(got, want, "overlapping backward passes")


def test_custom_bprop_cell_does_not_stop_another_threads_recording():
    """While thread A runs a custom-bprop cell's construct (its recording is off), thread B's
    ops are still recorded on B's tape (the old global flag turned B's off)."""
    rng = np.random.default_rng(2)
    b_started, a_inside, b_done = threading.Event(), threading.Event(), threading.Event()
    gate_a = _Gate()
    fn_a, x_a = _dense_grad(rng, gate_a)
    x_b = Tensor(f32(rng, 8, 16))
    w_b = Parameter(Tensor(f32(rng, 16, 4)), name="w_b")

    def f_b(x):
        y = ops.relu(ops.matmul(x, w_b))
        if threading.current_thread() is not threading.main_thread():
            b_started.set()                             # B records (its tape is open),
            _wait(a_inside)                             # then A enters its cell's construct
        return (y * 2.0).sum()
    fn_b = ms.grad(f_b, grad_position=None, weights=w_b)
    want = [fn_a(x_a).asnumpy(), fn_b(x_b).asnumpy()]
    gate_a.on_forward = lambda: (_wait(b_started), a_inside.set(), _wait(b_done))

    def work(i):
        if i == 0:
            return fn_a(x_a).asnumpy()
        try:
            return fn_b(x_b).asnumpy()
        finally:
            b_done.set()
    assert_bitwise(run_threads(work, 2), want, "custom bprop cell in another thread")


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
                _wait(_SizedAdd.entered)        # the first thread is inside execute now
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
            _wait(init.entered)                 # the first thread is materialising p now
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
            _wait(entered)
        return ops.Dropout(0.5, 3, 4)(x)[1].asnumpy()
    got = run_threads(work, 2)
    assert sorted(m.tobytes() for m in got) == want


# ---- training -----------------------------------------------------------------------------
def _train(seed, steps=12):
    """value_and_grad training of a small Dense net from fixed initial values: the losses and
    the final parameters, as arrays."""
    rng = np.random.default_rng(seed)
    net = nn.SequentialCell([
        nn.Dense(16, 32, weight_init=Tensor(f32(rng, 32, 16) * 0.3),
                 bias_init=Tensor(f32(rng, 32) * 0.1)),
        nn.ReLU(),
        nn.Dense(32, 4, weight_init=Tensor(f32(rng, 4, 32) * 0.3),
                 bias_init=Tensor(f32(rng, 4) * 0.1))])
    loss_fn = nn.MSELoss()
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.05, momentum=0.9)
    x, y = Tensor(f32(rng, 32, 16)), Tensor(f32(rng, 32, 4))
    step = ms.value_and_grad(lambda x, y: loss_fn(net(x), y), None, opt.parameters)
    losses = []
    for _ in range(steps):
        loss, grads = step(x, y)
        opt(grads)
        losses.append(loss.asnumpy())
    return losses + [p.asnumpy().copy() for p in net.trainable_params()]


def test_value_and_grad_training_in_threads_matches_single_thread():
    got = run_threads(lambda i: _train(10 + i))
    for i in range(N_THREADS):
        want = _train(10 + i)
        assert want[-1].any() and want[0] > want[11]          # it trains
        assert_bitwise(got[i], want, f"thread {i}")


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
