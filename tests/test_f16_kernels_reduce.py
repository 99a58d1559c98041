"""float16 C++ kernels, continued (test_f16_kernels.py has the conversions, the elementwise ops
and the shared helpers): reductions and the softmax family by hypothesis on 0-d, empty,
non-contiguous and reversed inputs with NaN / inf (within one ulp of the float64 result
rounded); bitwise the same results at every thread count; the C builtins and their Python
kernels bit for bit; selection through the ops API.
"""
import numpy as np
import pytest
from helpers import arrays, noncontig, shapes, split
from hypothesis import given, settings
from hypothesis import strategies as st
from test_f16_kernels import LAYOUTS, assert_ulp, bits, kernel, layout, numpy_kernel, rounded

import mindlite as ms
from mindlite import ops
from mindlite.kernels import registry
from mindlite.kernels.cpu import f16_cpp
from mindlite.kernels.cpu._cext import _C

THREADS = sorted(set(range(1, _C.max_threads() + 1)) | {3})


# ---- reductions and softmax ---------------------------------------------------------------
@st.composite
def reduce_case(draw):
    shape = draw(shapes(min_dims=0, max_dims=3, min_side=0, max_side=6))
    axes = draw(st.lists(st.integers(0, max(len(shape) - 1, 0)), unique=True,
                         max_size=len(shape))) if shape else []
    return shape, tuple(sorted(axes)), draw(st.booleans())


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(f16_cpp.REDUCE), reduce_case(), st.sampled_from(LAYOUTS), st.data())
def test_reductions(op, case, kind, data):
    shape, axis, keep = case
    x = layout(data.draw(arrays(np.float16, shape)), kind)
    want_shape = np.sum(np.zeros(shape), axis=axis, keepdims=keep).shape
    got = np.empty(want_shape, np.float16)
    if op in ("ReduceMax", "ReduceMin") and any(shape[a] == 0 for a in axis):
        if got.size:          # as the float32 kernel: an error only with outputs to fill
            with pytest.raises(ValueError, match="no identity"):
                kernel(op)(x, got, axis, keep)
        return
    kernel(op)(x, got, axis, keep)
    if op in ("ReduceMax", "ReduceMin"):
        want = np.empty(want_shape, np.float16)
        numpy_kernel(op)(x, want, axis=axis, keep_dims=keep)
        np.testing.assert_array_equal(bits(got), bits(want))
        return
    x64 = x.astype(np.float64)
    with np.errstate(all="ignore"):
        r = (np.sum if op == "ReduceSum" else np.mean)(x64, axis=axis, keepdims=keep)
    assert_ulp(got, rounded(r), 1)


def test_sum_accumulates_in_float32_along_every_axis():
    """As MindSpore: numpy's float16 sum along a strided axis rounds at every step."""
    x = np.full((4096, 2), 1.0, np.float16)
    got = np.empty(2, np.float16)
    kernel("ReduceSum")(x, got, (0,), False)
    np.testing.assert_array_equal(got, [4096.0, 4096.0])
    assert np.sum(x, axis=0)[0] == 2048.0       # the numpy float16 reference saturates


def softmax64(x, axis, log):
    with np.errstate(all="ignore"):
        s = x - np.max(x, axis=axis, keepdims=True)
        lse = np.log(np.sum(np.exp(s), axis=axis, keepdims=True))
        return s - lse if log else np.exp(s - lse)


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(f16_cpp.SOFTMAX), shapes(min_dims=1, max_dims=3, max_side=8),
       st.sampled_from(LAYOUTS), st.data())
def test_softmax_family(op, shape, kind, data):
    axis = data.draw(st.integers(0, len(shape) - 1))
    x = layout(data.draw(arrays(np.float16, shape, min_value=-20, max_value=20)), kind)
    got = np.empty(x.shape, np.float16)
    kernel(op)(x, got, axis)
    if x.size == 0:
        return
    assert_ulp(got, rounded(softmax64(x.astype(np.float64), axis, op == "LogSoftmax")), 1)


@pytest.mark.parametrize("shape", [(1000, 7), (3, 9000), (1, 20000), (513, 16)])
@pytest.mark.parametrize("op", f16_cpp.SOFTMAX)
def test_softmax_row_blocks(op, shape):
    """The blocked last-axis path: rows longer than a block, blocks ending mid-array."""
    x = (np.random.default_rng(5).standard_normal(shape) * 6).astype(np.float16)
    x[0, 0] = np.nan
    got = np.empty(shape, np.float16)
    kernel(op)(x, got, 1)
    assert_ulp(got, rounded(softmax64(x.astype(np.float64), 1, op == "LogSoftmax")), 1)


@pytest.mark.parametrize("op", f16_cpp.SOFTMAX_GRAD)
def test_softmax_grads(op):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((7, 33)).astype(np.float64)
    y = rounded(softmax64(x, 1, op == "LogSoftmaxGrad"))
    dy = rng.standard_normal(y.shape).astype(np.float16)
    got = np.empty(y.shape, np.float16)
    kernel(op)(y, noncontig(dy), got, 1)
    y64, dy64 = y.astype(np.float64), dy.astype(np.float64)
    if op == "SoftmaxGrad":
        want = y64 * (dy64 - np.sum(dy64 * y64, axis=1, keepdims=True))
    else:
        want = dy64 - np.exp(y64) * np.sum(dy64, axis=1, keepdims=True)
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=2e-3, atol=2e-3)


