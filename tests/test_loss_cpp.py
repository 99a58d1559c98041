"""C++ loss kernels (csrc/kernels/loss_kernels.cc, mindlite/kernels/cpu/loss_cpp.py) called
directly and through the ops.

Against the numpy reference kernels (loss_numpy.py): SoftmaxCrossEntropyWithLogits,
SparseSoftmaxCrossEntropyWithLogits (loss and gradient), NLLLoss and NLLLossGrad on float32 /
float64, rows shorter and longer than a vector (the partial-vector paths), empty batches and
classes, non-contiguous inputs, NaN/inf logits. Tolerance: the cross entropies use
simd_math.h's exp (within ~2 ulp of np.exp) and float64 row sums where numpy sums in the input
dtype, so they agree to 2e-6 (float32) / 1e-12 (float64) relative to the terms' magnitude, with
NaN and inf exactly where numpy has them; NLL's unreduced loss and NLLLossGrad are bitwise
numpy's (the same operations); NLL's sums are float64 then rounded. Labels outside [0, C)
raise numpy's ValueError before any output is written; results are the same at every thread
count, and the loops compiled for the lower ISAs (MINDLITE_ISA=base / avx2) agree too; bad
arguments raise TypeError / ValueError, never crash.
"""
import os
import subprocess
import sys

import numpy as np
import pytest
from helpers import noncontig, split
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import mindlite as ms
from mindlite import ops
from mindlite.kernels import registry
from mindlite.kernels.cpu import loss_numpy as ref
from mindlite.kernels.cpu._cext import _C

FLOATS = [np.float32, np.float64]
TOL = {np.dtype(np.float32): 2e-6, np.dtype(np.float64): 1e-12}


