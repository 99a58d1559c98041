"""Softmax rows in C++ (kernels/softmax_loops.inc).

float32 / float64: exp by vexp_neg_normal while every x - max of a row is in [-86, 0], the row
done again with vexp_neg when a lane is below: both ways checked against float64 here, and
against each other (the same bits: float32 takes vexp_tab under AVX-512 / AVX2).

float16 Softmax over rows of 16 lanes or more: the float32 row loop with vexp_low and
float32 sums (kernels/softmax_loops.inc, kSoftmaxToF16), whose result is rounded to float16
once. Checked against the float64 softmax rounded to float16 (at most 1 ulp apart), with
-inf, +inf, NaN, ties, tiny and huge spreads, on rows that are and are not whole vectors."""
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import mindlite as ms
from mindlite import Tensor, ops
from mindlite.kernels import registry

SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 65504.0, -65504.0, 1e-7, 11.09, -11.09]


def softmax_f16(x):
    out = np.empty(x.shape, np.float16)
    registry.select_kernel("Softmax", "CPU", ms.float16).fn(x, out, x.ndim - 1)
    return out


def reference(x):
    x64 = x.astype(np.float64)
    with np.errstate(all="ignore"):
        e = np.exp(x64 - x64.max(axis=-1, keepdims=True))
        return (e / e.sum(axis=-1, keepdims=True)).astype(np.float16)


def ulp_apart(got, want):
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)

    def ordered(a):
        i = a.view(np.int16).astype(np.int32)
        return np.where(i < 0, -32768 - i, i)
    diff = np.abs(ordered(got[ok]) - ordered(want[ok]))
    return int(diff.max()) if diff.size else 0


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 4), st.integers(16, 70), st.sampled_from([0.5, 6.0, 40.0, 3000.0]),
       st.data())
def test_rows_within_one_ulp_of_float64(rows, cols, spread, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    x = (rng.standard_normal((rows, cols)) * spread).astype(np.float16)
    picks = data.draw(arrays(np.int64, 3, elements=st.integers(0, rows * cols - 1)))
    x.flat[picks] = data.draw(st.sampled_from(SPECIAL))
    assert ulp_apart(softmax_f16(x), reference(x)) <= 1


def test_special_rows():
    x = np.zeros((5, 33), np.float16)
    x[0, :] = -np.inf                  # all -inf: NaN, as exp(-inf - -inf)
    x[1, 3] = np.inf                   # +inf: NaN row (inf - inf)
    x[2, 7] = np.nan                   # NaN sticks
    x[3, :] = np.arange(33) * -4.0     # exponents down to e^-128: float16 zeros
    x[4, -1] = 20.0                    # one dominant lane in the partial vector
    got, want = softmax_f16(x), reference(x)
    assert ulp_apart(got, want) <= 1
    assert np.isnan(got[:3]).all()
    assert got[3, 0] == want[3, 0] and (got[3, 5:] == 0).all()    # e^-20 < 2^-24
    assert got[4, -1] == np.float16(1.0)


def test_functional_softmax_float16_matches_float32_rounded():
    x = np.random.default_rng(3).standard_normal((64, 2048)).astype(np.float16)
    got = ops.softmax(Tensor(x), -1).asnumpy()
    assert got.dtype == np.float16
    assert ulp_apart(got, reference(x)) <= 1


@settings(max_examples=30, deadline=None)
@given(st.sampled_from([np.float32, np.float64]), st.integers(1, 3), st.integers(16, 90),
       st.sampled_from([1.0, 20.0, 60.0, 200.0]), st.data())
def test_float_rows_fast_and_redone_exp(dtype, rows, cols, spread, data):
    """Spreads of 20 stay on the fast exp; 60 and 200 push lanes past -86 (the redo), as do
    -inf lanes; NaN rows stay NaN."""
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    x = (rng.standard_normal((rows, cols)) * spread).astype(dtype)
    picks = data.draw(arrays(np.int64, 2, elements=st.integers(0, rows * cols - 1)))
    x.flat[picks] = data.draw(st.sampled_from([0.0, -np.inf, np.nan, -100.0, 90.0]))
    got = ops.softmax(Tensor(x), -1).asnumpy()
    x64 = x.astype(np.float64)
    with np.errstate(all="ignore"):
        e = np.exp(x64 - x64.max(-1, keepdims=True))
        want = e / e.sum(-1, keepdims=True)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    # float32: x - max rounds (|d| eps relative in exp); float64: a few ulp
    eps = np.finfo(dtype).eps
    tol = eps * (8 + np.abs(np.nan_to_num(x64 - x64.max(-1, keepdims=True), neginf=0)))
    ok = ~np.isnan(want)
    assert (np.abs(got[ok] - want[ok]) <= tol[ok] * want[ok] + np.finfo(dtype).tiny * 4).all()


@settings(max_examples=25, deadline=None)
@given(st.sampled_from([np.float32, np.float64]), st.integers(1, 6),
       st.floats(0.1, 20.0), st.integers(0, 2**32 - 1))
def test_redone_row_gives_the_fast_rows_bits(dtype, vectors, spread, seed):
    """A row of whole vectors, then the same row followed by a vector of -inf (exp 0: every
    float64 lane sum unchanged), which takes the redo: the shared elements bitwise equal."""
    x = (np.random.default_rng(seed).standard_normal(16 * vectors) * spread).astype(dtype)
    y = np.concatenate([x, np.full(16, -np.inf, dtype)])
    for op in (ops.softmax, ops.log_softmax):
        fast = op(Tensor(x[None]), -1).asnumpy()[0]
        redone = op(Tensor(y[None]), -1).asnumpy()[0]
        assert fast.tobytes() == redone[:x.size].tobytes()


def test_row_maximum_in_every_lane_and_nan_anywhere():
    """The row maximum (a butterfly over the running maxima's lanes, the lane loop when a NaN
    is among them) wherever it sits: the softmax of a row with one large lane is 1 there, and
    a NaN in any lane makes the whole row NaN, for float32 and float64, on 64-lane rows."""
    for dtype in (np.float32, np.float64):
        eye = np.eye(64, dtype=dtype) * 2000 - 1000
        np.testing.assert_array_equal(ops.softmax(Tensor(eye), -1).asnumpy(),
                                      np.eye(64, dtype=dtype))
        x = np.zeros((64, 64), dtype)
        x[np.arange(64), np.arange(64)] = np.nan
        x[:, 0] = np.where(np.arange(64) == 0, np.nan, 5.0)
        assert np.isnan(ops.softmax(Tensor(x), -1).asnumpy()).all()
        ties = np.where(np.eye(64, dtype=bool), dtype(0.0), dtype(-0.0)) - np.arange(64) * 0.0
        got = ops.softmax(Tensor(ties), -1).asnumpy()
        np.testing.assert_array_equal(got, np.full((64, 64), 1 / 64, dtype))
