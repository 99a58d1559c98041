"""C++ optimizer updates (csrc/kernels/optim_kernels.cc, mindlite/kernels/cpu/optim_cpp.py):
ApplyMomentum, SGD, Adam, AdamWeightDecay.

Bitwise against the numpy reference kernels (optim_numpy.py: the same operations in the same
order, no FMA contraction) for float32 / float64, 0-d, empty and larger shapes, every flag,
hyper-parameters of another float dtype, NaN/inf gradients and strided gradients. The update
writes into the variable's own buffer and returns it; a strided state falls back to the numpy
kernel, read-only state raises before any write; the results are the same at every thread
count; bad arguments to the entry points raise TypeError / ValueError, never crash; the
registry selects these kernels and nn optimizers keep updating their Parameters in place;
launches from several Python threads at once give the serial results.
"""
import threading

import numpy as np
import pytest
from helpers import noncontig, split
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import mindlite as ms
from mindlite import Parameter, Tensor, nn, ops
from mindlite.kernels import registry
from mindlite.kernels.cpu import optim_cpp as cpp
from mindlite.kernels.cpu import optim_numpy as ref
from mindlite.kernels.cpu._cext import _C

FLOATS = [np.float32, np.float64]
OPS = ["ApplyMomentum", "SGD", "Adam", "AdamWeightDecay"]


def _vals(dtype):
    finite = st.floats(-10, 10, width=np.dtype(dtype).itemsize * 8)
    return st.one_of(finite, finite, finite, st.sampled_from([np.nan, np.inf, -np.inf, 0.0]))


def _h(draw, lo, hi):
    dt = draw(st.sampled_from([np.float16, np.float32, np.float64]))
    return np.array([draw(st.floats(lo, hi))], dt)


@st.composite
def update_case(draw):
    """(op, make_args(state arrays) -> args, the state arrays, the grad)."""
    op = draw(st.sampled_from(OPS))
    dtype = draw(st.sampled_from(FLOATS))
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=40))
    grad = draw(hnp.arrays(dtype, shape, elements=_vals(dtype)))
    if grad.ndim and draw(st.booleans()):
        grad = noncontig(grad)
    state = [draw(hnp.arrays(dtype, shape, elements=st.floats(-5, 5, width=32)))
             for _ in range(3)]
    flag = draw(st.booleans())
    if op == "ApplyMomentum":
        lr, mom = _h(draw, 0, 1), _h(draw, 0, 1)
        scale = draw(st.sampled_from([1.0, 0.5, 3.0]))
        return op, state[:2], lambda s: (s[0], s[1], lr, grad, mom, flag, False, scale)
    if op == "SGD":
        state[2] = draw(hnp.arrays(dtype, shape, elements=st.sampled_from([0.0, 1.0])))
        lr, mom = _h(draw, 0, 1), _h(draw, -0.5, 1)
        damp, wd = draw(st.sampled_from([0.0, 0.1])), draw(st.sampled_from([0.0, 0.01, -1.0]))
        return op, state, lambda s: (s[0], grad, lr, s[1], mom, s[2], damp, wd, flag)
    state[2] = np.array(np.abs(state[2]))
    if op == "Adam":
        hs = [_h(draw, 0, 0.999), _h(draw, 0, 0.999), _h(draw, 0, 1), _h(draw, 0, 0.999),
              _h(draw, 0, 0.9999), _h(draw, 1e-8, 1e-3)]
        return op, state, lambda s: (s[0], s[1], s[2], *hs, grad, False, flag)
    hs = [_h(draw, 0, 1), _h(draw, 0, 0.999), _h(draw, 0, 0.9999), _h(draw, 1e-8, 1e-3),
          _h(draw, -0.1, 0.1)]
    return op, state, lambda s: (s[0], s[1], s[2], *hs, grad, False)


KERNELS = {"ApplyMomentum": (cpp.apply_momentum_cpp, ref.apply_momentum_numpy),
           "SGD": (cpp.sgd_cpp, ref.sgd_numpy), "Adam": (cpp.adam_cpp, ref.adam_numpy),
           "AdamWeightDecay": (cpp.adam_weight_decay_cpp, ref.adam_weight_decay_numpy)}


@settings(max_examples=100, deadline=None)
@given(update_case())
def test_updates_are_bitwise_numpys_and_in_place(case):
    op, state, make = case
    fn, oracle = KERNELS[op]
    mine, theirs = [s.copy() for s in state], [s.copy() for s in state]
    ptrs = [s.__array_interface__["data"][0] for s in mine]
    with np.errstate(all="ignore"):
        out = fn(*make(mine))
        want = oracle(*make(theirs))
    outs = out if isinstance(out, tuple) else (out,)
    assert all(o is s for o, s in zip(outs, mine))
    assert [s.__array_interface__["data"][0] for s in mine] == ptrs
    for a, b in zip(mine, theirs):
        np.testing.assert_array_equal(a, b)
    assert len(outs) == len(want if isinstance(want, tuple) else (want,))