def close(got, want, scale, dtype):
    """got == want where want is NaN/inf, else |got - want| <= tol * (1 + scale)."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype
    special = ~np.isfinite(want)
    np.testing.assert_array_equal(got[special], want[special])
    assert np.isfinite(got[~special]).all()
    err = np.abs(got.astype(np.float64) - want)[~special]
    lim = (TOL[np.dtype(dtype)] * (1 + np.broadcast_to(scale, want.shape)))[~special]
    assert (err <= lim).all(), f"max error {np.max(err - lim)} over the tolerance"


@st.composite
def logits(draw, dtype, special=True):
    n, c = draw(st.integers(0, 6)), draw(st.integers(0, 40))
    finite = st.floats(-60, 60, width=np.dtype(dtype).itemsize * 8)
    elems = st.one_of(finite, finite, finite, st.sampled_from([np.nan, np.inf, -np.inf])) \
        if special else finite
    x = draw(hnp.arrays(dtype, (n, c), elements=elems))
    return noncontig(x) if draw(st.booleans()) and x.size else x


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(FLOATS), st.data())
def test_softmax_cross_entropy_matches_numpy(dtype, data):
    x = data.draw(logits(dtype))
    y = data.draw(hnp.arrays(dtype, x.shape, elements=st.sampled_from([0.0, 0.25, 1.0, 0.5])))
    got = np.full(x.shape[:1], 7, dtype), np.full(x.shape, 7, dtype)
    want = np.empty(x.shape[:1], dtype), np.empty(x.shape, dtype)
    _C.softmax_cross_entropy_with_logits_cpp(x, y, *got)
    with np.errstate(all="ignore"):
        ref.softmax_cross_entropy_with_logits_numpy(x, y, *want)
        logp = np.abs(ref._log_softmax_rows(x)[0]) if x.size else np.zeros(x.shape)
    scale = np.nansum(np.where(y != 0, y * np.where(np.isfinite(logp), logp, 0), 0), axis=1)
    close(got[0], want[0], scale, dtype)
    close(got[1], want[1], 1.0, dtype)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(FLOATS), st.sampled_from([np.int32, np.int64]), st.booleans(),
       st.data())
def test_sparse_softmax_cross_entropy_matches_numpy(dtype, ldtype, is_grad, data):
    x = data.draw(logits(dtype))
    n, c = x.shape
    if c == 0 and n:
        return                      # no valid label exists (see test_bad_labels...)
    t = data.draw(hnp.arrays(ldtype, (n,), elements=st.integers(0, max(c - 1, 0))))
    if n > 1 and data.draw(st.booleans()):
        t = noncontig(t)
    shape = x.shape if is_grad else ()
    got, want = np.full(shape, 7, dtype), np.empty(shape, dtype)
    _C.sparse_softmax_cross_entropy_with_logits_cpp(x, t, got, is_grad)
    ref.sparse_softmax_cross_entropy_with_logits_numpy(x, t, want, is_grad)
    scale = 1.0 if is_grad else np.abs(np.where(np.isfinite(x), x, 0)).max(initial=0) + 10
    close(got, want, scale, dtype)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("c", [1, 3, 4, 7, 8, 9, 15, 16, 17, 33, 100, 1000])
def test_row_lengths_around_the_vector_width(dtype, c):
    rng = np.random.default_rng(c)
    x = (rng.standard_normal((9, c)) * 5).astype(dtype)
    x[3, c // 2] = -np.inf
    y = rng.random((9, c)).astype(dtype)
    t = rng.integers(0, c, 9)
    got, want = (np.empty(9, dtype), np.empty((9, c), dtype)), (np.empty(9, dtype),
                                                               np.empty((9, c), dtype))
    _C.softmax_cross_entropy_with_logits_cpp(x, y, *got)
    ref.softmax_cross_entropy_with_logits_numpy(x, y, *want)
    close(got[0], want[0], 30 * c, dtype)
    close(got[1], want[1], 1.0, dtype)
    for is_grad in (False, True):
        g, w = np.empty((9, c) if is_grad else (), dtype), np.empty((9, c) if is_grad else (),
                                                                    dtype)
        _C.sparse_softmax_cross_entropy_with_logits_cpp(x, t, g, is_grad)
        ref.sparse_softmax_cross_entropy_with_logits_numpy(x, t, w, is_grad)
        close(g, w, 1.0 if is_grad else 30, dtype)


def test_special_rows_match_numpy_exactly():
    x = np.array([[np.nan, 0.0, 1.0], [np.inf, 0.0, 1.0], [-np.inf, -np.inf, -np.inf],
                  [-np.inf, 0.0, 1.0], [1e30, -1e30, 0.0]], np.float32)
    y = np.array([[1, 0, 0], [0, 1, 0], [1, 0, 0], [0, 0.5, 0.5], [0, 1, 0]], np.float32)
    got, want = (np.empty(5, np.float32), np.empty((5, 3), np.float32)), \
        (np.empty(5, np.float32), np.empty((5, 3), np.float32))
    _C.softmax_cross_entropy_with_logits_cpp(x, y, *got)
    with np.errstate(all="ignore"):
        ref.softmax_cross_entropy_with_logits_numpy(x, y, *want)
    np.testing.assert_array_equal(np.isnan(got[0]), np.isnan(want[0]))
    np.testing.assert_allclose(got[0], want[0], rtol=2e-6)
    np.testing.assert_allclose(got[1], want[1], rtol=2e-6, atol=2e-6)
    assert got[0][4] == np.float32(2e30)


@pytest.mark.parametrize("op", ["sparse", "nll", "nll_grad"])
def test_bad_labels_raise_numpys_error_before_writing(op):
    x = np.zeros((3, 4), np.float32)
    t = np.array([1, 4, -1], np.int64)
    out = np.full((3, 4), 9, np.float32)
    loss, tw = np.full(3, 9, np.float32), np.full((), 9, np.float32)
    w = np.ones(4, np.float32)
    if op == "sparse":
        calls = [lambda f: f(x, t, out, True)]
        fns = (_C.sparse_softmax_cross_entropy_with_logits_cpp,
               ref.sparse_softmax_cross_entropy_with_logits_numpy)
    elif op == "nll":
        calls = [lambda f: f(x, t, w, loss, tw, "none", 1)]
        fns = (_C.nll_loss_cpp, ref.nll_loss_numpy)
    else:
        calls = [lambda f: f(x, np.ones(3, np.float32), t, w, tw, out, "none", 1)]
        fns = (_C.nll_loss_grad_cpp, ref.nll_loss_grad_numpy)
    msgs = []
    for f in fns:
        with pytest.raises(ValueError) as e:
            calls[0](f)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]
    assert (out == 9).all() and (loss == 9).all() and tw == 9


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(FLOATS), st.sampled_from(["none", "sum", "mean"]), st.data())
def test_nll_loss_and_grad_match_numpy(dtype, reduction, data):
    x = data.draw(logits(dtype))
    n, c = x.shape
    ignore = data.draw(st.sampled_from([-100, 0, 2]))
    choices = st.sampled_from([ignore]) if c == 0 else st.one_of(
        st.integers(0, c - 1), st.just(ignore)).filter(lambda v: v == ignore or 0 <= v < c)
    t = data.draw(hnp.arrays(np.int64, (n,), elements=choices))
    w = data.draw(hnp.arrays(dtype, (c,), elements=st.sampled_from([1.0, 0.5, 2.0, 0.0])))
    oshape = (n,) if reduction == "none" else ()
    got = np.full(oshape, 7, dtype), np.full((), 7, dtype)
    want = np.empty(oshape, dtype), np.empty((), dtype)
    _C.nll_loss_cpp(x, t, w, *got, reduction, ignore)
    ref.nll_loss_numpy(x, t, w, *want, reduction, ignore)
    if reduction == "none":
        np.testing.assert_array_equal(got[0], want[0])
    else:
        finite = np.where(np.isfinite(x), np.abs(x), 0)
        close(got[0], want[0], finite.sum() * 2 / max(float(want[1]), 1e-3), dtype)
    close(got[1], want[1], 2 * n, dtype)
    g = data.draw(hnp.arrays(dtype, oshape, elements=st.floats(-3, 3, width=32)))
    tw = np.array(data.draw(st.sampled_from([0.0, 1.5, 4.0])), dtype)
    dg, dw = np.full((n, c), 7, dtype), np.empty((n, c), dtype)
    _C.nll_loss_grad_cpp(x, g, t, w, tw, dg, reduction, ignore)
    with np.errstate(all="ignore"):
        ref.nll_loss_grad_numpy(x, g, t, w, tw, dw, reduction, ignore)
    np.testing.assert_array_equal(dg, dw)


def test_results_do_not_depend_on_the_thread_count():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((333, 77)).astype(np.float32)
    y = rng.random((333, 77)).astype(np.float32)
    t = rng.integers(0, 77, 333)
    runs = []
    for threads in (1, 2, 0):
        with split(threads):
            loss, bp, s, g = (np.empty(333, np.float32), np.empty((333, 77), np.float32),
                              np.empty((), np.float32), np.empty((333, 77), np.float32))
            _C.softmax_cross_entropy_with_logits_cpp(x, y, loss, bp)
            _C.sparse_softmax_cross_entropy_with_logits_cpp(x, t, s, False)
            _C.sparse_softmax_cross_entropy_with_logits_cpp(x, t, g, True)
            runs.append((loss, bp, s, g))
    for other in runs[1:]:
        for a, b in zip(runs[0], other):
            np.testing.assert_array_equal(a, b)


def test_empty_batches_and_classes():
    for c in (0, 5):
        x = np.zeros((0, c), np.float64)
        s = np.zeros((), np.float64)
        _C.sparse_softmax_cross_entropy_with_logits_cpp(x, np.zeros(0, np.int32), s, False)
        assert np.isnan(s)
    loss = np.full(3, 7.0)
    _C.softmax_cross_entropy_with_logits_cpp(np.zeros((3, 0)), np.zeros((3, 0)), loss,
                                             np.zeros((3, 0)))
    assert (loss == 0).all()


def test_inputs_overlapping_outputs_are_read_first():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 6))
    y = rng.random((4, 6))
    want = np.empty(4), np.empty((4, 6))
    ref.softmax_cross_entropy_with_logits_numpy(x, y, *want)
    buf, loss = x.copy(), np.empty(4)
    _C.softmax_cross_entropy_with_logits_cpp(buf, y, loss, buf)    # backprop over the logits
    close(loss, want[0], 30, np.float64)
    close(buf, want[1], 1, np.float64)


BAD = [
    (lambda: _C.softmax_cross_entropy_with_logits_cpp(np.zeros((2, 3), np.float16),
                                                      np.zeros((2, 3), np.float16),
                                                      np.zeros(2, np.float16),
                                                      np.zeros((2, 3), np.float16)),
     TypeError, "'logits' dtype"),
    (lambda: _C.softmax_cross_entropy_with_logits_cpp(np.zeros((2, 3)), np.zeros((2, 3),
                                                      np.float32), np.zeros(2),
                                                      np.zeros((2, 3))), TypeError,
     "'labels' dtype"),
    (lambda: _C.softmax_cross_entropy_with_logits_cpp(np.zeros((2, 3)), np.zeros((3, 2)),
                                                      np.zeros(2), np.zeros((2, 3))),
     ValueError, "'labels' shape"),
    (lambda: _C.softmax_cross_entropy_with_logits_cpp(np.zeros(3), np.zeros(3), np.zeros(1),
                                                      np.zeros(3)), ValueError, "2-D"),
    (lambda: _C.softmax_cross_entropy_with_logits_cpp(np.zeros((2, 3)), np.zeros((2, 3)),
                                                      np.zeros(4)[::2], np.zeros((2, 3))),
     ValueError, "C-contiguous"),
    (lambda: _C.sparse_softmax_cross_entropy_with_logits_cpp(np.zeros((2, 3)),
                                                             np.zeros(2, np.float64),
                                                             np.zeros(()), False),
     TypeError, "'labels' dtype"),
    (lambda: _C.sparse_softmax_cross_entropy_with_logits_cpp(np.zeros((2, 3)),
                                                             np.zeros(3, np.int32),
                                                             np.zeros(()), False),
     ValueError, "'labels' shape"),
    (lambda: _C.sparse_softmax_cross_entropy_with_logits_cpp(np.zeros((2, 3)),
                                                             np.zeros(2, np.int32),
                                                             np.zeros(()), 1), TypeError,
     "'is_grad' must be a bool"),
    (lambda: _C.sparse_softmax_cross_entropy_with_logits_cpp(np.zeros((2, 3)),
                                                             np.zeros(2, np.int32),
                                                             np.zeros(()), True), ValueError,
     "'out' must be 2-D"),
    (lambda: _C.nll_loss_cpp(np.zeros((2, 3)), np.zeros(2, np.int32), np.ones(3), np.zeros(()),
                             np.zeros(()), "avg", -100), ValueError, "'reduction'"),
    (lambda: _C.nll_loss_cpp(np.zeros((2, 3)), np.zeros(2, np.int32), np.ones(3), np.zeros(()),
                             np.zeros(()), "sum", 2 ** 70), TypeError, "'ignore_index'"),
    (lambda: _C.nll_loss_cpp(np.zeros((2, 3)), np.zeros(2, np.int32), np.ones(2), np.zeros(()),
                             np.zeros(()), "sum", -100), ValueError, "'weight' shape"),
    (lambda: _C.nll_loss_grad_cpp(np.zeros((2, 3)), np.zeros(()), np.zeros(2, np.int32),
                                  np.ones(3), np.zeros(()), np.zeros((2, 3)), "none", -100),
     ValueError, "'loss_grad' must be 1-D"),
    (lambda: _C.nll_loss_cpp(np.zeros((2, 3))), TypeError, "expected 7 arguments"),
]


@pytest.mark.parametrize("call, err, words", BAD)
def test_bad_inputs_raise(call, err, words):
    with pytest.raises(err, match=words):
        call()


@pytest.mark.parametrize("op", ["SoftmaxCrossEntropyWithLogits",
                                "SparseSoftmaxCrossEntropyWithLogits", "NLLLoss", "NLLLossGrad"])
def test_registry_selects_the_cpp_kernels(op):
    for dt in (ms.float32, ms.float64):
        assert registry.select_kernel(op, "CPU", dt).provider == "cpp"


def test_ops_and_gradients_end_to_end():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 5)).astype(np.float32)
    t = rng.integers(0, 5, 8).astype(np.int32)
    loss = ops.SparseSoftmaxCrossEntropyWithLogits()(ms.Tensor(x), ms.Tensor(t))
    m = x.max(1, keepdims=True)
    logp = x - m - np.log(np.exp(x - m).sum(1, keepdims=True))
    np.testing.assert_allclose(loss.asnumpy(), -logp[np.arange(8), t].mean(), rtol=1e-6)
    grad = ms.grad(lambda a: ops.SparseSoftmaxCrossEntropyWithLogits()(a, ms.Tensor(t)))(
        ms.Tensor(x))
    want = np.exp(logp)
    want[np.arange(8), t] -= 1
    np.testing.assert_allclose(grad.asnumpy(), want / 8, rtol=1e-5, atol=1e-7)


def check_fixed_inputs():
    """Every family of the training kernels on fixed inputs against numpy (run under each ISA
    by test_lower_isa_loops); returns a digest of the exact (arg, logical, optimizer)
    results."""
    from mindlite.kernels.cpu import optim_numpy, reduce_numpy
    rng = np.random.default_rng(11)
    digest = []
    for dtype in FLOATS:
        for c in (3, 8, 17, 100):
            x = (rng.standard_normal((13, c)) * 4).astype(dtype)
            x[2, c // 2] = np.nan
            y = rng.random((13, c)).astype(dtype)
            t = rng.integers(0, c, 13)
            got, want = (np.empty(13, dtype), np.empty((13, c), dtype)), \
                (np.empty(13, dtype), np.empty((13, c), dtype))
            _C.softmax_cross_entropy_with_logits_cpp(x, y, *got)
            with np.errstate(all="ignore"):
                ref.softmax_cross_entropy_with_logits_numpy(x, y, *want)
            close(got[0], want[0], 30 * c, dtype)
            close(got[1], want[1], 1.0, dtype)
            g, w = np.empty((13, c), dtype), np.empty((13, c), dtype)
            _C.sparse_softmax_cross_entropy_with_logits_cpp(x, t, g, True)
            with np.errstate(all="ignore"):
                ref.sparse_softmax_cross_entropy_with_logits_numpy(x, t, w, True)
            close(g, w, 1.0, dtype)
            for axis in (0, 1):
                i, v = np.empty(x.shape[1 - axis], np.int64), np.empty(x.shape[1 - axis], dtype)
                wi, wv = np.empty_like(i), np.empty_like(v)
                _C.arg_max_with_value_cpp(x, i, v, axis, False)
                reduce_numpy.arg_max_with_value_numpy(x, wi, wv, axis, False)
                np.testing.assert_array_equal(i, wi)
                np.testing.assert_array_equal(v, wv)
                digest += i.tolist()
        n = 1001
        s = [rng.standard_normal(n).astype(dtype) for _ in range(3)]
        s[2] = np.abs(s[2])
        grad = rng.standard_normal(n).astype(dtype)
        h = [np.array([v], dtype) for v in (0.9, 0.999, 0.01, 0.9, 0.999, 1e-8)]
        mine, theirs = [a.copy() for a in s], [a.copy() for a in s]
        _C.adam(*mine, *h, grad, True)
        optim_numpy.adam_numpy(*theirs, *h, grad, False, True)
        for a, b in zip(mine, theirs):
            np.testing.assert_array_equal(a, b)
        digest += mine[0].tobytes()[:64].hex().split()
    b = rng.random((40, 70)) < 0.97
    for axes in ((0,), (1,), (0, 1)):
        got = np.zeros(np.all(b, axis=axes).shape, bool)
        _C.reduce_all_cpp(b, got, axes, False)
        np.testing.assert_array_equal(got, np.all(b, axis=axes))
        digest += got.ravel().tolist()
    return digest


@pytest.mark.parametrize("isa", ["base", "avx2"])
def test_lower_isa_loops(isa):
    code = (f"import sys; sys.path.insert(0, {os.path.dirname(__file__)!r}); "
            "import test_loss_cpp as t; print(hash(tuple(t.check_fixed_inputs())))")
    runs = []
    for env in (dict(os.environ, MINDLITE_ISA=isa, PYTHONHASHSEED="0"),
                dict(os.environ, PYTHONHASHSEED="0")):
        res = subprocess.run([sys.executable, "-c", code], check=False, env=env,
                             capture_output=True, text=True, timeout=120, cwd=os.getcwd())
        assert res.returncode == 0, res.stderr[-3000:]
        runs.append(res.stdout.split()[-1])
    assert runs[0] == runs[1]
