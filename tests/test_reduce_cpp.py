"""C++ reduction and softmax kernels (csrc/kernels/reduce.cc, softmax.cc) called directly.

Against the numpy reference kernels: every op and registered dtype on 0-d, empty, contiguous,
non-contiguous, flipped, Fortran and transposed inputs, every axis combination, keep_dims,
NaN/inf; results bit-identical at every forced thread count (fixed blocks); the same results
from the loops compiled for lower ISAs; bad inputs raise TypeError / ValueError naming the
function, op and argument; the registry picks these kernels and the ops match numpy end to end.
"""
import itertools
import math
import os
import subprocess
import sys

import numpy as np
import pytest
from helpers import DEFAULT_THRESHOLD, arrays, noncontig, shapes, split
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import mindlite as ms
from mindlite import ops
from mindlite.common import dtype as mstype
from mindlite.kernels import registry
from mindlite.kernels.cpu._cext import _C

REDUCE_OPS = ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd"]
SOFTMAX_OPS = ["Softmax", "LogSoftmax"]
GRAD_OPS = ["SoftmaxGrad", "LogSoftmaxGrad"]
NUMBERS = [np.float32, np.float64, np.int32, np.int64]
FLOATS = [np.float32, np.float64]
LAYOUTS = ["contig", "noncontig", "flipped", "fortran", "transposed"]
PROD_VALUES = [0.0, -0.5, 0.5, 1.0, -1.0, 1.5, -2.0, np.nan, np.inf, -np.inf]
EPS = {np.dtype(np.float32): 2.0 ** -23, np.dtype(np.float64): 2.0 ** -52}


def kernel(op, provider):
    """The provider's float32 kernel (numpy also registers bfloat16 ones for some ops)."""
    (k,) = [k for k in registry.kernels_for(op)
            if k.provider == provider and k.supports(mstype.float32)]
    return k.fn


def layout(arr, kind):
    """A view of `arr` (same values, same shape unless transposed) in the given layout."""
    if arr.ndim == 0:
        return arr
    if kind == "noncontig":
        return noncontig(arr)
    if kind == "flipped":
        return np.flip(arr)
    if kind == "fortran":
        return np.asfortranarray(arr)
    if kind == "transposed":
        return np.ascontiguousarray(arr.T).T
    return arr


def out_shape(shape, axis, keep):
    if keep:
        return tuple(1 if i in axis else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axis)


def run_reduce(op, x, axis, keep, provider="cpp"):
    out = np.empty(out_shape(x.shape, axis, keep), x.dtype)
    kernel(op, provider)(x, out, axis, keep) if provider == "cpp" else \
        kernel(op, provider)(x, out, axis=axis, keep_dims=keep)
    return out


def assert_reduce_close(op, got, want, x, axis, keep):
    """Integers exactly; floats within a few ulp of sum |x| (numpy's float32 sum is pairwise
    in float32, ours accumulates in float64); NaN and inf where the reference has them."""
    assert got.shape == want.shape and got.dtype == want.dtype
    if x.dtype.kind != "f":
        np.testing.assert_array_equal(got, want)
        return
    eps = EPS[x.dtype]
    g, w = got.astype(np.float64), want.astype(np.float64)
    np.testing.assert_array_equal(np.isnan(g), np.isnan(w))
    fin = np.isfinite(w)
    np.testing.assert_array_equal(g[~fin & ~np.isnan(w)], w[~fin & ~np.isnan(w)])
    a = np.abs(x.astype(np.float64))
    a = np.where(np.isfinite(a), a, 0)
    if op in ("ReduceSum", "ReduceMean"):
        scale = np.sum(a, axis=axis, keepdims=keep)
        if op == "ReduceMean":
            scale = scale / max(1, int(np.prod([x.shape[i] for i in axis])))
        tol = 8 * eps * scale + 4 * eps * np.abs(w)
    else:
        tol = 64 * eps * np.abs(w)                     # Prod: order of rounding; Max/Min exact
    tol = np.broadcast_to(tol, w.shape)
    assert np.all(np.abs(g - w)[fin] <= tol[fin] + 1e-300), (got, want)


