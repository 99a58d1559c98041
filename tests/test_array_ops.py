"""array_ops against numpy: shape manipulation (Reshape ... BroadcastTo), Cast, creation
(ZerosLike ... Range, const prims), in-place Assign/AssignAdd/AssignSub, their functional forms;
inference-only tests and error messages. Forward tests run under the "ms" policy (the
winning kernel) and under "vm" (numpy reference kernels)."""
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))
from helpers import ALL_DTYPES, FLOAT_DTYPES, INT_DTYPES, arrays, noncontig, shapes  # noqa: E402
from helpers import tensor  # noqa: E402

import mindlite as ms  # noqa: E402
from mindlite import Parameter, Tensor, ops  # noqa: E402
from mindlite.abstract import abstract_tensor  # noqa: E402

with_fixture = settings(suppress_health_check=list(settings.default.suppress_health_check)
                        + [HealthCheck.function_scoped_fixture])




def same(got, want):
    got = got.asnumpy() if isinstance(got, Tensor) else np.asarray(got)
    want = np.asarray(want)
    assert got.shape == want.shape, f"shape {got.shape} != {want.shape}"
    assert got.dtype == want.dtype, f"dtype {got.dtype} != {want.dtype}"
    np.testing.assert_array_equal(got, want)


@st.composite
def array_inputs(draw, dtypes=ALL_DTYPES, min_dims=0, max_dims=4, min_side=0):
    dtype = draw(st.sampled_from(dtypes))
    a = draw(arrays(dtype, shapes(min_dims, max_dims, min_side)))
    return noncontig(a) if draw(st.booleans()) else a


# ---- views and shape manipulation -------------------------------------------------------------
@with_fixture
@given(a=array_inputs(), data=st.data())
def test_reshape_expand_squeeze_flatten(policy, a, data):
    x = tensor(a)
    shape = data.draw(st.permutations(a.shape)) if a.shape else []
    same(ops.Reshape()(x, tuple(shape)), a.reshape(shape))
    if a.size:
        same(ops.reshape(x, [-1]), a.reshape(-1))
    axis = data.draw(st.integers(-a.ndim - 1, a.ndim))
    same(ops.ExpandDims()(x, axis), np.expand_dims(a, axis))
    same(ops.unsqueeze(x, axis), np.expand_dims(a, axis))
    same(ops.Squeeze()(x), np.squeeze(a))
    ones = tuple(i for i, d in enumerate(a.shape) if d == 1)
    if ones:
        same(ops.Squeeze(ones[0])(x), np.squeeze(a, ones[0]))
    if a.ndim:
        same(ops.Flatten()(x), a.reshape(a.shape[0], -1) if a.size else
             np.empty((a.shape[0], int(np.prod(a.shape[1:]))), a.dtype))


def test_views_share_memory():
    a = np.arange(6, dtype=np.float32)
    x = Tensor.from_numpy(a)
    for y in (ops.reshape(x, (2, 3)), ops.expand_dims(x, 0), ops.squeeze(ops.reshape(x, (1, 6))),
              ops.Flatten()(ops.reshape(x, (3, 2)))):
        assert np.shares_memory(y.asnumpy(), a)


@with_fixture
@given(a=array_inputs(), data=st.data())
def test_transpose(policy, a, data):
    perm = tuple(data.draw(st.permutations(range(a.ndim))))
    y = ops.Transpose()(tensor(a), perm)
    same(y, np.transpose(a, perm))
    assert y.asnumpy().flags.c_contiguous
    same(ops.permute(tensor(a), perm), np.transpose(a, perm))
    same(tensor(a).T, a.T)


