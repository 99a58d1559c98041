"""C++ kernels (mindlite._C, csrc/) called directly against numpy.

Every registered cpp kernel and every dtype it registers, on 0-d, empty, broadcast,
non-contiguous, negative-stride and NaN/inf inputs, at forced splits of 1 and 2 threads and the
measured (auto) split; large arrays (>= 1M elements) so the pool really splits, with results
bit-identical across splits; MatMul; aliasing and alignment; ISA variants; bad inputs raise
TypeError / ValueError naming the function and argument.
"""
import math
import multiprocessing
import os
import subprocess
import sys
import threading

import numpy as np
import pytest
from helpers import DEFAULT_THRESHOLD, arrays, broadcast_pairs, noncontig, shapes, split
from hypothesis import given, settings
from hypothesis import strategies as st

from mindlite.common import dtype as mstype
from mindlite.kernels import registry
from mindlite.kernels.cpu._cext import _C

SPLITS = [1, 2, 0]
LAYOUTS = ["contig", "noncontig", "flipped", "fortran"]


def cpp_kernel(op):
    (k,) = [k for k in registry.kernels_for(op) if k.provider == "cpp"]
    return k


def cpp_dtypes(op):
    return sorted((t.np for t in cpp_kernel(op).dtypes), key=str)


def layout(arr, kind):
    """A view of `arr` in the given memory layout (the reference sees the same view)."""
    if kind == "noncontig":
        return noncontig(arr)
    if kind == "flipped":
        return np.flip(arr) if arr.ndim else arr
    if kind == "fortran":
        return np.asfortranarray(arr)
    return arr


def _longdouble(x):
    return x.astype(np.float64 if x.dtype == np.float32 else np.longdouble)


def _sigmoid(v):
    return np.where(v >= 0, 1 / (1 + np.exp(-np.abs(v))),
                    np.exp(-np.abs(v)) / (1 + np.exp(-np.abs(v))))


GELU_K = np.sqrt(2 / np.pi)
_erf = np.vectorize(math.erf, otypes=[np.float64])
# Transcendental ops: reference in float64 (float32 inputs) / long double (float64 inputs).
APPROX = {
    "Exp": np.exp, "Log": np.log, "Sin": np.sin, "Cos": np.cos, "Tanh": np.tanh,
    "Sigmoid": _sigmoid, "SiLU": lambda v: v * _sigmoid(v),
    "Softplus": lambda v: np.logaddexp(np.zeros_like(v), v),
    "GeLU": lambda v: v * _sigmoid(2 * GELU_K * (v + v.dtype.type(0.044715) * v ** 3)),
    "Erf": lambda v: _erf(v.astype(np.float64)), "Rsqrt": lambda v: 1 / np.sqrt(v),
    # activation_ops (the SeLU constants as in activation_ops.py)
    "Elu": lambda v: np.where(v >= 0, v, np.expm1(np.minimum(v, 0))),      # elu(-0.0) = -0.0
    "SeLU": lambda v: 1.0507009873554804934193349852946 * np.where(
        v >= 0, v, 1.6732632423543772848170429916717 * np.expm1(np.minimum(v, 0))),
    "Mish": lambda v: v * np.tanh(np.logaddexp(np.zeros_like(v), v)),
    "LogSigmoid": lambda v: -np.logaddexp(np.zeros_like(v), -v),
}
# Exact ops: numpy in the input dtype, compared bit for bit (sign of zero included).
EXACT_UNARY = {
    "Abs": np.abs, "Neg": np.negative, "Square": np.square, "Sign": np.sign,
    "Floor": np.floor, "Ceil": np.ceil, "Round": np.round, "Sqrt": np.sqrt,
    "Reciprocal": np.reciprocal,
    "ReLU": lambda v: np.maximum(v, v.dtype.type(0)),
    "ReLU6": lambda v: np.minimum(np.maximum(v, v.dtype.type(0)), v.dtype.type(6)),
    "HSigmoid": lambda v: np.minimum(np.maximum(v + 3, 0), 6) / v.dtype.type(6),
    "HSwish": lambda v: np.where(v <= -3, v.dtype.type(0), np.where(
        v >= 3, v, np.minimum(np.maximum(v + 3, 0), 6) / v.dtype.type(6) * v)),
    "Softsign": lambda v: v / (np.abs(v) + v.dtype.type(1)),
}


