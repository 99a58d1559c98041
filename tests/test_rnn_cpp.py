"""The C++ recurrent-layer kernels (kernels/cpu/rnn_cpp.py over csrc/kernels/rnn.cc): RNNLayer
and RNNLayerGrad equal the numpy reference kernels (float32 1e-5, float64 1e-12, atol scaled
by the array's magnitude) for LSTM, GRU and RNN tanh/relu, any mask (samples ending early, a
whole step masked), hidden sizes off the vector width, one step, empty dimensions; with the
BLAS GEMMs and with the packed-loop fallback, with the GEMMs off the recurrence overlapped on a
second thread, and with the gate loops compiled for lower instruction sets (MINDLITE_ISA).
Through nn.LSTM
/ GRU / RNN: the cpp provider (the default selection) gives the numpy provider's
outputs and gradients over layers, directions, batch_first and seq_length, and float64
finite-difference gradients. Bad arguments to the entry points raise naming the argument."""
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import mindlite as ms
from mindlite import Tensor, nn
from mindlite.kernels import registry
from mindlite.kernels.cpu import _blas, rnn_cpp, rnn_numpy

GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}
TOL = {np.float32: 1e-5, np.float64: 1e-12}


def _layer_args(r, mode, dt, t, n, i, h, masked):
    g = GATES[mode]

    def a(*s):
        return (r.standard_normal(s) * 0.7).astype(dt)
    mask = np.ones((t, n), dt)
    if masked:        # sequences of lengths 0..t, as nn's seq_length builds them
        lens = r.integers(0, t + 1, n)
        mask = (np.arange(t)[:, None] < lens[None, :]).astype(dt)
    return [a(t, n, i), a(n, h), a(n, h), a(g * h, i), a(g * h, h), a(g * h), a(g * h), mask]


def _close(got, want, tol, what):
    """rtol tol, atol tol times the array's scale (at least 1): a weight gradient sums T N
    products, and the numpy kernel adds them step by step where the C++ one runs one GEMM, so
    an entry that cancels to near 0 keeps the rounding of the large terms it summed."""
    assert got.dtype == want.dtype and got.shape == want.shape, what
    scale = max(1.0, float(np.abs(want).max(initial=0.0)))
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol * scale, err_msg=what)


def _check_layer(mode, dt, t, n, i, h, masked, seed):
    r = np.random.default_rng(seed)
    args = _layer_args(r, mode, dt, t, n, i, h, masked)
    tol = TOL[dt]
    want = rnn_numpy.rnn_layer_numpy(*args, mode=mode)
    got = rnn_cpp.rnn_layer_cpp(*args, mode=mode)
    for name, p, q in zip(("y", "h_n", "c_n", "reserve"), want, got):
        _close(q, p, tol, f"{mode} {name}")
    dy, dh, dc = (r.standard_normal(s).astype(dt) for s in ((t, n, h), (n, h), (n, h)))
    want = rnn_numpy.rnn_layer_grad_numpy(*args, want[3], dy, dh, dc, mode=mode)
    got = rnn_cpp.rnn_layer_grad_cpp(*args, got[3], dy, dh, dc, mode=mode)
    for name, p, q in zip(("dx", "dh0", "dc0", "dw_ih", "dw_hh", "db_ih", "db_hh"), want, got):
        _close(q, p, tol, f"{mode} {name}")


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(sorted(GATES)), st.sampled_from([np.float32, np.float64]),
       st.integers(1, 6), st.integers(1, 5), st.integers(1, 6), st.integers(1, 21),
       st.booleans(), st.integers(0, 2**31 - 1))
@example("LSTM", np.float32, 1, 2, 1, 1, False, 0)   # H = 1: numpy's strided negative bug
@example("RNN_RELU", np.float32, 6, 1, 3, 14, False, 2)   # a dW_hh entry cancelling to -0.19
def test_kernels_equal_numpy(mode, dt, t, n, i, h, masked, seed):
    _check_layer(mode, dt, t, n, i, h, masked, seed)


