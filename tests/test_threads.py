"""Thread safety (issue 10, defects 1 and 2), grad state: recording is per thread.

Four threads run grad calls on relu(matmul(x, w)).sum() w.r.t. Parameters and value_and_grad
training steps of a small Dense net at once, and every result is compared bitwise with a
single-threaded replay of the same work. Custom-bprop cells that wait on events force the
interleavings that broke the process-global recorder (one thread's backward pass reading
another's tracked ids, one thread's recording switched off by another's custom-bprop cell)
deterministically. Forward ops, shared kernels, lazy Parameters and first use: test_threads_ops.py.
"""
import threading

import numpy as np

import mindlite as ms
from mindlite import Parameter, Tensor, _C, nn, ops
from mindlite.pynative.grad import GRAD_EXECUTOR
from thread_helpers import (N_THREADS, TIMEOUT, _frequent_switches,  # noqa: F401 (autouse)
                            assert_bitwise, f32, run_threads, wait_for)


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
    gate_a.on_backward = lambda: (a_inside.set(), wait_for(b_inside))  # A's backward starts first
    gate_b.on_forward = lambda: wait_for(a_inside)        # and waits for B's to start,
    gate_b.on_backward = lambda: (b_inside.set(), wait_for(a_done))    # which waits for A's end

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
            wait_for(a_inside)                             # then A enters its cell's construct
        return (y * 2.0).sum()
    fn_b = ms.grad(f_b, grad_position=None, weights=w_b)
    want = [fn_a(x_a).asnumpy(), fn_b(x_b).asnumpy()]
    gate_a.on_forward = lambda: (wait_for(b_started), a_inside.set(), wait_for(b_done))

    def work(i):
        if i == 0:
            return fn_a(x_a).asnumpy()
        try:
            return fn_b(x_b).asnumpy()
        finally:
            b_done.set()
    assert_bitwise(run_threads(work, 2), want, "custom bprop cell in another thread")



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
