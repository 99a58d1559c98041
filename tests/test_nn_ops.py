"""nn_ops through the public API (ops.X()(...), functional, Tensor methods) against float64
numpy references: activations, Softmax / LogSoftmax, BiasAdd; exact edge values, stability
at large |x|, inference-only tests and errors. Forward tests run under the "ms" policy
(whichever kernel wins) and under "vm" (the numpy reference kernels)."""
import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import FLOAT_DTYPES, INT_DTYPES, arrays, assert_close, noncontig, shapes, tensor

import mindlite as ms
from mindlite import Tensor, ops
from mindlite.abstract import abstract_tensor

SIGNED_INTS = [np.int8, np.int16, np.int32, np.int64]
with_fixture = settings(suppress_health_check=list(settings.default.suppress_health_check)
                        + [HealthCheck.function_scoped_fixture])
# float16 results of multi-step formulas carry a few float16 roundings
TOL = {np.dtype(np.float16): (5e-3, 5e-3), np.dtype(np.float32): (1e-5, 1e-5),
       np.dtype(np.float64): (1e-12, 1e-12)}




def _f64(fn):
    """A float64 reference rounded to the input dtype (ints are computed exactly)."""
    def ref(x, *args):
        with np.errstate(all="ignore"):
            return np.asarray(fn(x.astype(np.float64), *args)).astype(x.dtype)
    return ref


def _sigmoid(x):
    return np.where(x >= 0, 1 / (1 + np.exp(-np.abs(x))), np.exp(x) / (1 + np.exp(x)))


def _gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


ACTIVATIONS = {   # op: (functional, reference, dtypes, Tensor method)
    "ReLU": (ops.relu, _f64(lambda x: np.maximum(x, 0)), SIGNED_INTS + FLOAT_DTYPES, Tensor.relu),
    "ReLU6": (ops.relu6, _f64(lambda x: np.minimum(np.maximum(x, 0), 6)), FLOAT_DTYPES, None),
    "Sigmoid": (ops.sigmoid, _f64(_sigmoid), FLOAT_DTYPES, Tensor.sigmoid),
    "Tanh": (ops.tanh, _f64(np.tanh), FLOAT_DTYPES, Tensor.tanh),
    "GeLU": (lambda x: ops.gelu(x, approximate="tanh"), _f64(_gelu_tanh), FLOAT_DTYPES, None),
    "SiLU": (ops.silu, _f64(lambda x: x * _sigmoid(x)), FLOAT_DTYPES, None),
    "Softplus": (ops.softplus, _f64(lambda x: np.logaddexp(0, x)), FLOAT_DTYPES, None),
}


def _close(got, want):
    rtol, atol = TOL.get(np.dtype(want.dtype), (None, None))
    assert_close(got, want, rtol=rtol, atol=atol)


def _check_activation(name, x):
    fn, ref, _, method = ACTIVATIONS[name]
    want = ref(x)
    t = tensor(x)
    _close(getattr(ops, name)()(t), want)
    _close(fn(t), want)                               # second call: the cached runner
    if method is not None:
        _close(method(t), want)
    np.testing.assert_array_equal(t.asnumpy(), x)


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
@with_fixture
@given(data=st.data())
def test_activation(policy, name, data):
    dtype = data.draw(st.sampled_from(ACTIVATIONS[name][2]))
    x = data.draw(arrays(dtype, shapes()))
    if data.draw(st.booleans()):
        x = noncontig(x)
    _check_activation(name, x)


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_every_dtype(policy, name):
    for dtype in ACTIVATIONS[name][2]:
        vals = [0, 1, -1, 6, 7, -100, 100]
        if np.dtype(dtype).kind == "f":
            vals += [0.5, -2.5, 5.9, 30, -30, np.nan, np.inf, -np.inf]
        x = np.array(vals).astype(dtype)
        for arr in (x, x[::3], x[:0], x[3, ...], x.reshape(1, -1)):
            _check_activation(name, arr)


def test_activation_edge_values(policy):
    z = Tensor(np.zeros(1, np.float32))
    assert ops.relu(z).tolist() == [0] and ops.relu(Tensor([-0.0, -1.0])).tolist() == [0, 0]
    assert ops.relu6(Tensor([6.0, 0.0, 7.0, -1.0])).tolist() == [6, 0, 6, 0]
    assert ops.sigmoid(z).tolist() == [0.5] and ops.tanh(z).tolist() == [0]
    assert ops.gelu(z, "tanh").tolist() == [0] and ops.silu(z).tolist() == [0]
    assert_close(ops.softplus(z), np.array([math.log(2)], np.float32))
    assert ops.relu(Tensor(np.array([-3, 0, 4], np.int32))).tolist() == [0, 0, 4]
    assert np.isnan(ops.relu(Tensor([np.nan])).asnumpy()).all()


