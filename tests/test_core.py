"""The pipeline itself: Tensor/dtype construction and promotion, repr, Parameter and
initializers, context, the runner cache, session and kernel registration, completeness."""
import inspect
import weakref

import numpy as np
import pytest

import mindlite as ms
from mindlite import Parameter, Tensor, ops
from mindlite.abstract import abstract_tensor
from mindlite.backend import session as session_mod
from mindlite.common import initializer as init
from mindlite.kernels import registry
from mindlite.ops.primitive import Primitive, prim_attr_register
from mindlite.ops.validator import check_dtype


# ---- construction ------------------------------------------------------------------------
@pytest.mark.parametrize("data, dtype", [
    ([1.0, 2.0], ms.float32), ([1, 0], ms.int64), (1.0, ms.float32), (1, ms.int64),
    (True, ms.bool_), (np.array([1.0]), ms.float64), (np.array([1], np.int32), ms.int32),
    ([[1, 2], [3, 4]], ms.int64), ([True, False], ms.bool_), (np.float64(2.0), ms.float64),
])
def test_construction_dtypes(data, dtype):
    assert Tensor(data).dtype is dtype


def test_tensor_copies_ndarray_and_from_numpy_shares():
    a = np.zeros(3, np.float32)
    t, s = Tensor(a), Tensor.from_numpy(a)
    a[0] = 5
    assert t.asnumpy()[0] == 0 and s.asnumpy()[0] == 5
    a.shape = (3, 1)                  # reshaping the source in place does not leak in
    assert s.shape == (3,)


def test_attributes():
    t = Tensor(np.ones((2, 3), np.float32))
    assert (t.shape, t.ndim, t.size, t.itemsize, t.nbytes) == ((2, 3), 2, 6, 4, 24)
    assert t.strides == (12, 4) and len(t) == 2 and t.dtype == ms.float32
    assert np.asarray(t).shape == (2, 3)
    assert Tensor([1, 2], ms.float16).dtype is ms.float16
    assert t.astype(ms.int32).dtype is ms.int32


def test_lazy_tensor_and_parameter_init():
    t = Tensor(shape=(2, 2), dtype=ms.float32, init=init.One())
    assert t.shape == (2, 2) and t._arr is None
    assert np.array_equal(t.asnumpy(), np.ones((2, 2), np.float32))
    p = Parameter(init.initializer("zeros", (3,), ms.float32), name="w")
    assert p._arr is None
    out = ops.ReLU()(p)                              # Primitive.__call__ initialises it
    assert p._arr is not None and np.array_equal(out.asnumpy(), np.zeros(3, np.float32))


def test_parameter():
    p = Parameter(np.array([6.0]), name="w")
    assert p.dtype is ms.float64 and p.requires_grad
    assert repr(p) == "Parameter (name=w, shape=(1,), dtype=Float64, requires_grad=True)"
    with pytest.raises(TypeError, match="Parameter"):
        Parameter(object())
    with pytest.raises(TypeError, match="ParameterTuple"):
        ms.ParameterTuple([p, Tensor(1.0)])


@pytest.mark.parametrize("name, cls", [("normal", init.Normal), ("HeUniform", init.HeUniform),
                                       ("xavier_uniform", init.XavierUniform),
                                       ("truncatedNormal", init.TruncatedNormal)])
def test_initializers(name, cls):
    ms.set_seed(1)
    t = init.initializer(name, (64, 32), ms.float32)
    a = t.asnumpy()
    assert a.shape == (64, 32) and a.dtype == np.float32 and np.isfinite(a).all() and a.std() > 0
    assert isinstance(init._as_initializer(name), cls)


def test_initializer_values():
    assert np.all(init.initializer(init.Constant(3), (2,), ms.int32).asnumpy() == 3)
    bound = 1 / np.sqrt(16) * np.sqrt(3) * np.sqrt(2 / (1 + 5))   # HeUniform(a=sqrt(5))
    w = init.initializer(init.HeUniform(negative_slope=np.sqrt(5)), (8, 16)).asnumpy()
    assert np.abs(w).max() <= bound + 1e-6
    tn = init.initializer(init.TruncatedNormal(sigma=1.0), (1000,)).asnumpy()
    assert tn.min() >= -2 and tn.max() <= 2
    with pytest.raises(ValueError, match="unknown initializer"):
        init.initializer("nope", (2,))


def test_seed_reproducible():
    ms.set_seed(7)
    a = init.initializer("normal", (5,)).asnumpy()
    ms.set_seed(7)
    assert np.array_equal(a, init.initializer("normal", (5,)).asnumpy())