@st.composite
def reduce_case(draw, op):
    dtype = draw(st.sampled_from(NUMBERS))
    shape = draw(shapes(max_dims=4, max_side=3 if op == "ReduceProd" else 5))
    if op == "ReduceProd" and dtype in FLOATS:
        # no overflow or underflow of finite partial products: the order cannot matter
        x = draw(hnp.arrays(dtype, shape, elements=st.sampled_from(PROD_VALUES)))
    else:
        x = draw(arrays(dtype, shape))
    axis = tuple(i for i in range(len(shape)) if draw(st.booleans()))
    return layout(x, draw(st.sampled_from(LAYOUTS))), axis, draw(st.booleans())


@pytest.mark.parametrize("op", REDUCE_OPS)
@given(data=st.data())
def test_reduce_matches_numpy(op, data):
    x, axis, keep = data.draw(reduce_case(op))
    if op in ("ReduceMax", "ReduceMin") and any(x.shape[a] == 0 for a in axis):
        if np.prod(out_shape(x.shape, axis, keep)) > 0:
            with pytest.raises(ValueError, match="must not be empty"):
                run_reduce(op, x, axis, keep)
        return
    want = run_reduce(op, x, axis, keep, "numpy")
    for threads in (1, 2):
        with split(threads):
            assert_reduce_close(op, run_reduce(op, x, axis, keep), want, x, axis, keep)


def test_every_axis_combination_fixed_inputs():
    rng = np.random.default_rng(3)
    base = rng.standard_normal((3, 4, 5, 6)) * 10
    base[1, 2, 3] = np.nan
    base[2, 0, 0, 1] = np.inf
    pow2 = rng.choice([-1.0, 1.0, 0.5, 2.0, -0.5], base.shape)
    for dtype, op, kind, keep in itertools.product(NUMBERS, REDUCE_OPS, LAYOUTS, (False, True)):
        x = layout(base.astype(dtype) if dtype in FLOATS else
                   (base % 7).astype(dtype), kind)
        if op == "ReduceProd" and dtype in FLOATS:   # powers of two: exact in any order
            x = layout(np.where(np.isfinite(base), pow2, base).astype(dtype), kind)
        for r in range(5):
            for axis in itertools.combinations(range(4), r):
                want = run_reduce(op, x, axis, keep, "numpy")
                assert_reduce_close(op, run_reduce(op, x, axis, keep), want, x, axis, keep)


def test_empty_and_zero_d():
    for dtype in NUMBERS:
        z = np.zeros((3, 0, 2), dtype)
        assert run_reduce("ReduceSum", z, (1,), False).tolist() == [[0, 0]] * 3
        assert run_reduce("ReduceProd", z, (0, 1), True).tolist() == [[[1, 1]]]
        mean = run_reduce("ReduceMean", z, (1,), False)
        assert np.all(np.isnan(mean)) if dtype in FLOATS else np.all(mean == 0)
        assert run_reduce("ReduceMax", z, (0, 2), False).shape == (0,)
        with pytest.raises(ValueError, match="ReduceMin.*must not be empty"):
            run_reduce("ReduceMin", z, (1,), False)
        s = np.array(7, dtype)
        for op in REDUCE_OPS:
            assert run_reduce(op, s, (), False).tolist() == 7
    for op in SOFTMAX_OPS:
        out = np.empty((), np.float32)
        _C.SOFTMAX_KERNELS[op](np.array(3.0, np.float32), out, 0)
        assert out == (1.0 if op == "Softmax" else 0.0)
        _C.SOFTMAX_KERNELS[op](np.zeros((0, 3), np.float64), np.zeros((0, 3)), 1)


def test_float_edges():
    for dtype in FLOATS:
        x = np.array([[1, np.nan, 3], [-np.inf, 2, np.inf], [0, -0.0, 5]], dtype)
        np.testing.assert_array_equal(run_reduce("ReduceMax", x, (1,), False),
                                      np.array([np.nan, np.inf, 5], dtype))
        np.testing.assert_array_equal(run_reduce("ReduceMin", x, (0,), False),
                                      np.array([-np.inf, np.nan, 3], dtype))
        assert np.isnan(run_reduce("ReduceSum", x[1:2], (1,), False)[0])
        big = np.full(100000, 1e35 if dtype == np.float32 else 1e305, dtype)
        assert run_reduce("ReduceSum", big, (0,), False) == np.inf
        # 1 + many tiny values: an error at or below numpy's (exact value from math.fsum)
        t = np.full(1 << 17, 1e-8, dtype)
        t[0] = 1
        exact = math.fsum(t.astype(np.float64).tolist())
        err = abs(float(run_reduce("ReduceSum", t, (0,), False)) - exact)
        assert err <= abs(float(np.sum(t)) - exact) + 4 * EPS[np.dtype(dtype)]
    i = np.array([2**31 - 1, 2**31 - 1, 5], np.int32)
    assert run_reduce("ReduceSum", i, (0,), False) == np.sum(i, dtype=np.int32)
    assert run_reduce("ReduceMean", np.array([-3, -4], np.int64), (0,), False) == -3