@with_fixture
@given(data=st.data(), dtype=st.sampled_from(ALL_DTYPES), n=st.integers(1, 4))
def test_concat_stack(policy, data, dtype, n):
    shape = data.draw(shapes(1, 4))
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    parts = []
    for _ in range(n):
        s = list(shape)
        s[axis] = data.draw(st.integers(0, 3))
        a = data.draw(arrays(dtype, tuple(s)))
        parts.append(noncontig(a) if data.draw(st.booleans()) else a)
    ts = [tensor(a) for a in parts]
    same(ops.Concat(axis)(tuple(ts)), np.concatenate(parts, axis))
    same(ops.cat(ts, axis), np.concatenate(parts, axis))
    same_shape = [data.draw(arrays(dtype, shape)) for _ in range(n)]
    sax = data.draw(st.integers(-len(shape) - 1, len(shape)))
    same(ops.Stack(sax)([tensor(a) for a in same_shape]), np.stack(same_shape, sax))


@with_fixture
@given(a=array_inputs(min_dims=1), data=st.data())
def test_split(policy, a, data):
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    d = a.shape[axis]
    divisors = [k for k in range(1, d + 1) if d % k == 0] or [1]
    n = data.draw(st.sampled_from(divisors))
    outs = ops.Split(axis, n)(tensor(a))
    assert isinstance(outs, tuple) and len(outs) == n
    for got, want in zip(outs, np.split(a, n, axis) if d else [a] * n):
        same(got, want)
    size = data.draw(st.integers(1, 4))
    want = np.split(a, list(range(size, d, size)), axis) if d else [a]
    got = ops.split(tensor(a), size, axis)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        same(g, w)


@with_fixture
@given(a=array_inputs(max_dims=3), data=st.data())
def test_tile_broadcast_to(policy, a, data):
    reps = tuple(data.draw(st.lists(st.integers(0, 3), min_size=0, max_size=4)))
    same(ops.Tile()(tensor(a), reps), np.tile(a, reps))
    same(ops.tile(tensor(a), list(reps)), np.tile(a, reps))
    lead = tuple(data.draw(st.lists(st.integers(0, 3), max_size=2)))
    target = lead + tuple(data.draw(st.sampled_from([d, 3])) if d == 1 else d for d in a.shape)
    same(ops.BroadcastTo(target)(tensor(a)), np.broadcast_to(a, target))
    keep = lead + (-1,) * a.ndim
    same(ops.broadcast_to(tensor(a), keep), np.broadcast_to(a, lead + a.shape))


@with_fixture
@given(data=st.data(), src=st.sampled_from(ALL_DTYPES), dst=st.sampled_from(ALL_DTYPES))
def test_cast(policy, data, src, dst):
    kw = {}
    if np.dtype(src).kind == "f" and np.dtype(dst).kind in "iu":
        kw = {"allow_special": False, "min_value": 0, "max_value": 100}
    a = data.draw(arrays(src, shapes(), **kw))
    with np.errstate(all="ignore"):
        want = a.astype(dst)
    y = ops.Cast()(tensor(noncontig(a)), ms.dtype.from_numpy_dtype(np.dtype(dst)))
    same(y, want)
    same(ops.cast(tensor(a), np.dtype(dst)), want)


def test_cast_nan_to_int_is_quiet():
    with np.errstate(all="raise"):
        y = ops.cast(Tensor(np.array([np.nan, np.inf, 1.7], np.float32)), ms.int32)
    assert y.dtype is ms.int32 and y.asnumpy()[2] == 1


@with_fixture
@given(a=array_inputs())
def test_zeros_like_ones_like(policy, a):
    same(ops.ZerosLike()(tensor(a)), np.zeros_like(a))
    same(ops.OnesLike()(tensor(a)), np.ones_like(a))
    same(ops.ones_like(tensor(a), dtype=ms.float64), np.ones(a.shape))


