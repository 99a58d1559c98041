"""Kernels added for eager speed (issue 15): the BLAS thread control GEMMs run under
(mindlite/kernels/cpu/_blas.py, csrc/bind/blas_bind.cc)."""
import threading

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mindlite import _C
from mindlite.kernels.cpu import _blas


def test_blas_threads_local_restores_and_validates():
    prev = _C.blas_threads_local(1)
    try:
        if _blas.ATTACHED:
            assert _C.blas_threads_local(1) == 1
        else:
            assert prev == -1
    finally:
        _C.blas_threads_local(max(prev, 0))
    for bad in (-1, 5000, "2", 1.5):
        with pytest.raises(ValueError, match="blas_threads_local"):
            _C.blas_threads_local(bad)


def test_attached_library_is_numpys_openblas():
    path = _blas._loaded_openblas()
    if not _blas.ATTACHED:
        pytest.skip("numpy here has no OpenBLAS (MKL / Accelerate): nothing to attach")
    assert "openblas" in path.lower() and "numpy" in path


def test_blas_attach_refuses_unloaded_library_and_non_str():
    assert _C.blas_attach("/nonexistent/libopenblas_missing.so") is False
    with pytest.raises(TypeError, match="blas_attach"):
        _C.blas_attach(3)


@settings(max_examples=20, deadline=None)
@given(m=st.integers(1, 70), k=st.integers(1, 70), n=st.integers(1, 70),
       ta=st.booleans(), tb=st.booleans(), dt=st.sampled_from([np.float32, np.float64]))
def test_blas_matmul_matches_numpy_bitwise(m, k, n, ta, tb, dt):
    rng = np.random.default_rng(m * 10000 + k * 100 + n)
    a = rng.standard_normal((k, m) if ta else (m, k)).astype(dt)
    b = rng.standard_normal((n, k) if tb else (k, n)).astype(dt)
    a, b = (a.T if ta else a), (b.T if tb else b)
    out = np.empty((m, n), dt)
    before = _C.blas_threads_local(0)
    _C.blas_threads_local(max(before, 0))
    _blas.matmul(a, b, out)
    assert _C.blas_threads_local(max(before, 0)) == before   # the setting is restored
    np.testing.assert_array_equal(out, np.matmul(a, b))


def test_blas_matmul_large_and_batched():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 40, 50)).astype(np.float32)
    b = rng.standard_normal((3, 50, 20)).astype(np.float32)
    out = np.empty((3, 40, 20), np.float32)
    _blas.matmul(a, b, out)
    np.testing.assert_array_equal(out, np.matmul(a, b))
    out2 = np.empty((3, 40, 20), np.float32)
    _blas.matmul(a, b, out2, st_mnk=1)              # BLAS's own thread count
    np.testing.assert_allclose(out2, out, rtol=1e-6)


def test_blas_matmul_errors_restore_the_setting():
    before = _C.blas_threads_local(0)
    _C.blas_threads_local(max(before, 0))
    with pytest.raises(ValueError):
        _blas.matmul(np.ones((2, 3)), np.ones((4, 5)), np.empty((2, 5)))
    assert _C.blas_threads_local(max(before, 0)) == before



def test_blas_matmul_four_threads_restore_the_setting():
    # numpy's OpenBLAS keeps one process-wide count: interleaved save / restore pairs used to
    # leave it at 1 for good
    before = _C.blas_threads_local(0)
    _C.blas_threads_local(max(before, 0))
    a = np.ones((64, 64), np.float32)
    b = np.ones((64, 128), np.float32)
    errors = []

    def work():
        out = np.empty((64, 128), np.float32)
        try:
            for _ in range(500):
                _blas.matmul(a, b, out)
            np.testing.assert_array_equal(out, np.full((64, 128), 64, np.float32))
        except Exception as e:          # reported from the main thread below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors and not any(t.is_alive() for t in threads)
    assert _C.blas_threads_local(max(before, 0)) == before

# ---- ReluGrad (C loop, csrc/kernels/binary_impl.inc BReluGrad) ----------------------------
def _relu_grad_ref(dy, x):
    return np.multiply(dy, x > 0)


@settings(max_examples=20, deadline=None)
@given(shape=st.lists(st.integers(0, 9), min_size=0, max_size=4),
       dt=st.sampled_from([np.float32, np.float64]), transposed=st.booleans())
