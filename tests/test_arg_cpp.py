"""C++ arg- and logical reductions (csrc/kernels/arg_kernels.cc, mindlite/kernels/cpu/arg_cpp.py)
called directly and through the ops.

Against the numpy reference kernels, exactly (indices and values are picked, not computed):
Argmax / Argmin / ArgMaxWithValue / ArgMinWithValue on float32/float64/int32/int64, 0-d and
empty inputs, every layout and axis, ties (the first index, as np.argmax) and NaN (the first
NaN wins), rows and columns long enough to reach the vector loops and their tails, int32 and
int64 indices; ReduceAll / ReduceAny over every axis set with keep_dims. Results are the same
at every forced thread count; bad arguments raise TypeError / ValueError naming the function
and the argument, never crash; the registry selects these kernels.
"""
import itertools

import numpy as np
import pytest
from helpers import noncontig, split
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import mindlite as ms
from mindlite import ops
from mindlite.kernels import registry
from mindlite.kernels.cpu import reduce_numpy as ref
from mindlite.kernels.cpu._cext import _C

NUMBERS = [np.float32, np.float64, np.int32, np.int64]
TIE_VALUES = [0.0, 1.0, 2.0, -1.0, np.nan, np.inf, -np.inf]
ARG = {"Argmax": (_C.argmax_cpp, ref.argmax_numpy), "Argmin": (_C.argmin_cpp, ref.argmin_numpy)}
ARG_V = {"ArgMaxWithValue": (_C.arg_max_with_value_cpp, ref.arg_max_with_value_numpy),
         "ArgMinWithValue": (_C.arg_min_with_value_cpp, ref.arg_min_with_value_numpy)}
LOGIC = {"ReduceAll": (_C.reduce_all_cpp, ref.reduce_all_numpy),
         "ReduceAny": (_C.reduce_any_cpp, ref.reduce_any_numpy)}


def layout(arr, kind):
    if arr.ndim == 0:
        return arr
    return {"contig": arr, "noncontig": noncontig(arr) if arr.size else arr,
            "flipped": np.flip(arr), "transposed": np.ascontiguousarray(arr.T).T}[kind]


def tie_array(draw, dtype, shape):
    """Values from a small set (ties everywhere; NaN and infinities for floats)."""
    vals = TIE_VALUES if np.dtype(dtype).kind == "f" else [0, 1, 2, -1, -7]
    return draw(hnp.arrays(dtype, shape, elements=st.sampled_from(vals).map(dtype)))


def out_shape(shape, axis, keep):
    if not shape:
        return ()
    return shape[:axis] + ((1,) if keep else ()) + shape[axis + 1:]


def check_arg(op, x, axis, idx_dtype=np.int32, keep=False):
    """C++ vs numpy for one arg-reduction call; both raise or both agree exactly."""
    shape = out_shape(x.shape, axis, keep if op in ARG_V else False)
    fn, oracle = {**ARG, **ARG_V}[op]
    got, want = np.full(shape, -5, idx_dtype), np.full(shape, -5, idx_dtype)
    args = (x, got, axis)
    if op in ARG_V:
        gv, wv = np.zeros(shape, x.dtype), np.zeros(shape, x.dtype)
        fn(x, got, gv, axis, keep)
        oracle(x, want, wv, axis, keep)
        np.testing.assert_array_equal(gv, wv)
    else:
        fn(*args)
        oracle(x, want, axis)
    np.testing.assert_array_equal(got, want)


@st.composite
def arg_cases(draw):
    dtype = draw(st.sampled_from(NUMBERS))
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=4, min_side=1, max_side=6))
    x = layout(tie_array(draw, dtype, shape), draw(st.sampled_from(
        ["contig", "noncontig", "flipped", "transposed"])))
    axis = draw(st.integers(0, max(x.ndim - 1, 0)))
    return x, axis


@settings(max_examples=80, deadline=None)
@given(arg_cases(), st.sampled_from(list(ARG) + list(ARG_V)), st.booleans(),
       st.sampled_from([np.int32, np.int64]))
def test_arg_reductions_match_numpy(case, op, keep, idx_dtype):
    x, axis = case
    check_arg(op, x, axis, idx_dtype, keep)


@pytest.mark.parametrize("dtype", NUMBERS)
@pytest.mark.parametrize("n", [1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 129, 1000])
def test_long_rows_and_columns_reach_every_loop(dtype, n):
    rng = np.random.default_rng(n)
    base = rng.integers(-3, 4, (5, n)).astype(dtype)
    cases = [base, -base]
    if np.dtype(dtype).kind == "f":
        with_nan = base.copy()
        with_nan[rng.random(base.shape) < 0.05] = np.nan
        cases += [with_nan, np.full_like(base, np.nan), rng.standard_normal((5, n)).astype(dtype)]
    for x in cases:
        for op in list(ARG) + list(ARG_V):
            check_arg(op, x, 1)               # rows of n
            check_arg(op, np.ascontiguousarray(x.T), 0)   # n columns side by side
            check_arg(op, x[:, ::-1], 1)