# ---- creation: const prims --------------------------------------------------------------------
def test_const_prims(policy):
    z = ops.Zeros()((2, 3), ms.float32)
    same(z, np.zeros((2, 3), np.float32))
    z.asnumpy()[0, 0] = 7                         # each call hands out a fresh tensor
    same(ops.Zeros()((2, 3), ms.float32), np.zeros((2, 3), np.float32))
    same(ops.Ones()(3, ms.int8), np.ones(3, np.int8))
    same(ops.Fill()(ms.int16, (2, 2), 5), np.full((2, 2), 5, np.int16))
    same(ops.Fill()(ms.bool_, (0,), 1), np.zeros(0, bool))
    same(ops.Eye()(2, 3, ms.int32), np.eye(2, 3, dtype=np.int32))
    same(ops.Eye()(0, 2, ms.float32), np.eye(0, 2, dtype=np.float32))
    same(ops.zeros(4), np.zeros(4, np.float32))
    same(ops.ones((2, 1), ms.float64), np.ones((2, 1)))
    same(ops.full((2,), 2.5), np.full(2, 2.5, np.float32))
    same(ops.full((2,), 3), np.full(2, 3, np.int64))
    same(ops.full([1], True), np.ones(1, bool))
    same(ops.full((2,), Tensor(np.float64(1.5))), np.full(2, 1.5))
    same(ops.fill(ms.float32, 2, 1), np.ones(2, np.float32))
    same(ops.eye(3), np.eye(3, dtype=np.float32))


@pytest.mark.parametrize("args, kw, want", [
    ((5,), {}, np.arange(5)),
    ((1, 6), {}, np.arange(1, 6)),
    ((7, 1, -2), {}, np.arange(7, 1, -2)),
    ((0, 3, 1.2), {}, np.arange(0, 3, 1.2, dtype=np.float64).astype(np.float32)),
    ((0, 1, 0.1), {"dtype": ms.float64}, np.arange(10) * 0.1),
    ((0.5, 3), {"dtype": ms.int32}, np.array([0, 1, 2], np.int32)),
])
def test_arange(policy, args, kw, want):
    y = ops.arange(*args, **kw)
    assert y.shape == want.shape and y.dtype == ms.dtype.from_numpy_dtype(want.dtype)
    np.testing.assert_allclose(y.asnumpy(), want, rtol=1e-12)


def test_range_primitive():
    same(ops.Range()(0, 10, 4), np.array([0, 4, 8], np.int64))
    same(ops.Range()(Tensor(1.0), Tensor(2.0), Tensor(0.5)), np.array([1.0, 1.5], np.float32))
    same(ops.range(3, 0, -1), np.array([3, 2, 1], np.int64))
    for args in [(0, 5, 0), (5, 0, 1), (0, 5, -1), (1, 1, 1)]:
        with pytest.raises(ValueError, match="For 'Range'"):
            ops.Range()(*args)
    with pytest.raises(ValueError, match="maxlen"):
        ops.Range(maxlen=3)(0, 10, 1)
    with pytest.raises(TypeError, match="For 'Range', 'start'"):
        ops.Range()("a", 2, 1)


# ---- in place -------------------------------------------------------------------------------
@with_fixture
@given(a=array_inputs(dtypes=INT_DTYPES + FLOAT_DTYPES), data=st.data())
def test_assign_assign_add(policy, a, data):
    a = np.array(a)                                           # writeable copy
    var = Parameter(a, name="v")
    vshape = data.draw(st.sampled_from([a.shape, a.shape[1:], (1,) * a.ndim]))
    v = data.draw(arrays(a.dtype, vshape, allow_special=False, min_value=0, max_value=9))
    out = ops.Assign()(var, tensor(v))
    want = np.broadcast_to(v, a.shape)
    same(var, want)
    same(out, want)
    assert a.size == 0 or np.shares_memory(out.asnumpy(), var.asnumpy())
    out = ops.assign_add(var, tensor(v))
    same(var, want + want)
    assert a.size == 0 or np.shares_memory(out.asnumpy(), var.asnumpy())
    out = ops.assign_sub(var, tensor(v))                      # AssignSub (MindSpore's)
    same(var, want)
    assert a.size == 0 or np.shares_memory(out.asnumpy(), var.asnumpy())


def test_assign_scalar_and_safe_cast(policy):
    var = Tensor(np.zeros(3, np.float32))
    ops.assign(var, 2)                                        # Python scalar -> variable dtype
    same(var, np.full(3, 2, np.float32))
    ops.AssignAdd()(var, Tensor(np.array([1, 2, 3], np.int16)))   # int16 -> float32 is safe
    same(var, np.array([3, 4, 5], np.float32))
    ivar = Tensor(np.zeros(2, np.int8))
    ops.assign(ivar, True)
    same(ivar, np.ones(2, np.int8))


