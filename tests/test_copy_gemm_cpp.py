"""The strided copy behind Transpose (_C.copy_strided, csrc/kernels/copy_rows.cc) and the C++
GEMMs (_C.batch_gemm, csrc/kernels/blas_gemm.cc): values against numpy, bitwise the same at
every thread count, transposed operands read in place, bad arguments rejected before anything
is written."""
import numpy as np
import pytest
from helpers import ALL_DTYPES, arrays, noncontig, run_threads, shapes, split
from hypothesis import given
from hypothesis import strategies as st

import mindlite as ms
from mindlite import Tensor, ops
from mindlite.kernels.cpu import _blas
from mindlite.kernels.cpu._cext import _C


@st.composite
def transpose_case(draw):
    dtype = draw(st.sampled_from(ALL_DTYPES + [np.complex64, np.complex128]))
    shape = draw(shapes(max_dims=5))
    x = draw(arrays(dtype, shape)) if np.dtype(dtype).kind != "c" else \
        np.asarray(np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape) * (1 + 2j))
    perm = draw(st.permutations(range(len(shape))))
    return (noncontig(x) if draw(st.booleans()) else x), tuple(perm)


@given(case=transpose_case())
def test_copy_strided_matches_numpy(case):
    x, perm = case
    view = np.transpose(x, perm)
    for threads in (1, 2):
        with split(threads):
            out = np.full(view.shape, 7, x.dtype)
            _C.copy_strided(view, out, "Transpose")
            np.testing.assert_array_equal(out, view)


@given(data=st.data())
def test_channels_last_to_first_deinterleave_bitwise(data):
    """NHWC -> NCHW of 2-4 channels (the deinterleave path: its AVX-512 loop for 3 channels of
    4 bytes, the compiler's loop for the rest): positions around the 16-lane vectors, element
    sizes 1-8 bytes, NaN payloads and -0 moved as bits, 1-3 threads and the measured split."""
    c = data.draw(st.integers(2, 4))
    n = data.draw(st.sampled_from([0, 1, 15, 16, 17, 47, 64, 65, 1000, 50176]))
    dtype = data.draw(st.sampled_from([np.uint8, np.float16, np.float32, np.float64]))
    raw = np.random.default_rng(n + c).integers(0, 256, (1, n, c, np.dtype(dtype).itemsize),
                                                dtype=np.uint8)
    x = raw.view(dtype).reshape(1, 1, n, c)       # any bits: NaNs with payloads, -0, inf
    view = np.transpose(x, (0, 3, 1, 2))
    for threads in (1, 2, 3, 0):
        with split(threads):
            out = np.full(view.shape, 7, x.dtype)
            _C.copy_strided(view, out, "Transpose")
        np.testing.assert_array_equal(out.view(np.uint8), np.ascontiguousarray(view).view(
            np.uint8))


def test_transpose_op_uses_it_for_large_and_odd_layouts():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 128, 32)).astype(np.float32)
    for perm in [(1, 0, 2), (2, 1, 0), (0, 2, 1), (1, 2, 0)]:
        np.testing.assert_array_equal(ops.transpose(Tensor(x), perm).asnumpy(),
                                      np.transpose(x, perm))
    rev = x[::-1, :, ::-2]                                 # negative strides
    np.testing.assert_array_equal(ops.transpose(Tensor(rev), (2, 0, 1)).asnumpy(),
                                  np.transpose(rev, (2, 0, 1)))
    assert ops.transpose(Tensor(np.float32(3)), ()).asnumpy() == 3