@pytest.mark.parametrize("op", OPS)
def test_results_do_not_depend_on_the_thread_count(op):
    rng = np.random.default_rng(4)
    n = 300_001
    base = [rng.standard_normal(n).astype(np.float32) for _ in range(3)]
    base[2] = np.abs(base[2])
    grad = rng.standard_normal(n).astype(np.float32)
    h = [np.array([v], np.float32) for v in (0.9, 0.999, 0.01, 0.9, 0.999, 1e-8)]
    runs = []
    for threads in (1, 2, 0):
        s = [b.copy() for b in base]
        with split(threads):
            if op == "ApplyMomentum":
                _C.apply_momentum(s[0], s[1], h[2], grad, h[0], True, 1.0)
            elif op == "SGD":
                _C.sgd(s[0], grad, h[2], s[1], h[0], s[2], 0.1, 0.01, True)
            elif op == "Adam":
                _C.adam(s[0], s[1], s[2], *h, grad, True)
            else:
                _C.adam_weight_decay(s[0], s[1], s[2], h[2], h[0], h[1], h[5], h[2], grad)
        runs.append(s)
    for other in runs[1:]:
        for a, b in zip(runs[0], other):
            np.testing.assert_array_equal(a, b)


def test_strided_state_falls_back_and_read_only_state_raises():
    var = np.arange(12, dtype=np.float32).reshape(3, 4)[:, ::2]
    acc = np.ones((3, 2), np.float32)
    g = np.full((3, 2), 0.5, np.float32)
    want_v, want_a = var.copy(), acc.copy()
    ref.apply_momentum_numpy(want_v, want_a, np.array([0.1]), g, np.array([0.9]), False,
                             False, 1.0)
    out = cpp.apply_momentum_cpp(var, acc, np.array([0.1]), g, np.array([0.9]), False, False,
                                 1.0)
    assert out is var
    np.testing.assert_array_equal(var, want_v)
    ro = np.ones(4, np.float64)
    ro.flags.writeable = False
    m, v = np.zeros(4), np.zeros(4)
    with pytest.raises(ValueError, match="read-only"):
        cpp.adam_cpp(ro, m, v, *[np.array([0.5])] * 6, np.ones(4), False, False)
    assert not m.any() and not v.any()


def test_gradient_sharing_memory_with_the_state_is_read_before_any_write():
    var, acc = np.ones(5), np.full(5, 2.0)
    _C.apply_momentum(var, acc, np.array([0.5]), acc, np.array([0.5]), False, 1.0)
    np.testing.assert_array_equal(acc, np.full(5, 3.0))        # 2 * 0.5 + the old 2
    np.testing.assert_array_equal(var, np.full(5, -0.5))


BAD = [
    (lambda: _C.apply_momentum(np.zeros(3, np.float16), np.zeros(3, np.float16),
                               np.array([0.1]), np.zeros(3, np.float16), np.array([0.9]),
                               False, 1.0), TypeError, "'var' dtype"),
    (lambda: _C.apply_momentum(np.zeros(3), np.zeros(4), np.array([0.1]), np.zeros(3),
                               np.array([0.9]), False, 1.0), ValueError, "'accum' shape"),
    (lambda: _C.apply_momentum(np.zeros(3), np.zeros(3, np.float32), np.array([0.1]),
                               np.zeros(3), np.array([0.9]), False, 1.0), TypeError,
     "'accum' dtype"),
    (lambda: _C.apply_momentum(np.zeros(6)[::2], np.zeros(3), np.array([0.1]), np.zeros(3),
                               np.array([0.9]), False, 1.0), ValueError, "C-contiguous"),
    (lambda: _C.apply_momentum(np.zeros(3), np.zeros(3), 0.1, np.zeros(3), np.array([0.9]),
                               False, 1.0), TypeError, "'lr' must be a size-1"),
    (lambda: _C.apply_momentum(np.zeros(3), np.zeros(3), np.array([0.1, 0.2]), np.zeros(3),
                               np.array([0.9]), False, 1.0), TypeError, "'lr' must be a size-1"),
    (lambda: _C.apply_momentum(np.zeros(3), np.zeros(3), np.array([0.1]), np.zeros(2),
                               np.array([0.9]), False, 1.0), ValueError, "'grad' shape"),
    (lambda: _C.apply_momentum(np.zeros(3), np.zeros(3), np.array([0.1]), np.zeros(3),
                               np.array([0.9]), 1, 1.0), TypeError, "'use_nesterov'"),
    (lambda: _C.sgd(np.zeros(3), np.zeros(3), np.array([0.1]), np.zeros(3), np.array([0.9]),
                    np.zeros(3), "0", 0.0, False), TypeError, "'dampening' must be a float"),
    (lambda: _C.adam(np.zeros(3), np.zeros(3), np.zeros(3)), TypeError, "expected 11"),
    (lambda: _C.adam_weight_decay(np.zeros(3), np.zeros(3), np.zeros(3), *[np.array([1])] * 5,
                                  np.zeros(3)), TypeError, "'lr' must be a size-1 float"),
]