LARGE = [((5, 70001), (1,)), ((70001, 5), (0,)), ((300, 700), (0, 1)), ((3, 40000, 3), (1,)),
         ((6, 50, 700), (0, 2)), ((200003,), (0,))]


@pytest.mark.parametrize("shape,axis", LARGE)
def test_bitwise_same_at_every_thread_count(shape, axis):
    rng = np.random.default_rng(sum(shape))
    counts = sorted(set(range(1, _C.max_threads() + 1)) | {3, 4})
    for dtype in NUMBERS:
        x = (rng.standard_normal(shape) * 100).astype(dtype)
        for op, kind in itertools.product(REDUCE_OPS, ("contig", "transposed", "flipped")):
            v = layout(x if op != "ReduceProd" else (x % 3 + 0.5).astype(dtype), kind)
            results = []
            for k in counts:
                with split(k, DEFAULT_THRESHOLD if k == counts[0] else 64):
                    results.append(run_reduce(op, v, axis, False))
            with split(0, DEFAULT_THRESHOLD):
                results.append(run_reduce(op, v, axis, False))
            for r in results[1:]:
                assert r.tobytes() == results[0].tobytes(), (op, dtype, kind, counts)
            want = run_reduce(op, v, axis, False, "numpy")
            assert_reduce_close(op, results[0], want, v, axis, False)


def ref_softmax(op, x, axis, dy=None):
    out = np.empty(x.shape, x.dtype)
    if dy is None:
        kernel(op, "numpy")(x, out, axis=axis)
    else:
        kernel(op, "numpy")(x, dy, out, axis=axis)
    return out


def run_softmax(op, x, axis, dy=None):
    out = np.empty(x.shape, x.dtype)
    f = _C.SOFTMAX_KERNELS[op]
    f(x, out, axis) if dy is None else f(x, dy, out, axis)
    return out


def assert_softmax_close(got, want, scale=1.0):
    """scale: the size of the terms a result is the difference of (grads: 1 + max |dy|)."""
    tol = {np.dtype(np.float32): 2e-6, np.dtype(np.float64): 1e-12}[want.dtype]
    np.testing.assert_allclose(got, want, rtol=tol * 4, atol=tol * 4 * scale, equal_nan=True)


@pytest.mark.parametrize("op", SOFTMAX_OPS + GRAD_OPS)
@given(data=st.data())
def test_softmax_matches_numpy(op, data):
    dtype = data.draw(st.sampled_from(FLOATS))
    shape = data.draw(shapes(max_dims=4, max_side=6))
    nd = len(shape)
    axis = data.draw(st.integers(0, max(nd - 1, 0)))
    grad = op in GRAD_OPS
    x = data.draw(arrays(dtype, shape, allow_special=not grad, min_value=-30, max_value=30))
    dy = data.draw(arrays(dtype, shape, allow_special=False)) if grad else None
    if op == "SoftmaxGrad":
        x = np.asarray(np.abs(x) / (1 + np.abs(x).max(initial=0)), dtype)
    elif op == "LogSoftmaxGrad":
        x = np.asarray(-np.abs(x), dtype)
    kinds = data.draw(st.sampled_from(LAYOUTS[:4])), data.draw(st.sampled_from(LAYOUTS[:4]))
    x = layout(x, kinds[0])
    dy = layout(dy, kinds[1]) if grad else None
    want = ref_softmax(op, x, axis, dy)
    scale = 1 + float(np.abs(dy).max(initial=0)) if grad else 1.0
    for threads in (1, 2):
        with split(threads):
            assert_softmax_close(run_softmax(op, x, axis, dy), want, scale)


@pytest.mark.parametrize("shape,axis", [((3, 70001), 1), ((700, 300), 0), ((5, 1000, 33), 1),
                                        ((4000, 40), 1), ((2, 257, 600), 2)])