def test_copy_strided_bad_arguments():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = np.zeros((4, 3), np.float32)
    with pytest.raises(ValueError, match="'Transpose'.*shape"):
        _C.copy_strided(x, out, "Transpose")
    with pytest.raises(TypeError, match="dtype"):
        _C.copy_strided(x.T, out.astype(np.float64), "Transpose")
    with pytest.raises(ValueError, match="C-contiguous"):
        _C.copy_strided(x.T, np.zeros((3, 4), np.float32).T, "Transpose")
    with pytest.raises(ValueError, match="overlap"):
        _C.copy_strided(x.reshape(4, 3)[::-1], x.reshape(4, 3), "Transpose")
    with pytest.raises(TypeError, match="object"):
        _C.copy_strided(np.empty((2, 2), object), np.empty((2, 2), object), "Transpose")
    with pytest.raises(TypeError):
        _C.copy_strided(x, out)
    assert np.all(out == 0)


needs_blas = pytest.mark.skipif(not _blas.GEMM, reason="numpy's BLAS is not OpenBLAS here")


def _operand(rng, batch, rows, cols, dtype, layout):
    a = rng.standard_normal((batch, rows, cols)).astype(dtype)
    if layout == "T":        # stored transposed, read through BLAS's flag
        return np.ascontiguousarray(np.swapaxes(a, 1, 2)).swapaxes(1, 2)
    if layout == "pad":      # rows further apart than their length
        big = np.zeros((batch, rows, cols + 3), dtype)
        big[..., :cols] = a
        return big[..., :cols]
    return a


@needs_blas
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("la,lb", [("C", "C"), ("T", "C"), ("C", "T"), ("T", "T"),
                                   ("pad", "T")])
def test_batch_gemm_matches_numpy_bitwise_at_any_thread_count(dtype, la, lb):
    rng = np.random.default_rng(1)
    for batch, m, k, n in [(128, 64, 32, 64), (3, 5, 0, 4), (7, 1, 9, 1), (2, 300, 200, 100)]:
        a, b = _operand(rng, batch, m, k, dtype, la), _operand(rng, batch, k, n, dtype, lb)
        want = np.matmul(a.astype(np.float64), b.astype(np.float64))
        outs = []
        for threads in (1, 2):
            with split(threads):
                out = np.full((batch, m, n), np.nan, dtype)
                assert _C.batch_gemm(a, b, out)
                outs.append(out)
        np.testing.assert_array_equal(outs[0], outs[1])
        np.testing.assert_allclose(outs[0], want, rtol=1e-4 if dtype == np.float32 else 1e-12,
                                   atol=1e-4 if dtype == np.float32 else 1e-12)
    w = rng.standard_normal((1, 6, 5)).astype(dtype)   # one matrix broadcast over the batch
    x = rng.standard_normal((4, 3, 6)).astype(dtype)
    out = np.empty((4, 3, 5), dtype)
    assert _C.batch_gemm(x, w, out)
    np.testing.assert_allclose(out, x @ w[0], rtol=1e-5)


@needs_blas
def test_batch_gemm_declines_layouts_blas_cannot_read():
    a = np.ones((2, 3, 4), np.float32)
    out = np.full((2, 3, 3), 5, np.float32)
    assert not _C.batch_gemm(a, np.ones((2, 4, 3), np.float32)[:, ::-1], out)  # negative
    assert not _C.batch_gemm(a, np.ones((2, 4, 6), np.float32)[:, :, ::2], out)  # strided
    assert np.all(out == 5)
    with pytest.raises(ValueError, match="chain"):
        _C.batch_gemm(a, a, out)
    with pytest.raises(TypeError, match="float32 or float64"):
        _C.batch_gemm(a.astype(np.float16), a.swapaxes(1, 2).astype(np.float16), out)


@needs_blas
def test_large_matmul_splits_across_threads_with_single_thread_bits():
    """A product above _blas.ST_MNK splits its rows (or columns) over the pool, each block on
    one BLAS thread: the bits of one BLAS thread (OpenBLAS's own threading differed from them
    at K ~ 1000), forced to one thread or not, transposed operands included."""
    rng = np.random.default_rng(2)
    for m, k, n in [(1000, 999, 1001), (37, 3000, 2000), (2048, 128, 384)]:
        a = rng.standard_normal((m, k)).astype(np.float32)
        b = rng.standard_normal((k, n)).astype(np.float32)
        single = np.empty((m, n), np.float32)
        _C.blas_single_enter()
        try:
            np.matmul(a, b, out=single)
        finally:
            _C.blas_single_exit()
        for threads in (0, 1, 2):
            with split(threads):
                got = ops.matmul(Tensor(a), Tensor(b)).asnumpy()
                np.testing.assert_array_equal(got, single)
        got_t = ops.MatMul(transpose_a=True)(Tensor(np.ascontiguousarray(a.T)), Tensor(b))
        np.testing.assert_array_equal(got_t.asnumpy(), single)