def test_assign_errors_leave_variable_unchanged():
    var = Parameter(np.arange(6, dtype=np.float32).reshape(2, 3), name="v")
    before = var.asnumpy().copy()
    with pytest.raises(ValueError, match="For 'Assign'.*'value'.*broadcast"):
        ops.Assign()(var, Tensor(np.ones((3, 2), np.float32)))
    with pytest.raises(ValueError, match="For 'Assign'"):
        ops.Assign()(var, Tensor(np.ones((2, 2, 3), np.float32)))
    with pytest.raises(TypeError, match="For 'AssignAdd', the type of 'value'"):
        ops.AssignAdd()(var, Tensor(np.ones(3, np.float64)))
    with pytest.raises(TypeError, match="For 'AssignAdd', the type of 'variable'"):
        ops.AssignAdd()(Tensor(np.ones(3, bool)), Tensor(np.ones(3, bool)))
    with pytest.raises(ValueError, match="For 'Assign', 'value' 300"):
        ops.Assign()(Tensor(np.zeros(2, np.int8)), 300)
    ro = np.zeros(3, np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="For 'Assign'.*read-only"):
        ops.Assign()(Tensor.from_numpy(ro), Tensor(np.ones(3, np.float32)))
    same(var, before)


# ---- functional ------------------------------------------------------------------------------
def test_flatten_functional():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    x = Tensor(a)
    same(ops.flatten(x), a.reshape(2, 12))
    same(ops.flatten(x, start_dim=0), a.reshape(24))
    same(ops.flatten(x, start_dim=0, end_dim=1), a.reshape(6, 4))
    same(ops.flatten(x, 'F', start_dim=0), a.flatten('F'))
    same(ops.flatten(x, 'F', start_dim=1), a.reshape(2, 12, order='F'))
    assert ops.flatten(x, start_dim=1, end_dim=1) is x
    same(ops.flatten(Tensor(np.float32(3))), np.array([3], np.float32))
    same(ops.flatten(Tensor(np.zeros((2, 0, 3), np.float32))), np.zeros((2, 0), np.float32))
    with pytest.raises(ValueError, match="For 'flatten', 'start_dim'"):
        ops.flatten(x, start_dim=2, end_dim=1)
    with pytest.raises(ValueError, match="'end_dim' must be in range"):
        ops.flatten(x, end_dim=3)


def test_split_functional_sections():
    a = np.arange(10, dtype=np.int32)
    got = ops.split(Tensor(a), [3, 0, 7])
    for g, w in zip(got, np.split(a, [3, 3])):
        same(g, w)
    with pytest.raises(ValueError, match="For 'split'.*sum"):
        ops.split(Tensor(a), [3, 3])
    with pytest.raises(ValueError, match="For 'split'"):
        ops.split(Tensor(a), 0)


def test_tensor_methods():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = Tensor(a)
    same(x.reshape(3, 2), a.reshape(3, 2))
    same(x.transpose(), a.T)
    same(x.permute(1, 0), a.T)
    same(x.expand_dims(1), a[:, None])
    same(x.reshape(1, 6).squeeze(), a.reshape(6))
    same(x.tile((2, 1)), np.tile(a, (2, 1)))
    same(x.broadcast_to((4, 2, 3)), np.broadcast_to(a, (4, 2, 3)))
    same(x.astype(ms.int64), a.astype(np.int64))
    assert ops.shape(x) == (2, 3)