def test_relu_grad_cpp_matches_numpy_bitwise(shape, dt, transposed):
    rng = np.random.default_rng(len(shape))
    specials = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 1.0, -1.0], dt)
    dy = np.asarray(rng.choice(specials, size=shape) * rng.standard_normal(shape), dt)
    x = np.asarray(rng.choice(specials, size=shape), dt)
    if transposed:
        dy, x = dy.T, x.T
    out = np.empty(dy.shape, dt)
    _C.BINARY_KERNELS["ReluGrad"](dy, x, out)
    ref = np.ascontiguousarray(_relu_grad_ref(dy, x))
    np.testing.assert_array_equal(out.reshape(-1).view(np.uint8), ref.reshape(-1).view(np.uint8))


def test_relu_grad_op_uses_cpp_kernel_and_matches():
    import mindlite as ms
    from mindlite.ops.operations import _grad_ops as G
    from mindlite.ops.operations.custom_ops import selected_kernel
    dy = ms.Tensor(np.array([[1.0, -2.0, np.nan], [3.0, 4.0, -5.0]], np.float32))
    x = ms.Tensor(np.array([[1.0, 0.0, -1.0], [np.nan, 2.0, -0.0]], np.float32))
    prim = G.ReluGrad()
    assert selected_kernel(prim, dy, x).fn is _C.BINARY_KERNELS["ReluGrad"]
    got = prim(dy, x).asnumpy()
    ref = _relu_grad_ref(dy.asnumpy(), x.asnumpy())
    np.testing.assert_array_equal(got.view(np.uint32), ref.view(np.uint32))


def test_relu_grad_cpp_rejects_bad_inputs():
    with pytest.raises((TypeError, ValueError), match="ReluGrad"):
        _C.BINARY_KERNELS["ReluGrad"](np.ones(3, np.int32), np.ones(3, np.int32),
                                      np.empty(3, np.int32))
    with pytest.raises(ValueError, match="ReluGrad"):
        _C.BINARY_KERNELS["ReluGrad"](np.ones(3), np.ones(4), np.empty(3))


def test_relu6_grad_cpp_matches_numpy_bitwise_and_is_selected():
    """ReLU6Grad's C++ loop: numpy's dy * ((x > 0) & (x <= 6)) bit for bit at the edges (x of
    0, -0, 6, just above 6, NaN, inf; dy NaN / inf / negative), on 1 and 2 threads, and the
    kernel the op selects."""
    import mindlite as ms
    from mindlite import _C
    from mindlite.ops.operations import _grad_ops as G
    from mindlite.ops.operations.custom_ops import selected_kernel
    for dt in (np.float32, np.float64):
        edges = np.array([0.0, -0.0, 6.0, np.nextafter(dt(6), dt(7)), 3.0, -1.0, np.nan,
                          np.inf, -np.inf], dt)
        x = np.tile(edges, 4000)
        dy = np.resize(np.array([1.5, -2.0, np.nan, np.inf, -np.inf, -0.0], dt), x.shape)
        want = np.multiply(dy, (x > 0) & (x <= 6))
        for threads in (1, 2):
            _C.set_num_threads(threads)
            try:
                out = np.empty_like(x)
                _C.BINARY_KERNELS["ReLU6Grad"](dy, x, out)
            finally:
                _C.set_num_threads(0)
            np.testing.assert_array_equal(out.view(np.uint8), want.view(np.uint8))
    prim = G.ReLU6Grad()
    t = ms.Tensor(np.ones(3, np.float32))
    assert selected_kernel(prim, t, t).fn is _C.BINARY_KERNELS["ReLU6Grad"]


# ---- BiasAdd / BiasAddGrad (csrc/kernels/bias_loops.cc) -----------------------------------
@settings(max_examples=20, deadline=None)
@given(shape=st.lists(st.integers(0, 7), min_size=2, max_size=5),
       fmt=st.sampled_from(["NCHW", "NHWC"]), dt=st.sampled_from([np.float32, np.float64]),
       transposed=st.booleans())
