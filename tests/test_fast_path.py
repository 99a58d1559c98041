"""The C fast path (csrc/bind/fast_path.cc): a cached signature never lets a bad call through,
in-place changes of a Tensor/Parameter never reuse a stale runner, results are never aliased,
memory stays flat over many calls, and nothing a user can build crashes the interpreter."""
import copy
import gc
import pickle
import sys
import weakref

import numpy as np
import pytest

import mindlite as ms
from mindlite import Parameter, Tensor, _C, ops
from mindlite.ops.primitive import signature_key


def f32(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def test_common_calls_get_a_c_runner_and_the_same_key_as_python():
    x, y = Tensor(f32(4, 4)), Tensor(f32(4, 4, seed=1))
    for prim, args in ((ops.Add(), (x, y)), (ops.ReLU(), (x,)), (ops.MatMul(), (x, y)),
                       (ops.ReduceSum(keep_dims=True), (x, 1)), (ops.Reshape(), (x, (16,)))):
        prim(*args)
        runner = _C.lookup_runner(prim, args)
        assert runner is not None and runner is prim._runners[signature_key(prim, args)]
    assert isinstance(_C.lookup_runner(ops.Add(), (x, y)), _C.FastRunner)
    np.testing.assert_array_equal(ops.Add()(x, y).asnumpy(), x.asnumpy() + y.asnumpy())
    np.testing.assert_allclose(ops.ReduceSum(keep_dims=True)(x, 1).asnumpy(),
                               x.asnumpy().sum(1, keepdims=True), rtol=1e-6)


def test_calls_c_cannot_key_take_the_python_path():
    x = Tensor(f32(3, 4))
    assert _C.lookup_runner(ops.Add(), (x, np.float32(2))) is None   # numpy scalar
    assert _C.lookup_runner(ops.ReduceSum(), (x, [1])) is None    # list constant
    assert _C.lookup_runner(ops.ReduceSum(), (x, True)) is None   # bool constant
    np.testing.assert_allclose(ops.Add()(x, np.float32(2)).asnumpy(), x.asnumpy() + 2)
    np.testing.assert_allclose(ops.ReduceSum()(x, [1]).asnumpy(), x.asnumpy().sum(1), rtol=1e-6)


def test_python_scalars_are_keyed_by_type_and_converted_in_c():
    x = Tensor(np.array([1, 2, 3], np.int32))
    add = ops.Add()
    assert add(x, 2).dtype == ms.int32                       # weak scalar keeps int32
    assert isinstance(_C.lookup_runner(add, (x, 2)), _C.FastRunner)
    out = add(x, 2.5)                                        # float scalar: float32, new key
    assert out.dtype == ms.float32
    np.testing.assert_array_equal(out.asnumpy(), [3.5, 4.5, 5.5])
    np.testing.assert_array_equal(add(x, True).asnumpy(), [2, 3, 4])
    fresh = Tensor(np.ones(7, np.int32))                     # first call of its signature
    for t in (x, fresh, fresh):                              # cached (C), first, cached
        with pytest.raises(ValueError, match="For 'Add', the scalar input 1"):
            add(t, 2**40)                                    # does not fit int32
    np.testing.assert_array_equal(x.asnumpy(), [1, 2, 3])
    f = Tensor(np.array([1.0, 2.0], np.float32))
    np.testing.assert_array_equal((f * 2.0).asnumpy(), [2.0, 4.0])
    np.testing.assert_array_equal((2.0 - f).asnumpy(), [1.0, 0.0])


def test_cached_signature_rejects_wrong_shape_dtype_and_attr():
    add, mm, relu = ops.Add(), ops.MatMul(), ops.ReLU()
    x = Tensor(f32(4, 4))
    add(x, x), mm(x, x), relu(x)
    with pytest.raises(ValueError, match="Add"):
        add(x, Tensor(f32(3, 5)))
    with pytest.raises(ValueError, match="MatMul"):
        mm(x, Tensor(f32(3, 4)))
    with pytest.raises(TypeError, match="ReLU"):
        relu(Tensor(np.ones((4, 4), dtype=bool)))
    reduce_sum = ops.ReduceSum()
    reduce_sum(x, 1)
    with pytest.raises(ValueError, match="ReduceSum"):
        reduce_sum(x, 5)
    for bad in (True, 1.0):
        with pytest.raises(TypeError, match="ReduceSum"):
            reduce_sum(x, bad)
    ops.Softmax(1)(x)
    with pytest.raises(ValueError, match="Softmax"):
        ops.Softmax(5)(x)
    with pytest.raises(TypeError, match="Softmax"):
        ops.Softmax(True)(x)


def test_tensor_changed_in_place_gets_a_new_signature():
    relu = ops.ReLU()
    t = Tensor(np.array([[-1.0, 2.0]], np.float32))
    assert relu(t).dtype == ms.float32
    t.set_dtype(ms.float64)
    out = relu(t)
    assert out.dtype == ms.float64 and out.asnumpy().dtype == np.float64
    t.assign_value(Tensor(np.array([-3.0, 4.0, -5.0], np.float32)))
    np.testing.assert_array_equal(relu(t).asnumpy(), [0.0, 4.0, 0.0])
    p = Parameter(Tensor(np.ones((2, 2), np.float32)), name="w")
    add = ops.Add()
    assert add(p, p).shape == (2, 2)
    p.set_data(Tensor(np.ones((3,), np.float64)))   # keeps the Parameter's dtype, as 2.10
    out = add(p, p)
    assert out.shape == (3,) and out.dtype == ms.float32
    np.testing.assert_array_equal(out.asnumpy(), [2.0, 2.0, 2.0])


def test_lazy_parameter_is_initialised_before_a_cached_runner_could_see_it():
    add = ops.Add()
    x = Tensor(np.ones((2, 3), np.float32))
    add(x, x)
    p = Parameter(ms.initializer("ones", (2, 3), ms.float32), name="lazy")
    np.testing.assert_array_equal(add(p, x).asnumpy(), np.full((2, 3), 2.0))


def test_damaged_tensor_raises_instead_of_crashing():
    relu, add = ops.ReLU(), ops.Add()
    t = Tensor(f32(2, 2))
    relu(t), add(t, t)
    t._arr = [[1.0, 2.0], [3.0, 4.0]]          # not an ndarray: the abstract no longer matches
    with pytest.raises(TypeError, match="ReLU"):
        relu(t)
    t._arr = np.ones((3, 3), np.float64)        # wrong shape and dtype behind the abstract
    with pytest.raises((TypeError, ValueError)):
        add(t, t)
    with pytest.raises(TypeError, match="keyword"):
        relu(x=Tensor(f32(2, 2)))
    with pytest.raises(TypeError):
        _C.FastRunner(None, None, None, np.float32, (2,), relu, None, 1, [0])
    with pytest.raises(TypeError):       # 'differentiable' must be a bool
        _C.FastRunner(print, None, None, np.float32, (2,), relu, print, 1, [0])
    with pytest.raises(ValueError):
        _C.FastRunner(print, None, None, np.float32, (2,), relu, True, 1, [3])


def test_results_are_never_aliased_by_later_calls():
    relu = ops.ReLU()
    for shape in ((4, 4), (512, 256)):                     # numpy-allocated and pooled outputs
        xs = [Tensor(f32(*shape, seed=s)) for s in range(6)]
        outs = [relu(x) for x in xs]
        views = [o.asnumpy() for o in outs]
        copies = [v.copy() for v in views]
        for _ in range(3):
            for x in xs:
                relu(x)
        for o, v, c in zip(outs, views, copies):
            np.testing.assert_array_equal(o.asnumpy(), c)
            np.testing.assert_array_equal(v, c)
        assert len({id(o.asnumpy().base if o.asnumpy().base is not None else o.asnumpy())
                    for o in outs}) >= 1


def test_result_refcounts_and_runner_cycles_are_released():
    x = Tensor(f32(4, 4))
    add = ops.Add()
    add(x, x)
    out = add(x, x)
    assert sys.getrefcount(out) == 2 and sys.getrefcount(out.asnumpy()) >= 2
    ref = weakref.ref(out)
    del out
    assert ref() is None

    # prim -> _runners -> FastRunner -> prim: a cycle through both C types' fields
    prim = ops.ReLU()
    prim._runners = {}
    relu_kernel = _C.UNARY_KERNELS["ReLU"]
    runner = _C.FastRunner(relu_kernel, None, x._abs, np.float32, (4, 4), prim, True, 1, [0])
    prim._runners[(x._abs,)] = runner
    assert prim(x).shape == (4, 4)
    refs = weakref.ref(prim), weakref.ref(x)
    del prim, runner
    gc.collect()
    assert refs[0]() is None


def _rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/statm")
def test_rss_stays_flat_over_many_cached_calls():
    x, y = Tensor(f32(4, 4)), Tensor(f32(4, 4, seed=1))
    big = Tensor(f32(256, 512))
    add, relu, rsum = ops.Add(), ops.ReLU(), ops.ReduceSum()
    for _ in range(2000):
        add(x, y), relu(big), rsum(x, 1)
    gc.collect()
    before = _rss_mb()
    for _ in range(100_000):       # benchmarks/op_latency.py --rss runs 10**6
        add(x, y)
        rsum(x, 1)
    for _ in range(2000):
        relu(big)
    gc.collect()
    assert _rss_mb() - before < 10


def test_grad_recording_flag_is_shared_with_c():
    from mindlite.pynative.grad import GRAD_EXECUTOR
    assert GRAD_EXECUTOR.recording is False and _C.grad_recording() is False
    x = Tensor(np.array([1.0, -2.0, 3.0], np.float32))
    dx = ms.grad(lambda a: ops.ReduceSum()(ops.Mul()(a, a)))(x)
    np.testing.assert_allclose(dx.asnumpy(), [2.0, -4.0, 6.0])
    assert GRAD_EXECUTOR.recording is False and _C.grad_recording() is False


def test_tensor_copy_and_pickle_keep_values():
    t = Tensor(f32(2, 3))
    for c in (copy.copy(t), copy.deepcopy(t), pickle.loads(pickle.dumps(t))):
        assert type(c) is Tensor and c.dtype == t.dtype
        np.testing.assert_array_equal(c.asnumpy(), t.asnumpy())
    p = Parameter(Tensor(f32(2)), name="w")
    q = pickle.loads(pickle.dumps(p))
    assert isinstance(q, Parameter) and q.name == "w"


def test_provider_kernel_errors_are_kernel_errors_on_the_c_path():
    from mindlite.kernels.kernel_def import KernelError
    from mindlite.kernels.registry import unregister_kernel
    state = {"fail": False}

    def flaky_add(x, y, out):
        if state["fail"]:
            raise ZeroDivisionError("boom")
        np.add(x, y, out=out)
    ms.register_kernel("Add", provider="fastpath_test", dtypes=(ms.float32,), priority=-1,
                       kernel=flaky_add)
    ms.set_context(kernel_provider="fastpath_test")
    try:
        x = Tensor(f32(3))
        add = ops.Add()
        np.testing.assert_array_equal(add(x, x).asnumpy(), 2 * x.asnumpy())
        runner = _C.lookup_runner(add, (x, x))
        assert isinstance(runner, _C.FastRunner) and runner.kernel is flaky_add
        state["fail"] = True
        with pytest.raises(KernelError, match="fastpath_test.*ZeroDivisionError: boom") as e:
            add(x, x)
        assert isinstance(e.value.__cause__, ZeroDivisionError)
    finally:
        ms.set_context(kernel_provider=None)
        unregister_kernel("Add", "fastpath_test")


def test_primitives_built_again_with_the_same_arguments_are_independent_and_still_checked():
    from mindlite.ops import primitive as P
    a = ops.ReduceSum(keep_dims=True)
    b = ops.ReduceSum(keep_dims=True)                    # copied from the first's state
    assert (ops.ReduceSum, (), (("keep_dims", bool, (bool, True)),)) in P._PROTOTYPES
    assert a == b and a.attrs == b.attrs == {"keep_dims": True} and a.attrs is not b.attrs
    assert a._runners is b._runners and a._const_mask == b._const_mask == 0b10
    a.add_prim_attr("extra", 1)
    assert "extra" not in b.attrs and "extra" not in ops.ReduceSum(keep_dims=True).attrs
    P._PROTOTYPES.clear()                  # the first instance is the prototype's source:
    src = ops.ReLU()                       # writing its attrs later must not reach the clones
    src.add_prim_attr("kernel_provider", "nobody")
    assert ops.ReLU().attrs == {} and src.attrs == {"kernel_provider": "nobody"}
    x = Tensor(f32(2, 3))
    assert b(x, 1).shape == (2, 1)
    for _ in range(2):                     # a bad argument is rejected every time (1 is not True)
        with pytest.raises(TypeError, match="ReduceSum"):
            ops.ReduceSum(keep_dims=1)
        with pytest.raises(ValueError, match="Softmax"):
            ops.Softmax(axis=())
    assert ops.Softmax(-1).attrs == {"axis": -1}