@pytest.mark.parametrize("op", list(ARG) + list(ARG_V))
def test_first_index_wins_at_every_position(op):
    for n in (5, 40, 200):
        for i in range(0, n, 3):
            x = np.zeros(n, np.float32)
            x[i] = x[(i + n // 2) % n] = 1.0 if "ax" in op else -1.0
            check_arg(op, x, 0)
            x[(i + 7) % n] = np.nan
            check_arg(op, x, 0)


@settings(max_examples=80, deadline=None)
@given(hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5), st.data())
def test_logical_reductions_match_numpy(shape, data):
    x = data.draw(hnp.arrays(np.bool_, shape, elements=st.booleans()))
    x = layout(x, data.draw(st.sampled_from(["contig", "noncontig", "flipped", "transposed"])))
    axes = tuple(sorted(data.draw(st.sets(st.integers(0, max(len(shape) - 1, 0)))))) \
        if shape else ()
    keep = data.draw(st.booleans())
    for op, (fn, oracle) in LOGIC.items():
        oshape = tuple(1 if i in axes else d for i, d in enumerate(shape)) if keep else \
            tuple(d for i, d in enumerate(shape) if i not in axes)
        got, want = np.zeros(oshape, bool), np.zeros(oshape, bool)
        fn(x, got, axes, keep)
        oracle(x, want, axes, keep)
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("n", [1, 63, 64, 65, 200_000])
@pytest.mark.parametrize("pos", [0, -1, None])
def test_logical_long_runs_and_columns(n, pos):
    for fill in (True, False):
        x = np.full(n, fill)
        if pos is not None:
            x[pos] = not fill
        for op, (fn, oracle) in LOGIC.items():
            got, want = np.zeros((), bool), np.zeros((), bool)
            with split(2):
                fn(x, got, (0,), False)
            oracle(x, want, (0,), False)
            assert got == want
            m = x[: n - n % 4].reshape(-1, 4) if n >= 4 else x.reshape(1, -1)
            got, want = np.zeros(m.shape[1], bool), np.zeros(m.shape[1], bool)
            fn(m, got, (0,), False)
            oracle(m, want, (0,), False)
            np.testing.assert_array_equal(got, want)


def test_logical_reads_any_nonzero_byte_as_true():
    raw = np.array([0, 2, 255, 1], np.uint8).view(np.bool_)
    got = np.zeros((), bool)
    _C.reduce_all_cpp(raw[1:], got, (0,), False)
    assert got
    _C.reduce_any_cpp(raw[:1], got, (0,), False)
    assert not got


def test_results_do_not_depend_on_the_thread_count():
    rng = np.random.default_rng(1)
    x = rng.integers(0, 50, (300, 257)).astype(np.float32)
    x[rng.random(x.shape) < 0.01] = np.nan
    b = rng.random((300, 257)) < 0.98
    runs = []
    for threads in (1, 2, 0):
        with split(threads):
            out = []
            for axis in (0, 1):
                i = np.empty(x.shape[1 - axis], np.int64)
                v = np.empty(x.shape[1 - axis], np.float32)
                _C.arg_min_with_value_cpp(x, i, v, axis, False)
                a = np.empty(x.shape[1 - axis], bool)
                _C.reduce_all_cpp(b, a, (axis,), False)
                out += [i, v, a]
            runs.append(out)
    for other in runs[1:]:
        for a, b2 in zip(runs[0], other):
            np.testing.assert_array_equal(a, b2)


def test_empty_axis_raises_and_writes_nothing():
    x = np.zeros((3, 0), np.float32)
    out = np.full(3, 7, np.int32)
    with pytest.raises(ValueError, match="'x' must not be empty along 'axis' 1"):
        _C.argmax_cpp(x, out, 1)
    assert (out == 7).all()
    _C.argmax_cpp(np.zeros((0, 4), np.float32), np.empty(0, np.int32), 0 + 1)


BAD_ARG = [
    ((np.zeros((2, 3), np.float16), np.empty(2, np.int32), 1), TypeError, "'x' dtype"),
    ((np.zeros((2, 3), bool), np.empty(2, np.int32), 1), TypeError, "'x' dtype"),
    (([[1.0]], np.empty(1, np.int32), 1), TypeError, "numpy.ndarray"),
    ((np.zeros((2, 3)), np.empty(2, np.float32), 1), TypeError, "'out' dtype"),
    ((np.zeros((2, 3)), np.empty(3, np.int32), 1), ValueError, "'out' shape"),
    ((np.zeros((2, 3)), np.empty(2, np.int32), 2), ValueError, "'axis' must be in"),
    ((np.zeros((2, 3)), np.empty(2, np.int32), -1), ValueError, "'axis' must be in"),
    ((np.zeros((2, 3)), np.empty(2, np.int32), 1.0), TypeError, "'axis' must be an int"),
    ((np.zeros((2, 3)), np.empty(4, np.int32)[::2], 1), ValueError, "C-contiguous"),
    ((np.zeros((2, 3)), np.empty(2, np.int32)), TypeError, "expected 3 arguments"),
]


@pytest.mark.parametrize("args, err, words", BAD_ARG)
def test_bad_arg_inputs_raise(args, err, words):
    with pytest.raises(err, match=words):
        _C.argmax_cpp(*args)


def test_bad_logical_and_with_value_inputs_raise():
    ro = np.zeros(3, bool)
    ro.flags.writeable = False
    cases = [
        (lambda: _C.reduce_any_cpp(np.zeros(3), np.zeros((), bool), (0,), False), TypeError,
         "'x' dtype"),
        (lambda: _C.reduce_any_cpp(np.zeros((2, 3), bool), ro, (0,), False), ValueError,
         "writeable"),
        (lambda: _C.reduce_any_cpp(np.zeros((2, 3), bool), np.zeros(3, bool), (1, 0), False),
         ValueError, "sorted"),
        (lambda: _C.reduce_any_cpp(np.zeros((2, 3), bool), np.zeros(3, bool), 0, False),
         TypeError, "tuple"),
        (lambda: _C.reduce_all_cpp(np.zeros((2, 3), bool), np.zeros(3, bool), (0,), 1),
         TypeError, "keep_dims"),
        (lambda: _C.arg_max_with_value_cpp(np.zeros((2, 3)), np.empty(2, np.int32),
                                           np.empty(2, np.float32), 1, False), TypeError,
         "'out_values' dtype"),
        (lambda: _C.arg_min_with_value_cpp(np.zeros((2, 3)), np.empty(2, np.int32),
                                           np.empty((2, 1)), 1, True), ValueError,
         "'out_index' shape"),
    ]
    for call, err, words in cases:
        with pytest.raises(err, match=words):
            call()


@pytest.mark.parametrize("op, dtype", [("Argmax", ms.float32), ("ArgMaxWithValue", ms.int64),
                                       ("Argmin", ms.float64), ("ArgMinWithValue", ms.int32),
                                       ("ReduceAll", ms.bool_), ("ReduceAny", ms.bool_)])
def test_registry_selects_the_cpp_kernels(op, dtype):
    assert registry.select_kernel(op, "CPU", dtype).provider == "cpp"


def test_ops_end_to_end():
    x = np.array([[1.0, 3.0, 3.0, np.nan], [2.0, -1.0, 2.0, 0.0]], np.float32)
    t = ms.Tensor(x)
    np.testing.assert_array_equal(ops.Argmax(axis=1)(t).asnumpy(), [3, 0])
    np.testing.assert_array_equal(ops.Argmin(axis=0)(t).asnumpy(), [0, 1, 1, 0])
    idx, val = ops.ArgMaxWithValue(axis=1, keep_dims=True)(t)
    np.testing.assert_array_equal(idx.asnumpy(), [[3], [0]])
    np.testing.assert_array_equal(val.asnumpy(), [[np.nan], [2.0]])
    b = ms.Tensor(x > 0)
    np.testing.assert_array_equal(ops.ReduceAll()(b, 1).asnumpy(), [False, False])
    np.testing.assert_array_equal(ops.ReduceAny(keep_dims=True)(b, (0, 1)).asnumpy(), [[True]])


def test_every_axis_set_of_a_4d_input():
    rng = np.random.default_rng(3)
    x = rng.random((3, 4, 2, 5)) < 0.8
    for r in range(5):
        for axes in itertools.combinations(range(4), r):
            for keep in (False, True):
                for op, (fn, oracle) in LOGIC.items():
                    want = np.zeros(np.all(x, axis=axes, keepdims=keep).shape, bool)
                    got = np.ones_like(want)
                    fn(np.asfortranarray(x), got, axes, keep)
                    oracle(x, want, axes, keep)
                    np.testing.assert_array_equal(got, want)


def test_outputs_sharing_memory_with_x_are_written_after_reading():
    rng = np.random.default_rng(9)
    for _ in range(20):
        buf = np.empty(64, np.int32)
        x = buf.view(np.float32).reshape(8, 8)
        x[:] = rng.standard_normal((8, 8))
        want = np.argmax(x, 1).astype(np.int32)
        _C.argmax_cpp(x, buf[8:16], 1)          # the indices overwrite x's second row
        np.testing.assert_array_equal(buf[8:16], want)
    b = np.array([[True, False], [True, True]])
    out = b[0]
    _C.reduce_all_cpp(b, out, (0,), False)
    np.testing.assert_array_equal(out, [True, False])
