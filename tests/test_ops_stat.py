"""Issue 13's statistics, distance and range ops through the public API: std / var /
std_mean / var_mean (axis, ddof, keepdims), logsumexp, cdist, linspace, logspace, meshgrid.
Hypothesis against numpy (0-d, empty, non-contiguous, NaN/inf) or PyTorch (cdist),
MindSpore 2.10's printed values, float64 finite-difference gradients, errors naming
op/argument/expected/given. Forward tests run under the "ms" and "vm" policies."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gradcheck import check_grad
from helpers import FLOAT_DTYPES, arrays, assert_close, noncontig, shapes, tensor

import mindlite as ms
from mindlite import Tensor, ops
from mindlite.abstract import abstract_tensor
from mindlite.ops.operations import stat_ops

with_fixture = settings(suppress_health_check=list(settings.default.suppress_health_check)
                        + [HealthCheck.function_scoped_fixture], max_examples=25,
                        deadline=None)


def _maybe_noncontig(data, x):
    return noncontig(x) if data.draw(st.booleans()) else x


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).uniform(-1, 1, shape)


def _axes(data, ndim):
    if data.draw(st.booleans()) or not ndim:
        return None
    axes = data.draw(st.lists(st.integers(-ndim, ndim - 1), min_size=1, max_size=ndim,
                              unique_by=lambda a: a % ndim))
    return axes[0] if len(axes) == 1 and data.draw(st.booleans()) else tuple(axes)


# ---- std / var / std_mean / var_mean ---------------------------------------------------
@with_fixture
@given(data=st.data())
def test_std_var_against_numpy(policy, data):
    dtype = data.draw(st.sampled_from(FLOAT_DTYPES))
    x = _maybe_noncontig(data, data.draw(arrays(dtype, shapes(max_side=4))))
    axis = _axes(data, x.ndim)
    ddof = data.draw(st.sampled_from([0, 1, 2, True]))
    keep = data.draw(st.booleans())
    with np.errstate(all="ignore"):
        w = x.astype(np.float64)
        ax = axis if axis is not None else None
        n = w.size if ax is None else int(np.prod([w.shape[a] for a in np.atleast_1d(ax)]))
        mean = np.sum(w, axis=ax, keepdims=True) / np.float64(n)
        var = np.sum((w - mean) ** 2, axis=ax, keepdims=keep) / np.float64(n - int(ddof))
        mean = mean if keep else np.sum(mean, axis=ax)
        std = np.sqrt(var)
    tol = {np.float16: 2e-2, np.float32: 1e-4, np.float64: 1e-10}[dtype]
    check = dict(rtol=tol, atol=tol)
    x_t = tensor(x)
    assert_close(ops.std(x_t, axis, ddof, keep), std.astype(dtype), **check)
    assert_close(ops.var(x_t, axis, ddof, keep), var.astype(dtype), **check)
    s, m = ops.std_mean(x_t, axis, ddof, keep)
    assert_close(s, std.astype(dtype), **check)
    assert_close(m, mean.astype(dtype), **check)
    v, m = ops.var_mean(x_t, axis, ddof, keep)
    assert_close(v, var.astype(dtype), **check)
    assert_close(x_t.std(axis, ddof, keep), std.astype(dtype), **check)
    assert_close(x_t.var(axis, ddof, keep), var.astype(dtype), **check)


def test_std_var_mindspore_values():
    x = Tensor(np.array([[1.0, 2, 3], [4, 5, 7]], np.float32))
    assert float(ops.std(x)) == pytest.approx(1.9720264673)
    np.testing.assert_allclose(ops.std(x, 1, 1, True).asnumpy(), [[1.0], [1.5275251865]])
    np.testing.assert_allclose(ops.std(x, 1, 2).asnumpy(), [1.4142135381, 2.1602468490])
    assert np.isinf(ops.std(x, 1, 3).asnumpy()).all()              # divisor 0, as MindSpore
    np.testing.assert_allclose(ops.var(x, axis=0).asnumpy(), [2.25, 2.25, 4.0])
    v, m = ops.var_mean(x, axis=(0, 1))
    assert float(v) == pytest.approx(3.8888884) and float(m) == pytest.approx(3.6666667)
    assert np.isnan(ops.std(Tensor(np.ones((1, 3), np.float32)), 0, 1).asnumpy()).all()
    assert np.isnan(ops.std(Tensor(np.ones((0, 3), np.float32)), 0).asnumpy()).all()
    assert ops.std(Tensor(np.float32(2))).shape == ()
    assert ops.std(Tensor(np.ones((2, 3), np.float16))).dtype == ms.float16


def test_std_var_errors():
    x = Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(TypeError, match="For 'std', the type of 'ddof' should be one of"):
        ops.std(x, 1, 1.0)
    with pytest.raises(TypeError, match="For 'std', the type of 'keepdims' should be 'bool'"):
        ops.std(x, 1, 0, 1)
    with pytest.raises(ValueError, match="'std'.*range of \\[-2, 2\\), but got 2"):
        ops.std(x, 2)
    with pytest.raises(TypeError, match="'var_mean'.*each axis should be an int"):
        ops.var_mean(x, [0])
    with pytest.raises(TypeError, match="ReduceStd.*'input_x'.*but got Int64"):
        ops.std(Tensor([[1, 2], [3, 5]]))
    with pytest.raises(TypeError, match="ReduceStd.*'axis'.*\\[int, tuple, list\\]"):
        stat_ops.ReduceStd(axis=1.0)


@pytest.mark.parametrize("ddof", [0, 1, 2])
@pytest.mark.parametrize("axis", [None, 1, (0, 2)])
def test_std_var_grad(ddof, axis):
    x = _rand(3, 4, 2)
    check_grad(lambda t: ops.std(t, axis, ddof), x)
    check_grad(lambda t: ops.var(t, axis, ddof, True), x)
    check_grad(lambda t: ops.std_mean(t, axis, ddof), x)


def test_float16_composite_path_does_not_overflow():
    """ddof 2 (MindSpore's composite): squared deviations of float16 [314, 0, 0] sum past
    float16's max (65504); computed in float32 as ReduceStd's path is, var = 65722 / 1 is
    inf only after the final cast while std stays finite."""
    x = Tensor(np.array([314.0, 0, 0], np.float16))
    assert float(ops.std(x, 0, 2)) == pytest.approx(256.4, rel=1e-3)
    assert ops.std(x, 0, 2).dtype == ms.float16
    tiny = Tensor(np.array([0.0, 1e-4], np.float16))            # deviations underflow in fp16
    assert np.isinf(ops.std(tiny, 0, 2).asnumpy())              # 0 < sum / 0: inf, not nan


def test_var_grad_of_constant_is_zero():
    """ReduceStd's bprop takes the subgradient 0 where std is 0 (not 0/0 = nan), so var
    (computed as std**2, as MindSpore) has its true gradient 0 at a constant input."""
    g = ms.grad(lambda t: ops.var(t))(Tensor(np.full((4,), 2.0)))
    assert g.asnumpy().tolist() == [0.0] * 4


def test_reduce_std_infer_only():
    out = stat_ops.ReduceStd((0,), True, True).infer(abstract_tensor(ms.float32, (3, 4)))
    assert [o.shape for o in out] == [(1, 4), (1, 4)] and out[0].dtype is ms.float32


# ---- logsumexp -------------------------------------------------------------------------
@with_fixture
@given(data=st.data())
def test_logsumexp_against_numpy(policy, data):
    dtype = data.draw(st.sampled_from(FLOAT_DTYPES))
    x = _maybe_noncontig(data, data.draw(arrays(dtype, shapes(min_dims=1, min_side=1,
                                                              max_side=4),
                                                allow_special=False, min_value=-50,
                                                max_value=50)))
    dim = data.draw(st.integers(-x.ndim, x.ndim - 1))
    keep = data.draw(st.booleans())
    w = x.astype(np.float64)
    want = np.log(np.sum(np.exp(w), axis=dim, keepdims=keep))
    tol = {np.float16: 2e-2, np.float32: 1e-5, np.float64: 1e-12}[dtype]
    assert_close(ops.logsumexp(tensor(x), dim, keep), want.astype(dtype), rtol=tol, atol=tol)
    assert_close(tensor(x).logsumexp(dim, keep), want.astype(dtype), rtol=tol, atol=tol)


def test_logsumexp_mindspore_values_and_grad():
    x = Tensor(np.array([[1.0, 2, 3], [4, 5, 7]], np.float32))
    np.testing.assert_allclose(ops.logsumexp(x, 1).asnumpy(), [3.4076054, 7.1698461], 1e-6)
    assert ops.logsumexp(x, (0, 1), True).shape == (1, 1)
    big = Tensor(np.array([1000.0, 1000.0], np.float32))            # no overflow
    assert float(ops.logsumexp(big, 0)) == pytest.approx(1000.0 + np.log(2))
    assert np.isnan(float(ops.logsumexp(Tensor(np.array([-np.inf, -np.inf], np.float32)), 0)))
    with pytest.raises(TypeError, match="logsumexp.*float Tensor.*Int64"):
        ops.logsumexp(Tensor([[1, 2]]), 1)
    check_grad(lambda t: ops.logsumexp(t, 1), _rand(3, 4))
    check_grad(lambda t: ops.logsumexp(t, (0, 1), True), _rand(3, 4))


# ---- cdist -----------------------------------------------------------------------------
P_VALUES = [0.0, 1.0, 2.0, 3.0, 0.5, float("inf")]


@with_fixture
@given(data=st.data())
def test_cdist_against_torch(policy, data):
    torch = pytest.importorskip("torch")
    dtype = data.draw(st.sampled_from([np.float32, np.float64]))
    batch = tuple(data.draw(st.lists(st.integers(1, 2), max_size=1)))
    p_rows, r_rows, m = (data.draw(st.integers(0 if i < 2 else 1, 4)) for i in range(3))
    x1 = _maybe_noncontig(data, data.draw(arrays(dtype, batch + (p_rows, m),
                                                 allow_special=False)))
    x2 = data.draw(arrays(dtype, batch + (r_rows, m), allow_special=False))
    p = data.draw(st.sampled_from(P_VALUES))
    want = torch.cdist(torch.from_numpy(x1.astype(np.float64)),
                       torch.from_numpy(x2.astype(np.float64)), p=p).numpy()
    assert_close(ops.cdist(tensor(x1), tensor(x2), p), want.astype(dtype), rtol=1e-4,
                 atol=1e-3)


def test_cdist_mindspore_values_and_errors():
    a, b = Tensor([[1.0, 2], [3, 4]]), Tensor([[0.0, 0], [1, 1], [2, 2]])
    np.testing.assert_allclose(ops.cdist(a, b).asnumpy(),
                               [[2.236068, 1, 1], [5, 3.6055512, 2.236068]], rtol=1e-6)
    assert ops.cdist(a, b, 0.0).tolist() == [[2, 1, 1], [2, 2, 2]]
    assert ops.cdist(a, b, float("inf")).tolist() == [[2, 1, 1], [4, 3, 2]]
    with pytest.raises(TypeError, match="Cdist.*'p' should be float.*int"):
        ops.cdist(a, b, 1)
    with pytest.raises(ValueError, match="Cdist.*non-negative.*-1.0"):
        ops.cdist(a, b, -1.0)
    with pytest.raises(TypeError, match="Cdist.*'input_x'.*but got Int32"):
        ops.cdist(Tensor(np.ones((2, 3), np.int32)), Tensor(np.ones((4, 3), np.int32)))
    with pytest.raises(ValueError, match="Cdist.*batch and last dimensions"):
        ops.cdist(Tensor(np.ones((1, 2, 3), np.float32)), Tensor(np.ones((2, 4, 3), np.float32)))
    with pytest.raises(ValueError, match="Cdist.*2-D or 3-D"):
        ops.cdist(Tensor(np.ones(3, np.float32)), Tensor(np.ones(3, np.float32)))


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, 0.5, float("inf")])
def test_cdist_grad(p):
    a, b = _rand(2, 3, 4), _rand(2, 5, 4, seed=1)
    check_grad(lambda x, y: ops.cdist(x, y, p), a, b, rtol=1e-4, atol=1e-6)


def test_cdist_grad_zero_distance_is_zero():
    a = Tensor(np.array([[1.0, 2.0]]))
    g = ms.grad(lambda x: ops.cdist(x, Tensor(np.array([[1.0, 2.0]]))).sum())(a)
    assert g.asnumpy().tolist() == [[0.0, 0.0]]


# ---- linspace / logspace / meshgrid ----------------------------------------------------
@with_fixture
@given(data=st.data())
def test_linspace_logspace_against_numpy(policy, data):
    dtype = data.draw(st.sampled_from([np.float32, np.float64]))
    start, end = (data.draw(st.floats(-5, 5, width=32)) for _ in range(2))
    num = data.draw(st.integers(1, 20))
    got = ops.linspace(Tensor(start, ms.float32 if dtype == np.float32 else ms.float64),
                       Tensor(end, ms.float32 if dtype == np.float32 else ms.float64), num)
    want = np.linspace(np.float64(dtype(start)), np.float64(dtype(end)), num).astype(dtype)
    assert_close(got, want)
    base = data.draw(st.integers(0, 4))
    out_t = data.draw(st.sampled_from(FLOAT_DTYPES))
    with np.errstate(all="ignore"):
        want = np.power(float(base), np.linspace(np.float64(np.float32(start)),
                                                 np.float64(np.float32(end)), num - 1))
    got = ops.logspace(Tensor(start, ms.float32), Tensor(end, ms.float32), num - 1, base,
                       dtype=ms.common.dtype.from_numpy_dtype(np.dtype(out_t)))
    assert_close(got, want.astype(out_t), rtol=1e-3 if out_t == np.float16 else 1e-5)


def test_linspace_logspace_mindspore_values_and_errors():
    assert ops.linspace(0, 1, 5).tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert ops.linspace(0, 1, 5).dtype == ms.float32
    assert ops.linspace(0, 1, Tensor(3)).tolist() == [0.0, 0.5, 1.0]
    assert ops.linspace(0, 1, 1).tolist() == [0.0]
    with pytest.raises(ValueError, match="LinSpace.*num must be greater than 0, but got 0"):
        ops.linspace(0, 1, 0)
    with pytest.raises(TypeError, match="LinSpace.*'start'.*but got Int32"):
        ops.linspace(Tensor(0, ms.int32), Tensor(1, ms.int32), 5)
    with pytest.raises(TypeError, match="LinSpace.*'num' must be an int.*float"):
        ops.linspace(0, 1, 3.0)
    assert ops.logspace(0.0, 2.0, 3).tolist() == [1.0, 10.0, 100.0]
    got = ops.logspace(Tensor(0.0), Tensor(2.0), 3, 2, dtype=ms.float64)
    assert got.dtype == ms.float64 and got.tolist() == [1.0, 2.0, 4.0]
    with pytest.raises(TypeError, match="LogSpace.*'dtype' should be one of.*Int32"):
        ops.logspace(Tensor(0.0), Tensor(2.0), 3, 2, dtype=ms.int32)
    with pytest.raises(TypeError, match="LogSpace.*'base' should be 'int'.*'float'"):
        ops.logspace(Tensor(0.0), Tensor(2.0), 3, 2.5)
    with pytest.raises(ValueError, match="LogSpace.*'base' must be int and must >= 0"):
        ops.logspace(Tensor(0.0), Tensor(2.0), 3, -2)


def test_linspace_logspace_grad():
    check_grad(lambda a, b: ops.linspace(a, b, 5), np.array(0.5), np.array(2.0))
    check_grad(lambda a, b: ops.logspace(a, b, 4, 3, dtype=ms.float64), np.array(0.5),
               np.array(1.5))


@with_fixture
@given(data=st.data())
def test_meshgrid_against_numpy(policy, data):
    dtype = data.draw(st.sampled_from([np.float32, np.int64, np.uint8]))
    k = data.draw(st.integers(1, 4))
    xs = [data.draw(arrays(dtype, (data.draw(st.integers(0, 3)),))) for _ in range(k)]
    indexing = data.draw(st.sampled_from(["xy", "ij"]))
    got = ops.meshgrid(*[tensor(x) for x in xs], indexing=indexing)
    want = np.meshgrid(*xs, indexing=indexing)
    assert isinstance(got, tuple) and len(got) == k
    for g, w in zip(got, want):
        assert_close(g, w)


def test_meshgrid_mindspore_values_errors_grad():
    a, b = ops.meshgrid(Tensor([1, 2, 3]), Tensor([4, 5]))
    assert a.tolist() == [[1, 2, 3], [1, 2, 3]] and b.tolist() == [[4, 4, 4], [5, 5, 5]]
    a, b = ops.meshgrid(Tensor([1, 2, 3]), Tensor([4, 5]), indexing="ij")
    assert a.shape == (3, 2) and b.tolist() == [[4, 5]] * 3
    with pytest.raises(TypeError, match="Meshgrid.*'inputs\\[1\\]' should be same"):
        ops.meshgrid(Tensor([1, 2, 3]), Tensor([4.0, 5]))
    with pytest.raises(ValueError, match="Meshgrid.*'indexing' must be 'xy' or 'ij'"):
        ops.meshgrid(Tensor([1, 2, 3]), indexing="xx")
    with pytest.raises(ValueError, match="Meshgrid.*1-D.*'inputs\\[0\\]' has shape \\[1, 3\\]"):
        ops.meshgrid(Tensor([[1, 2, 3]]), Tensor([4, 5]))
    for ix in ("xy", "ij"):
        check_grad(lambda *t: ops.meshgrid(*t, indexing=ix), _rand(3), _rand(2, seed=1),
                   _rand(4, seed=2))