def _c99_power(x, y):
    """np.power through numpy's long contiguous loop, which follows C99 like libm's pow
    (pow(-inf, 0.5) == inf, pow(-0.0, 0.5) == 0.0); numpy's short-array loop differs."""
    x, y = np.broadcast_arrays(x, y)
    pad = np.ones(64, x.dtype)
    r = np.power(np.concatenate([x.ravel(), pad]), np.concatenate([y.ravel(), pad]))
    return r[:x.size].reshape(x.shape)


BINARY = {
    "Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.true_divide,
    "RealDiv": np.true_divide, "Maximum": np.maximum, "Minimum": np.minimum,
    "FloorDiv": np.floor_divide, "FloorMod": np.remainder, "Pow": _c99_power,
    "Equal": np.equal, "NotEqual": np.not_equal, "Less": np.less, "LessEqual": np.less_equal,
    "Greater": np.greater, "GreaterEqual": np.greater_equal,
    "LogicalAnd": np.logical_and, "LogicalOr": np.logical_or,
}


def reference(op, *xs):
    with np.errstate(all="ignore"):
        if op in APPROX:
            (x,) = xs
            return APPROX[op](_longdouble(x)).astype(x.dtype)
        if op in EXACT_UNARY:
            return EXACT_UNARY[op](*xs)
        return BINARY[op](*xs)


def assert_matches(op, got, want):
    assert got.shape == want.shape and got.dtype == want.dtype
    if op in APPROX or op == "Pow":
        f32 = got.dtype == np.float32
        loose = op in ("GeLU", "Elu", "SeLU", "Mish", "LogSigmoid")
        rtol = (1e-5 if f32 else 1e-11) if loose else (1e-6 if f32 else 1e-12)
        atol = 1e-37 if f32 else 1e-300
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
        signed = (want == 0) | np.isinf(want)   # the sign of a zero or infinity is exact
        np.testing.assert_array_equal(np.signbit(got[signed]), np.signbit(want[signed]))
        return
    np.testing.assert_array_equal(got, want)
    if got.dtype.kind == "f":
        both = ~np.isnan(got) & ~np.isnan(want)
        np.testing.assert_array_equal(np.signbit(got[both]), np.signbit(want[both]))


def run_unary(op, x):
    out = np.empty(x.shape, x.dtype)
    cpp_kernel(op).fn(x, out)
    return out


def run_binary(op, x, y):
    shape = np.broadcast_shapes(x.shape, y.shape)
    out = np.empty(shape, np.bool_ if op in BOOL_RESULT else x.dtype)
    cpp_kernel(op).fn(x, y, out)
    return out


BOOL_RESULT = {"Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual",
               "LogicalAnd", "LogicalOr"}
UNARY_OPS = sorted(APPROX) + sorted(EXACT_UNARY)


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


LARGE_OPS = ["Add", "Mul", "Maximum", "GreaterEqual", "FloorMod", "ReLU", "Sigmoid", "Exp",
             "Tanh", "Sin"]


@pytest.mark.parametrize("op", LARGE_OPS)
@settings(max_examples=3)
@given(seed=st.integers(0, 2**32 - 1), dtype=st.sampled_from([np.float32, np.float64]),
       kind=st.sampled_from(["contig", "broadcast", "noncontig", "flipped"]))
def test_large_splits_identical_and_correct(op, seed, dtype, kind):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((1024, 1031)) * 20).astype(dtype)
    x.flat[::997] = np.nan
    y = (rng.standard_normal((1031,) if kind == "broadcast" else (1024, 1031)) * 5).astype(dtype)
    if kind == "noncontig":
        x = noncontig(x)
    elif kind == "flipped":
        x, y = np.flip(x), y[::-1]
    results = []
    for threads in SPLITS:
        with split(threads, DEFAULT_THRESHOLD):
            results.append(run_unary(op, x) if op in UNARY_OPS else run_binary(op, x, y))
    want = reference(op, x) if op in UNARY_OPS else reference(op, x, y)
    assert_matches(op, results[0], want)
    for r in results[1:]:
        assert r.tobytes() == results[0].tobytes()


def test_split_table_records_a_choice():
    _C.reset_split_table()
    x = np.ones(1 << 20, np.float32)
    out = np.empty_like(x)
    key = ("binary", "Add", "float32", 20)
    for _ in range(20 * _C.max_threads()):  # a few timed launches per candidate thread count
        _C.binary(_C.BINARY_OPS["Add"], x, x, out)
        if key in _C.split_table():
            break
    assert 1 <= _C.split_table()[key] <= _C.max_threads()
    np.testing.assert_array_equal(out, 2)