@pytest.mark.parametrize("mode", sorted(GATES))
def test_packed_loop_fallback_equals_numpy(mode):
    """Without an attached BLAS the GEMMs run on the C++ packed MatMul loop."""
    from mindlite._C import rnn_attach_blas, rnn_blas_attached, rnn_detach_blas
    path = _blas._loaded_openblas()
    rnn_detach_blas()
    try:
        assert not rnn_blas_attached()
        for dt in (np.float32, np.float64):
            _check_layer(mode, dt, 4, 3, 5, 19, True, 7)
    finally:
        if rnn_cpp.BLAS:
            assert rnn_attach_blas(path)


@pytest.mark.parametrize("mode", sorted(GATES))
def test_overlapped_chunks_equal_numpy(mode):
    """A large layer runs its projection / weight-gradient GEMMs in chunks of steps on a second
    thread; forced on for small layers (7 steps: chunks of 2, 2, 2, 1), same results."""
    from mindlite._C import rnn_overlap_above
    rnn_overlap_above(0)
    try:
        for dt in (np.float32, np.float64):
            _check_layer(mode, dt, 7, 3, 5, 19, True, 11)
            _check_layer(mode, dt, 2, 1, 2, 3, False, 12)
            _check_layer(mode, dt, 5, 17, 4, 9, True, 13)    # the forward's two sample blocks
    finally:
        rnn_overlap_above(1 << 22)


@pytest.mark.parametrize("mode", sorted(GATES))
def test_forward_blocks_do_not_depend_on_threads(mode):
    """A large layer's forward runs two blocks of samples on two threads: one thread (the
    blocks one after the other) gives the same bits."""
    from mindlite._C import set_num_threads
    args = _layer_args(np.random.default_rng(3), mode, np.float32, 9, 40, 64, 96, True)
    two = rnn_cpp.rnn_layer_cpp(*args, mode=mode)
    set_num_threads(1)
    try:
        one = rnn_cpp.rnn_layer_cpp(*args, mode=mode)
    finally:
        set_num_threads(0)
    for p, q in zip(two, one):
        np.testing.assert_array_equal(p, q)


def test_blas_thread_count_survives_four_threads():
    """OpenBLAS's thread count is process-wide: four threads running overlapped layers (two
    GEMM threads each) and numpy GEMMs in the single-thread bracket at once leave it as it
    was (one counted bracket, kernels/blas_threads.h), and every result stays right."""
    import threading

    from mindlite._C import blas_threads_local, rnn_overlap_above
    before = blas_threads_local(1)
    if not rnn_cpp.BLAS or before < 0:
        pytest.skip("no OpenBLAS thread control attached")
    blas_threads_local(before)
    r = np.random.default_rng(3)
    args = _layer_args(r, "LSTM", np.float32, 7, 3, 5, 19, True)
    want = rnn_numpy.rnn_layer_numpy(*args, mode="LSTM")[0]
    a = r.standard_normal((8, 8))
    errors = []

    def work(k):
        try:
            for _ in range(20):
                if k % 2:
                    got = rnn_cpp.rnn_layer_cpp(*args, mode="LSTM")[0]
                else:
                    got = np.empty_like(a)
                    _blas.matmul(a, a, got)
                _close(got, want if k % 2 else a @ a, 1e-5, f"thread {k}")
        except Exception as e:          # noqa: BLE001 - reported by the main thread
            errors.append(e)
    rnn_overlap_above(0)
    try:
        threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
    finally:
        rnn_overlap_above(1 << 22)
    assert not errors, errors
    after = blas_threads_local(1)
    blas_threads_local(after)
    assert after == before