def test_softmax_bitwise_same_at_every_thread_count(shape, axis):
    rng = np.random.default_rng(7)
    counts = sorted(set(range(1, _C.max_threads() + 1)) | {3, 4})
    for dtype, op in itertools.product(FLOATS, SOFTMAX_OPS + GRAD_OPS):
        x = (rng.standard_normal(shape) * 5).astype(dtype)
        dy = (rng.standard_normal(shape)).astype(dtype) if op in GRAD_OPS else None
        if dy is None:
            x.flat[::9973] = np.nan
        else:                            # y: the forward output the gradient is taken at
            x = ref_softmax(op.replace("Grad", ""), x, axis)
        results = []
        for k in counts:
            with split(k):
                results.append(run_softmax(op, x, axis, dy))
        for r in results[1:]:
            assert r.tobytes() == results[0].tobytes(), (op, dtype)
        assert_softmax_close(results[0], ref_softmax(op, x, axis, dy))


def test_softmax_special_values():
    x = np.array([[0, -np.inf, 1], [np.nan, 0, 0], [np.inf, 0, 0], [-np.inf] * 3], np.float32)
    for op in SOFTMAX_OPS:
        with np.errstate(all="ignore"):
            want = ref_softmax(op, x, 1)
        got = run_softmax(op, x, 1)
        assert_softmax_close(got, want)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        assert got[0, 1] == (0 if op == "Softmax" else -np.inf)
        inplace = x.copy()
        _C.SOFTMAX_KERNELS[op](inplace, inplace, 1)
        np.testing.assert_array_equal(inplace, got)


def check_fixed_inputs():
    """Reductions are bitwise the same on every ISA (8-lane vectors everywhere); prints them."""
    rng = np.random.default_rng(11)
    x = (rng.standard_normal((37, 1029)) * 30)
    digest = []
    for dtype, op, axis in itertools.product(NUMBERS, REDUCE_OPS, [(0,), (1,), (0, 1)]):
        v = x.astype(dtype) if op != "ReduceProd" else (x % 2 + 0.5).astype(dtype)
        digest.append(run_reduce(op, v, axis, False).tobytes().hex())
    for dtype, op in itertools.product(FLOATS, SOFTMAX_OPS):
        v = x.astype(dtype)
        assert_softmax_close(run_softmax(op, v, 1), ref_softmax(op, v, 1))
    return digest


@pytest.mark.parametrize("isa", ["base", "avx2"])
def test_other_isa_builds(isa):
    code = (f"import sys; sys.path.insert(0, {os.path.dirname(__file__)!r}); "
            "import test_reduce_cpp as t; print(hash(tuple(t.check_fixed_inputs())))")
    env = dict(os.environ, MINDLITE_ISA=isa, PYTHONHASHSEED="0")
    res = subprocess.run([sys.executable, "-c", code], check=False, env=env,
                         capture_output=True, text=True, timeout=120, cwd=os.getcwd())
    assert res.returncode == 0, res.stderr[-3000:]
    mine = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                          text=True, timeout=120, cwd=os.getcwd(),
                          env=dict(os.environ, PYTHONHASHSEED="0"))
    assert res.stdout.split()[-1] == mine.stdout.split()[-1]