@pytest.mark.parametrize("call, err, words", BAD)
def test_bad_inputs_raise_and_change_nothing(call, err, words):
    with pytest.raises(err, match=words):
        call()


@pytest.mark.parametrize("op", OPS)
def test_registry_selects_the_cpp_kernels(op):
    assert registry.select_kernel(op, "CPU", ms.float32).provider == "cpp"


@pytest.mark.parametrize("make", [lambda p: nn.Momentum(p, 0.1, 0.9),
                                  lambda p: nn.SGD(p, 0.1, momentum=0.5, nesterov=True),
                                  lambda p: nn.Adam(p, 0.01),
                                  lambda p: nn.AdamWeightDecay(p, 0.01, weight_decay=0.1)])
def test_nn_optimizers_update_their_parameters_in_place(make):
    w = Parameter(Tensor(np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)), name="w")
    before = w.asnumpy().copy()
    buf = w.asnumpy().__array_interface__["data"][0]
    opt = make([w])
    opt((Tensor(np.full((2, 3), 0.5, np.float32)),))
    assert w.asnumpy().__array_interface__["data"][0] == buf
    assert (w.asnumpy() < before).all()
    ops.ApplyMomentum()(w, Parameter(Tensor(np.zeros((2, 3), np.float32)), name="a"), 0.1,
                        Tensor(np.ones((2, 3), np.float32)), 0.9)
    assert w.asnumpy().__array_interface__["data"][0] == buf


def test_concurrent_launches_from_threads_match_a_serial_replay():
    """4 Python threads launch the loss, arg and optimizer kernels at once (the GIL is released
    during large launches, the pool is shared): every result is bitwise the serial one's."""
    rng = np.random.default_rng(8)
    xs = [rng.standard_normal((300, 257)).astype(np.float32) for _ in range(4)]
    ts = [rng.integers(0, 257, 300) for _ in range(4)]
    h = [np.array([v], np.float32) for v in (0.9, 0.999, 0.01, 0.9, 0.999, 1e-8)]

    def work(i, out):
        x = xs[i]
        g = np.empty_like(x)
        idx = np.empty(300, np.int64)
        s = [x.copy(), np.zeros_like(x), np.zeros_like(x)]
        for _ in range(5):
            _C.sparse_softmax_cross_entropy_with_logits_cpp(x, ts[i], g, True)
            _C.argmax_cpp(g, idx, 1)
            _C.adam(*s, *h, g, False)
        out[i] = [g, idx] + s

    serial, threaded = {}, {}
    for i in range(4):
        work(i, serial)
    with split(0, 1024):
        threads = [threading.Thread(target=work, args=(i, threaded)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    for i in range(4):
        for a, b in zip(serial[i], threaded[i]):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("nesterov", [False, True])
def test_sgd_first_step_elements_in_some_blocks_only(dtype, nesterov):
    # the loop decides "first step" per block of 2048 elements: stat > 0 in a few blocks only
    rng = np.random.default_rng(9)
    n = 20_000
    state = [rng.standard_normal(n).astype(dtype) for _ in range(2)] + [np.zeros(n, dtype)]
    state[2][[5, 2047, 2048, 9000, n - 1]] = 1
    grad = rng.standard_normal(n).astype(dtype)
    lr, mom = np.array([0.01], dtype), np.array([0.9], dtype)
    mine, theirs = [s.copy() for s in state], [s.copy() for s in state]
    cpp.sgd_cpp(mine[0], grad, lr, mine[1], mom, mine[2], 0.0, 0.01, nesterov)
    ref.sgd_numpy(theirs[0], grad, lr, theirs[1], mom, theirs[2], 0.0, 0.01, nesterov)
    for a, b in zip(mine, theirs):
        np.testing.assert_array_equal(a, b)
    assert not mine[2].any()