# ---- inference only and errors ---------------------------------------------------------------
def test_infer_only():
    a = abstract_tensor(ms.float32, (2, 3, 4))
    assert ops.Transpose().infer(a, (2, 0, 1)).shape == (4, 2, 3)
    assert ops.Concat(-1).infer((a, a)).shape == (2, 3, 8)
    assert ops.Stack(1).infer((a, a, a)).shape == (2, 3, 3, 4)
    outs = ops.Split(2, 2).infer(a)
    assert len(outs) == 2 and outs[0] is abstract_tensor(ms.float32, (2, 3, 2))
    assert ops.Tile().infer(a, (2,)).shape == (2, 3, 8)
    assert ops.BroadcastTo((5, -1, 3, 4)).infer(a).shape == (5, 2, 3, 4)
    assert ops.Cast().infer(a, ms.int8).dtype is ms.int8
    assert ops.Flatten().infer(a).shape == (2, 12)
    assert ops.Zeros().infer((1, 2)).dtype is ms.float32
    assert ops.Range().infer(0, 1, 0.3).shape == (4,)
    assert ops.Assign().infer(a, abstract_tensor(ms.float16, (4,))) is a


@pytest.mark.parametrize("call, exc, pattern", [
    (lambda x: ops.Reshape()(x, (4, 2)), ValueError,
     "For 'Reshape', the product of 'input_shape'"),
    (lambda x: ops.Reshape()(x, (-1, -1)), ValueError, "For 'Reshape'.*at most one -1"),
    (lambda x: ops.Transpose()(x, (0, 0)), ValueError, "For 'Transpose'.*permutation"),
    (lambda x: ops.Transpose()(x, (0,)), ValueError, "For 'Transpose'.*length of 'input_perm'"),
    (lambda x: ops.ExpandDims()(x, 3), ValueError, "For 'ExpandDims', 'axis' must be in range"),
    (lambda x: ops.Squeeze(0)(x), ValueError, "For 'Squeeze'.*must be 1"),
    (lambda x: ops.Squeeze(1.5), TypeError, "For 'Squeeze', 'axis'"),
    (lambda x: ops.Concat()((x, ops.cast(x, ms.int32))), TypeError,
     "For 'Concat', the type of 'input_x\\[1\\]' should be same as 'input_x\\[0\\]'"),
    (lambda x: ops.Concat()((x, ops.reshape(x, (6,)))), ValueError, "For 'Concat'.*same rank"),
    (lambda x: ops.Concat(1)((x, ops.reshape(x, (3, 2)))), ValueError,
     "For 'Concat'.*match except at 'axis'"),
    (lambda x: ops.Concat()(()), ValueError, "For 'Concat', 'input_x' must hold"),
    (lambda x: ops.Concat()(x), TypeError, "For 'Concat', 'input_x' must be a tuple"),
    (lambda x: ops.Stack()((x, ops.reshape(x, (3, 2)))), ValueError, "For 'Stack'.*same shape"),
    (lambda x: ops.Split(1, 2)(x), ValueError, "For 'Split'.*divisible by 'output_num'"),
    (lambda x: ops.Split(0, 0), ValueError, "For 'Split', 'output_num' must be in range"),
    (lambda x: ops.Tile()(x, (-1, 1)), ValueError, "For 'Tile', 'multiples'"),
    (lambda x: ops.BroadcastTo((3, 3))(x), ValueError, "For 'BroadcastTo'.*cannot be broadcast"),
    (lambda x: ops.BroadcastTo((3,))(x), ValueError, "For 'BroadcastTo'.*must not exceed"),
    (lambda x: ops.Cast()(x, "nope"), TypeError, "For 'Cast', 'type'"),
    (lambda x: ops.Flatten()(Tensor(1.0)), ValueError, "For 'Flatten'.*rank"),
    (lambda x: ops.Fill()(ms.int8, (2,), 300), ValueError, "For 'Fill', 'value' 300"),
    (lambda x: ops.Fill()(ms.int8, (-1,), 3), ValueError, "For 'Fill', 'shape'"),
    (lambda x: ops.Fill()(ms.float32, (2,), "a"), TypeError, "For 'Fill', 'value'"),
    (lambda x: ops.Eye()(-1, 2, ms.float32), ValueError, "For 'Eye', 'n'"),
    (lambda x: ops.Zeros()((2,), ms.float32, 3), TypeError, "For 'Zeros'"),
])
def test_errors(call, exc, pattern):
    x = Tensor(np.zeros((2, 3), np.float32))
    with pytest.raises(exc, match=pattern):
        call(x)
