"""C++ kernels (mindlite._C, csrc/) called directly against numpy: correctness.

Every registered cpp kernel and every dtype it registers, on 0-d, empty, broadcast,
non-contiguous, negative-stride and NaN/inf inputs, at forced splits of 1 and 2 threads and the
measured (auto) split; MatMul; aliasing and alignment; bad inputs raise TypeError / ValueError
naming the function and argument. Large arrays, the pool, fork and ISA variants:
test_cpp_pool.py; the references: cpp_reference.py.
"""

import numpy as np
import pytest
from cpp_reference import (BINARY, LAYOUTS, SPLITS, UNARY_OPS, assert_matches,
                           check_all_ops_fixed_inputs, cpp_dtypes, cpp_kernel, layout, reference,
                           run_binary, run_unary)
from helpers import arrays, broadcast_pairs, shapes, split
from hypothesis import given
from hypothesis import strategies as st

from mindlite.common import dtype as mstype
from mindlite.kernels.cpu._cext import _C


def test_every_op_has_a_cpp_kernel():
    for op in UNARY_OPS + sorted(BINARY) + ["MatMul"]:
        assert cpp_kernel(op).fn is not None
    assert set(_C.UNARY_OPS) == set(UNARY_OPS)
    assert set(_C.BINARY_OPS) == set(BINARY)
    assert _C.BINARY_OPS["RealDiv"] == _C.BINARY_OPS["Div"]


def at_every_split(run, *args):
    """run(*args) forced to 1 and 2 threads and at the measured split, arrays from 64
    elements split; the three results must be bit-identical."""
    results = []
    for threads in SPLITS:
        with split(threads):
            results.append(run(*args))
    for r in results[1:]:
        assert r.tobytes() == results[0].tobytes()
    return results[0]


@pytest.mark.parametrize("op", UNARY_OPS)
@given(data=st.data())
def test_unary_matches_numpy(op, data):
    dtype = data.draw(st.sampled_from(cpp_dtypes(op)))
    x = layout(data.draw(arrays(dtype, shapes(max_side=9))), data.draw(st.sampled_from(LAYOUTS)))
    assert_matches(op, at_every_split(run_unary, op, x), reference(op, x))


@pytest.mark.parametrize("op", sorted(BINARY))
@given(data=st.data())
def test_binary_matches_numpy(op, data):
    dtype = data.draw(st.sampled_from(cpp_dtypes(op)))
    sx, sy = data.draw(broadcast_pairs(max_side=7))
    x = layout(data.draw(arrays(dtype, sx)), data.draw(st.sampled_from(LAYOUTS)))
    y = layout(data.draw(arrays(dtype, sy)), data.draw(st.sampled_from(LAYOUTS)))
    if data.draw(st.booleans()) and x.ndim:  # a scalar operand: the SV / VS fast paths
        y = layout(data.draw(arrays(dtype, ())), "contig")
    assert_matches(op, at_every_split(run_binary, op, x, y), reference(op, x, y))


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_integer_division_edges(dtype):
    info = np.iinfo(dtype)
    a = np.array([info.min, info.min, info.max, 7, -7, 7, -7, 0, 5, -5], dtype)
    b = np.array([-1, 1, -1, 2, 2, -2, -2, 0, 0, 0], dtype)
    for op in ("FloorDiv", "FloorMod", "Add", "Sub", "Mul"):
        assert_matches(op, run_binary(op, a, b), reference(op, a, b))
    for op in ("Abs", "Neg", "Square"):
        assert_matches(op, run_unary(op, a), reference(op, a))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float_edges(dtype):
    with np.errstate(over="ignore"):
        v = np.array([0.0, -0.0, 1.5, -1.5, 2.5, -2.5, 0.5, -0.5, 7, -7, np.inf, -np.inf, np.nan,
                      1e-40, -1e-300, 3e38, 1e300]).astype(dtype)
    a, b = np.meshgrid(v, v)
    for op in ("FloorDiv", "FloorMod", "Maximum", "Minimum", "Div", "Pow", "Less", "Equal"):
        assert_matches(op, run_binary(op, a, b), reference(op, a, b))
    for op in UNARY_OPS:
        assert_matches(op, run_unary(op, v), reference(op, v))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@given(data=st.data())