# ---- repr / str ---------------------------------------------------------------------------
def test_repr():
    assert repr(Tensor([1.5, 2.5, 3.5])) == ("Tensor(shape=[3], dtype=Float32, value= "
                                             "[ 1.50000000e+00,  2.50000000e+00,  3.50000000e+00])")
    assert repr(Tensor([1, 2, 3])) == "Tensor(shape=[3], dtype=Int64, value= [1, 2, 3])"
    assert repr(Tensor([True, False])) == "Tensor(shape=[2], dtype=Bool, value= [ True, False])"
    assert repr(Tensor(3.0)) == "Tensor(shape=[], dtype=Float32, value= 3)"
    assert repr(Tensor(np.ones((2, 2), np.float32))).startswith(
        "Tensor(shape=[2, 2], dtype=Float32, value=\n[[ 1.00000000e+00,")
    assert "..." in repr(Tensor(np.zeros(5000, np.float32)))
    assert str(Tensor([1.5, 2.5, 3.5])) == "[1.5 2.5 3.5]"
    assert str(ms.float32) == "Float32" and repr(ms.float32) == "mindlite.float32"


# ---- promotion ----------------------------------------------------------------------------
@pytest.mark.parametrize("a, b, want", [
    (ms.int32, ms.float32, ms.float32), (ms.int32, ms.int64, ms.int64),
    (ms.int8, ms.uint8, ms.int16), (ms.float16, ms.int64, ms.float16),
    (ms.float16, ms.float32, ms.float32), (ms.int8, ms.float64, ms.float64),
    (ms.bool_, ms.int16, ms.int16), (ms.bool_, ms.bool_, ms.bool_)])
def test_promote(a, b, want):
    assert ms.dtype.promote(a, b) is want and ms.dtype.promote(b, a) is want


@pytest.mark.parametrize("t, py, want", [
    (ms.int32, int, ms.int32), (ms.int32, float, ms.float32), (ms.float16, float, ms.float16),
    (ms.float64, float, ms.float64), (ms.bool_, int, ms.int64), (ms.bool_, float, ms.float32)])
def test_promote_scalar(t, py, want):
    assert ms.dtype.promote_scalar(t, py) is want


def test_add_promotes_through_pipeline():
    x = Tensor(np.array([1, 2], np.int32))
    assert (x + Tensor([0.5, 0.5])).dtype is ms.float32
    assert ops.add(x, 1).dtype is ms.int32
    assert ops.add(x, np.float64(1.5)).dtype is ms.float32        # numpy scalars are weak too
    assert ops.add(Tensor([True]), 1).dtype is ms.int64


# ---- context ------------------------------------------------------------------------------
def test_context():
    assert ms.get_context("mode") == ms.PYNATIVE_MODE
    ms.set_context(mode=ms.GRAPH_MODE)
    assert ms.get_context("mode") == ms.GRAPH_MODE
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="cpu")
    assert ms.get_context("device_target") == "CPU"
    with pytest.raises(ValueError, match="set_context"):
        ms.set_context(device_target="Ascend")
    with pytest.raises(ValueError, match="unknown key"):
        ms.set_context(nonsense=1)
    ms.set_device("CPU")


# ---- the pipeline and its cache ---------------------------------------------------------
class Twice(Primitive):
    """y = 2x: a test primitive registered through the public decorators."""
    input_names = ("x",)
    infer_calls = 0

    @prim_attr_register
    def __init__(self, scale=2):
        pass

    def infer(self, x):
        Twice.infer_calls += 1
        check_dtype(self, "x", x, (ms.float32, ms.float64))
        return x


@ms.register_kernel("Twice", provider="numpy")
def twice_numpy(x, out):
    np.multiply(x, 2, out=out)


def test_cache_hit_and_new_signature():
    prim = Twice()
    x = Tensor(np.ones((2, 2), np.float32))
    before = Twice.infer_calls
    for _ in range(5):
        y = prim(x)
    assert Twice.infer_calls == before + 1
    assert np.array_equal(y.asnumpy(), np.full((2, 2), 2, np.float32))
    Twice()(Tensor(np.ones((2, 2), np.float32)))                 # a new instance, same attrs
    assert Twice.infer_calls == before + 1
    prim(Tensor(np.ones((3,), np.float32)))                      # new shape
    assert Twice.infer_calls == before + 2
    prim(Tensor(np.ones((3,), np.float64)))                      # new dtype
    assert Twice.infer_calls == before + 3
    with pytest.raises(TypeError, match="For 'Twice', the type of 'x'"):
        prim(Tensor(np.ones((3,), np.int32)))


def test_in_place_dtype_change_is_not_stale():
    prim = Twice()
    x = Tensor(np.ones(3, np.float32))
    prim(x)
    x.set_dtype(ms.int32)
    with pytest.raises(TypeError, match="Twice"):
        prim(x)