def test_bias_add_and_grad_match_numpy(shape, fmt, dt, transposed):
    rng = np.random.default_rng(sum(shape))
    x = rng.standard_normal(shape[::-1] if transposed else shape).astype(dt)
    x = x.T if transposed else x                       # a non-contiguous input
    ch = len(shape) - 1 if fmt == "NHWC" else 1
    bias = rng.standard_normal(2 * shape[ch]).astype(dt)[::2]   # non-contiguous
    out = np.empty(x.shape, dt)
    _C.bias_add(x, bias, out, fmt)
    b = bias if fmt == "NHWC" else bias.reshape((-1,) + (1,) * (len(shape) - 2))
    np.testing.assert_array_equal(out, x + b)
    axis = tuple(i for i in range(len(shape)) if i != ch)
    db = np.empty(shape[ch], dt)
    _C.bias_add_grad(x, db, axis)
    exact = x.astype(np.float64).sum(axis=axis)
    np.testing.assert_allclose(db, exact.astype(dt), rtol=1e-6 if dt == np.float32 else 1e-12,
                               atol=1e-6 if dt == np.float32 else 1e-12)


def test_bias_add_in_place_and_ops_use_the_cpp_kernels():
    import mindlite as ms
    from mindlite import ops
    from mindlite.ops.operations import _grad_ops as G
    from mindlite.ops.operations.custom_ops import selected_kernel
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    bias = np.array([1.0, -2.0, 0.5], np.float32)
    want = x + bias.reshape(3, 1)
    _C.bias_add(x, bias, x, "NCHW")                      # out is x itself
    np.testing.assert_array_equal(x, want)
    tx, tb = ms.Tensor(want), ms.Tensor(bias)
    assert selected_kernel(ops.BiasAdd(), tx, tb).fn is _C.bias_add
    np.testing.assert_array_equal(ops.BiasAdd()(tx, tb).asnumpy(), want + bias.reshape(3, 1))
    grad = G.BiasAddGrad()
    assert selected_kernel(grad, tx).fn is _C.bias_add_grad
    np.testing.assert_allclose(grad(tx).asnumpy(), want.sum(axis=(0, 2)), rtol=1e-6)


def test_bias_kernels_reject_bad_arguments():
    x, b = np.ones((2, 3), np.float32), np.ones(3, np.float32)
    with pytest.raises(ValueError, match="bias_add.*'bias' shape"):
        _C.bias_add(x, np.ones(2, np.float32), np.empty_like(x), "NCHW")
    with pytest.raises(ValueError, match="data_format"):
        _C.bias_add(x, b, np.empty_like(x), "NCW")
    with pytest.raises(TypeError, match="'bias' dtype"):
        _C.bias_add(x, b.astype(np.float64), np.empty_like(x), "NCHW")
    with pytest.raises(ValueError, match="at least 2-D"):
        _C.bias_add(b, b, np.empty_like(b), "NCHW")
    with pytest.raises(ValueError, match="writeable"):
        ro = np.empty_like(x)
        ro.flags.writeable = False
        _C.bias_add(x, b, ro, "NCHW")
    with pytest.raises(ValueError, match="'axis'"):
        _C.bias_add_grad(x, np.empty(3, np.float32), (0, 1))
    with pytest.raises(ValueError, match="'axis'"):
        _C.bias_add_grad(x, np.empty(3, np.float32), [0])
    with pytest.raises(TypeError, match="expected 3 arguments|3 arguments"):
        _C.bias_add_grad(x, np.empty(3, np.float32))


# ---- MemoryPool hands its buffer itself out (mindlite/runtime/memory.py) ------------------
def test_pool_hands_out_the_buffer_itself_and_tracks_it():
    from mindlite.runtime.memory import MemoryPool
    pool = MemoryPool()
    f32 = np.dtype(np.float32)
    a = pool.alloc((256, 256), f32, 256 * 256 * 4)
    assert a.shape == (256, 256) and a.dtype == f32 and a.flags.c_contiguous
    b = pool.alloc((256, 256), f32, 256 * 256 * 4)
    assert b is not a                                  # a is live: a second buffer
    a_id = id(a)
    del a
    c = pool.alloc((256, 256), f32, 256 * 256 * 4)     # a's buffer is free again: reused as is
    assert id(c) == a_id and pool.hits == 1
    v = c[::2]                                         # a view keeps the buffer busy
    del c
    d = pool.alloc((256, 256), f32, 256 * 256 * 4)
    assert not np.shares_memory(d, v)
    del b, d
    # another shape / dtype of the same byte size: a view of a free buffer
    e = pool.alloc((128, 256), np.dtype(np.float64), 256 * 256 * 4)
    assert e.shape == (128, 256) and e.dtype == np.float64 and e.flags.c_contiguous
    e[...] = 1.5
    f = pool.alloc((256, 256), f32, 256 * 256 * 4)    # e's buffer stays busy through e
    assert not np.shares_memory(e, f)
    np.testing.assert_array_equal(e, 1.5)