def test_cpp_is_the_default_kernel():
    for op, fn in (("RNNLayer", rnn_cpp.rnn_layer_cpp),
                   ("RNNLayerGrad", rnn_cpp.rnn_layer_grad_cpp)):
        for dt in (ms.float32, ms.float64):
            assert registry.select_kernel(op, "CPU", dt).fn is fn


def _run(net_fn, provider, x, hx, lens):
    ms.set_context(kernel_provider=provider)
    try:
        net = net_fn()
        params = net.trainable_params()

        def loss(xt):
            y, state = net(xt, hx, lens)
            h = state[0] if isinstance(state, tuple) else state
            return (y * y).sum() + (h * 3.0).sum()
        value, (gx, gp) = ms.value_and_grad(loss, 0, params)(x)
        return [value.asnumpy(), gx.asnumpy()] + [g.asnumpy() for g in gp]
    finally:
        ms.set_context(kernel_provider=None)


@settings(max_examples=12, deadline=None)
@given(st.sampled_from(["LSTM", "GRU", "RNN", "RNN_relu"]), st.sampled_from(["float32",
       "float64"]), st.integers(1, 2), st.booleans(), st.booleans(), st.integers(1, 5),
       st.integers(1, 3), st.booleans(), st.integers(0, 2**31 - 1))
def test_layers_cpp_equal_numpy(mode, dtype, layers, bi, batch_first, t, n, packed, seed):
    kw = {"num_layers": layers, "bidirectional": bi, "batch_first": batch_first}
    if mode == "RNN_relu":
        mode, kw["nonlinearity"] = "RNN", "relu"
    dt = np.dtype(dtype).type
    r = np.random.default_rng(seed)
    x = Tensor(r.standard_normal((n, t, 3) if batch_first else (t, n, 3)).astype(dt))
    lens = Tensor(r.integers(1, t + 1, n)) if packed else None
    h0 = r.standard_normal((layers * (2 if bi else 1), n, 5)).astype(dt)
    hx = (Tensor(h0), Tensor(h0 * 0.5)) if mode == "LSTM" else Tensor(h0)
    ms.set_seed(seed % 1000)
    weights = [p.asnumpy() for p in getattr(nn, mode)(3, 5, dtype=getattr(ms, dtype),
                                                      **kw).trainable_params()]

    def make():
        net = getattr(nn, mode)(3, 5, dtype=getattr(ms, dtype), **kw)
        for p, w in zip(net.trainable_params(), weights):
            p.set_data(Tensor(w))
        return net
    want = _run(make, "numpy", x, hx, lens)
    got = _run(make, "cpp", x, hx, lens)
    for k, (p, q) in enumerate(zip(want, got)):
        _close(q, p, TOL[dt] * 10, str(k))


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN"])
def test_float64_gradients_match_finite_differences(mode):
    r = np.random.default_rng(3)
    net = getattr(nn, mode)(2, 3, num_layers=2, bidirectional=True, dtype=ms.float64)
    x0 = r.standard_normal((4, 2, 2))
    lens = Tensor(np.array([4, 2]))
    w = net.weight_hh_l0

    def loss(xt):
        y, _ = net(xt, seq_length=lens)
        return (y * y * 0.5).sum() + y.sum()
    _, (gx, (gw,)) = ms.value_and_grad(loss, 0, [w])(Tensor(x0))
    assert registry.select_kernel("RNNLayer", "CPU", ms.float64).provider == "cpp"
    eps = 1e-6
    for idx in [(0, 0, 0), (1, 1, 1), (3, 0, 1), (2, 1, 0)]:
        xp, xm = x0.copy(), x0.copy()
        xp[idx] += eps
        xm[idx] -= eps
        fd = (loss(Tensor(xp)).asnumpy() - loss(Tensor(xm)).asnumpy()) / (2 * eps)
        np.testing.assert_allclose(gx.asnumpy()[idx], fd, rtol=1e-6, atol=1e-8)
    base = w.asnumpy().copy()
    for idx in [(0, 0), (2, 1), (w.shape[0] - 1, 2)]:
        vals = []
        for sgn in (1, -1):
            b = base.copy()
            b[idx] += sgn * eps
            w.set_data(Tensor(b))
            vals.append(loss(Tensor(x0)).asnumpy())
        w.set_data(Tensor(base))
        np.testing.assert_allclose(gw.asnumpy()[idx], (vals[0] - vals[1]) / (2 * eps),
                                   rtol=1e-6, atol=1e-8)