def test_bad_inputs_raise():
    f = np.zeros((2, 3), np.float32)
    s, mx = _C.REDUCE_KERNELS["ReduceSum"], _C.REDUCE_KERNELS["ReduceMax"]
    sm, sg = _C.SOFTMAX_KERNELS["Softmax"], _C.SOFTMAX_KERNELS["SoftmaxGrad"]
    o2 = np.zeros(2, np.float32)
    cases = [
        (TypeError, "ReduceSum.*'x' dtype", lambda: s(f.astype(np.float16), o2, (1,), False)),
        (TypeError, "'x' dtype", lambda: s(f.astype(np.bool_), o2, (1,), False)),
        (TypeError, "'x' dtype", lambda: s(f.astype(">f4"), o2, (1,), False)),
        (TypeError, "'out' dtype", lambda: s(f, o2.astype(np.float64), (1,), False)),
        (TypeError, "'x' must be a numpy.ndarray", lambda: s([1.0], o2, (0,), False)),
        (TypeError, "'out' must be a numpy.ndarray", lambda: s(f, None, (1,), False)),
        (TypeError, "'axis' must be a tuple", lambda: s(f, o2, 1, False)),
        (TypeError, "'axis' must hold ints", lambda: s(f, o2, (True,), False)),
        (TypeError, "'axis' must hold ints", lambda: s(f, o2, (1.0,), False)),
        (ValueError, "'axis' must be in", lambda: s(f, o2, (2,), False)),
        (ValueError, "'axis' must be in", lambda: s(f, o2, (-1,), False)),
        (ValueError, "'axis' must be in", lambda: s(f, o2, (2**80,), False)),
        (ValueError, "sorted", lambda: s(f, np.zeros((), np.float32), (1, 0), False)),
        (ValueError, "sorted", lambda: s(f, o2, [1, 1], False)),
        (TypeError, "'keep_dims' must be a bool", lambda: s(f, o2, (1,), 0)),
        (ValueError, "'out' shape", lambda: s(f, o2, (1,), True)),
        (ValueError, "'out' shape", lambda: s(f, np.zeros(3, np.float32), (1,), False)),
        (ValueError, "C-contiguous", lambda: s(f, np.zeros((2, 2), np.float32)[:, 0], (1,),
                                                 False)),
        (ValueError, "writeable", lambda: s(f, np.broadcast_to(np.float32(0), (2,)), (1,),
                                              False)),
        (TypeError, "expected 4 arguments", lambda: s(f, o2, (1,))),
        (ValueError, "ReduceMax.*must not be empty",
         lambda: mx(np.zeros((2, 0), np.float32), o2, (1,), False)),
        (TypeError, "Softmax.*'x' dtype", lambda: sm(f.astype(np.int32), f, 1)),
        (TypeError, "'out' dtype", lambda: sm(f, f.astype(np.float64), 1)),
        (ValueError, "'out' shape", lambda: sm(f, f.T.copy(), 1)),
        (ValueError, "'axis' must be in", lambda: sm(f, f.copy(), 2)),
        (ValueError, "'axis' must be in", lambda: sm(f, f.copy(), -1)),
        (TypeError, "'axis' must hold ints", lambda: sm(f, f.copy(), None)),
        (TypeError, "expected 3 arguments", lambda: sm(f, f.copy())),
        (TypeError, "expected 4 arguments", lambda: sg(f, f, f.copy())),
        (TypeError, "'dy' dtype", lambda: sg(f, f.astype(np.float64), f.copy(), 1)),
        (ValueError, "'dy' shape", lambda: sg(f, f[:, :2], f.copy(), 1)),
        (TypeError, "'y' must be a numpy.ndarray", lambda: sg(1.0, f, f.copy(), 1)),
    ]
    for exc, msg, call in cases:
        with pytest.raises(exc, match=msg) as info:
            call()
        assert "mindlite._C." in str(info.value)
    ro = np.zeros(2, np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        s(f, ro, (1,), False)


def test_overlap_and_alignment():
    buf = np.arange(12, dtype=np.float64)
    s = _C.REDUCE_KERNELS["ReduceSum"]
    s(buf.reshape(3, 4), buf[:4], (0,), False)      # out overlaps x: x is read first
    np.testing.assert_array_equal(buf[:4], np.arange(12.0).reshape(3, 4).sum(0))
    raw = np.zeros(8 * 56 + 1, np.uint8)[1:].view(np.float64).reshape(7, 8)  # unaligned
    raw[...] = np.arange(56).reshape(7, 8)
    out = np.empty(8)
    s(raw, out, (0,), False)
    np.testing.assert_array_equal(out, np.arange(56.0).reshape(7, 8).sum(0))
    b = np.broadcast_to(np.arange(5, dtype=np.float32), (1000, 5))  # zero strides
    out = np.empty(5, np.float32)
    s(b, out, (0,), False)
    np.testing.assert_array_equal(out, np.arange(5) * 1000.0)


def test_registry_picks_cpp_and_ops_match_numpy():
    for op in REDUCE_OPS + SOFTMAX_OPS + GRAD_OPS:
        # the first float32 kernel (float16 has its own C++ provider, cpp_f16)
        first32 = [k for k in registry.kernels_for(op) if k.supports(mstype.float32)][0]
        assert first32.provider == "cpp"
        assert any(k.provider == "numba" for k in registry.kernels_for(op)) or op in GRAD_OPS
    a = np.random.default_rng(0).standard_normal((4, 6)).astype(np.float32)
    t = ms.Tensor(a)
    np.testing.assert_allclose(ops.sum(t).asnumpy(), a.sum(), rtol=1e-6)
    np.testing.assert_allclose(ops.softmax(t, -1).asnumpy(), ref_softmax("Softmax", a, 1),
                               rtol=1e-6, atol=1e-7)