def test_stable_at_large_magnitude(policy):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for dtype in FLOAT_DTYPES:
            big = np.finfo(dtype).max
            x = Tensor(np.array([-big, -1000, 1000, big], dtype))
            np.testing.assert_array_equal(ops.sigmoid(x).asnumpy(), np.array([0, 0, 1, 1], dtype))
            np.testing.assert_array_equal(ops.softplus(x).asnumpy(),
                                          np.array([0, 0, 1000, big], dtype))
            s = ops.softmax(Tensor(np.array([[1000, 0, -1000]], dtype)))
            np.testing.assert_array_equal(s.asnumpy(), np.array([[1, 0, 0]], dtype))
            ls = ops.log_softmax(Tensor(np.array([1000, 0], dtype)))
            np.testing.assert_array_equal(ls.asnumpy(), np.array([0, -1000], dtype))


def test_gelu_exact_form(policy):
    x = np.array([-3, -1, 0, 0.5, 2], np.float32)
    want = np.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x.astype(float)])
    _close(ops.gelu(Tensor(x)), want.astype(np.float32))
    _close(ops.gelu(Tensor(x), approximate="tanh"), _f64(_gelu_tanh)(x))


def test_softplus_beta_threshold(policy):
    x = np.array([-5, 0, 3, 12], np.float32)
    want = np.where(2 * x > 20, x, np.logaddexp(0, 2 * x.astype(np.float64)) / 2)
    _close(ops.softplus(Tensor(x), beta=2, threshold=20), want.astype(np.float32))


# ---- Softmax / LogSoftmax ------------------------------------------------------------------
def _softmax(x, axis):
    if x.size == 0:
        return x
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def _log_softmax(x, axis):
    if x.size == 0:
        return x
    s = x - np.max(x, axis=axis, keepdims=True)
    return s - np.log(np.sum(np.exp(s), axis=axis, keepdims=True))


@pytest.mark.parametrize("name, fn, ref", [("Softmax", ops.softmax, _softmax),
                                           ("LogSoftmax", ops.log_softmax, _log_softmax)])
@with_fixture
@given(data=st.data())
def test_softmax(policy, name, fn, ref, data):
    dtype = data.draw(st.sampled_from(FLOAT_DTYPES))
    x = data.draw(arrays(dtype, shapes(min_dims=1)))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    if data.draw(st.booleans()):
        x = noncontig(x)
    want = _f64(ref)(x, axis)
    t = tensor(x)
    _close(getattr(ops, name)(axis)(t), want)
    _close(getattr(ops, name)((axis,))(t), want)
    _close(fn(t, axis), want)
    if name == "Softmax":
        _close(t.softmax(axis), want)


def test_softmax_special_rows(policy):
    x = Tensor(np.array([[0, -np.inf, 0], [np.nan, 1, 2], [np.inf, 1, 2],
                         [-np.inf, -np.inf, -np.inf]], np.float32))
    s = ops.softmax(x).asnumpy()
    np.testing.assert_array_equal(s[0], [0.5, 0, 0.5])
    assert np.isnan(s[1:]).all()
    ls = ops.log_softmax(x).asnumpy()
    np.testing.assert_allclose(ls[0], [-math.log(2), -np.inf, -math.log(2)], rtol=1e-6)
    assert np.isnan(ls[1:]).all()
    one = ops.softmax(Tensor(np.float32(3.0)))                  # 0-d: a single element
    assert one.shape == () and one.tolist() == 1.0
    assert ops.log_softmax(Tensor(np.float32(3.0)), 0).tolist() == 0.0
    empty = ops.softmax(Tensor(np.zeros((0, 3), np.float32)), 1)
    assert empty.shape == (0, 3)
    assert ops.softmax(Tensor(np.zeros((2, 0), np.float32))).shape == (2, 0)
    np.testing.assert_array_equal(ops.softmax(Tensor(np.ones((2, 4)))).asnumpy(),
                                  np.full((2, 4), 0.25))


# ---- BiasAdd -------------------------------------------------------------------------------
@with_fixture
@given(data=st.data())
def test_bias_add(policy, data):
    dtype = data.draw(st.sampled_from(INT_DTYPES + FLOAT_DTYPES))
    fmt = data.draw(st.sampled_from(["NCHW", "NHWC", "NCDHW"]))
    shape = data.draw(shapes(min_dims=5, max_dims=5, max_side=3) if fmt == "NCDHW"
                      else shapes(min_dims=2, max_dims=4))
    c = shape[-1] if fmt == "NHWC" else shape[1]
    x = data.draw(arrays(dtype, shape))
    b = data.draw(arrays(dtype, (c,)))
    if data.draw(st.booleans()):
        x, b = noncontig(x), noncontig(b)
    bb = b if fmt == "NHWC" else b.reshape((-1,) + (1,) * (x.ndim - 2))
    with np.errstate(all="ignore"):
        want = x + bb
    tx, tb = tensor(x), tensor(b)
    assert_close(ops.BiasAdd(fmt)(tx, tb), want)
    assert_close(ops.bias_add(tx, tb, fmt), want)
    if fmt == "NCHW":
        assert_close(ops.BiasAdd()(tx, tb), want)