def test_batch_matmul_op_transposed_flags_against_float64():
    rng = np.random.default_rng(3)
    q = rng.standard_normal((8, 16, 4)).astype(np.float32)
    k = rng.standard_normal((8, 16, 4)).astype(np.float32)
    got = ops.BatchMatMul(transpose_b=True)(Tensor(q), Tensor(k)).asnumpy()
    want = np.matmul(q.astype(np.float64), k.astype(np.float64).transpose(0, 2, 1))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    got = ops.BatchMatMul(transpose_a=True)(Tensor(q), Tensor(k)).asnumpy()
    want = np.matmul(q.astype(np.float64).transpose(0, 2, 1), k.astype(np.float64))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    g = ms.grad(lambda a, b: ops.BatchMatMul(transpose_b=True)(a, b).sum(), (0, 1))(
        Tensor(q.astype(np.float64)), Tensor(k.astype(np.float64)))
    want = np.broadcast_to(k.astype(np.float64).sum(1, keepdims=True), q.shape)
    np.testing.assert_allclose(g[0].asnumpy(), want, rtol=1e-12)


def test_few_row_dense_splits_columns_with_the_same_bits():
    """A batch-1 / batch-2 Dense (x @ w^T, w as stored) splits its output columns across the
    pool: every column is the same dot product on any thread count."""
    rng = np.random.default_rng(4)
    mm = ops.MatMul(transpose_b=True)
    for m, n, k in [(1, 256, 256), (2, 250, 300), (1, 37, 4000), (1, 1000, 100)]:
        for dt in (np.float32, np.float64):
            x = rng.standard_normal((m, k)).astype(dt)
            w = rng.standard_normal((n, k)).astype(dt)
            got = []
            for threads in (1, 2):
                with split(threads):
                    got.append(mm(Tensor(x), Tensor(w)).asnumpy())
            np.testing.assert_array_equal(got[0], got[1])
            np.testing.assert_allclose(got[0], x.astype(np.float64) @ w.astype(np.float64).T,
                                       rtol=1e-4 if dt == np.float32 else 1e-12, atol=1e-3)


def test_four_threads_share_the_pool_through_gemms_and_copies():
    """Large MatMuls (split across the pool), BatchMatMuls (batches split), Transposes and
    batch-1 Dense products from 4 threads at once: each thread's results are the bits one
    thread alone gives (a thread that finds the pool busy runs its blocks itself)."""
    rng = np.random.default_rng(6)
    a = Tensor(rng.standard_normal((600, 300)).astype(np.float32))
    b = Tensor(rng.standard_normal((300, 500)).astype(np.float32))
    q = Tensor(rng.standard_normal((64, 32, 16)).astype(np.float32))
    x1 = Tensor(rng.standard_normal((1, 256)).astype(np.float32))
    w = Tensor(rng.standard_normal((256, 256)).astype(np.float32))
    nt = ops.BatchMatMul(transpose_b=True)
    dense = ops.MatMul(transpose_b=True)

    def results():
        return [ops.matmul(a, b).asnumpy(), nt(q, q).asnumpy(),
                ops.transpose(q, (1, 0, 2)).asnumpy(), dense(x1, w).asnumpy()]
    want = results()

    def work(k):
        for _ in range(15):
            for got, ref in zip(results(), want):
                np.testing.assert_array_equal(got, ref)
    assert run_threads(work) == []
