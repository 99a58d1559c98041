"""Issue 13's clip_by_value, isnan / isinf / isfinite, isclose / allclose, flip, roll,
triu / tril and cumsum / cumprod (exclusive, reverse) through the public API: hypothesis
against numpy (0-d, empty, broadcast, non-contiguous, NaN/inf), MindSpore 2.10's printed
values, Tensor methods, float64 finite-difference gradients (CumProd's through zeros),
inference only, errors naming op/argument/expected/given. Forward tests run under the "ms"
and "vm" policies."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from gradcheck import check_grad
from helpers import (ALL_DTYPES, FLOAT_DTYPES, INT_DTYPES, arrays, assert_close,
                     broadcast_pairs, noncontig, shapes, tensor)

import mindlite as ms
from mindlite import Tensor, ops
from mindlite.abstract import abstract_tensor
from mindlite.kernels import registry
from mindlite.kernels.cpu import cum_numba
from mindlite.kernels.cpu._cext import _C
from mindlite.ops.operations import clip_cum_ops, reorder_ops
from mindlite.pynative.grad import BPROPS, NON_DIFFERENTIABLE

with_fixture = settings(suppress_health_check=list(settings.default.suppress_health_check)
                        + [HealthCheck.function_scoped_fixture], max_examples=25,
                        deadline=None)
NUM = INT_DTYPES + FLOAT_DTYPES


def _maybe_noncontig(data, x):
    return noncontig(x) if data.draw(st.booleans()) else x


# ---- clip_by_value ---------------------------------------------------------------------
@with_fixture
@given(data=st.data())
def test_clip_by_value_against_numpy(policy, data):
    dtype = data.draw(st.sampled_from(NUM))
    x = _maybe_noncontig(data, data.draw(arrays(dtype, shapes())))
    low = 0 if np.dtype(dtype).kind == "u" else -50
    lo, hi = sorted(data.draw(st.lists(st.integers(low, 50), min_size=2, max_size=2)))
    got = ops.clip_by_value(tensor(x), lo, hi)
    with np.errstate(all="ignore"):
        want = np.minimum(np.maximum(x, np.array(lo).astype(dtype)), np.array(hi).astype(dtype))
    assert_close(got, want)


@with_fixture
@given(data=st.data())
def test_clip_by_value_tensor_bounds_broadcast(policy, data):
    sx, sb = data.draw(broadcast_pairs())
    x = data.draw(arrays(np.float32, sx))
    lo = data.draw(arrays(np.float64, sb, allow_special=False))
    got = ops.clip_by_value(tensor(x), Tensor(lo), None)
    assert_close(got, np.maximum(x, lo.astype(np.float32)))


def test_clip_by_value_mindspore_values(policy):
    x = Tensor(np.array([-2.0, 0, 2, np.nan], np.float32))
    np.testing.assert_array_equal(ops.clip_by_value(x, -1.0, 1.0).asnumpy(), [-1, 0, 1, np.nan])
    i = Tensor(np.array([-3, 0, 3], np.int32))
    got = ops.clip_by_value(i, -1.5, 1.5)                  # bounds cast to Int32 first
    assert got.dtype == ms.int32 and got.tolist() == [-1, 0, 1]
    pair = ops.clip_by_value([x, x], -1.0, 1.0)
    assert isinstance(pair, tuple) and len(pair) == 2
    assert ops.clip_by_value(x, 1.0, -1.0).asnumpy()[:3].tolist() == [-1, -1, -1]   # max wins
    assert x.clip(0, 1).asnumpy()[:3].tolist() == [0, 0, 1]


# ---- isnan / isinf / isfinite / isclose / allclose -------------------------------------
CHECKS = {"isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite}


@pytest.mark.parametrize("name", sorted(CHECKS))
@with_fixture
@given(data=st.data())
def test_checks_against_numpy(policy, name, data):
    dtype = data.draw(st.sampled_from(ALL_DTYPES))
    x = _maybe_noncontig(data, data.draw(arrays(dtype, shapes())))
    want = CHECKS[name](x.astype(np.float64))
    if name == "isinf" and x.dtype.kind != "f":        # MindSpore 2.10's CPU IsInf: floats
        with pytest.raises(TypeError, match="IsInf"):
            ops.isinf(tensor(x))
        return
    assert_close(getattr(ops, name)(tensor(x)), want)
    assert_close(getattr(tensor(x), name)(), want)


@with_fixture
@given(data=st.data())
def test_isclose_against_numpy(policy, data):
    sx, sy = data.draw(broadcast_pairs())
    dtype = data.draw(st.sampled_from([np.float16, np.float32, np.float64, np.int32, np.int8]))
    x = data.draw(arrays(dtype, sx))
    if data.draw(st.booleans()):                           # close but not equal values
        y = (x.astype(np.float64) * (1 + 1e-6)).astype(dtype)
        y = np.broadcast_to(y, sx).copy() if y.shape == sx else data.draw(arrays(dtype, sy))
        sy = y.shape
    else:
        y = data.draw(arrays(dtype, sy))
    rtol = data.draw(st.sampled_from([1e-5, 1e-3, 0.0]))
    atol = data.draw(st.sampled_from([1e-8, 0.5, 0.0]))
    equal_nan = data.draw(st.booleans())
    want = np.isclose(x.astype(np.float64), y.astype(np.float64), rtol, atol, equal_nan)
    assert_close(ops.isclose(tensor(x), tensor(y), rtol, atol, equal_nan), want)
    assert ops.allclose(tensor(x), tensor(y), rtol, atol, equal_nan) is bool(want.all())
    assert tensor(x).allclose(tensor(y), rtol, atol, equal_nan) is bool(want.all())


def test_isclose_mindspore_values(policy):
    x = Tensor(np.array([-2.0, 0, 2, np.nan], np.float32))
    y = Tensor(np.array([-2.0, 1e-9, 2.00001, np.nan], np.float32))
    assert ops.isclose(x, y).tolist() == [True, True, True, False]
    assert ops.isclose(x, x, equal_nan=True).tolist() == [True] * 4
    assert ops.isclose(x, Tensor(np.float32(2.0))).tolist() == [False, False, True, False]
    inf = Tensor(np.array([np.inf, -np.inf, np.inf], np.float32))
    ninf = Tensor(np.array([np.inf, -np.inf, -np.inf], np.float32))
    assert ops.isclose(inf, ninf).tolist() == [True, True, False]
    assert ops.isclose(Tensor([1, 2]), Tensor([1, 3])).tolist() == [True, False]
    assert x.isclose(x).tolist() == [True, True, True, False]
    assert ops.allclose(x, x) is False and ops.allclose(x, x, equal_nan=True) is True


def test_checks_are_not_differentiable():
    assert {clip_cum_ops.IsNan, clip_cum_ops.IsInf, clip_cum_ops.IsFinite,
            clip_cum_ops.IsClose} <= NON_DIFFERENTIABLE
    x = Tensor(np.array([1.0, np.nan]))
    g = ms.grad(lambda a: ops.select(ops.isnan(a), a * 0, a * 2))(x)
    assert g.asnumpy()[0] == 2.0


# ---- flip / roll / triu / tril ---------------------------------------------------------
@with_fixture
@given(data=st.data())
def test_flip_against_numpy(policy, data):
    dtype = data.draw(st.sampled_from(ALL_DTYPES))
    x = _maybe_noncontig(data, data.draw(arrays(dtype, shapes(min_dims=1))))
    dims = data.draw(st.lists(st.integers(-x.ndim, x.ndim - 1), unique_by=lambda a: a % x.ndim,
                              max_size=x.ndim))
    want = np.flip(x, tuple(dims)) if dims else x
    assert_close(ops.flip(tensor(x), tuple(dims)), want)
    assert_close(tensor(x).flip(list(dims)), want)


@with_fixture
@given(data=st.data())
def test_roll_against_numpy(policy, data):
    dtype = data.draw(st.sampled_from(ALL_DTYPES))
    x = _maybe_noncontig(data, data.draw(arrays(dtype, shapes())))
    if x.ndim and data.draw(st.booleans()):
        dims = data.draw(st.lists(st.integers(-x.ndim, x.ndim - 1), min_size=1, max_size=3))
        shifts = data.draw(st.lists(st.integers(-12, 12), min_size=len(dims),
                                    max_size=len(dims)))
        want = np.roll(x, shifts, dims)
        got = ops.roll(tensor(x), tuple(shifts), tuple(dims))
    else:
        shift = data.draw(st.integers(-12, 12))
        want = np.roll(x, shift)
        got = tensor(x).roll(shift)
    assert_close(got, want)


@pytest.mark.parametrize("name", ["triu", "tril"])
@with_fixture
@given(data=st.data())
def test_triangles_against_numpy(policy, name, data):
    dtype = data.draw(st.sampled_from(ALL_DTYPES))
    x = _maybe_noncontig(data, data.draw(arrays(dtype, shapes(min_dims=2))))
    k = data.draw(st.integers(-6, 6))
    want = getattr(np, name)(x, k)
    assert_close(getattr(ops, name)(tensor(x), k), want)
    assert_close(getattr(tensor(x), name)(k), want)


def test_reorder_mindspore_values(policy):
    x = Tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    assert ops.flip(x, [1]).asnumpy()[0].tolist() == [3, 2, 1, 0]
    assert ops.flip(x, 0).asnumpy()[0].tolist() == [8, 9, 10, 11]        # an int dims too
    assert ops.triu(x, -1).asnumpy().tolist() == [[0, 1, 2, 3], [4, 5, 6, 7], [0, 9, 10, 11]]
    assert ops.triu(x, Tensor(1)).asnumpy()[1].tolist() == [0, 0, 6, 7]  # a 0-d Tensor diagonal
    b = Tensor(np.ones((2, 2), np.bool_))
    assert ops.triu(b).tolist() == [[True, True], [False, True]]
    assert ops.roll(x, 1).asnumpy()[0].tolist() == [11, 0, 1, 2]


# ---- cumsum / cumprod ------------------------------------------------------------------
def _cum_ref(fn, identity, x, axis, exclusive, reverse):
    if x.size == 0:
        return x.copy()
    a = np.flip(x, axis) if reverse else x
    with np.errstate(all="ignore"):
        out = fn(a, axis=axis, dtype=x.dtype)
    if exclusive:
        out = np.roll(out, 1, axis)
        index = [slice(None)] * x.ndim
        index[axis] = 0
        out[tuple(index)] = identity
    return np.flip(out, axis) if reverse else out


@pytest.mark.parametrize("name", ["CumSum", "CumProd"])
@with_fixture
@given(data=st.data())
def test_cumulative_against_numpy(policy, name, data):
    dtype = data.draw(st.sampled_from(NUM))
    kw = {"min_value": -3, "max_value": 3} if name == "CumProd" else {}
    x = _maybe_noncontig(data, data.draw(arrays(dtype, shapes(min_dims=1), **kw)))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    exclusive, reverse = data.draw(st.booleans()), data.draw(st.booleans())
    fn, identity = (np.cumsum, 0) if name == "CumSum" else (np.cumprod, 1)
    want = _cum_ref(fn, identity, x, axis % x.ndim, exclusive, reverse)
    got = getattr(ops, name)(exclusive, reverse)(tensor(x), axis)
    tol = 1e-2 if dtype == np.float16 else None                # float16 accumulates roundings
    assert_close(got, want, rtol=tol, atol=tol)


def test_cumulative_functional_and_methods(policy):
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = Tensor(x)
    assert_close(ops.cumsum(t, 1), np.cumsum(x, 1))
    assert_close(ops.cumsum(t, Tensor(1)), np.cumsum(x, 1))
    assert_close(t.cumsum(), np.cumsum(x.reshape(-1)))                     # axis None: flat
    assert_close(t.cumsum(0, ms.float64), np.cumsum(x, 0, dtype=np.float64))
    assert_close(ops.cumsum(Tensor(np.array([1.5, 2.5], np.float32)), 0, ms.int32),
                 np.array([1, 3], np.int32))                               # cast, then sum
    assert_close(ops.cumprod(t, 0), np.cumprod(x, 0))
    assert_close(t.cumprod(1), np.cumprod(x, 1))
    assert_close(ops.cumsum(Tensor(np.array([100, 100], np.int8)), 0),
                 np.array([100, -56], np.int8))                            # wraps as MindSpore
    assert_close(ops.cumprod(Tensor(np.array([100, 100], np.int8)), 0),
                 np.array([100, 10000], np.int64))                         # int64, as MindSpore
    assert_close(ops.CumProd()(Tensor(np.array([3, 3], np.uint8)), 0), np.array([3, 9], np.uint8))
    assert_close(ops.cumsum(Tensor(np.zeros((0, 3), np.float32)), 0), np.zeros((0, 3), np.float32))
    assert_close(ops.cumsum(Tensor(np.array([1, np.nan, 2], np.float32)), 0),
                 np.array([1, np.nan, np.nan], np.float32))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_cumulative_large_fast_kernel_matches_reference(dtype, monkeypatch):
    """Arrays above cum_numba.MIN_SIZE take the C++ rows (last axis, C-contiguous) or the
    numba loop under "ms": bitwise the numpy reference's results ("vm") for every axis, flag
    and layout (ints wrap alike)."""
    rng = np.random.default_rng(1)
    base = rng.uniform(0.9, 1.1, (40, 30, 24)) if dtype in (np.float32, np.float64) else \
        rng.integers(-3, 4, (40, 30, 24))
    base = base.astype(dtype)
    calls = []
    rows = _C.cum_rows
    monkeypatch.setattr(_C, "cum_rows", lambda *a: (calls.append(1), rows(*a))[1])
    for x in (base, base[:, ::-1, :], np.swapaxes(base, 0, 2)):
        for prim in (ops.CumSum, ops.CumProd):
            for axis in range(-3, 3):
                for flags in [(False, False), (True, False), (False, True), (True, True)]:
                    got = prim(*flags)(tensor(x), axis).asnumpy()
                    ms.set_context(backend_policy="vm")
                    try:
                        want = prim(*flags)(tensor(x), axis).asnumpy()
                    finally:
                        ms.set_context(backend_policy="ms")
                    assert got.tobytes() == want.tobytes(), (prim.__name__, axis, flags)
    assert cum_numba._J is not None                     # the numba loop did run
    assert calls, "the C++ rows did not run"


# ---- gradients -------------------------------------------------------------------------
small = hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=3)
finite = st.floats(-3, 3, allow_nan=False, allow_infinity=False)


@pytest.mark.parametrize("flags", [(False, False), (True, False), (False, True), (True, True)])
@pytest.mark.parametrize("name", ["CumSum", "CumProd"])
@settings(max_examples=8, deadline=None)
@given(data=st.data())
def test_cumulative_grad(name, flags, data):
    x = data.draw(small.flatmap(lambda s: hnp.arrays(np.float64, s, elements=finite)))
    if name == "CumProd" and data.draw(st.booleans()):        # zeros: the exact gradient
        x.reshape(-1)[data.draw(st.integers(0, x.size - 1))] = 0.0
        if x.size > 1 and data.draw(st.booleans()):
            x.reshape(-1)[data.draw(st.integers(0, x.size - 1))] = 0.0
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    prim = getattr(ops, name)(*flags)
    check_grad(lambda a: prim(a, axis), x)


def test_cumprod_grad_with_zeros_exact():
    g = ms.grad(lambda a: ops.cumprod(a, 0))(Tensor(np.array([2.0, 0, 3, 4])))
    assert g.tolist() == [1, 32, 0, 0]                 # MindSpore 2.10: [1, nan, 0, 0]
    g = ms.grad(lambda a: ops.cumprod(a, 0))(Tensor(np.array([2.0, 0, 3, 0])))
    assert g.tolist() == [1, 8, 0, 0]
    g = ms.grad(lambda a: ops.CumSum(True, False)(a, 0))(Tensor(np.array([2.0, 0, 3, 4])))
    assert g.tolist() == [3, 2, 1, 0]


def test_cumprod_grad_with_tiny_factors():
    """No division by x: a subnormal x or products that underflow keep the exact gradient."""
    sens = ops.GradOperation(sens_param=True)
    g = sens(lambda a: ops.cumprod(a, 0))(Tensor(np.array([5e-324])), Tensor(np.array([1.137])))
    assert g.tolist() == [1.137]
    g = ms.grad(lambda a: ops.cumprod(a, 0))(Tensor(np.array([1e-200, 1e-200, 1e-200])))
    assert g.tolist() == [1.0, 1e-200, 0.0]


@settings(max_examples=8, deadline=None)
@given(data=st.data())
def test_reorder_grads(data):
    x = data.draw(hnp.array_shapes(min_dims=2, max_dims=3, min_side=1, max_side=3).flatmap(
        lambda s: hnp.arrays(np.float64, s, elements=finite)))
    k = data.draw(st.integers(-2, 2))
    w = np.linspace(0.5, 1.5, x.size).reshape(x.shape)
    check_grad(lambda a: ops.flip(a, (0, -1)) * Tensor(w), x)
    check_grad(lambda a: ops.roll(a, (1, -2), (0, 1)) * Tensor(w), x)
    check_grad(lambda a: ops.roll(a, 2) * Tensor(w), x)
    check_grad(lambda a: ops.triu(a, k) * Tensor(w), x)
    check_grad(lambda a: ops.tril(a, k) * Tensor(w), x)
    check_grad(lambda a: ops.clip_by_value(a, -1.0, 1.0) * Tensor(w), x + 0.01)


def test_second_order_through_cumsum_flip_roll():
    x = np.array([0.3, -1.2, 0.7, 2.0])
    for fn in (lambda a: ops.cumsum(a * a, 0), lambda a: ops.flip(a * a, (0,)),
               lambda a: ops.roll(a * a, 1), lambda a: ops.triu((a * a).reshape(2, 2), 0)):
        check_grad(lambda a, fn=fn: ops.GradOperation()(lambda b: fn(b).sum())(a), x)


@pytest.mark.parametrize("flags", [(False, False), (True, False), (False, True), (True, True)])
def test_cumprod_second_order(flags):
    """grad of grad through CumProd (CumProdGrad's bprop), away from zeros, any axis."""
    x = np.array([[0.7, -1.3, 1.9], [1.2, 0.5, -0.8]])
    for axis in (0, 1):
        sens = Tensor(np.linspace(0.5, 1.5, x.size).reshape(x.shape))
        fn = lambda a, axis=axis: ops.CumProd(*flags)(a, axis)          # noqa: E731
        check_grad(lambda a: ops.GradOperation(sens_param=True)(fn)(a, sens), x)
        # and the gradient with respect to the sensitivity (dout) itself
        check_grad(lambda s, a=Tensor(x): ops.GradOperation(sens_param=True)(fn)(a, s),
                   np.asarray(sens.asnumpy()))


# ---- inference, completeness, errors ----------------------------------------------------
def test_infer_only():
    a = abstract_tensor(ms.float32, (2, 3, 4))
    b = abstract_tensor(ms.bool_, (2, 3, 4))
    assert ops.IsNan().infer(a) is b and ops.IsFinite().infer(a) is b
    assert ops.IsClose().infer(a, abstract_tensor(ms.float32, (3, 1))) is b
    assert ops.CumSum().infer(a, -1) is a
    assert ops.CumProd(True, True).kernel_params(a, -1) == {"axis": 2, "exclusive": True,
                                                            "reverse": True}
    assert ops.ReverseV2((0, -1)).kernel_params(a) == {"axis": (0, 2)}
    assert ops.Roll((1, 2), (0, -1)).kernel_params(a) == {"shifts": (1, 2), "dims": (0, 2)}
    assert ops.Triu(2).infer(a) is a and ops.Tril().kernel_params(a) == {"diagonal": 0}


def test_every_primitive_has_kernel_and_bprop_or_mark():
    for module in (clip_cum_ops, reorder_ops):
        for name in module.__all__:
            cls = getattr(module, name)
            assert getattr(ops, name) is cls
            assert registry.kernels_for(name), name
            assert cls in BPROPS or cls in NON_DIFFERENTIABLE, name


def test_errors():
    f = Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="For 'clip_by_value', at least one of"):
        ops.clip_by_value(f)
    with pytest.raises(TypeError, match="For 'clip_by_value', the type of argument 'x' must be "
                                        "Tensor.*but got ndarray"):
        ops.clip_by_value(np.ones(2), 0.0, 1.0)
    with pytest.raises(TypeError, match="For 'clip_by_value', the clip values must be.*str"):
        ops.clip_by_value(f, "a", 1.0)
    with pytest.raises(TypeError, match="For 'IsClose', the type of 'other' should be same as "
                                        "'input'.*Float32.*Int32"):
        ops.isclose(Tensor(np.ones(2, np.int32)), Tensor(np.ones(2, np.float32)))
    with pytest.raises(TypeError, match="For 'IsClose', the type of 'rtol' should be one of "
                                        r"\[bool, int, float\], but got str"):
        ops.isclose(f, f, rtol="a")
    with pytest.raises(TypeError, match="For 'IsClose', 'equal_nan' must be a bool, but got int"):
        ops.isclose(f, f, equal_nan=1)
    with pytest.raises(ValueError, match="For 'IsClose', input.shape and other.shape need to "
                                         "broadcast"):
        ops.isclose(f, Tensor(np.ones(2, np.float32)))
    with pytest.raises(ValueError, match="For 'ReverseV2', 'axis' cannot contain duplicate"):
        ops.flip(f, (0, 0))
    with pytest.raises(ValueError, match=r"For 'ReverseV2', 'axis' must be in range \[-2, 2\), "
                                         r"but got 2"):
        ops.flip(f, (2,))
    with pytest.raises(ValueError, match="For 'ReverseV2', the rank of 'input' must be not equal "
                                         "to 0"):
        ops.flip(Tensor(1.0), ())
    with pytest.raises(TypeError, match="For 'ReverseV2', 'axis' must be a tuple or list of "
                                        "ints, but got int"):
        ops.ReverseV2(0)
    with pytest.raises(ValueError, match="For 'Roll', 'shifts' and 'dims' must have the same "
                                         "length"):
        ops.roll(f, (1, 2), 0)
    with pytest.raises(ValueError, match="For 'Roll', 'shifts' must hold one int when 'dims' "
                                         "is None"):
        ops.roll(f, (1, 2))
    with pytest.raises(TypeError, match="For 'Roll', 'shifts' must be an int or a tuple/list of "
                                        "ints, but got float"):
        ops.roll(f, 1.0)
    with pytest.raises(ValueError, match="For 'Triu', the rank of 'input' must be greater than "
                                         "or equal to 2, but got 1"):
        ops.triu(Tensor(np.ones(3, np.float32)))
    with pytest.raises(TypeError, match="For 'Tril', 'diagonal' must be an int, but got float"):
        ops.tril(f, 1.0)
    with pytest.raises(ValueError, match=r"For 'CumSum', 'axis' must be in range \[-2, 2\), "
                                         r"but got 2"):
        ops.cumsum(f, 2)
    with pytest.raises(TypeError, match="For 'CumSum', 'axis' must be an int, but got float"):
        ops.cumsum(f, 0.0)
    with pytest.raises(TypeError, match="For 'CumSum', 'axis' must be an int, but got NoneType"):
        ops.cumsum(f, None)
    with pytest.raises(ValueError, match="For 'CumSum', the rank of 'x' must be greater than 0"):
        ops.cumsum(Tensor(2.0), 0)
    with pytest.raises(TypeError, match="For 'CumSum', the type of 'x' should be one of.*Bool"):
        ops.cumsum(Tensor([True, False]), 0)
    with pytest.raises(TypeError, match="For 'CumProd', 'exclusive' must be a bool, but got str"):
        ops.CumProd("a")
    before = f.asnumpy().copy()
    with pytest.raises(ValueError):
        ops.cumprod(f, 5)
    np.testing.assert_array_equal(f.asnumpy(), before)
