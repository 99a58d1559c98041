"""ScatterNd (scatter_ops.py): zeros(shape) with updates added at index tuples, against a
numpy loop (repeated indices accumulate; slices; bool, int, complex updates; empty index
lists), GatherNd as its gradient, and MindSpore 2.10's errors for negative and too large
indices (RuntimeError there; IndexValueError here, a ValueError and a RuntimeError), raised
before anything is written."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mindlite as ms
from mindlite import Tensor
from mindlite.ops import operations as P

from gradcheck import check_grad


def _reference(idx, upd, shape):
    out = np.zeros(shape, upd.dtype)
    k = idx.shape[-1]
    for i in np.ndindex(*idx.shape[:-1]):
        out[tuple(idx[i][:k])] += upd[i]
    return out


@settings(max_examples=30, deadline=None)
@given(st.sampled_from([(4,), (3, 4), (2, 3, 2)]), st.integers(1, 3), st.sampled_from([0, 1, 5]),
       st.sampled_from([np.float32, np.float64, np.int32, np.uint8, np.complex64, np.int16]),
       st.sampled_from([np.int16, np.int32, np.int64]), st.integers(0, 2 ** 31 - 1))
def test_equals_a_numpy_loop(shape, k, n, dtype, itype, seed):
    if k > len(shape):
        return
    rs = np.random.RandomState(seed)
    idx = np.stack([rs.randint(0, d, n) for d in shape[:k]], -1).astype(itype).reshape(n, k)
    upd = (rs.rand(n, *shape[k:]) * 5).astype(dtype)
    got = P.ScatterNd()(Tensor(idx), Tensor(upd), shape)
    np.testing.assert_allclose(got.asnumpy(), _reference(idx, upd, shape), rtol=1e-6)


def test_bool_updates_and_mindspore_values():
    idx = Tensor(np.array([[0, 1], [1, 1], [0, 1]], np.int32))
    got = P.ScatterNd()(idx, Tensor(np.array([1., 2., 3.], np.float32)), (2, 2))
    np.testing.assert_array_equal(got.asnumpy(), [[0., 4.], [0., 2.]])
    got = P.ScatterNd()(Tensor(np.array([[0, 1]], np.int32)), Tensor(np.array([True])), (2, 2))
    np.testing.assert_array_equal(got.asnumpy(), [[False, True], [False, False]])


@pytest.mark.parametrize("bad,msg", [
    (-1, "each element in 'indice' must be greater than or equal to 0, but got -1"),
    (2, "each element in 'indices' should be smaller than the value of shape, but got 2 and "
        "got the value of shape 2")])
def test_out_of_range_indices(bad, msg):
    with pytest.raises(RuntimeError, match=msg) as e:
        P.ScatterNd()(Tensor(np.array([[0, 0], [bad, 1]], np.int32)),
                      Tensor(np.array([1., 2.], np.float32)), (2, 2))
    assert isinstance(e.value, ValueError)


def test_shape_checks():
    idx, upd = Tensor(np.array([[0]], np.int32)), Tensor(np.ones((1, 3), np.float32))
    with pytest.raises(ValueError, match="ScatterNd.*'updates'"):
        P.ScatterNd()(idx, upd, (2, 2))
    with pytest.raises(ValueError, match="ScatterNd.*'shape'"):
        P.ScatterNd()(idx, upd, (2, 0))
    with pytest.raises(TypeError, match="ScatterNd.*'indices'"):
        P.ScatterNd()(Tensor(np.array([[0]], np.float32)), upd, (2, 3))


def test_gradient_is_gather_nd():
    idx = Tensor(np.array([[0, 1], [1, 1], [0, 1]], np.int32))
    check_grad(lambda u: P.ScatterNd()(idx, u, (2, 2)), np.random.rand(3))
    idx = Tensor(np.array([[1], [0]], np.int64))
    check_grad(lambda u: P.ScatterNd()(idx, u, (3, 2)), np.random.rand(2, 2))


# ---- ScatterNdUpdate ---------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(st.sampled_from([((5,), 1), ((4, 3), 1), ((4, 3), 2), ((2, 3, 4), 2)]),
       st.sampled_from([np.float32, np.int8, np.uint16, np.complex64, np.float16]),
       st.integers(0, 2 ** 31 - 1))
def test_scatter_nd_update_equals_numpy(shape_k, dtype, seed):
    shape, k = shape_k
    rs = np.random.RandomState(seed)
    x = (rs.randn(*shape) * 5).astype(dtype)
    n = rs.randint(1, 4)
    rows = rs.choice(int(np.prod(shape[:k])), n, replace=False)       # distinct tuples
    idx = np.stack(np.unravel_index(rows, shape[:k]), -1).astype(np.int32)
    upd = (rs.randn(n, *shape[k:]) * 5).astype(dtype)
    want = x.copy()
    want[tuple(idx[:, j] for j in range(k))] = upd
    var = ms.Parameter(Tensor(x), name="var")
    out = P.ScatterNdUpdate()(var, Tensor(idx), Tensor(upd))
    np.testing.assert_array_equal(out.asnumpy(), want)
    np.testing.assert_array_equal(var.asnumpy(), want)                  # in place


def test_scatter_nd_update_mindspore_behaviour():
    var = ms.Parameter(Tensor(np.zeros((3, 2), np.float32)), name="var")
    P.ScatterNdUpdate()(var, Tensor(np.array([[0], [2], [0]], np.int32)),
                        Tensor(np.array([[1., 2], [3, 4], [5, 6]], np.float32)))
    assert var.asnumpy().tolist() == [[5, 6], [0, 0], [3, 4]]            # the last one wins
    before = var.asnumpy().copy()
    with pytest.raises(RuntimeError, match="Some errors occurred"):
        P.ScatterNdUpdate()(var, Tensor(np.array([[5]], np.int32)), Tensor(np.ones((1, 2),
                                                                                np.float32)))
    with pytest.raises(RuntimeError, match="less than 0"):
        P.ScatterNdUpdate()(var, Tensor(np.array([[-1]], np.int32)), Tensor(np.ones((1, 2),
                                                                                 np.float32)))
    np.testing.assert_array_equal(var.asnumpy(), before)                # nothing written
    with pytest.raises(TypeError, match="input_x"):
        P.ScatterNdUpdate()(var, Tensor(np.array([[0]], np.int32)), Tensor(np.ones((1, 2))))
    with pytest.raises(TypeError, match="input_x"):
        P.ScatterNdUpdate()(Tensor(np.zeros(2, np.bool_)), Tensor(np.array([[0]], np.int32)),
                            Tensor(np.ones(1, np.bool_)))
    with pytest.raises(ValueError, match="'updates' must have shape"):
        P.ScatterNdUpdate()(var, Tensor(np.array([[0]], np.int32)), Tensor(np.ones((2, 2),
                                                                                np.float32)))


def test_scatter_nd_update_gradient():
    # MindSpore's bprop: dout for input_x, GatherNd(dout, indices) for updates
    from mindlite.ops.operations.scatter_ops import scatter_nd_update_bprop
    from mindlite.pynative.grad import GRAD_EXECUTOR
    idx = Tensor(np.array([[1], [0]], np.int32))
    x, u = Tensor(np.zeros((3, 2), np.float32)), Tensor(np.ones((2, 2), np.float32))
    dout = Tensor(np.arange(6, dtype=np.float32).reshape(3, 2))
    tape = GRAD_EXECUTOR.open_tape()
    try:
        gx, _, gu = scatter_nd_update_bprop(P.ScatterNdUpdate(), x, idx, u, None, dout)
    finally:
        GRAD_EXECUTOR.close_tape(tape)
    assert gx.asnumpy().tolist() == dout.asnumpy().tolist()
    assert gu.asnumpy().tolist() == [[2, 3], [0, 1]]


def test_functional_scatter_nd_is_the_primitive():
    idx = Tensor(np.array([[0], [2], [0]], np.int32))
    upd = Tensor(np.array([1., 2., 3.], np.float32))
    np.testing.assert_array_equal(ms.ops.scatter_nd(idx, upd, [4]).asnumpy(), [4., 0., 2., 0.])