# ---- inference only ------------------------------------------------------------------------
def test_infer_only():
    a = abstract_tensor(ms.float16, (2, 3, 4))
    for prim in (ops.ReLU(), ops.ReLU6(), ops.Sigmoid(), ops.Tanh(), ops.GeLU(), ops.SiLU(),
                 ops.Softplus(), ops.Softmax(), ops.LogSoftmax(1), ops.Softmax((-3,))):
        assert prim.infer(a) is a
    assert ops.Softmax(-3).kernel_params(a) == {"axis": 0}
    assert ops.LogSoftmax((2,)).kernel_params(a) == {"axis": 2}
    assert ops.Softmax().kernel_params(abstract_tensor(ms.float32, ())) == {"axis": 0}
    assert ops.BiasAdd().infer(a, abstract_tensor(ms.float16, (3,))) is a
    assert ops.BiasAdd("NHWC").infer(a, abstract_tensor(ms.float16, (4,))) is a
    i = abstract_tensor(ms.int8, (5,))
    assert ops.ReLU().infer(i) is i


# ---- errors --------------------------------------------------------------------------------
def test_errors():
    f = Tensor(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match=r"For 'Softmax', 'axis' must be in range \[-2, 2\), "
                                         r"but got 2"):
        ops.Softmax(2)(f)
    with pytest.raises(ValueError, match="For 'LogSoftmax', 'axis' must be in range"):
        ops.log_softmax(f, -3)
    with pytest.raises(ValueError, match="For 'Softmax', 'axis' must be an int or a tuple of one"):
        ops.Softmax((0, 1))
    with pytest.raises(TypeError, match="For 'Softmax', 'axis' must be an int"):
        ops.Softmax(1.0)
    with pytest.raises(TypeError, match="For 'Softmax', 'axis' must be an int"):
        ops.softmax(f, True)
    with pytest.raises(TypeError, match="For 'Softmax', the type of 'x'.*Int64"):
        ops.softmax(Tensor([1, 2]))
    for name in ("ReLU6", "Sigmoid", "Tanh", "GeLU", "SiLU", "Softplus"):
        with pytest.raises(TypeError, match=rf"For '{name}', the type of 'x'.*Int32"):
            getattr(ops, name)()(Tensor(np.ones(2, np.int32)))
    with pytest.raises(TypeError, match="For 'ReLU', the type of 'x'.*UInt8"):
        ops.relu(Tensor(np.ones(2, np.uint8)))
    with pytest.raises(TypeError, match="For 'ReLU', the type of 'x'.*Bool"):
        ops.ReLU()(Tensor([True]))            # the function returns a bool input (2.10)
    with pytest.raises(TypeError, match="For 'gelu'"):
        ops.gelu(Tensor([1, 2]))
    with pytest.raises(ValueError, match="For 'gelu', 'approximate'"):
        ops.gelu(f, approximate="fast")
    with pytest.raises(TypeError, match="For 'ReLU', expected 1 inputs"):
        ops.ReLU()(f, f)
    with pytest.raises(TypeError, match="For 'BiasAdd', expected 2 inputs"):
        ops.BiasAdd()(f)
    with pytest.raises(ValueError, match="For 'BiasAdd', the size of 'bias' must equal"):
        ops.bias_add(f, Tensor(np.ones(2, np.float32)))
    with pytest.raises(ValueError, match="For 'BiasAdd', 'bias' must be 1-D"):
        ops.bias_add(f, Tensor(np.ones((3, 1), np.float32)))
    with pytest.raises(ValueError, match="For 'BiasAdd', the rank of 'input_x'"):
        ops.bias_add(Tensor(np.ones(3, np.float32)), Tensor(np.ones(3, np.float32)))
    with pytest.raises(ValueError, match="For 'BiasAdd', the rank of 'input_x' must be 5"):
        ops.BiasAdd("NCDHW")(f, Tensor(np.ones(3, np.float32)))
    with pytest.raises(TypeError, match="For 'BiasAdd', the type of 'bias' should be same as "
                                        "'input_x'"):
        ops.bias_add(f, Tensor(np.ones(3, np.float64)))
    with pytest.raises(ValueError, match="For 'BiasAdd', 'data_format' must be one of"):
        ops.BiasAdd("NC")
    with pytest.raises(TypeError, match="For 'BiasAdd', 'data_format' must be a str"):
        ops.BiasAdd(1)
