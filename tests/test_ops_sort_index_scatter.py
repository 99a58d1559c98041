"""Issue 13's scatter / scatter_add / index_add / tensor_scatter_update / add /
tensor_scatter_elements / index_select / masked_fill through the public API: hypothesis
against numpy, MindSpore 2.10's printed values (including the write-back of ops.scatter_add
and ops.index_add into their input), Tensor methods, float64 finite-difference gradients,
errors naming op/argument/expected/given, failed calls leaving inputs unchanged."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gradcheck import check_grad
from helpers import FLOAT_DTYPES, arrays, broadcast_pairs, noncontig, shapes, tensor

import mindlite as ms
from mindlite import Tensor, ops

with_fixture = settings(suppress_health_check=list(settings.default.suppress_health_check)
                        + [HealthCheck.function_scoped_fixture], max_examples=25,
                        deadline=None)
DTYPES = [np.int32, np.int64, np.uint8] + FLOAT_DTYPES


def _y():
    return Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))


# ---- scatter (TensorScatterElements) --------------------------------------------------------
@with_fixture
@given(data=st.data())
def test_scatter_elements_against_numpy(policy, data):
    dtype = data.draw(st.sampled_from(DTYPES))
    x = data.draw(arrays(dtype, shapes(min_dims=1, min_side=1, max_side=5)))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    d, n = axis % x.ndim, x.shape[axis]
    ishape = tuple(data.draw(st.integers(0, s)) for s in x.shape)
    # distinct targets along the axis (repeats would make "none" order-dependent)
    perm = np.argsort(data.draw(arrays(np.float64, ishape[:d] + (n,) + ishape[d + 1:],
                                       allow_special=False)), axis=d, kind="stable")
    idx = np.take(perm, np.arange(ishape[d]), axis=d) - data.draw(st.sampled_from([0, n]))
    upd = data.draw(arrays(dtype, ishape))
    full = np.where(idx < 0, idx + n, idx)
    where = list(np.ogrid[tuple(slice(0, s) for s in ishape)])
    where[d] = full
    want = x.copy()
    want[tuple(where)] = upd
    got = ops.scatter(tensor(noncontig(x)), axis, Tensor(idx), tensor(upd))
    np.testing.assert_array_equal(got.asnumpy(), want)
    added = x.copy()
    np.add.at(added, tuple(where), upd)
    got = ops.tensor_scatter_elements(tensor(x), Tensor(idx), tensor(upd), axis, "add")
    np.testing.assert_array_equal(got.asnumpy(), added)


def test_scatter_mindspore_values_and_methods(policy):
    y = _y()
    got = ops.scatter(y, 1, Tensor(np.array([[0, 0], [1, 0]], np.int32)),
                      Tensor(np.full((2, 2), 9, np.float32)))
    np.testing.assert_array_equal(got.asnumpy(), [[9, 1, 2], [9, 9, 5]])
    np.testing.assert_array_equal(y.scatter(1, Tensor([[0], [1]]), 7.0).asnumpy(),
                                  [[7, 1, 2], [3, 7, 5]])
    got = y.scatter(dim=1, index=Tensor([[0], [1]]), src=Tensor(np.ones((2, 1), np.float32)))
    np.testing.assert_array_equal(got.asnumpy(), [[1, 1, 2], [3, 1, 5]])
    got = y.scatter_add(1, Tensor([[0], [0]]), Tensor(np.ones((2, 1), np.float32)))
    np.testing.assert_array_equal(got.asnumpy(), [[1, 1, 2], [4, 4, 5]])
    np.testing.assert_array_equal(y.asnumpy(), np.arange(6).reshape(2, 3))


# ---- tensor_scatter_update / add, scatter_add, index_add ---------------------------------------
@with_fixture
@given(data=st.data())
def test_tensor_scatter_update_add_against_numpy(policy, data):
    dtype = data.draw(st.sampled_from(DTYPES))
    x = data.draw(arrays(dtype, shapes(min_dims=1, min_side=1, max_side=4)))
    depth = data.draw(st.integers(1, x.ndim))
    rows = data.draw(st.integers(0, 5))
    idx = np.stack([data.draw(arrays(np.int32, (rows,), min_value=0, max_value=s - 1))
                    for s in x.shape[:depth]], -1).reshape(rows, depth)
    upd = data.draw(arrays(dtype, (rows,) + x.shape[depth:]))
    where = tuple(idx[:, k] for k in range(depth))
    added = x.copy()
    np.add.at(added, where, upd)
    got = ops.tensor_scatter_add(tensor(x), Tensor(idx), tensor(upd))
    np.testing.assert_array_equal(got.asnumpy(), added)
    _, first = np.unique(idx, axis=0, return_index=True)          # distinct rows only
    idx, upd = idx[np.sort(first)], upd[np.sort(first)]
    want = x.copy()
    want[tuple(idx[:, k] for k in range(depth))] = upd
    got = ops.tensor_scatter_update(tensor(x), Tensor(idx), tensor(upd))
    np.testing.assert_array_equal(got.asnumpy(), want)


def test_scatter_add_and_index_add_write_into_input_as_mindspore(policy):
    y = _y()
    got = ops.scatter_add(y, Tensor(np.array([0, 0], np.int32)), Tensor(np.ones((2, 3),
                                                                              np.float32)))
    want = [[2, 3, 4], [3, 4, 5]]
    np.testing.assert_array_equal(got.asnumpy(), want)
    np.testing.assert_array_equal(y.asnumpy(), want)
    p = ms.Parameter(_y(), name="p")
    got = ops.index_add(p, Tensor(np.array([0, 0], np.int32)), Tensor(np.ones((2, 2),
                                                                            np.float32)), 1)
    want = [[2, 1, 2], [5, 4, 5]]
    np.testing.assert_array_equal(got.asnumpy(), want)
    np.testing.assert_array_equal(p.asnumpy(), want)


def test_tensor_scatter_mindspore_values(policy):
    got = ops.tensor_scatter_update(_y(), Tensor(np.array([[0, 1], [1, 2]], np.int32)),
                                    Tensor([7., 8.]))
    np.testing.assert_array_equal(got.asnumpy(), [[0, 7, 2], [3, 4, 8]])
    got = ops.tensor_scatter_add(_y(), Tensor(np.array([[0], [0]], np.int32)),
                                 Tensor(np.ones((2, 3), np.float32)))
    np.testing.assert_array_equal(got.asnumpy(), [[2, 3, 4], [3, 4, 5]])
    got = ops.gather_nd(_y(), Tensor(np.array([[1, 2], [0, 0]], np.int32)))
    assert got.asnumpy().tolist() == [5, 0]


# ---- index_select, masked_fill -------------------------------------------------------------------
@with_fixture
@given(data=st.data())
def test_index_select_against_numpy(policy, data):
    x = data.draw(arrays(np.float32, shapes(min_dims=1, min_side=1, max_side=5)))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    idx = data.draw(arrays(np.int64, (data.draw(st.integers(0, 6)),), min_value=0,
                           max_value=x.shape[axis] - 1))
    got = ops.index_select(tensor(noncontig(x)), axis, Tensor(idx))
    np.testing.assert_array_equal(got.asnumpy(), np.take(x, idx, axis))
    np.testing.assert_array_equal(tensor(x).index_select(dim=axis, index=Tensor(idx)).asnumpy(),
                                  np.take(x, idx, axis))


@with_fixture
@given(data=st.data())
def test_masked_fill_against_numpy(policy, data):
    dtype = data.draw(st.sampled_from(DTYPES + [np.bool_]))
    sx, sm = data.draw(broadcast_pairs())
    x = data.draw(arrays(dtype, sx))
    mask = data.draw(arrays(np.bool_, sm))
    value = data.draw(arrays(dtype, ()))
    got = ops.masked_fill(tensor(x), tensor(mask), Tensor(value))
    np.testing.assert_array_equal(got.asnumpy(), np.where(mask, value, x))


def test_masked_fill_mindspore_values(policy):
    got = ops.masked_fill(_y(), Tensor([True, False, True]), 5.0)
    np.testing.assert_array_equal(got.asnumpy(), [[5, 1, 5], [5, 4, 5]])
    got = ops.masked_fill(Tensor(np.array([1, 2], np.int32)), Tensor([True, False]), 7)
    assert got.dtype == ms.int32 and got.asnumpy().tolist() == [7, 2]
    got = Tensor([1., 2.]).masked_fill(Tensor([[True], [False]]), Tensor(0.0))
    np.testing.assert_array_equal(got.asnumpy(), [[0, 0], [1, 2]])


def test_masked_select_matches_mindspore(policy):
    np.testing.assert_array_equal(ops.masked_select(_y(), Tensor([True, False, True])).asnumpy(),
                                  [0, 2, 3, 5])
    got = ops.masked_select(Tensor([1., 2.]), Tensor([[True, False], [True, True]]))
    np.testing.assert_array_equal(got.asnumpy(), [1, 1, 2])          # broadcast, C order
    with pytest.raises(TypeError, match="MaskedSelect.*'mask'.*Bool.*Int64"):
        ops.masked_select(_y(), Tensor([1, 0, 1]))


# ---- gradients -----------------------------------------------------------------------------------
def test_scatter_family_grads():
    rng = np.random.default_rng(4)
    x, u = rng.standard_normal((3, 4)), rng.standard_normal((2, 4))
    idx = Tensor(np.array([[2, 0, 1, 1], [0, 2, 0, 2]]))
    check_grad(lambda a, b: ops.scatter(a, 0, idx, b), x, u)
    check_grad(lambda a, b: ops.tensor_scatter_elements(a, idx, b, 0, "add"), x, u)
    nd = Tensor(np.array([[2], [0]], np.int32))
    check_grad(lambda a, b: ops.tensor_scatter_update(a, nd, b), x, u)
    check_grad(lambda a, b: ops.tensor_scatter_add(a, nd, b), x, u)
    check_grad(lambda a: ops.gather_nd(a, Tensor(np.array([[2, 1], [2, 1]]))), x)
    rows = Tensor(np.array([1, 1], np.int32))
    check_grad(lambda a, b: ops.ScatterAdd()(a, rows, b), x, u)
    check_grad(lambda a, b: ops.IndexAdd(0)(a, rows, b), x, u)
    check_grad(lambda a: ops.index_select(a, 1, Tensor([3, 0, 3])), x)


def test_masked_fill_grad():
    x = np.random.default_rng(5).standard_normal((2, 3))
    mask = Tensor(np.array([True, False, True]))
    check_grad(lambda a, v: ops.masked_fill(a, mask, v), x, np.array(0.5))


# ---- errors --------------------------------------------------------------------------------------
I32 = np.int32


@pytest.mark.parametrize("call, exc, words", [
    (lambda: ops.scatter(_y(), 1, Tensor([[3]]), Tensor([[1.0]])), ValueError,
     ["TensorScatterElements", "'index'", "[-3, 3)", "3"]),
    (lambda: ops.scatter(_y(), 1, Tensor([[0]]), Tensor([[1., 2.]])), ValueError,
     ["TensorScatterElements", "'updates'", "[1, 1]", "[1, 2]"]),
    (lambda: ops.TensorScatterElements(reduction="mul"), ValueError,
     ["TensorScatterElements", "'reduction'", "'mul'"]),
    (lambda: ops.tensor_scatter_update(_y(), Tensor(np.array([[5]], I32)),
                                       Tensor(np.ones((1, 3), np.float32))), ValueError,
     ["TensorScatterUpdate", "'indices'", "[0, 2)", "5"]),
    (lambda: ops.tensor_scatter_add(_y(), Tensor(np.array([[0, 0, 0]], I32)), Tensor([1.])),
     ValueError, ["TensorScatterAdd", "'indices'", "(3)", "rank of 'input_x' (2)"]),
    (lambda: ops.tensor_scatter_add(_y(), Tensor(np.array([[0]], I32)), Tensor([[1, 2, 3]])),
     TypeError, ["TensorScatterAdd", "'updates'", "Float32", "Int64"]),
    (lambda: ops.index_select(_y(), 1, Tensor([[2, 0]])), ValueError,
     ["index_select", "'index'", "1", "2"]),
    (lambda: ops.index_select(_y(), 0, Tensor([4])), ValueError, ["Gather", "[0, 2)", "4"]),
    (lambda: ops.index_add(_y(), Tensor([0]), Tensor(np.ones((2, 1), np.float32)), 1),
     TypeError, ["IndexAdd", "'indices'", "Int32", "Int64"]),
    (lambda: ops.index_add(_y(), Tensor(np.array([5], I32)), Tensor(np.ones((2, 1),
                                                                          np.float32)), 1),
     ValueError, ["IndexAdd", "'indices'", "[0, 3)", "5"]),
    (lambda: ops.scatter_add(_y(), Tensor(np.array([0], I32)), Tensor(np.ones((2, 3),
                                                                            np.float32))),
     ValueError, ["ScatterAdd", "'updates'", "[1, 3]", "[2, 3]"]),
    (lambda: ops.masked_fill(_y(), Tensor([1, 0, 1]), 0.0), TypeError,
     ["MaskedFill", "'mask'", "Bool", "Int64"]),
    (lambda: ops.masked_fill(_y(), Tensor([True]), Tensor([1.0, 2.0])), ValueError,
     ["MaskedFill", "'value'", "0-d", "[2]"]),
    (lambda: ops.masked_fill(_y(), Tensor([True, False]), 0.0), ValueError,
     ["MaskedFill", "input.shape", "mask.shape"]),
    (lambda: ops.masked_fill(_y(), Tensor([True]), "a"), TypeError,
     ["masked_fill", "'value'", "str"]),
])
def test_errors_name_op_argument_expected_given(call, exc, words):
    with pytest.raises(exc) as info:
        call()
    for w in words:
        assert w in str(info.value), (w, str(info.value))


def test_failed_scatter_add_leaves_input_unchanged():
    y = _y()
    with pytest.raises(ValueError):
        ops.scatter_add(y, Tensor(np.array([0, 7], np.int32)), Tensor(np.ones((2, 3),
                                                                              np.float32)))
    np.testing.assert_array_equal(y.asnumpy(), np.arange(6).reshape(2, 3))
