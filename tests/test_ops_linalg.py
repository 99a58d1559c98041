"""Issue 13's linear-algebra ops through the public API: einsum, cross, diag, trace, outer,
baddbmm, addmm, matrix_power, inverse, det. Hypothesis against numpy (0-d, empty, broadcast,
non-contiguous, NaN/inf), MindSpore 2.10's printed values, float64 finite-difference
gradients, inference only, errors naming op/argument/expected/given. Forward tests run under
the "ms" and "vm" policies. Norms and cosine_similarity: test_ops_linalg_norm.py."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gradcheck import check_grad
from helpers import FLOAT_DTYPES, INT_DTYPES, arrays, assert_close, noncontig, tensor

import mindlite as ms
from mindlite import Tensor, ops
from mindlite.abstract import abstract_tensor
from mindlite.ops.operations import linalg_ops

with_fixture = settings(suppress_health_check=list(settings.default.suppress_health_check)
                        + [HealthCheck.function_scoped_fixture], max_examples=25,
                        deadline=None)
F32_64 = [np.float32, np.float64]


def _maybe_noncontig(data, x):
    return noncontig(x) if data.draw(st.booleans()) else x


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).uniform(-1, 1, shape)


# ---- einsum ----------------------------------------------------------------------------
EQUATIONS = [("ij,jk->ik", [(2, 3), (3, 4)]), ("ij,jk", [(2, 3), (3, 4)]),
             ("ii", [(3, 3)]), ("ii->i", [(3, 3)]), ("ij->", [(2, 3)]), ("ij->ji", [(2, 3)]),
             ("...j,jk->...k", [(2, 5, 3), (3, 4)]), ("bij,bjk->bik", [(2, 2, 3), (2, 3, 2)]),
             ("i,j->ij", [(3,), (4,)]), ("i,i->", [(4,)] * 2), ("ij,ij->ij", [(1, 3), (4, 3)]),
             ("ijk,jl,lk->i", [(2, 3, 4), (3, 5), (5, 4)]), ("iij->j", [(2, 2, 3)]),
             (",ij->ij", [(), (2, 3)]), ("ij,jk->ik", [(0, 3), (3, 2)]),
             ("...,...->...", [(2, 1), (3,)]), ("a b , b c -> a c", [(2, 3), (3, 2)])]


@pytest.mark.parametrize("eq,shape_list", EQUATIONS, ids=[e for e, _ in EQUATIONS])
def test_einsum_against_numpy(policy, eq, shape_list):
    for dtype in FLOAT_DTYPES:
        xs = [_rand(*s, seed=i).astype(dtype) for i, s in enumerate(shape_list)]
        want = np.einsum(eq.replace(" ", ""), *[x.astype(np.float64) for x in xs])
        got = ops.einsum(eq, *[tensor(x) for x in xs])
        assert_close(got, want.astype(dtype), rtol=1e-2 if dtype == np.float16 else None,
                     atol=1e-2 if dtype == np.float16 else None)


@with_fixture
@given(data=st.data())
def test_einsum_matmul_hypothesis(policy, data):
    dtype = data.draw(st.sampled_from(F32_64))
    m, k, n = (data.draw(st.integers(0, 4)) for _ in range(3))
    a = _maybe_noncontig(data, data.draw(arrays(dtype, (m, k))))
    b = data.draw(arrays(dtype, (k, n)))
    with np.errstate(all="ignore"):
        want = np.einsum("ij,jk->ik", a, b)
    assert_close(ops.einsum("ij,jk->ik", tensor(a), tensor(b)), want, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("eq,shape_list", EQUATIONS[:14] + EQUATIONS[15:16],
                         ids=[e for e, _ in EQUATIONS[:14] + EQUATIONS[15:16]])
def test_einsum_grad(eq, shape_list):
    xs = [_rand(*s, seed=i) for i, s in enumerate(shape_list)]
    check_grad(lambda *t: ops.einsum(eq, *t), *xs)


def test_einsum_second_order():
    a, b = _rand(2, 3), _rand(3, 2, seed=1)
    check_grad(lambda x, y: ms.grad(lambda u: ops.einsum("ij,jk->", u, y))(x) * x, a, b)


def test_einsum_errors():
    a = Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="Einsum.*'k'.*3 and 2|Einsum.*do not match"):
        ops.einsum("ij,jk->ik", a, a)
    with pytest.raises(ValueError, match="Einsum.*names 2 operands, but got 1"):
        ops.einsum("ij,jk->ik", a)
    with pytest.raises(ValueError, match="Einsum.*output subscript 'z'"):
        ops.einsum("ij->z", a)
    with pytest.raises(ValueError, match="Einsum.*rank 2"):
        ops.einsum("ijk->i", a)
    with pytest.raises(TypeError, match="Einsum.*'x\\[0\\]'.*Float16.*but got Int32"):
        ops.einsum("ij->i", Tensor(np.ones((2, 3), np.int32)))     # as MindSpore: floats only
    with pytest.raises(TypeError, match="Einsum.*'x\\[1\\]' should be same as 'x\\[0\\]'"):
        ops.einsum("ij,jk", a, Tensor(np.ones((3, 2))))
    with pytest.raises(TypeError, match="Einsum.*'equation' should be str"):
        ops.Einsum(3)


def test_einsum_infer_only():
    p = ops.Einsum("bij,bjk->bik")
    out = p.infer((abstract_tensor(ms.float32, (5, 2, 3)), abstract_tensor(ms.float32, (5, 3, 4))))
    assert out.shape == (5, 2, 4) and out.dtype is ms.float32


# ---- cross -----------------------------------------------------------------------------
@with_fixture
@given(data=st.data())
def test_cross_against_numpy(policy, data):
    dtype = data.draw(st.sampled_from([np.float32, np.float64, np.int32, np.int64]))
    lead = data.draw(st.lists(st.integers(1, 3), max_size=2))
    dim = data.draw(st.integers(0, len(lead)))
    shape = lead[:dim] + [3] + lead[dim:]
    a = _maybe_noncontig(data, data.draw(arrays(dtype, tuple(shape))))
    b = data.draw(arrays(dtype, tuple(shape[1:]) if data.draw(st.booleans()) and dim
                         else tuple(shape)))
    with np.errstate(all="ignore"):
        want = np.cross(a, b, axis=dim - len(shape) if b.ndim < a.ndim else dim).astype(dtype)
    assert_close(ops.cross(tensor(a), tensor(b), dim), want)


def test_cross_mindspore_values_and_default_dim():
    got = ops.cross(Tensor([[1.0, 2, 3]]), Tensor([[4.0, 5, 6]]))
    assert got.shape == (1, 3) and got.tolist() == [[-3.0, 6.0, -3.0]]
    assert ops.cross(Tensor([1, 2, 3]), Tensor([4, 5, 6])).dtype == ms.int64
    with pytest.raises(ValueError, match="Cross.*must contain 3"):
        ops.cross(Tensor(np.ones((2, 4), np.float32)), Tensor(np.ones((2, 4), np.float32)))
    with pytest.raises(TypeError, match="Cross.*'other' should be same as 'input'"):
        ops.cross(Tensor([1.0, 2, 3]), Tensor([4, 5, 6]))
    with pytest.raises(ValueError, match="Cross.*along 'dim' 0 must be 3"):
        ops.cross(Tensor(np.ones((2, 3))), Tensor(np.ones((2, 3))), 0)


def test_cross_grad():
    check_grad(lambda a, b: ops.cross(a, b, 1), _rand(2, 3), _rand(3, seed=1))


# ---- diag / trace / outer --------------------------------------------------------------
@with_fixture
@given(data=st.data())
def test_diag_against_numpy(policy, data):
    dtype = data.draw(st.sampled_from(INT_DTYPES + FLOAT_DTYPES))
    x = _maybe_noncontig(data, data.draw(arrays(dtype, data.draw(
        st.lists(st.integers(0, 3), min_size=1, max_size=3).map(tuple)))))
    want = np.diag(x.reshape(-1)).reshape(x.shape + x.shape)
    got = ops.diag(tensor(x))
    assert_close(got, want)
    assert_close(linalg_ops.DiagPart()(got), x)


def test_diag_values_and_grad():
    assert ops.diag(Tensor([1, 2])).tolist() == [[1, 0], [0, 2]]
    assert ops.diag(Tensor(np.ones((2, 2), np.float32))).shape == (2, 2, 2, 2)
    with pytest.raises(ValueError, match="Diag.*rank must be greater than or equal to 1"):
        ops.diag(Tensor(3.0))
    with pytest.raises(TypeError, match="Diag.*but got Bool"):
        ops.diag(Tensor([True, False]))
    check_grad(ops.diag, _rand(2, 3))
    check_grad(linalg_ops.DiagPart(), _rand(2, 2, 2, 2))


@with_fixture
@given(data=st.data())
def test_trace_against_numpy(policy, data):
    dtype = data.draw(st.sampled_from(INT_DTYPES + FLOAT_DTYPES))
    x = _maybe_noncontig(data, data.draw(arrays(dtype, (data.draw(st.integers(0, 4)),
                                                        data.draw(st.integers(0, 4))))))
    with np.errstate(all="ignore"):
        want = np.array(np.trace(x, dtype=dtype))
    assert_close(ops.trace(tensor(x)), want)


def test_trace_values_errors_grad():
    assert ops.trace(Tensor([[1, 2], [3, 4]], ms.uint8)).dtype == ms.uint8
    assert float(ops.trace(Tensor([[1.0, -2, 3], [4, 5, 7]]))) == 6.0
    with pytest.raises(ValueError, match="Trace.*rank of the input must be 2, but got 1"):
        ops.trace(Tensor([1.0, 2]))
    with pytest.raises(TypeError, match="Trace.*but got Bool"):
        ops.trace(Tensor([[True, False], [True, True]]))
    check_grad(ops.trace, _rand(3, 2))


def test_outer_as_mindspore():
    got = ops.outer(Tensor([1, 2]), Tensor([1.0, 2, 3]))
    assert got.dtype == ms.float32 and got.tolist() == [[1, 2, 3], [2, 4, 6]]
    with pytest.raises(TypeError, match="outer.*'vec2' must be a Tensor"):
        ops.outer(Tensor([1.0]), [1.0])
    check_grad(ops.outer, _rand(3), _rand(4, seed=1))


# ---- baddbmm / addmm -------------------------------------------------------------------
@with_fixture
@given(data=st.data())
def test_baddbmm_addmm_against_numpy(policy, data):
    dtype = data.draw(st.sampled_from(F32_64 + [np.int32]))
    b, m, k, n = (data.draw(st.integers(0 if i else 1, 3)) for i in range(4))
    inp = data.draw(arrays(dtype, (b, m, n), allow_special=False))
    x = data.draw(arrays(dtype, (b, m, k), allow_special=False))
    y = _maybe_noncontig(data, data.draw(arrays(dtype, (b, k, n), allow_special=False)))
    beta, alpha = (2, 3) if dtype == np.int32 else (0.5, -1.5)
    want = (beta * inp.astype(np.float64) + alpha * (x.astype(np.float64) @ y)).astype(dtype)
    assert_close(ops.baddbmm(tensor(inp), tensor(x), tensor(y), beta, alpha), want,
                 rtol=1e-4, atol=1e-3)
    assert_close(ops.addmm(tensor(inp[0]), tensor(x[0]), tensor(y[0]), beta=beta,
                           alpha=alpha), want[0], rtol=1e-4, atol=1e-3)


def test_baddbmm_addmm_errors_and_grad():
    f = Tensor(np.ones((1, 2, 2), np.float32))
    with pytest.raises(TypeError, match="baddbmm.*same dtype"):
        ops.baddbmm(f, f, Tensor(np.ones((1, 2, 2))))
    with pytest.raises(TypeError, match="baddbmm.*'alpha' must be an int.*float"):
        ops.baddbmm(Tensor(np.ones((1, 2, 2), np.int32)), *[Tensor(np.ones((1, 2, 2),
                                                                           np.int32))] * 2,
                    alpha=0.5)
    with pytest.raises(TypeError, match="addmm.*'beta' must be an int or float"):
        ops.addmm(f[0], f[0], f[0], beta="1")
    check_grad(lambda i, a, b: ops.baddbmm(i, a, b, 0.5, 2.0), _rand(2, 2, 3), _rand(2, 2, 4),
               _rand(2, 4, 3))
    check_grad(lambda i, a, b: ops.addmm(i, a, b, beta=0.5, alpha=2.0), _rand(2, 3),
               _rand(2, 4), _rand(4, 3))


# ---- matrix_power / inverse / det ------------------------------------------------------
def _well_conditioned(data, dtype, batch, n):
    a = data.draw(arrays(dtype, batch + (n, n), allow_special=False, min_value=-1,
                         max_value=1))
    return (a + 3 * n * np.eye(n, dtype=dtype)).astype(dtype)


@with_fixture
@given(data=st.data())
def test_inverse_det_against_numpy(policy, data):
    dtype = data.draw(st.sampled_from(F32_64))
    batch = tuple(data.draw(st.lists(st.integers(0, 2), max_size=2)))
    a = _maybe_noncontig(data, _well_conditioned(data, dtype, batch, data.draw(
        st.integers(1, 4))))
    assert_close(ops.inverse(tensor(a)), np.linalg.inv(a) if a.size else a,
                 rtol=1e-4, atol=1e-5)
    want = np.linalg.det(a) if a.size else np.ones(batch, dtype)
    assert_close(ops.det(tensor(a)), np.asarray(want, dtype), rtol=1e-4, atol=1e-4)


@with_fixture
@given(data=st.data())
def test_matrix_power_against_numpy(policy, data):
    dtype = data.draw(st.sampled_from(F32_64 + [np.int32, np.int64]))
    n = data.draw(st.integers(-3 if dtype in F32_64 else 0, 4))
    batch = tuple(data.draw(st.lists(st.integers(1, 2), max_size=2)))
    a = _maybe_noncontig(data, _well_conditioned(data, dtype, batch, data.draw(
        st.integers(1, 3))))
    with np.errstate(all="ignore"):
        want = np.linalg.matrix_power(a.astype(np.float64), n)
    if dtype in F32_64:
        assert_close(ops.matrix_power(tensor(a), n), want.astype(dtype), rtol=1e-4, atol=1e-5)
    else:
        assert_close(ops.matrix_power(tensor(a), n), np.linalg.matrix_power(a, n))


def test_singular_and_mindspore_values():
    sq = Tensor(np.array([[2.0, 1], [1, 3]], np.float32))
    sing = Tensor(np.array([[1.0, 2], [2, 4]], np.float32))
    np.testing.assert_allclose(ops.matrix_power(sq, 3).asnumpy(), [[15, 20], [20, 35]])
    np.testing.assert_allclose(ops.matrix_power(sq, -2).asnumpy(),
                               [[0.4, -0.2], [-0.2, 0.2]], rtol=1e-6)
    assert ops.matrix_power(sq, 0).tolist() == [[1, 0], [0, 1]]
    assert float(ops.det(sq)) == pytest.approx(5.0) and float(ops.det(sing)) == 0.0
    inv = ops.inverse(sing).asnumpy()                    # no error (as MindSpore): nan
    assert inv.shape == (2, 2) and np.isnan(inv).all()
    with pytest.raises(ValueError, match="MatrixPower, negative power can not apply to "
                                         "singular matrix"):
        ops.matrix_power(sing, -1)
    assert ops.inverse(Tensor(np.ones((0, 2, 2), np.float32))).shape == (0, 2, 2)


def test_linalg_errors():
    x = Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="MatrixPower, dim\\[-1\\] and dim\\[-2\\].*3.*2"):
        ops.matrix_power(x, 2)
    with pytest.raises(ValueError, match="MatrixPower, integral types are not supported"):
        ops.matrix_power(Tensor([[1, 2], [3, 4]], ms.int32), -1)
    with pytest.raises(TypeError, match="MatrixPower.*'n' should be 'int'.*'float'"):
        ops.matrix_power(x, 2.0)
    with pytest.raises(TypeError, match="MatrixInverse.*'x'.*Float32, Float64.*but got Int64"):
        ops.inverse(Tensor([[1, 2], [3, 4]]))
    with pytest.raises(ValueError, match="MatrixInverse.*rank must be greater than or equal "
                                         "to 2, but got 1"):
        ops.inverse(Tensor([1.0, 2]))
    with pytest.raises(ValueError, match="MatrixDeterminant.*square.*\\[2, 3\\]"):
        ops.det(x)
    with pytest.raises(TypeError, match="inverse.*'input' must be a Tensor"):
        ops.inverse([[1.0]])


@pytest.mark.parametrize("n", [1, 2, 3, 0, -1, -2])
def test_matrix_power_grad(n):
    a = _rand(2, 3, 3) + 2 * np.eye(3)
    check_grad(lambda t: ops.matrix_power(t, n), a)


def test_inverse_det_grad():
    a = _rand(2, 3, 3) + 2 * np.eye(3)
    check_grad(ops.inverse, a)
    check_grad(lambda t: linalg_ops.MatrixInverse(True)(t), a)
    check_grad(ops.det, a)
    check_grad(lambda t: ms.grad(lambda u: ops.det(u).sum())(t) * t, a[0])   # second order
