"""math_ops through the public API (ops.X()(...), functional, Tensor operators) against numpy:
unary, binary (broadcasting, promotion), comparison, logical, Select, AddN, MatMul and
BatchMatMul; inference-only tests; error messages. Each forward test runs under the "ms"
policy (whichever kernel wins: cpp, numba or numpy) and under "vm" (numpy reference)."""
import math
import operator
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from helpers import (ALL_DTYPES, FLOAT_DTYPES, INT_DTYPES, arrays, assert_close,
                     broadcast_pairs, noncontig, shapes, tensor)

import mindlite as ms
from mindlite import Tensor, ops
from mindlite.abstract import abstract_tensor
from mindlite.common import dtype as mstype

NUM = INT_DTYPES + FLOAT_DTYPES
BOOL = [np.bool_]
with_fixture = settings(suppress_health_check=list(settings.default.suppress_health_check)
                        + [HealthCheck.function_scoped_fixture])




def _quiet(fn):
    def ref(*args):
        with np.errstate(all="ignore"):
            return np.asarray(fn(*args))
    return ref


def _erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x.astype(np.float64)).astype(x.dtype)


UNARY = {   # op: (functional, numpy reference in the input dtype, dtypes, method/operator)
    "Abs": (ops.abs, np.abs, NUM, operator.abs),
    "Neg": (ops.neg, np.negative, NUM, operator.neg),
    "Exp": (ops.exp, np.exp, FLOAT_DTYPES, Tensor.exp),
    "Log": (ops.log, np.log, FLOAT_DTYPES, Tensor.log),
    "Sqrt": (ops.sqrt, np.sqrt, FLOAT_DTYPES, Tensor.sqrt),
    "Rsqrt": (ops.rsqrt, lambda x: 1 / np.sqrt(x), FLOAT_DTYPES, None),
    "Square": (ops.square, np.square, NUM, Tensor.square),
    "Sin": (ops.sin, np.sin, FLOAT_DTYPES, None),
    "Cos": (ops.cos, np.cos, FLOAT_DTYPES, None),
    "Sign": (ops.sign, np.sign, NUM, None),
    "Floor": (ops.floor, np.floor, FLOAT_DTYPES, None),
    "Ceil": (ops.ceil, np.ceil, FLOAT_DTYPES, None),
    "Round": (ops.round, lambda x: np.rint(x) if x.dtype.kind == "f" else x.copy(), NUM, None),
    "Reciprocal": (ops.reciprocal, np.reciprocal, FLOAT_DTYPES, None),
    "Erf": (ops.erf, _erf, FLOAT_DTYPES, None),
    "LogicalNot": (ops.logical_not, np.logical_not, BOOL, operator.invert),
}


def _check_unary(name, x):
    fn, ref, _, method = UNARY[name]
    want = _quiet(ref)(x)
    t = tensor(x)
    assert_close(getattr(ops, name)()(t), want)
    assert_close(fn(t), want)                        # second call: the cached runner
    if method is not None:
        assert_close(method(t), want)
    np.testing.assert_array_equal(t.asnumpy(), x)   # the input is untouched


@pytest.mark.parametrize("name", sorted(UNARY))
@with_fixture
@given(data=st.data())
def test_unary(policy, name, data):
    dtype = data.draw(st.sampled_from(UNARY[name][2]))
    x = data.draw(arrays(dtype, shapes()))
    if data.draw(st.booleans()):
        x = noncontig(x)
    _check_unary(name, x)


SPECIAL = [0, 1, -1, 2.5, -2.5, 0.5, 7, 100, np.nan, np.inf, -np.inf]


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_every_dtype(policy, name):
    for dtype in UNARY[name][2]:
        kind = np.dtype(dtype).kind
        vals = [v for v in SPECIAL if kind == "f" or (np.isfinite(v) and v == int(v))]
        if kind == "u":
            vals = [v for v in vals if v >= 0]
        x = np.array(vals if kind != "b" else [True, False]).astype(dtype)
        for arr in (x, x[::2], x[:0], x[0, ...]):     # 1-D, strided, empty, 0-d
            _check_unary(name, arr)
    if UNARY[name][2] is FLOAT_DTYPES:
        with pytest.raises(TypeError, match=rf"^For '{name}', the type of 'x'.*but got Int32"):
            getattr(ops, name)()(Tensor(np.ones(2, np.int32)))