def test_threads_share_the_pool():
    x = np.arange(1 << 20, dtype=np.float64)
    outs = [np.empty_like(x) for _ in range(4)]
    workers = [threading.Thread(target=_C.UNARY_KERNELS["Sqrt"], args=(x, o)) for o in outs]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    for o in outs:
        np.testing.assert_array_equal(o, np.sqrt(x))


def _mul_large():
    x = np.arange(1 << 20, dtype=np.float32)
    out = np.empty_like(x)
    with split(2, 1024):
        _C.binary(_C.BINARY_OPS["Mul"], x, x, out)
    return bool(np.array_equal(out, x * x))


def _fork_child(conn):
    conn.send(_mul_large())


def test_pool_works_after_fork():
    assert _mul_large()  # the parent's pool workers exist before the fork
    ctx = multiprocessing.get_context("fork")
    parent, child = ctx.Pipe()
    p = ctx.Process(target=_fork_child, args=(child,))
    p.start()
    assert parent.poll(60) and parent.recv() is True
    p.join(10)


@pytest.mark.parametrize("isa", ["base", "avx2"])
def test_other_isa_builds(isa):
    """The loops compiled for a lower instruction set give the same answers."""
    code = (f"import sys; sys.path.insert(0, {os.path.dirname(__file__)!r}); "
            "import test_cpp_kernels as t; t.check_all_ops_fixed_inputs()")
    env = dict(os.environ, MINDLITE_ISA=isa)
    res = subprocess.run([sys.executable, "-c", code], check=False, env=env,
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr[-3000:]
    if _C.kernel_isa() in ("avx512", "avx2") or isa == "base":
        assert res.stdout.split()[-1] == isa


def test_all_ops_every_dtype_fixed_inputs():
    check_all_ops_fixed_inputs()
    x = np.array([0, 1, -2, 0], np.int64)
    for dtype in (np.float32, np.float64, np.int32, np.int64):  # C-level logical ops on numbers
        for op in ("LogicalAnd", "LogicalOr"):
            out = np.empty(4, np.bool_)
            _C.binary(_C.BINARY_OPS[op], x.astype(dtype), x[::-1].astype(dtype), out)
            np.testing.assert_array_equal(out, BINARY[op](x, x[::-1]))


def check_all_ops_fixed_inputs():
    rng = np.random.default_rng(1)
    for dtype in (np.float32, np.float64, np.int32, np.int64, np.bool_):
        x = (rng.standard_normal((37, 29)) * 30).astype(dtype)
        y = (rng.standard_normal(29) * 4).astype(dtype)
        if dtype in (np.float32, np.float64):
            x[0, :6] = [np.nan, np.inf, -np.inf, 0, -0.0, 1e-40]
        for op in UNARY_OPS:
            if dtype in cpp_dtypes(op):
                assert_matches(op, run_unary(op, x), reference(op, x))
        for op in BINARY:
            if dtype in cpp_dtypes(op):
                assert_matches(op, run_binary(op, x, y), reference(op, x, y))
        if dtype in (np.float32, np.float64):
            check_negative_zero_scalars(dtype)
    print(_C.kernel_isa())


def check_negative_zero_scalars(dtype):
    """A 0-d -0.0 operand on either side of every binary op keeps its sign in the
    broadcast-scalar loops (Pow(-0.0, [-1, 3]) is [-inf, -0.0], as numpy), at every length
    around the vector widths."""
    zero = np.array(-0.0, dtype)
    pattern = np.array([-1, 3, -3, 1, 0.5, -2.5, 2, -0.0, 0, np.inf, -np.inf, np.nan], dtype)
    for n in (1, 2, 3, 5, 8, 9, 17, 40):
        other = np.resize(pattern, n)
        for op in BINARY:
            if dtype in cpp_dtypes(op):
                for x, y in ((zero, other), (other, zero)):
                    assert_matches(op, run_binary(op, x, y), reference(op, x, y))


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


def test_when_predicates_pick_small_sizes_only():
    when = cpp_kernel("MatMul").when
    f32 = mstype.float32
    from mindlite.abstract import AbstractTensor
    assert when(AbstractTensor(f32, (4, 4)), AbstractTensor(f32, (4, 4)))
    assert when(AbstractTensor(f32, (32, 7)), AbstractTensor(f32, (7, 32)))
    assert not when(AbstractTensor(f32, (256, 256)), AbstractTensor(f32, (256, 4)))
    assert not when(AbstractTensor(f32, (2, 4, 4)), AbstractTensor(f32, (4, 4)))
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
