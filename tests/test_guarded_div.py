"""Xdivy, Xlogy, DivNoNan, MulNoNan, TruncateMod and Inv (guarded_div_ops.py): values against
numpy references over random inputs of every accepted dtype, MindSpore 2.10's CPU values at
the edges (0, inf, nan operands; int Inv and TruncateMod by zero), the dtypes MindSpore
refuses, and gradients against finite differences."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mindlite import Tensor
from mindlite.ops import operations as P

from gradcheck import check_grad


def _quiet(fn):
    def run(*a):
        with np.errstate(all="ignore"):
            return fn(*a)
    return run


_REF = {
    "Xdivy": _quiet(lambda x, y: np.where(x == 0, 0, x / y)),
    "Xlogy": _quiet(lambda x, y: x * np.log(y)),
    "DivNoNan": _quiet(lambda x, y: np.where(y == 0, 0, x / y)),
    "MulNoNan": _quiet(lambda x, y: np.where(y == 0, 0, x * y)),
    "TruncateMod": _quiet(np.fmod),
}
_DTYPES = {
    "Xdivy": [np.float16, np.float32, np.float64, np.complex64],
    "Xlogy": [np.float32, np.float64, np.complex128],
    "DivNoNan": [np.float16, np.float32, np.float64, np.complex64],
    "MulNoNan": [np.int8, np.int32, np.uint16, np.float32, np.float64, np.complex64],
    "TruncateMod": [np.float32, np.float64, np.int8, np.int32, np.uint8],
}


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(_REF)), st.data(), st.integers(0, 2 ** 31 - 1))
def test_equals_reference(name, data, seed):
    dtype = data.draw(st.sampled_from(_DTYPES[name]))
    rs = np.random.RandomState(seed)
    x = rs.randint(-3, 4, (2, 3)).astype(dtype)
    y = rs.randint(-3, 4, (3,)).astype(dtype)
    if np.dtype(dtype).kind == "u":
        x, y = np.abs(x.astype(np.int64)).astype(dtype), np.abs(y.astype(np.int64)).astype(dtype)
    got = getattr(P, name)()(Tensor(x), Tensor(y)).asnumpy()
    want = _REF[name](x, y)
    if np.dtype(dtype).kind in "iu":
        want = np.where(np.broadcast_to(y, want.shape) == 0, 0, want)    # int x mod 0 = 0
    assert got.dtype == dtype
    np.testing.assert_allclose(got, want.astype(dtype), rtol=2e-3, equal_nan=True)


def test_mindspore_edge_values():
    x = np.array([0., 0., 1., -2., np.inf, np.nan, 0., 3.], np.float32)
    y = np.array([0., 2., 0., 0., 0., 0., np.nan, -2.], np.float32)
    nan, inf = np.nan, np.inf
    want = {"Xdivy": [0, 0, inf, -inf, inf, nan, 0, -1.5],
            "Xlogy": [nan, 0, -inf, inf, -inf, nan, nan, nan],
            "DivNoNan": [0, 0, 0, 0, 0, 0, nan, -1.5],
            "MulNoNan": [0, 0, 0, 0, 0, 0, nan, -6],
            "TruncateMod": [nan, 0, nan, nan, nan, nan, nan, 1]}
    for name, w in want.items():
        np.testing.assert_array_equal(getattr(P, name)()(Tensor(x), Tensor(y)).asnumpy(),
                                      np.array(w, np.float32))
    xi = np.array([7, -7, 7, -7, 0, 5], np.int32)
    yi = np.array([2, 2, -2, -2, 3, 0], np.int32)
    assert P.TruncateMod()(Tensor(xi), Tensor(yi)).asnumpy().tolist() == [1, -1, 1, -1, 0, 0]
    assert P.MulNoNan()(Tensor(xi), Tensor(yi)).asnumpy().tolist() == [14, -14, -14, 14, 0, 0]
    for dtype, low in ((np.int16, 0), (np.int32, -2 ** 31), (np.int64, -2 ** 63)):
        got = P.Inv()(Tensor(np.array([1, 2, -1, 0, 3, -2], dtype))).asnumpy()
        assert got.dtype == dtype and got.tolist() == [1, 0, -1, low, 0, 0]
    np.testing.assert_array_equal(P.Inv()(Tensor(np.array([2., 0.], np.float16))).asnumpy(),
                                  np.array([0.5, np.inf], np.float16))
    got = P.Inv()(Tensor(np.array([2 + 2j, 0j], np.complex64))).asnumpy()
    assert got[0] == 0.25 - 0.25j and np.isinf(got[1].real) and np.isnan(got[1].imag)
    mixed = P.MulNoNan()(Tensor(np.array([1, 2], np.int32)), Tensor(np.array([.5, 2], np.float32)))
    assert mixed.asnumpy().dtype == np.float32


@pytest.mark.parametrize("name,dtype", [("Xlogy", np.float16), ("Xlogy", np.int32),
                                        ("DivNoNan", np.int32), ("Xdivy", np.int32),
                                        ("TruncateMod", np.int16), ("TruncateMod", np.int64),
                                        ("MulNoNan", np.bool_)])
def test_mindspore_rejects(name, dtype):
    with pytest.raises(TypeError, match=name):
        getattr(P, name)()(Tensor(np.ones(2, dtype)), Tensor(np.ones(2, dtype)))
    with pytest.raises(TypeError, match="Inv"):
        P.Inv()(Tensor(np.ones(2, np.int8)))


@pytest.mark.parametrize("name", sorted(_REF))
def test_gradients(name):
    rs = np.random.RandomState(0)
    x = rs.uniform(0.5, 2.0, (2, 3)) * rs.choice([-1, 1], (2, 3))
    y = rs.uniform(0.5, 2.0, (3,))
    if name == "TruncateMod":
        x, y = np.array([[2.3, -1.7, 3.1]]), np.array([0.9, 1.1, 1.3])   # away from jumps
    op = getattr(P, name)()
    check_grad(lambda a, b: op(a, b), x, y, rtol=1e-4)
    check_grad(lambda a: P.Inv()(a), x, rtol=1e-4)


def test_mindspore_gradient_edges():
    from mindlite import ops
    x = Tensor(np.array([0., 1.5, -2., 3.], np.float32))
    y = Tensor(np.array([2., 0.5, 4., 0.], np.float32))
    want = {"Xdivy": ([0, 2, 0.25, np.inf], [0, -6, 0.125, -np.inf]),
            "DivNoNan": ([0.5, 2, 0.25, 0], [0, -6, 0.125, 0]),
            "MulNoNan": ([2, 0.5, 4, 0], [0, 1.5, -2, 3]),
            "TruncateMod": ([1, 1, 1, 1], [0, -3, 0, -np.inf])}
    for name, (wx, wy) in want.items():
        gx, gy = ops.grad(lambda a, b, n=name: getattr(P, n)()(a, b), (0, 1))(x, y)
        np.testing.assert_allclose(gx.asnumpy(), wx)
        np.testing.assert_allclose(gy.asnumpy(), wy)