def _div_ref(x, y):
    if x.dtype.kind != "f":
        x, y = x.astype(np.float32), y.astype(np.float32)
    return np.true_divide(x, y)


def _int_map(fn):
    def ref(x, y):
        x, y = np.broadcast_arrays(x, y)
        out = [fn(int(a), int(b)) for a, b in zip(x.ravel(), y.ravel())]
        return np.array(out, dtype=np.int64).astype(x.dtype).reshape(x.shape)
    return ref


def _pow_int(a, b):
    if b >= 0:
        return a ** b
    return 1 if a == 1 else ((-1) ** (-b) if a == -1 else 0)


def _trunc_div_int(a, b):
    return 0 if b == 0 else (abs(a) // abs(b)) * (1 if (a < 0) == (b < 0) else -1)


def _real_div_int(x, y):
    """RealDiv of ints (MindSpore's CPU kernel): truncated quotient in x's dtype, x / 0 the
    dtype's max or min (0 / 0 = 0)."""
    info = np.iinfo(x.dtype)
    x, y = np.broadcast_arrays(x, y)
    out = [(info.max if a > 0 else info.min if a < 0 else 0) if b == 0 else _trunc_div_int(a, b)
           for a, b in zip(x.ravel().tolist(), y.ravel().tolist())]
    raw = np.array([v % (1 << info.bits) for v in out], dtype=f"u{info.bits // 8}")
    return raw.view(x.dtype).reshape(x.shape)


def _float_or(fn, int_ref):
    return lambda x, y: fn(x, y) if x.dtype.kind == "f" else int_ref(x, y)


BINARY = {   # op: (functional, numpy reference, dtypes, Tensor operator)
    "Add": (ops.add, np.add, ALL_DTYPES, operator.add),
    "Sub": (ops.sub, np.subtract, NUM, operator.sub),
    "Mul": (ops.mul, np.multiply, ALL_DTYPES, operator.mul),
    "Div": (ops.div, _div_ref, ALL_DTYPES, operator.truediv),
    "RealDiv": (ops.operations.RealDiv(), _float_or(np.true_divide, _real_div_int), NUM, None),
    "FloorDiv": (ops.floor_div, np.floor_divide, NUM, operator.floordiv),
    "FloorMod": (ops.floor_mod, np.remainder, NUM, operator.mod),
    "Mod": (ops.fmod, np.fmod, NUM, None),
    "TruncateDiv": (lambda x, y: ops.div(x, y, rounding_mode="trunc"),
                    _float_or(lambda x, y: np.trunc(x / y), _int_map(_trunc_div_int)), NUM, None),
    "Pow": (ops.pow, _float_or(np.power, _int_map(_pow_int)), NUM, operator.pow),
    "Maximum": (ops.maximum, np.maximum, ALL_DTYPES, Tensor.maximum),
    "Minimum": (ops.minimum, np.minimum, ALL_DTYPES, Tensor.minimum),
    "Equal": (ops.equal, np.equal, ALL_DTYPES, operator.eq),
    "NotEqual": (ops.not_equal, np.not_equal, ALL_DTYPES, operator.ne),
    "Less": (ops.less, np.less, ALL_DTYPES, operator.lt),
    "LessEqual": (ops.less_equal, np.less_equal, ALL_DTYPES, operator.le),
    "Greater": (ops.greater, np.greater, ALL_DTYPES, operator.gt),
    "GreaterEqual": (ops.greater_equal, np.greater_equal, ALL_DTYPES, operator.ge),
    "LogicalAnd": (ops.logical_and, np.logical_and, BOOL, operator.and_),
    "LogicalOr": (ops.logical_or, np.logical_or, BOOL, operator.or_),
}


def _check_binary(name, x, y):
    fn, ref, _, op = BINARY[name]
    target = mstype.promote(mstype.from_numpy_dtype(x.dtype), mstype.from_numpy_dtype(y.dtype))
    want = _quiet(ref)(x.astype(target.np), y.astype(target.np))
    tx, ty = tensor(x), tensor(y)
    assert_close(getattr(ops, name)()(tx, ty), want)
    assert_close(fn(tx, ty), want)
    if op is not None:
        assert_close(op(tx, ty), want)


@pytest.mark.parametrize("name", sorted(BINARY))
@with_fixture
@given(data=st.data())
def test_binary(policy, name, data):
    dx = data.draw(st.sampled_from(BINARY[name][2]))
    dy = dx if data.draw(st.booleans()) else data.draw(st.sampled_from(BINARY[name][2]))
    sx, sy = data.draw(broadcast_pairs())
    kw = {"min_value": -3, "max_value": 3} if name == "Pow" else {}   # int powers in range
    x = data.draw(arrays(dx, sx, **kw))
    y = data.draw(arrays(dy, sy, **kw))
    if data.draw(st.booleans()):
        x = noncontig(x)
    if data.draw(st.booleans()):
        y = noncontig(y)
    _check_binary(name, x, y)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_every_dtype(policy, name):
    for dtype in BINARY[name][2]:
        kind = np.dtype(dtype).kind
        if kind == "b":
            x, y = np.array([True, True, False, False]), np.array([True, False, True, False])
        else:
            x = np.array([7, -7, 0, 3, -2, 1] if kind != "u" else [7, 5, 0, 3, 2, 1], dtype)
            y = np.array([2, -3, 5, 0, 3, -1] if kind != "u" else [2, 3, 5, 0, 3, 1], dtype)
            if kind == "f":
                x[2], y[1] = np.nan, np.inf
        _check_binary(name, x, y)
        _check_binary(name, x[::2], y[1::2])               # strided
        _check_binary(name, x[:0], y[:1])                  # empty, broadcast
        _check_binary(name, x[3, ...], y)                  # 0-d with 1-D


def test_int_division_by_zero_is_quiet(policy):
    x = Tensor(np.array([5, -5, 0], np.int32))
    zero = Tensor(np.zeros(3, np.int32))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for fn in (ops.floor_div, ops.floor_mod, ops.fmod):
            np.testing.assert_array_equal(fn(x, zero).asnumpy(), [0, 0, 0])
        assert_close(x / zero, np.array([np.inf, -np.inf, np.nan], np.float32))
        assert_close(ops.log(Tensor([0.0, -1.0])), np.array([-np.inf, np.nan], np.float32))


def test_exact_values(policy):
    assert ops.FloorMod()(Tensor([-7, 7]), 3).tolist() == [2, 1]
    assert ops.Mod()(Tensor([-4.0, 5.0, 6.0]), Tensor([3.0, 2.0, 3.0])).tolist() == [-1, 1, 0]
    assert ops.floor_div(Tensor([-7, 7]), 2).tolist() == [-4, 3]
    assert ops.div(Tensor([-7, 7]), 2, rounding_mode="trunc").tolist() == [-3, 3]
    assert ops.round(Tensor([0.5, 1.5, 2.5, -0.5])).tolist() == [0, 2, 2, -0.0]
    assert ops.pow(Tensor([2, -1, -1, 1, 0]), Tensor([-1, -3, -2, -5, -1])).tolist() == \
        [0, -1, 1, 1, 0]
    assert ops.sign(Tensor([-3.0, 0.0, 2.0])).tolist() == [-1, 0, 1]
    assert np.isnan(ops.maximum(Tensor([np.nan, 1.0]), Tensor([0.0, np.nan])).asnumpy()).all()
    assert np.isnan(ops.minimum(Tensor([np.nan, 1.0]), Tensor([0.0, np.nan])).asnumpy()).all()


# ---- promotion (docs/mindspore_api.md) ------------------------------------------------
@pytest.mark.parametrize("a, b, want", [
    (np.int32, np.float32, ms.float32), (np.int32, np.int64, ms.int64),
    (np.int8, np.uint8, ms.int16), (np.float16, np.int64, ms.float16),
    (np.float16, np.float32, ms.float32), (np.int32, np.float64, ms.float64),
    (np.bool_, np.int8, ms.int8), (np.bool_, np.int32, ms.int32),
])
def test_tensor_promotion(a, b, want):
    x, y = Tensor(np.ones(2, a)), Tensor(np.ones(2, b))
    for out in (ops.Add()(x, y), x + y, y + x, x * y, ops.maximum(x, y)):
        assert out.dtype is want
    assert (x == y).dtype is ms.bool_
    assert_close(x + y, np.full(2, 2, want.np))


@pytest.mark.parametrize("dtype, scalar, want", [
    (np.int32, 1, ms.int32), (np.int8, 1, ms.int8), (np.int32, 1.5, ms.float32),
    (np.float16, 2.5, ms.float16), (np.float64, 2.5, ms.float64), (np.bool_, 1, ms.int64),
    (np.bool_, 1.0, ms.float32), (np.uint8, 3, ms.uint8), (np.int64, np.float64(1.5), ms.float32),
])
def test_scalar_promotion(dtype, scalar, want):
    x = Tensor(np.ones(3, dtype))
    outs = [x + scalar, x - scalar, x * scalar, ops.add(x, scalar), ops.add(scalar, x)]
    if not isinstance(scalar, np.generic):   # numpy scalars claim `scalar + x` themselves
        outs.append(scalar + x)
    for out in outs:
        assert out.dtype is want
    assert_close(x + scalar, (np.ones(3, dtype).astype(want.np) + want.np.type(scalar)))


def test_division_promotion():
    i = Tensor(np.array([1, 2, 3], np.int32))
    assert (i / i).dtype is ms.float32 and ops.Div()(i, i).dtype is ms.float32
    assert ops.true_divide(i, 2).dtype is ms.float32
    assert ops.RealDiv()(i, 2).dtype is ms.int32      # MindSpore's RealDiv keeps ints
    assert (i / 2).tolist() == [0.5, 1.0, 1.5]
    assert (i // 2).dtype is ms.int32 and (i // 2).tolist() == [0, 1, 1]
    assert (i % 2).dtype is ms.int32
    assert (i ** 2).dtype is ms.int32 and (i ** 0.5).dtype is ms.float32
    assert (Tensor(np.ones(2, np.float16)) / 3).dtype is ms.float16
    assert ops.div(Tensor([True]), Tensor([True])).dtype is ms.float32


def test_reverse_operators():
    x = Tensor(np.array([1.0, 2.0, 4.0], np.float32))
    assert (10 - x).tolist() == [9, 8, 6] and (8 / x).tolist() == [8, 4, 2]
    assert (2 ** x).tolist() == [2, 4, 16] and (9 // x).tolist() == [9, 4, 2]
    assert (7 % x).tolist() == [0, 1, 3] and (-x).tolist() == [-1, -2, -4]


# ---- Select, where, AddN, clamp -----------------------------------------------------------
@with_fixture
@given(data=st.data())
def test_select(policy, data):
    sc, sx, sy = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=3, max_dims=3)
                           .map(lambda b: b.input_shapes))
    dx, dy = data.draw(st.sampled_from(ALL_DTYPES)), data.draw(st.sampled_from(FLOAT_DTYPES))
    c, x, y = data.draw(arrays(np.bool_, sc)), data.draw(arrays(dx, sx)), data.draw(arrays(dy, sy))
    if data.draw(st.booleans()):
        c, x = noncontig(c), noncontig(x)
    target = mstype.promote(mstype.from_numpy_dtype(dx), mstype.from_numpy_dtype(dy)).np
    want = np.where(c, x.astype(target), y.astype(target))
    tc, tx, ty = tensor(c), tensor(x), tensor(y)
    assert_close(ops.Select()(tc, tx, ty), want)
    assert_close(ops.where(tc, tx, ty), want)
    assert_close(ops.select(tc, tx, ty), want)


def test_select_scalars(policy):
    c = Tensor([True, False, True])
    assert_close(ops.where(c, Tensor(np.array([1, 2, 3], np.int32)), 0.5),
                 np.array([1, 0.5, 3], np.float32))
    assert_close(ops.where(c, 1, Tensor(np.zeros((2, 1), np.int8))),
                 np.array([[1, 0, 1]] * 2, np.int8))
    assert_close(ops.where(True, Tensor([1.0]), Tensor([2.0])), np.array([1.0], np.float32))


@with_fixture
@given(data=st.data())
def test_addn(policy, data):
    dtype = data.draw(st.sampled_from(NUM))
    shape = data.draw(shapes(max_dims=3))
    n = data.draw(st.integers(1, 4))
    xs = [data.draw(arrays(dtype, shape)) for _ in range(n)]
    want = xs[0].copy()
    for x in xs[1:]:
        want = want + x
    ts = [tensor(noncontig(x)) for x in xs]
    assert_close(ops.AddN()(ts), want)
    assert_close(ops.addn(tuple(ts)), want)


@with_fixture
@given(x=arrays(np.float32, shapes()), lo=st.floats(-5, 5, width=32),
       hi=st.floats(-5, 5, width=32))
def test_clamp(policy, x, lo, hi):
    t = tensor(x)
    assert_close(ops.clamp(t, lo, hi), np.minimum(np.maximum(x, np.float32(lo)), np.float32(hi)))
    assert_close(t.clamp(min=lo), np.maximum(x, np.float32(lo)))
    assert_close(ops.clamp(t, max=Tensor(np.float32(hi))), np.minimum(x, np.float32(hi)))


# ---- MatMul / BatchMatMul / matmul ---------------------------------------------------------
def _small_ints(dtype, shape):      # integer-valued: every dtype computes these exactly
    return hnp.arrays(np.dtype(dtype), shape, elements=st.integers(-3, 3).map(
        lambda v: abs(v) if np.dtype(dtype).kind == "u" else v))


@with_fixture
@given(data=st.data())
def test_matmul_and_batch_matmul(policy, data):
    dtype = data.draw(st.sampled_from(NUM))
    ba, bb = data.draw(broadcast_pairs(max_dims=2, max_side=3))
    m, k, n = (data.draw(st.integers(0, 4)) for _ in range(3))
    ta, tb = data.draw(st.booleans()), data.draw(st.booleans())
    a = data.draw(_small_ints(dtype, ba + ((k, m) if ta else (m, k))))
    b = data.draw(_small_ints(dtype, bb + ((n, k) if tb else (k, n))))
    want = np.matmul(np.swapaxes(a, -1, -2) if ta else a, np.swapaxes(b, -1, -2) if tb else b)
    ca, cb = (noncontig(a), b) if data.draw(st.booleans()) else (a, noncontig(b))
    assert_close(ops.BatchMatMul(ta, tb)(tensor(ca), tensor(cb)), want)
    if not ba and not bb:
        assert_close(ops.MatMul(ta, tb)(tensor(ca), tensor(cb)), want)
    if not ta and not tb:
        assert_close(ops.matmul(tensor(a), tensor(b)), want)
        assert_close(tensor(ca) @ tensor(cb), want)
        if ba or bb:
            assert_close(ops.bmm(tensor(a), tensor(b)), want)


@pytest.mark.parametrize("sa, sb", [((3,), (3,)), ((3,), (3, 2)), ((2, 3), (3,)), ((4, 2, 3), (3,)),
                                    ((3,), (4, 3, 2)), ((2, 1, 2, 3), (5, 3, 1))])
def test_matmul_vectors_and_batches(policy, sa, sb):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(sa), rng.standard_normal(sb)
    assert_close(ops.matmul(Tensor(a), Tensor(b)), np.matmul(a, b))


def test_matmul_float_values(policy):
    rng = np.random.default_rng(1)
    for dtype in (np.float32, np.float64):
        a, b = rng.standard_normal((5, 7)).astype(dtype), rng.standard_normal((7, 3)).astype(dtype)
        assert_close(ops.matmul(Tensor(a), Tensor(b)), a.astype(np.float64).dot(b).astype(dtype),
                     rtol=1e-5 if dtype == np.float32 else None)
    out = ops.matmul(Tensor(np.array([[np.nan, 1.0]])), Tensor(np.ones((2, 2))))
    assert np.isnan(out.asnumpy()).all()


# ---- inference only ------------------------------------------------------------------------
def test_infer_only():
    f32, i32, b = ms.float32, ms.int32, ms.bool_
    a = abstract_tensor(f32, (2, 1, 3))
    assert ops.Add().infer(a, abstract_tensor(f32, (4, 1))) is abstract_tensor(f32, (2, 4, 3))
    assert ops.Less().infer(a, a) is abstract_tensor(b, (2, 1, 3))
    assert ops.Exp().infer(a) is a
    assert ops.LogicalNot().infer(abstract_tensor(b, ())) is abstract_tensor(b, ())
    assert ops.Select().infer(abstract_tensor(b, (3,)), abstract_tensor(i32, (2, 1)),
                              abstract_tensor(i32, ())) is abstract_tensor(i32, (2, 3))
    x = abstract_tensor(i32, (4, 5))
    assert ops.AddN().infer((x, x, x)) is x
    assert ops.BatchMatMul(False, True).infer(abstract_tensor(f32, (7, 1, 2, 3)),
                                              abstract_tensor(f32, (4, 5, 3))).shape == (7, 4, 2, 5)
    assert ops.MatMul(True, False).infer(abstract_tensor(f32, (3, 2)),
                                         abstract_tensor(f32, (3, 0))).shape == (2, 0)
    assert ops.Add().infer(abstract_tensor(f32, (0, 3)), abstract_tensor(f32, (1,))).shape == (0, 3)


# ---- errors --------------------------------------------------------------------------------
def _f32(*shape):
    return Tensor(np.ones(shape, np.float32))


ERRORS = [   # (call, exception, message regex)
    (lambda: ops.Add()(_f32(2, 3), _f32(4, 5)), ValueError,
     r"^For 'Add', input1.shape and input2.shape need to broadcast.*"
     r"input1.shape = \[2, 3\] and input2.shape = \[4, 5\]"),
    (lambda: _f32(2, 3) - _f32(4), ValueError, r"^For 'Sub', input1.shape and input2.shape"),
    (lambda: ops.MatMul()(_f32(2, 3), _f32(4, 2)), ValueError,
     r"^For 'MatMul' the input dimensions must be equal, but got 'x1_col': 3 and 'x2_row': 4\.$"),
    (lambda: ops.MatMul()(_f32(2, 3), Tensor(np.ones((3, 2)))), TypeError,
     r"^For 'MatMul', the type of 'x2' should be same as 'x1'"),
    (lambda: ops.MatMul()(_f32(3), _f32(3, 2)), ValueError, "'MatMul'.*dimensions must be 2"),
    (lambda: ops.MatMul(transpose_a=1), TypeError, "For 'MatMul', 'transpose_a' must be a bool"),
    (lambda: ops.bmm(_f32(2, 2, 3), _f32(2, 2, 3)), ValueError,
     "'BatchMatMul'.*'x_col': 3 and 'y_row': 2"),
    (lambda: ops.bmm(_f32(2, 2, 3), _f32(3, 3, 2)), ValueError, "'BatchMatMul'.*batch dimensions"),
    (lambda: ops.matmul(Tensor(1.0), _f32(2, 3)), ValueError, "For 'matmul'.*0-d"),
    (lambda: ops.LogicalAnd()(_f32(2), "a"), TypeError, "For 'LogicalAnd', the input 'y'"),
    (lambda: Tensor([True]) - Tensor([False]), TypeError, "For 'Sub', the type of 'x'.*Bool"),
    (lambda: ops.Add()(_f32(2)), TypeError, "For 'Add', expected 2 inputs"),
    (lambda: ops.Exp()(_f32(2), _f32(2)), TypeError, "For 'Exp', expected 1 inputs"),
    (lambda: ops.add(_f32(2), "a"), TypeError, "For 'Add', the input 'y' must be a Tensor, int"),
    (lambda: ops.where(Tensor([1, 0]), _f32(2), _f32(2)), TypeError,
     "For 'Select', the type of 'condition'"),
    (lambda: ops.where(Tensor([True, False]), _f32(3), _f32(2)), ValueError, "For 'Select'"),
    (lambda: ops.addn([_f32(2, 3), _f32(3)]), ValueError, r"For 'AddN', the shape of 'x\[1\]'"),
    (lambda: ops.addn([_f32(2), Tensor(np.ones(2))]), TypeError,
     r"For 'AddN', the type of 'x\[1\]' should be same as 'x\[0\]'"),
    (lambda: ops.AddN()([]), ValueError, "For 'AddN'.*at least one"),
    (lambda: ops.AddN()(_f32(2)), TypeError, "For 'AddN'.*tuple or list"),
    (lambda: ops.div(_f32(2), 2, rounding_mode="round"), ValueError, "For 'div', 'rounding_mode'"),
    (lambda: ops.clamp(_f32(2)), ValueError, "For 'clamp', at least one"),
]


@pytest.mark.parametrize("call, exc, msg", ERRORS)
def test_errors(call, exc, msg):
    with pytest.raises(exc, match=msg):
        call()