def test_attrs_and_repr():
    p = Twice(scale=3)
    assert p.attrs == {"scale": 3} and repr(p) == "Prim[Twice]" and p.name == "Twice"
    assert p == Twice(scale=3) and p != Twice(scale=4) and hash(p) == hash(Twice(scale=3))
    p.add_prim_attr("extra", 1)
    assert p.attrs["extra"] == 1
    with pytest.raises(TypeError, match="Twice"):
        Twice(1, 2)


def test_argument_count_error():
    with pytest.raises(TypeError, match="For 'Twice', expected 1 inputs"):
        Twice()(Tensor([1.0]), Tensor([1.0]))


def test_shape_is_constant_folded():
    assert ops.Shape()(Tensor(np.zeros((2, 5)))) == (2, 5)


def test_vm_policy_selects_numpy():
    x = Tensor(np.array([-1.0, 2.0], np.float32))
    ms.set_context(backend_policy="vm")
    try:
        ops.ReLU()(x)
        sess = session_mod.session_factory("CPU")
        graphs = [g for k, g in sess.graphs.items()
                  if k[1] == "ReLU" and k[3] == (x._abs,) and k[4] == "vm"]
        assert graphs and all(g.kernel.provider == "numpy" for g in graphs)
    finally:
        ms.set_context(backend_policy="ms")


def test_register_session():
    @ms.register_session("TestDevice")
    class TestSession:
        pass
    assert isinstance(session_mod.session_factory("TestDevice"), TestSession)
    with pytest.raises(ValueError, match="No session"):
        session_mod.session_factory("Nope")
    del session_mod.SESSIONS["TestDevice"]


def test_register_kernel_priority_and_provider():
    calls = []

    @ms.register_kernel("Twice", provider="test_fast", priority=50)
    def twice_fast(x, out):
        calls.append(1)
        np.multiply(x, 2, out=out)
    try:
        ms.set_context(kernel_provider="numpy")        # explicit provider wins
        Twice()(Tensor(np.ones(2, np.float32)))
        assert not calls
        ms.set_context(kernel_provider=None)           # else highest priority
        y = Twice()(Tensor(np.ones(2, np.float32)))
        assert calls and np.array_equal(y.asnumpy(), [2, 2])
    finally:
        ms.set_context(kernel_provider=None)
        registry.KERNELS["Twice"] = [k for k in registry.KERNELS["Twice"]
                                     if k.provider != "test_fast"]
        ops.primitive.clear_runner_caches()


def test_memory_pool_never_aliases_live_tensors():
    x = Tensor(np.ones((512, 512), np.float32))           # 1 MiB outputs come from the pool
    a = ops.ReLU()(x)
    b = ops.ReLU()(x + 1)
    assert not np.shares_memory(a.asnumpy(), b.asnumpy())
    assert float(a.asnumpy()[0, 0]) == 1.0 and float(b.asnumpy()[0, 0]) == 2.0
    ref = weakref.ref(a)
    del a
    assert ref() is None
    c = ops.ReLU()(x)                                     # may reuse a's buffer, never b's
    assert not np.shares_memory(c.asnumpy(), b.asnumpy())
    assert float(b.asnumpy()[0, 0]) == 2.0


def test_completeness_every_primitive_has_infer_and_kernel():
    missing = []
    for name, cls in inspect.getmembers(ops.operations, inspect.isclass):
        if (not issubclass(cls, Primitive) or cls.__module__.endswith("_base")
                or name.startswith("_")):
            continue
        if cls.infer is Primitive.infer:
            missing.append(f"{name}: no infer")
        if not registry.kernels_for(cls.__name__) and not cls.constant_folded:  # Gelu: GeLU
            missing.append(f"{name}: no CPU kernel")
    assert not missing, missing


def test_infer_only():
    a = abstract_tensor(ms.float32, (2, 3))
    out = ops.MatMul(transpose_b=True).infer(a, a)
    assert out.shape == (2, 2) and out.dtype is ms.float32
    assert abstract_tensor(ms.float32, (2, 3)) is a              # interned


def test_cached_constant_does_not_admit_equal_but_bad_typed_value():
    """1 == True == 1.0 in Python: the runner and inference caches must still tell them apart."""
    x = Tensor(np.ones((2, 3), np.float32))
    r = ops.ReduceSum()
    r(x, 1)
    for bad in (True, 1.0, (1, True)):
        with pytest.raises(TypeError, match="ReduceSum"):
            r(x, bad)
    ops.Softmax(1)(x)
    with pytest.raises(TypeError, match="Softmax"):
        ops.Softmax(True)(x)
