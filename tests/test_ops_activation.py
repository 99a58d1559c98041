"""Activations of issue 13 (leaky_relu, elu, selu, celu, hardswish, hardsigmoid, hardtanh,
mish, softsign, logsigmoid) through the public API against float64 numpy references:
hypothesis (0-d, empty, non-contiguous, NaN/inf), exact values at edges and kinks (MindSpore
2.10's, checked against it), float64 finite-difference gradients, second order, inference
only, errors naming op/argument/expected/given, and the bprop/kernel completeness of
activation_ops. Forward tests run under the "ms" and "vm" policies."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from gradcheck import check_grad
from helpers import FLOAT_DTYPES, arrays, assert_close, noncontig, shapes, tensor

import mindlite as ms
from mindlite import Tensor, ops
from mindlite.abstract import abstract_tensor
from mindlite.kernels import registry
from mindlite.ops.operations import activation_ops
from mindlite.pynative.grad import BPROPS

with_fixture = settings(suppress_health_check=list(settings.default.suppress_health_check)
                        + [HealthCheck.function_scoped_fixture], max_examples=25,
                        deadline=None)
TOL = {np.dtype(np.float16): (5e-3, 5e-3), np.dtype(np.float32): (1e-5, 1e-5),
       np.dtype(np.float64): (1e-12, 1e-12)}
SELU_A, SELU_S = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def _f64(fn):
    """A float64 reference rounded to the input dtype."""
    def ref(x):
        with np.errstate(all="ignore"):
            return np.asarray(fn(x.astype(np.float64))).astype(x.dtype)
    return ref


def _softplus(x):
    return np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))


def _hswish(x):
    return np.where(x <= -3, 0.0, np.where(x >= 3, x, x * (x + 3) / 6))


REFS = {   # name: (functional call, primitive, float64 reference, Tensor method name or None)
    "leaky_relu": (ops.leaky_relu, activation_ops.LeakyReLU(),
                   lambda x: np.maximum(0.2 * x, x)),
    "leaky_relu_a2": (lambda x: ops.leaky_relu(x, 2), activation_ops.LeakyReLU(2.0),
                      lambda x: np.maximum(2 * x, x)),
    "elu": (ops.elu, ops.Elu(), lambda x: np.where(x >= 0, x, np.expm1(np.minimum(x, 0)))),
    "selu": (ops.selu, ops.SeLU(),
             lambda x: SELU_S * np.where(x >= 0, x, SELU_A * np.expm1(np.minimum(x, 0)))),
    "celu": (ops.celu, ops.CeLU(),
             lambda x: np.maximum(x, 0) + np.minimum(0, np.expm1(x))),
    "celu_neg": (lambda x: ops.celu(x, -0.5), ops.CeLU(-0.5),
                 lambda x: np.maximum(x, 0) + np.minimum(0, -0.5 * np.expm1(x / -0.5))),
    "hardswish": (ops.hardswish, ops.HSwish(), _hswish),
    "hardsigmoid": (ops.hardsigmoid, ops.HSigmoid(), lambda x: np.clip(x / 6 + 0.5, 0, 1)),
    "hardtanh": (ops.hardtanh, activation_ops.Hardtanh(), lambda x: np.clip(x, -1, 1)),
    "hardtanh_02": (lambda x: ops.hardtanh(x, 0, 2.5), activation_ops.Hardtanh(0, 2.5),
                    lambda x: np.clip(x, 0, 2.5)),
    "mish": (ops.mish, ops.Mish(), lambda x: x * np.tanh(_softplus(x))),
    "softsign": (ops.softsign, ops.Softsign(), lambda x: x / (1 + np.abs(x))),
    "logsigmoid": (ops.logsigmoid, activation_ops.LogSigmoid(),
                   lambda x: np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))),
}


def _close(got, want):
    rtol, atol = TOL[np.dtype(want.dtype)]
    assert_close(got, want, rtol=rtol, atol=atol)


def _check(name, x):
    fn, prim, ref = REFS[name]
    want = _f64(ref)(x)
    t = tensor(x)
    _close(fn(t), want)
    _close(prim(t), want)
    _close(fn(t), want)                                  # the cached runner
    np.testing.assert_array_equal(t.asnumpy(), x)         # input untouched


@pytest.mark.parametrize("name", sorted(REFS))
@with_fixture
@given(data=st.data())
def test_forward_against_numpy(policy, name, data):
    dtype = data.draw(st.sampled_from(FLOAT_DTYPES))
    x = data.draw(arrays(dtype, shapes()))
    if data.draw(st.booleans()):
        x = noncontig(x)
    _check(name, x)


@pytest.mark.parametrize("name", sorted(REFS))
def test_edge_values_every_dtype(policy, name):
    vals = [0, 1, -1, 3, -3, 6, -6, 0.5, -2.5, 30, -30, 100, -100, np.nan, np.inf, -np.inf]
    for dtype in FLOAT_DTYPES:
        x = np.array(vals).astype(dtype)
        for arr in (x, x[::3], x[:0], x[3, ...], x.reshape(2, -1).T, x.reshape(1, 4, 4)):
            _check(name, arr)


def test_exact_values_as_mindspore(policy):
    """Values printed by MindSpore 2.10 for [-3, -1, -0.5, 0, 0.5, 1, 3, nan, inf, -inf]."""
    x = Tensor(np.array([-3, -1, -0.5, 0, 0.5, 1, 3, np.nan, np.inf, -np.inf], np.float32))
    nan = np.nan
    cases = {
        ops.hardswish: [0, -1 / 3, -0.20833333, 0, 0.29166666, 2 / 3, 3, nan, np.inf, 0],
        ops.hardsigmoid: [0, 1 / 3, 0.41666666, 0.5, 0.5833333, 2 / 3, 1, nan, 1, 0],
        ops.elu: [-0.95021296, -0.6321212, -0.3934695, 0, 0.5, 1, 3, nan, np.inf, -1],
        ops.selu: [-1.6705687, -1.1113307, -0.69175816, 0, 0.5253505, 1.050701, 3.152103, nan,
                   np.inf, -1.7580993],
        ops.softsign: [-0.75, -0.5, -1 / 3, 0, 1 / 3, 0.5, 0.75, nan, nan, nan],
        ops.logsigmoid: [-3.0485864, -1.3132613, -0.9740766, -0.693147, -0.47407678,
                         -0.31326148, -0.0485872, nan, 0, -np.inf],
        ops.leaky_relu: [-0.6, -0.2, -0.1, 0, 0.5, 1, 3, nan, np.inf, -np.inf],
    }
    for fn, want in cases.items():
        np.testing.assert_allclose(fn(x).asnumpy(), np.array(want, np.float32), rtol=2e-6,
                                   atol=1e-7, err_msg=fn.__name__)
    assert ops.hardtanh(x, 1.0, -1.0).asnumpy()[:7].tolist() == [-1.0] * 7   # max_val wins
    assert ops.leaky_relu(Tensor([-2.0, 2.0]), -1).tolist() == [2.0, 2.0]    # max(-x, x)


# ---- gradients -------------------------------------------------------------------------
def _floats(lo, hi, avoid=()):
    return st.floats(lo, hi, allow_nan=False, allow_infinity=False).filter(
        lambda v: all(abs(v - k) > 0.05 for k in avoid))


GRADS = [
    ("leaky_relu", ops.leaky_relu, _floats(-5, 5, (0,))),
    ("leaky_relu_a3", lambda x: ops.leaky_relu(x, 3.0), _floats(-5, 5, (0,))),
    ("elu", ops.elu, _floats(-5, 5, (0,))),
    ("selu", ops.selu, _floats(-5, 5, (0,))),
    ("celu", lambda x: ops.celu(x, 2.0), _floats(-5, 5, (0,))),
    ("celu_neg", lambda x: ops.celu(x, -0.5), _floats(-5, 5, (0,))),
    ("hardswish", ops.hardswish, _floats(-5, 5, (-3, 3))),
    ("hardsigmoid", ops.hardsigmoid, _floats(-5, 5, (-3, 3))),
    ("hardtanh", lambda x: ops.hardtanh(x, -0.5, 2.0), _floats(-4, 4, (-0.5, 2))),
    ("mish", ops.mish, _floats(-6, 6)),
    ("softsign", ops.softsign, _floats(-6, 6, (0,))),
    ("logsigmoid", ops.logsigmoid, _floats(-8, 8)),
]
small_shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=3)


@pytest.mark.parametrize("name,fn,elements", GRADS, ids=[g[0] for g in GRADS])
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_grad_finite_differences(name, fn, elements, data):
    x = data.draw(small_shapes.flatmap(lambda s: hnp.arrays(np.float64, s, elements=elements)))
    check_grad(fn, x)


@pytest.mark.parametrize("name,fn,elements", GRADS, ids=[g[0] for g in GRADS])
def test_second_order(name, fn, elements):
    x = np.array([-4.2, -2.0, -0.7, 0.6, 1.3, 2.2, 4.1])
    sens = Tensor(np.linspace(0.5, 1.5, x.size))
    check_grad(lambda a: ops.GradOperation(sens_param=True)(fn)(a, sens), x)


def test_grads_at_kinks_as_mindspore():
    """Gradients at [-3, -1, 0, 1, 3, -6, 6] (MindSpore 2.10's, except where noted)."""
    x = Tensor(np.array([-3.0, -1, 0, 1, 3, -6, 6]))
    e = np.exp
    cases = {
        ops.hardswish: [-0.5, 1 / 6, 0.5, 5 / 6, 1.5, 0, 1],
        ops.hardsigmoid: [0, 1 / 6, 1 / 6, 1 / 6, 0, 0, 0],
        ops.elu: [e(-3), e(-1), 1, 1, 1, e(-6), 1],
        ops.softsign: [1 / 16, 1 / 4, 1, 1 / 4, 1 / 16, 1 / 49, 1 / 49],
        ops.mish: [None, None, 0.6, None, None, None, None],
        # PyTorch's subgradients (MindSpore's composite forms average at the kinks)
        ops.leaky_relu: [0.2, 0.2, 0.2, 1, 1, 0.2, 1],
        ops.hardtanh: [0, 0, 1, 0, 0, 0, 0],
        # the exact derivative (MindSpore 2.10's SeLU gradient is wrong for x < 0)
        ops.selu: [SELU_S * SELU_A * e(-3), SELU_S * SELU_A * e(-1), SELU_S, SELU_S, SELU_S,
                   SELU_S * SELU_A * e(-6), SELU_S],
    }
    for fn, want in cases.items():
        got = ms.grad(fn)(x).asnumpy()
        keep = [i for i, w in enumerate(want) if w is not None]
        np.testing.assert_allclose(got[keep], np.array(want, dtype=float)[keep], rtol=1e-12,
                                   atol=1e-15, err_msg=fn.__name__)


def test_grad_float32_keeps_dtype():
    x = Tensor(np.array([-1.0, 0.5], np.float32))
    for _, fn, _ in GRADS:
        assert ms.grad(fn)(x).dtype == ms.float32


# ---- inference, completeness, errors ----------------------------------------------------
def test_infer_only():
    a = abstract_tensor(ms.float16, (2, 3, 4))
    for name in activation_ops.__all__:
        prim = getattr(ops, name)()
        assert prim.infer(a) is a
    assert ops.CeLU(2.0).kernel_params(a) == {"alpha": 2.0}
    assert ops.Hardtanh(0, 2).kernel_params(a) == {"min_val": 0.0, "max_val": 2.0}


def test_every_activation_primitive_has_kernel_and_bprop():
    for name in activation_ops.__all__:
        cls = getattr(activation_ops, name)
        assert cls in BPROPS, name
        assert registry.kernels_for(name), name
        assert getattr(ops, name) is cls


def test_attribute_free_activations_have_cpp_kernels():
    """float32/float64 run the C++ builtins (unary_impl.inc); float16 the numpy kernels."""
    for name in ("HSwish", "HSigmoid", "Softsign", "Elu", "SeLU", "Mish", "LogSigmoid"):
        (cpp,) = [k for k in registry.kernels_for(name) if k.provider == "cpp"]
        assert {t.np for t in cpp.dtypes} == {np.dtype(np.float32), np.dtype(np.float64)}


# MindSpore 2.10's results on integer inputs (printed by it for int32 and int8 alike)
INT_IN = [-100, -30, -10, -7, -5, -2, -1, 0, 1, 2, 3, 4, 7, 100]
INT_CASES = {
    "leaky_relu": (lambda t: ops.leaky_relu(t, 0.2), [0] * 8 + [1, 2, 3, 4, 7, 100]),
    "leaky_relu_1.5": (lambda t: ops.leaky_relu(t, 1.5), INT_IN),
    "selu": (ops.selu, [-1, -1] + [0] * 6 + [1, 2, 3, 4, 7, 100]),
    "hardswish": (ops.hardswish, [0] * 9 + [1, 3, 4, 7, 100]),
    "hardsigmoid": (ops.hardsigmoid, [0] * 10 + [1, 1, 1, 1]),
    "hardtanh": (lambda t: ops.hardtanh(t, -2.5, 2.5), [-2] * 6 + [-1, 0, 1] + [2] * 5),
}


@pytest.mark.parametrize("case", sorted(INT_CASES))
@pytest.mark.parametrize("dt", [np.int32, np.int8])
def test_integer_inputs_give_mindspores_results(case, dt):
    fn, want = INT_CASES[case]
    out = fn(Tensor(np.array(INT_IN, dt)))
    assert out.asnumpy().dtype == dt
    np.testing.assert_array_equal(out.asnumpy(), want)


def test_integer_edge_cases_as_mindspore():
    # selu's e**x - 1 in float32 first reaches -1 at x = -18
    np.testing.assert_array_equal(ops.selu(Tensor(np.arange(-20, -12, dtype=np.int32))).asnumpy(),
                                  [-1, -1, -1, 0, 0, 0, 0, 0])
    u8 = Tensor(np.array([253, 255, 0, 2, 5], np.uint8))
    np.testing.assert_array_equal(ops.hardtanh(u8, -2, 2).asnumpy(), [2] * 5)   # -2 -> 254
    np.testing.assert_array_equal(ops.leaky_relu(u8).asnumpy(), [253, 255, 0, 2, 5])
    b = Tensor(np.array([False, True, True]))
    np.testing.assert_array_equal(ops.hardtanh(b, -2, 2).asnumpy(), [False, True, True])
    big = Tensor(np.array([2 ** 62, -2 ** 62, 2], np.int64))
    np.testing.assert_array_equal(ops.hardswish(big).asnumpy(), [2 ** 62, 0, 1])


def test_errors():
    i = Tensor(np.ones(2, np.int32))
    float_only = {"Elu", "CeLU", "Mish", "Softsign", "LogSigmoid"}
    for name in activation_ops.__all__:
        if name in float_only:
            with pytest.raises(TypeError, match=rf"For '{name}', the type of 'input_x'.*Int32"):
                getattr(ops, name)()(i)
    # integer dtypes MindSpore 2.10 rejects too
    with pytest.raises(TypeError, match="For 'SeLU', the type of 'input_x'.*Int16"):
        ops.selu(Tensor(np.ones(2, np.int16)))
    with pytest.raises(TypeError, match="For 'HSigmoid', the type of 'input_x'.*UInt8"):
        ops.hardsigmoid(Tensor(np.ones(2, np.uint8)))
    with pytest.raises(TypeError, match="For 'LeakyReLU', the type of 'input_x'.*UInt16"):
        ops.leaky_relu(Tensor(np.ones(2, np.uint16)))
    with pytest.raises(TypeError, match="For 'HSwish', the type of 'input_x'.*Bool"):
        ops.hardswish(Tensor([True]))
    with pytest.raises(TypeError, match="For 'Mish', the input 'input_x' must be a Tensor"):
        ops.mish([1.0, 2.0])
    with pytest.raises(ValueError, match="For 'Elu', 'alpha' must be 1.0, but got 2.0"):
        ops.elu(Tensor([1.0]), 2.0)
    with pytest.raises(TypeError, match="For 'Elu', 'alpha' must be a float, but got str"):
        ops.Elu("a")
    with pytest.raises(ValueError, match="For 'CeLU', 'alpha' must be not equal to 0"):
        ops.celu(Tensor([1.0]), 0.0)
    with pytest.raises(TypeError, match="For 'CeLU', 'alpha' must be a float, but got int"):
        ops.celu(Tensor([1.0]), 2)
    with pytest.raises(TypeError, match=r"For 'leaky_relu', the type of 'alpha' should be one "
                                        r"of \['float', 'int'\], but got type 'bool'"):
        ops.leaky_relu(Tensor([1.0]), True)
    with pytest.raises(TypeError, match="For 'leaky_relu', the type of 'alpha'.*'Tensor'"):
        ops.leaky_relu(Tensor([1.0]), Tensor(0.1))
    with pytest.raises(TypeError, match="For 'hardtanh', the type of 'min_val'.*'str'"):
        ops.hardtanh(Tensor([1.0]), "a", 1.0)
    with pytest.raises(TypeError, match="For 'hardtanh', the type of 'max_val'.*'list'"):
        ops.hardtanh(Tensor([1.0]), 0, [1.0])
    with pytest.raises(TypeError, match="For 'CeLU', 'alpha' must be a float, but got list"):
        ops.celu(Tensor([1.0]), [1.0])