# ---- thread splits ------------------------------------------------------------------------
def _split_cases():
    rng = np.random.default_rng(11)
    x = (rng.standard_normal((97, 211)) * 4).astype(np.float16)
    x.flat[::37] = np.nan
    x.flat[5::41] = np.inf
    y = (rng.standard_normal((97, 211)) * 4).astype(np.float16)
    row = y[0].copy()
    return [
        ("Exp", lambda o: kernel("Exp")(x, o), x.shape),
        ("SiLU", lambda o: kernel("SiLU")(x, o), x.shape),
        ("Add", lambda o: kernel("Add")(x, y, o), x.shape),
        ("Div row", lambda o: kernel("Div")(x, row, o), x.shape),
        ("Maximum scalar", lambda o: kernel("Maximum")(np.float16(0.5).reshape(()), y, o),
         x.shape),
        ("ReduceSum", lambda o: kernel("ReduceSum")(y, o, (0,), False), (211,)),
        ("ReduceMean", lambda o: kernel("ReduceMean")(y.T, o, (1,), False), (211,)),
        ("ReduceMax rows", lambda o: kernel("ReduceMax")(x, o, (1,), False), (97,)),
        ("ReduceSum rows", lambda o: kernel("ReduceSum")(y, o, (1,), False), (97,)),
        ("Softmax", lambda o: kernel("Softmax")(y, o, 1), x.shape),
        ("LogSoftmax", lambda o: kernel("LogSoftmax")(y, o, 0), x.shape),
        ("LogSoftmax rows", lambda o: kernel("LogSoftmax")(y, o, 1), x.shape),
    ]


@pytest.mark.parametrize("case", _split_cases(), ids=lambda c: c[0])
def test_results_do_not_depend_on_the_thread_split(case):
    _, run, shape = case
    results = []
    for threads in THREADS + [0]:
        out = np.empty(shape, np.float16)
        with split(threads, threshold=256):
            run(out)
        results.append(bits(out).copy())
    for r in results[1:]:
        np.testing.assert_array_equal(r, results[0])


def _family_calls(rng):
    x = (rng.standard_normal((6, 40)) * 3).astype(np.float16)
    y = (rng.standard_normal((6, 40)) * 3).astype(np.float16)
    col = y[:, :1].copy()
    for op in f16_cpp.UNARY:
        yield op, (x,), x.shape, ()
    for op in f16_cpp.BINARY:
        yield op, (x, y), x.shape, ()
        yield op, (x, col), x.shape, ()               # broadcast: the float32 kernel in C
    x3 = (rng.standard_normal((5, 7, 300)) * 3).astype(np.float16)
    wide = (rng.standard_normal((3, 20000)) * 3).astype(np.float16)
    for op in f16_cpp.REDUCE:
        yield op, (x,), (40,), ((0,), False)          # first dim reduced: the float32 kernel
        yield op, (x,), (6,), ((1,), False)           # blocks of first-dim slices
        yield op, (x3,), (5, 1, 1), ((1, 2), True)
        yield op, (x3,), (5, 7), ((2,), False)
        yield op, (x3,), (5, 300), ((1,), False)
        yield op, (wide,), (3,), ((1,), False)        # slices longer than a block
    for op in f16_cpp.SOFTMAX:
        yield op, (x,), x.shape, (1,)
        yield op, (x,), x.shape, (0,)
    for op in f16_cpp.SOFTMAX_GRAD:
        yield op, (x, y), x.shape, (1,)


def test_builtins_and_python_kernels_agree():
    """The registered builtin (C for contiguous arrays) and its Python kernel, bit for bit."""
    for op, ins, shape, params in _family_calls(np.random.default_rng(2)):
        fn = kernel(op)
        assert type(fn) is type(len), op              # a builtin: no Python frame per call
        python = next(f[1] for f in f16_cpp.FAMILIES if op in f[0])(op)
        got, want = np.empty(shape, np.float16), np.empty(shape, np.float16)
        fn(*ins, got, *params)
        python(*ins, want, *params)
        np.testing.assert_array_equal(bits(got), bits(want), err_msg=op)


# ---- through the ops API, and errors ------------------------------------------------------
def test_ops_select_the_float16_kernels():
    x = np.linspace(-4, 4, 64).astype(np.float16).reshape(8, 8)
    t = ms.Tensor(x)
    for op in ("Softmax", "Add", "ReduceSum", "Exp"):
        assert registry.select_kernel(op, "CPU", ms.float16).provider == f16_cpp.PROVIDER
    got = ops.Softmax(-1)(t).asnumpy()
    assert got.dtype == np.float16
    assert_ulp(got, rounded(softmax64(x.astype(np.float64), 1, False)), 1)
    np.testing.assert_array_equal(bits((t + t).asnumpy()), bits(x + x))
    np.testing.assert_array_equal(ops.ReduceSum()(t, 1).asnumpy(),
                                  x.astype(np.float32).sum(1).astype(np.float16))