def test_entry_point_errors():
    from mindlite import _C
    r = np.random.default_rng(0)
    args = _layer_args(r, "LSTM", np.float32, 3, 2, 4, 5, False)
    with pytest.raises(ValueError, match="'mode' must be in \\[0, 3\\], but got 7"):
        _C.rnn_forward(7, *args)
    with pytest.raises(TypeError, match="'x' must be float32 or float64, but got int32"):
        _C.rnn_forward(0, args[0].astype(np.int32), *args[1:])
    with pytest.raises(TypeError, match="'w_hh' must have the dtype of 'x'"):
        _C.rnn_forward(0, *args[:4], args[4].astype(np.float64), *args[5:])
    with pytest.raises(ValueError, match="'b_ih' must have shape \\(20, \\), but got \\(19, \\)"):
        _C.rnn_forward(0, *args[:5], args[5][:19], *args[6:])
    with pytest.raises(ValueError, match="'x' must be 3-D"):
        _C.rnn_forward(0, args[0][0], *args[1:])
    y, hn, cn, res = _C.rnn_forward(0, *args)
    with pytest.raises(ValueError, match="'reserve' must have shape"):
        _C.rnn_backward(0, args[0], args[3], args[4], args[7], res[:, :, :-1], y, hn, cn)
    # a non-contiguous argument is copied, not misread
    xt = np.asfortranarray(args[0])
    np.testing.assert_array_equal(_C.rnn_forward(0, xt, *args[1:])[0], y)


@pytest.mark.parametrize("mode", sorted(GATES))
@pytest.mark.parametrize("dims", [(0, 2, 3, 4), (3, 0, 3, 4), (3, 2, 0, 4), (3, 2, 3, 0)])
def test_empty_dimensions(mode, dims):
    """No step, no sample, no input feature or no hidden unit: the numpy kernel's results."""
    _check_layer(mode, np.float64, *dims, False, 1)


