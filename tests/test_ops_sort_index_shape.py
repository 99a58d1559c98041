"""Issue 13's nonzero / count_nonzero / narrow / chunk / unstack / unbind / swapaxes /
moveaxis / repeat_interleave through the public API: hypothesis against numpy (0-d, empty,
non-contiguous), MindSpore 2.10's printed values, Tensor methods, float64 finite-difference
gradients, inference only, errors naming op/argument/expected/given."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gradcheck import check_grad
from helpers import ALL_DTYPES, arrays, noncontig, shapes, tensor

import mindlite as ms
from mindlite import Tensor, ops
from mindlite.abstract import abstract_tensor

with_fixture = settings(suppress_health_check=list(settings.default.suppress_health_check)
                        + [HealthCheck.function_scoped_fixture], max_examples=25,
                        deadline=None)


def _x(data, min_dims=1, **kw):
    dtype = data.draw(st.sampled_from(ALL_DTYPES))
    x = data.draw(arrays(dtype, shapes(min_dims=min_dims, **kw)))
    return noncontig(x) if data.draw(st.booleans()) else x


def _y():
    return Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))


# ---- nonzero, count_nonzero ----------------------------------------------------------------
@with_fixture
@given(data=st.data())
def test_nonzero_count_nonzero_against_numpy(policy, data):
    x = _x(data)
    got = ops.nonzero(tensor(x))
    assert got.dtype == ms.int64
    np.testing.assert_array_equal(got.asnumpy().reshape(-1, x.ndim), np.argwhere(x))
    cols = ops.nonzero(tensor(x), as_tuple=True)
    assert len(cols) == x.ndim
    for c, w in zip(cols, np.nonzero(x)):
        np.testing.assert_array_equal(c.asnumpy(), w)
    axis = tuple(sorted(set(data.draw(st.lists(st.integers(0, x.ndim - 1), max_size=3)))))
    keep = data.draw(st.booleans())
    got = ops.count_nonzero(tensor(x), axis, keep)
    assert got.dtype == ms.int32
    want = np.count_nonzero(x, axis=axis or None, keepdims=keep)
    np.testing.assert_array_equal(got.asnumpy(), want)


def test_nonzero_count_nonzero_mindspore_values(policy):
    y = _y()
    np.testing.assert_array_equal(ops.nonzero(y).asnumpy(), [[0, 1], [0, 2], [1, 0], [1, 1],
                                                              [1, 2]])
    assert int(ops.count_nonzero(y).asnumpy()) == 5
    got = ops.count_nonzero(y, 1, True)
    assert got.shape == (2, 1) and got.asnumpy().tolist() == [[2], [3]]
    assert ops.count_nonzero(y, (0, 1), False, ms.int64).dtype == ms.int64
    assert y.nonzero().shape == (5, 2) and int(y.count_nonzero().asnumpy()) == 5


# ---- narrow, chunk, unstack, unbind ----------------------------------------------------------
@with_fixture
@given(data=st.data())
def test_narrow_chunk_against_numpy(policy, data):
    x = _x(data, min_side=1)
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    n = x.shape[axis]
    start = data.draw(st.integers(0, n - 1))
    length = data.draw(st.integers(0, n - start))
    got = ops.narrow(tensor(x), axis, start, length)
    np.testing.assert_array_equal(got.asnumpy(), np.take(x, range(start, start + length), axis))
    chunks = data.draw(st.integers(1, 7))
    parts = ops.chunk(tensor(x), chunks, axis)
    step = -(-n // chunks)
    want = [np.take(x, range(s, min(s + step, n)), axis) for s in range(0, n, step)]
    assert len(parts) == len(want)
    for p, w in zip(parts, want):
        np.testing.assert_array_equal(p.asnumpy(), w)


@with_fixture
@given(data=st.data())
def test_unstack_unbind_against_numpy(policy, data):
    x = _x(data, max_side=4)
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    for parts in (ops.unstack(tensor(x), axis), ops.unbind(tensor(x), axis),
                  tensor(x).unbind(axis)):
        assert len(parts) == x.shape[axis]
        for i, p in enumerate(parts):
            np.testing.assert_array_equal(p.asnumpy(), np.take(x, i, axis))


def test_chunk_narrow_mindspore_values(policy):
    parts = ops.chunk(Tensor(np.arange(10.)), 4)
    assert [p.asnumpy().tolist() for p in parts] == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]]
    assert [p.shape for p in ops.chunk(Tensor(np.arange(6.)), 4)] == [(2,), (2,), (2,)]
    assert [p.shape for p in _y().chunk(2, dim=1)] == [(2, 2), (2, 1)]
    np.testing.assert_array_equal(ops.narrow(_y(), 1, 1, 2).asnumpy(), [[1, 2], [4, 5]])
    np.testing.assert_array_equal(_y().narrow(1, 0, 2).asnumpy(), [[0, 1], [3, 4]])


# ---- swapaxes, moveaxis, repeat_interleave ----------------------------------------------------
@with_fixture
@given(data=st.data())
def test_swapaxes_moveaxis_against_numpy(policy, data):
    x = _x(data)
    a, b = (data.draw(st.integers(-x.ndim, x.ndim - 1)) for _ in range(2))
    np.testing.assert_array_equal(ops.swapaxes(tensor(x), a, b).asnumpy(), np.swapaxes(x, a, b))
    np.testing.assert_array_equal(tensor(x).swapaxes(a, b).asnumpy(), np.swapaxes(x, a, b))
    k = data.draw(st.integers(0, x.ndim))
    src = data.draw(st.permutations(range(x.ndim)))[:k]
    dst = data.draw(st.permutations(range(-x.ndim, 0)))[:k]
    np.testing.assert_array_equal(ops.moveaxis(tensor(x), src, dst).asnumpy(),
                                  np.moveaxis(x, src, dst))
    if k == 1:
        np.testing.assert_array_equal(tensor(x).moveaxis(src[0], dst[0]).asnumpy(),
                                      np.moveaxis(x, src[0], dst[0]))


@with_fixture
@given(data=st.data())
def test_repeat_interleave_against_numpy(policy, data):
    x = _x(data, min_dims=0)
    axis = None if x.ndim == 0 or data.draw(st.booleans()) else \
        data.draw(st.integers(-x.ndim, x.ndim - 1))
    n = x.size if axis is None else x.shape[axis]
    form = data.draw(st.sampled_from(["int", "list", "tensor"]))
    if form == "int":
        reps = data.draw(st.integers(0, 3))
    else:
        reps = data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    arg = Tensor(np.array(reps, np.int64)) if form == "tensor" and n else reps
    got = ops.repeat_interleave(tensor(x), arg, axis)
    np.testing.assert_array_equal(got.asnumpy(), np.repeat(x, reps, axis))


def test_repeat_interleave_mindspore_values(policy):
    y = Tensor(np.array([[4., 3, 4], [5, 4, 5]], np.float32))
    assert ops.repeat_interleave(y, 2).asnumpy().tolist() == [4, 4, 3, 3, 4, 4, 5, 5, 4, 4,
                                                              5, 5]
    np.testing.assert_array_equal(ops.repeat_interleave(y, Tensor([1, 2, 0]), 1).asnumpy(),
                                  [[4, 3, 3], [5, 4, 4]])
    assert ops.repeat_interleave(Tensor(2.0), 3).asnumpy().tolist() == [2, 2, 2]
    assert y.repeat_interleave(2, dim=0).shape == (4, 3)


# ---- gradients -----------------------------------------------------------------------------------
def test_shape_family_grads():
    x = np.random.default_rng(6).standard_normal((3, 4))
    check_grad(lambda a: ops.narrow(a, 1, 1, 2), x)
    check_grad(lambda a: ops.chunk(a, 2, 1), x)
    check_grad(lambda a: ops.unstack(a, 1), x)
    check_grad(lambda a: ops.swapaxes(a, 0, 1), x)
    check_grad(lambda a: ops.moveaxis(a, 0, -1), x)
    check_grad(lambda a: ops.repeat_interleave(a, [2, 0, 1], 0), x)


def test_inference_only():
    x = abstract_tensor(ms.float32, (2, 3))
    assert ops.NonZero().infer(x).shape == (-1, 2)
    assert ops.CountNonZero((1,)).infer(x).shape == (2,)
    parts = ops.Unstack(1).infer(x)
    assert len(parts) == 3 and parts[0].shape == (2,)
    assert ops.MaskedFill().infer(x, abstract_tensor(ms.bool_, (3,)),
                                  abstract_tensor(ms.float32, ())).shape == (2, 3)


# ---- errors --------------------------------------------------------------------------------------
@pytest.mark.parametrize("call, exc, words", [
    (lambda: ops.nonzero(Tensor(1.0)), ValueError, ["NonZero", "'x'", "0-d"]),
    (lambda: ops.narrow(_y(), 1, 3, 0), ValueError, ["narrow", "'start'", "[0, 3)", "3"]),
    (lambda: ops.narrow(_y(), 1, 2, 2), ValueError, ["narrow", "'length'", "[0, 1]", "2"]),
    (lambda: ops.narrow(_y(), 2, 0, 1), ValueError, ["narrow", "'axis'", "[-2, 2)", "2"]),
    (lambda: ops.chunk(Tensor(1.0), 1), ValueError, ["chunk", "'input'", "0-d"]),
    (lambda: ops.chunk(_y(), 0), ValueError, ["chunk", "'chunks'", "0"]),
    (lambda: ops.chunk(_y(), 1.5), TypeError, ["chunk", "'chunks'", "int", "float"]),
    (lambda: ops.unstack(Tensor(1.0)), ValueError, ["Unstack", "'input_x'", "0-d"]),
    (lambda: ops.Unstack(0, 3)(_y()), ValueError, ["Unstack", "'num'", "(2)", "3"]),
    (lambda: ops.swapaxes(_y(), 0, 2), ValueError, ["swapaxes", "'axis1'", "[-2, 2)", "2"]),
    (lambda: ops.moveaxis(_y(), 0, 5), ValueError, ["moveaxis", "'destination'", "5"]),
    (lambda: ops.moveaxis(_y(), (0, 1), 0), ValueError, ["moveaxis", "same number", "2", "1"]),
    (lambda: ops.repeat_interleave(_y(), [1, 2], 1), ValueError,
     ["repeat_interleave", "'repeats'", "3", "[1, 2]"]),
    (lambda: ops.repeat_interleave(_y(), -1), ValueError, ["repeat_interleave", "'repeats'"]),
    (lambda: ops.repeat_interleave(_y(), 1.5), TypeError,
     ["repeat_interleave", "'repeats'", "1.5"]),
    (lambda: ops.count_nonzero(_y(), 2), ValueError, ["CountNonZero", "'dims'", "2"]),
])
def test_errors_name_op_argument_expected_given(call, exc, words):
    with pytest.raises(exc) as info:
        call()
    for w in words:
        assert w in str(info.value), (w, str(info.value))


# ---- graph mode ----------------------------------------------------------------------------------
def test_family_under_jit_matches_eager():
    def f(x):
        v, i = ops.sort(x)
        return (v * 2, ops.topk(x, 2)[0], ops.cummax(x, 1)[1], ops.gather_elements(x, 1, i),
                ops.masked_fill(x, x > 2, 0.0), ops.narrow(x, 1, 0, 2), ops.chunk(x, 2, 1)[1],
                ops.repeat_interleave(x, 2, 0), ops.unbind(x)[1], x.swapaxes(0, 1),
                x.argsort(descending=True))
    x = Tensor(np.array([[3., 1., 2.], [0., 5., 4.]], np.float32))
    for got, want in zip(ms.jit(f)(x), f(x)):
        np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())