def test_floordiv_floormod_near_integer_quotients(dtype, data):
    """The FMA fmod path: quotients that round up to an integer must still give numpy's."""
    b = data.draw(arrays(dtype, (40,), allow_special=False, min_value=-50, max_value=50))
    q = data.draw(arrays(np.int32, (40,), min_value=-10**6, max_value=10**6)).astype(dtype)
    ulps = data.draw(arrays(np.int32, (40,), min_value=-2, max_value=2)).astype(dtype)
    a = q * b + ulps * np.spacing(q * b)
    for op in ("FloorDiv", "FloorMod"):
        assert_matches(op, run_binary(op, a, b), reference(op, a, b))


def test_all_ops_every_dtype_fixed_inputs():
    check_all_ops_fixed_inputs()
    x = np.array([0, 1, -2, 0], np.int64)
    for dtype in (np.float32, np.float64, np.int32, np.int64):  # C-level logical ops on numbers
        for op in ("LogicalAnd", "LogicalOr"):
            out = np.empty(4, np.bool_)
            _C.binary(_C.BINARY_OPS[op], x.astype(dtype), x[::-1].astype(dtype), out)
            np.testing.assert_array_equal(out, BINARY[op](x, x[::-1]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@given(data=st.data())
def test_matmul_matches_numpy(dtype, data):
    m, n, k = (data.draw(st.integers(0, 40)) for _ in range(3))
    ta, tb = data.draw(st.booleans()), data.draw(st.booleans())
    a = data.draw(arrays(dtype, (k, m) if ta else (m, k), allow_special=False,
                         min_value=-2, max_value=2))
    b = data.draw(arrays(dtype, (n, k) if tb else (k, n), allow_special=False,
                         min_value=-2, max_value=2))
    a, b = (layout(v, data.draw(st.sampled_from(LAYOUTS[:3]))) for v in (a, b))
    out = np.empty((m, n), dtype)
    cpp_kernel("MatMul").fn(a, b, out, transpose_a=ta, transpose_b=tb)
    want = np.matmul(a.T if ta else a, b.T if tb else b)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(out, want, rtol=tol, atol=tol * (k + 1))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@given(data=st.data())
def test_matmul_of_a_row_or_two_against_a_stored_weight(dtype, data):
    """The dot-product loop (1-2 rows of op(a) against b (n, k) as stored, transpose_b: a
    Dense layer at batch 1) for k around the vector width and larger, NaN and infinities
    included (their pattern does not depend on the summation order); a strided b takes the
    packed loop."""
    m, n = data.draw(st.integers(1, 2)), data.draw(st.integers(1, 130))
    k = data.draw(st.sampled_from([1, 3, 7, 8, 9, 16, 17, 33, 400]))
    a = data.draw(arrays(dtype, (m, k), allow_special=True, min_value=-2, max_value=2))
    b = data.draw(arrays(dtype, (n, k), allow_special=True, min_value=-2, max_value=2))
    if data.draw(st.booleans()):
        b = np.repeat(b, 2, axis=1)[:, ::2]           # the same values, strided
    out = np.empty((m, n), dtype)
    cpp_kernel("MatMul").fn(a, b, out, transpose_a=False, transpose_b=True)
    with np.errstate(all="ignore"):
        want = a.astype(np.float64) @ b.T.astype(np.float64)
    np.testing.assert_array_equal(np.isnan(out), np.isnan(want))
    finite = np.isfinite(want)
    np.testing.assert_array_equal(out[~finite & ~np.isnan(want)], want[~finite & ~np.isnan(want)])
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(out[finite], want[finite], rtol=tol, atol=tol * 2 * (k + 1))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_row_against_a_large_stored_weight_splits_with_the_same_bits(dtype):
    """A batch-1 Dense layer with a weight past 2**17 elements (MobileNetV2's 1000 x 1280 FC,
    and odd sizes) takes the dot-product loop (the when predicate), split across the pool:
    the same bits at 1, 2, 3 threads and the measured split; NaN / inf where they fall."""
    rng = np.random.default_rng(0)
    kernel = cpp_kernel("MatMul")
    from mindlite.abstract import AbstractTensor
    for m, n, k in ((1, 1000, 1280), (2, 1001, 1283), (1, 129, 1031)):
        a = rng.standard_normal((m, k)).astype(dtype)
        b = rng.standard_normal((n, k)).astype(dtype)
        a[0, 5], b[7, 3], b[n - 1, k - 1] = np.nan, np.inf, -np.inf
        assert kernel.when(AbstractTensor(mstype.float32, (m, k)),
                           AbstractTensor(mstype.float32, (n, k)))
        outs = []
        for threads in SPLITS + [3]:
            out = np.empty((m, n), dtype)
            with split(threads):
                kernel.fn(a, b, out, transpose_a=False, transpose_b=True)
            outs.append(out)
        for out in outs[1:]:
            np.testing.assert_array_equal(out, outs[0])
        with np.errstate(all="ignore"):
            want = a.astype(np.float64) @ b.T.astype(np.float64)
        np.testing.assert_array_equal(np.isnan(outs[0]), np.isnan(want))
        tol = 1e-5 if dtype == np.float32 else 1e-12
        fin = np.isfinite(want)
        np.testing.assert_allclose(outs[0][fin], want[fin], rtol=tol, atol=tol * 2 * (k + 1))


def test_when_predicates_pick_small_sizes_only():
    when = cpp_kernel("MatMul").when
    f32 = mstype.float32
    from mindlite.abstract import AbstractTensor
    assert when(AbstractTensor(f32, (4, 4)), AbstractTensor(f32, (4, 4)))
    assert when(AbstractTensor(f32, (32, 7)), AbstractTensor(f32, (7, 32)))
    assert not when(AbstractTensor(f32, (256, 256)), AbstractTensor(f32, (256, 4)))
    assert not when(AbstractTensor(f32, (2, 4, 4)), AbstractTensor(f32, (4, 4)))
    assert when(AbstractTensor(f32, (1, 400)), AbstractTensor(f32, (120, 400)))   # batch 1
    assert not when(AbstractTensor(f32, (4, 400)), AbstractTensor(f32, (120, 400)))
    assert not when(AbstractTensor(f32, (1, 1024)), AbstractTensor(f32, (1024, 1024)))
    assert when(AbstractTensor(f32, (1, 1280)), AbstractTensor(f32, (1000, 1280)))  # an FC
    assert not when(AbstractTensor(f32, (1, 1280)), AbstractTensor(f32, (1280, 1000)))
    assert not when(AbstractTensor(f32, (3, 1280)), AbstractTensor(f32, (1000, 1280)))
    assert not when(AbstractTensor(f32, (2, 70000)), AbstractTensor(f32, (2, 70000)))  # aT b
    pow_when = cpp_kernel("Pow").when
    assert pow_when(AbstractTensor(f32, (4, 4)), AbstractTensor(f32, ()))
    assert not pow_when(AbstractTensor(f32, (1024, 1024)), AbstractTensor(f32, ()))


def test_aliasing_and_alignment():
    buf = np.arange(10, dtype=np.float64)
    x = buf.copy()
    _C.UNARY_KERNELS["Neg"](x, x)  # out is x: in place
    np.testing.assert_array_equal(x, -buf)
    shifted = buf.copy()
    want = shifted[:-1] * 2
    _C.BINARY_KERNELS["Add"](shifted[:-1], shifted[:-1], shifted[1:])  # partial overlap
    np.testing.assert_array_equal(shifted[1:], want)
    raw = np.zeros(4 * 33 + 1, np.uint8)
    unaligned = raw[1:].view(np.float32)
    unaligned[:] = np.arange(33)
    assert not unaligned.flags.aligned
    out = np.empty(33, np.float32)
    _C.UNARY_KERNELS["Sqrt"](unaligned, out)
    np.testing.assert_array_equal(out, np.sqrt(np.arange(33, dtype=np.float32)))
    big = np.broadcast_to(np.float32(3), (1 << 20, 2))  # stride-0 input
    out = np.empty((1 << 20, 2), np.float32)
    _C.BINARY_KERNELS["Mul"](big, big[::-1], out)
    np.testing.assert_array_equal(out, 9)


def test_bad_inputs_raise():
    f = np.zeros((2, 3), np.float32)
    add, exp = _C.BINARY_KERNELS["Add"], _C.UNARY_KERNELS["Exp"]
    cases = [
        (TypeError, "'x' dtype", lambda: exp(np.zeros(3, np.float16), np.zeros(3, np.float16))),
        (TypeError, "'x' dtype", lambda: exp(np.zeros(3, np.int32), np.zeros(3, np.int32))),
        (TypeError, "'x' dtype", lambda: exp(np.zeros(3, ">f4"), np.zeros(3, np.float32))),
        (TypeError, "'y' dtype", lambda: add(f, f.astype(np.float64), f)),
        (TypeError, "'out' dtype", lambda: add(f, f, f.astype(np.float64))),
        (TypeError, "'out' dtype", lambda: _C.BINARY_KERNELS["Less"](f, f, f.copy())),
        (ValueError, "'out' shape", lambda: add(f, f, np.zeros((3, 2), np.float32))),
        (ValueError, "'out' shape", lambda: add(f, f[0], np.zeros((1, 2, 3), np.float32))),
        (ValueError, "'out' shape", lambda: exp(f, np.zeros(6, np.float32))),
        (ValueError, "not broadcastable", lambda: add(f, np.zeros(2, np.float32), f)),
        (ValueError, "C-contiguous", lambda: add(f, f, np.zeros((3, 2), np.float32).T)),
        (ValueError, "writeable", lambda: add(f, f, np.broadcast_to(np.float32(0), (2, 3)))),
        (TypeError, "'x' must be a numpy.ndarray", lambda: add([1.0], f, f)),
        (TypeError, "'out' must be a numpy.ndarray", lambda: exp(f, None)),
        (TypeError, "expected 3 arguments", lambda: add(f, f)),
        (ValueError, "'op' must be an op code", lambda: _C.binary(99, f, f, f)),
        (ValueError, "'op' must be an op code", lambda: _C.unary(-1, f, f)),
        (ValueError, "'op' must be an op code", lambda: _C.unary(2**70, f, f)),
        (TypeError, "'op' must be an int", lambda: _C.binary("Add", f, f, f)),
        (TypeError, "'a' dtype", lambda: _C.matmul(f.astype(np.int32), f, f)),
        (ValueError, "'a' must be 2-D", lambda: _C.matmul(f[0], f, f)),
        (ValueError, "contracted dims", lambda: _C.matmul(f, f, f)),
        (ValueError, "'out' shape", lambda: _C.matmul(f, f.T, np.zeros((3, 3), np.float32))),
        (TypeError, "'transpose_a' must be a bool", lambda: _C.matmul(f, f, f, transpose_a=1)),
        (TypeError, "keyword", lambda: _C.matmul(f, f.T, f[:, :2].copy(), transpose_c=True)),
    ]
    for exc, msg, call in cases:
        with pytest.raises(exc, match=msg) as info:
            call()
        assert "mindlite._C." in str(info.value)
    ro = np.zeros((2, 3), np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        add(f, f, ro)