@pytest.mark.parametrize("isa", ["base", "avx2"])
def test_lower_isa_gate_loops(isa):
    """The gate loops compiled for SSE2 / AVX2 give the numpy kernel's results too."""
    code = (f"import sys; sys.path.insert(0, {os.path.dirname(__file__)!r}); "
            "import numpy as np; import test_rnn_cpp as t; from mindlite import _C\n"
            "for mode in sorted(t.GATES):\n"
            "    for dt in (np.float32, np.float64):\n"
            "        t._check_layer(mode, dt, 3, 2, 3, 21, True, 5)\n"
            "print(_C.kernel_isa())")
    env = dict(os.environ, MINDLITE_ISA=isa)
    res = subprocess.run([sys.executable, "-c", code], check=False, env=env,
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr[-3000:]
    from mindlite import _C
    if _C.kernel_isa() in ("avx512", "avx2") or isa == "base":
        assert res.stdout.split()[-1] == isa


def _grads(kernel, args, reserve, upstream, mode, need_dx):
    return kernel(*args, reserve, *upstream, mode=mode, need_dx=need_dx)


@pytest.mark.parametrize("mode", sorted(GATES))
@pytest.mark.parametrize("overlap", [False, True])
def test_need_dx_false_gives_the_same_other_gradients(mode, overlap):
    """need_dx=False: six outputs (no dx), bitwise those of need_dx=True from dh0 on, for both
    kernels; overlap forces the chunked weight-gradient GEMMs on the second thread."""
    from mindlite._C import rnn_overlap_above
    rnn_overlap_above(0 if overlap else 1 << 22)
    try:
        for dt in (np.float32, np.float64):
            r = np.random.default_rng(21)
            args = _layer_args(r, mode, dt, 7, 3, 5, 9, True)
            reserve = rnn_cpp.rnn_layer_cpp(*args, mode=mode)[3]
            upstream = [r.standard_normal(s).astype(dt) for s in ((7, 3, 9), (3, 9), (3, 9))]
            for kernel in (rnn_cpp.rnn_layer_grad_cpp, rnn_numpy.rnn_layer_grad_numpy):
                full = _grads(kernel, args, reserve, upstream, mode, True)
                part = _grads(kernel, args, reserve, upstream, mode, False)
                assert len(full) == 7 and len(part) == 6
                for k, (p, q) in enumerate(zip(full[1:], part)):
                    assert q.dtype == p.dtype and q.shape == p.shape
                    np.testing.assert_array_equal(q, p, err_msg=f"{kernel.__name__} {k}")
    finally:
        rnn_overlap_above(1 << 22)


def test_need_dx_entry_point_and_primitive():
    from mindlite import _C
    from mindlite.ops.operations.rnn_ops import RNNLayerGrad
    r = np.random.default_rng(4)
    args = _layer_args(r, "GRU", np.float32, 3, 2, 4, 5, False)
    y, hn, cn, res = _C.rnn_forward(1, *args)
    grads = _C.rnn_backward(1, args[0], args[3], args[4], args[7], res, y, hn, cn,
                            need_dx=False)
    assert grads[0] is None and len(grads) == 7
    assert RNNLayerGrad("GRU").attrs["need_dx"] is True
    prim = RNNLayerGrad("GRU", False)
    ins = [Tensor(a) for a in args] + [Tensor(res), Tensor(y), Tensor(hn), Tensor(cn)]
    outs = prim(*ins)
    assert len(outs) == 6
    np.testing.assert_array_equal(outs[2].asnumpy(), grads[3])
    with pytest.raises(TypeError, match="'need_dx' must be a bool, but got int"):
        RNNLayerGrad("LSTM", 1)


class _SpyC:
    """mindlite._C with rnn_backward recording its need_dx argument of each call."""

    def __init__(self, real):
        self.real, self.need_dx = real, []

    def __getattr__(self, name):
        return getattr(self.real, name)

    def rnn_backward(self, *args):
        self.need_dx.append(args[-1])
        return self.real.rnn_backward(*args)


@pytest.mark.parametrize("graph", [False, True])
def test_first_lstm_layer_on_data_skips_dx(monkeypatch, graph):
    """nn.LSTM trained on data: the first layer's backward (both directions, run last) does not
    compute dx, the second layer's does; asking for x's gradient computes all; the weight
    gradients are bitwise the same either way, in PYNATIVE and inside @jit."""
    spy = _SpyC(rnn_cpp._C)
    monkeypatch.setattr(rnn_cpp, "_C", spy)
    net = nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    x = Tensor(np.random.default_rng(6).standard_normal((5, 2, 3)).astype(np.float32))

    def loss(xt):
        y, _ = net(xt)
        return (y * y).sum()
    fns = [ms.grad(loss, None, net.trainable_params()), ms.grad(loss, 0, net.trainable_params())]
    if graph:       # grad inside @jit: the J transform answers the bprop's needs_grad
        fns = [ms.jit(lambda xt, f=f: f(xt)) for f in fns]
    gw = fns[0](x)
    assert spy.need_dx == [True, True, False, False]
    spy.need_dx.clear()
    gx, gw_all = fns[1](x)
    assert spy.need_dx == [True, True, True, True] and gx.shape == x.shape
    for p, q in zip(gw, gw_all):
        np.testing.assert_array_equal(p.asnumpy(), q.asnumpy())
