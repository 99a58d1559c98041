"""MindSpore's graph-code helpers as PyNative runs them (ops/multitype.py,
ops/function/graph_helpers_func.py) and the training pieces model zoos build on them:
MultitypeFuncGraph / HyperMap / Map / partial, depend / dtype / rank / tuple_to_array /
constexpr / mixed_precision_cast / repeat_elements, boost.GradientAccumulation, RowTensor,
opt_init_args_register, ParameterTuple.clone, Parameter.set_data's cast and a Tensor assigned
to a Cell's Parameter attribute. Expected values are MindSpore 2.10's (recorded by hand from
the side venv where noted).
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import mindlite as ms
from mindlite import Parameter, ParameterTuple, Tensor, nn, ops
from mindlite.ops import composite as C
from mindlite.ops import functional as F

from gradcheck import check_grad
from helpers import arrays, noncontig, shapes, tensor

SETTINGS = settings(max_examples=25, deadline=None)


# ---- MultitypeFuncGraph / HyperMap / Map / partial -----------------------------------------
def _adder():
    add = C.MultitypeFuncGraph("add")

    @add.register("Number", "Number")
    def _numbers(x, y):
        return ("numbers", x + y)

    @add.register("Tensor", "Tensor")
    def _tensors(x, y):
        return ("tensors", ops.add(x, y))

    @add.register("Int64", "Tensor")
    def _int_tensor(x, y):
        return ("int-tensor", y * x)
    return add


def test_multitype_dispatches_on_mindspore_type_names():
    add = _adder()
    assert add(1, 2) == ("numbers", 3)
    assert add(True, 2.5) == ("numbers", 3.5)          # Bool is a Number, as MindSpore's
    kind, t = add(Tensor([1.0]), Parameter(Tensor([2.0]), name="p"))
    assert kind == "tensors" and t.asnumpy().tolist() == [3.0]
    assert add(3, Tensor([2.0]))[0] == "int-tensor"
    with pytest.raises(ValueError, match="cannot find"):
        add("a", 1)
    with pytest.raises(ValueError, match="cannot find"):
        add(2.0, Tensor([1.0]))                         # a float is Float64, not Int64
    with pytest.raises(TypeError, match="numpy"):
        add(np.ones(1), 1)
    with pytest.raises(TypeError, match="type names"):
        add.register("Tensorr")


def test_multitype_single_entry_ignores_types_and_dtype_registration():
    one = ops.MultitypeFuncGraph("one")

    @one.register("Tensor")
    def _(x):
        return x
    assert one("not a tensor") == "not a tensor"      # MindSpore's: one entry, no check
    by_dtype = ops.MultitypeFuncGraph("by_dtype")
    by_dtype.register(ms.float64)(lambda x: "float")
    by_dtype.register(ms.int64)(lambda x: "int")
    assert by_dtype(1.5) == "float" and by_dtype(3) == "int"


def test_hypermap_map_partial():
    scale = ops.MultitypeFuncGraph("scale")
    scale.register("Number", "Tensor")(lambda s, g: g * s)
    scale.register("Number", "Number")(lambda s, g: g * s)
    grads = (Tensor([1.0, 2.0]), (Tensor([3.0]), 4.0))
    out = ops.HyperMap()(F.partial(scale, 2.0), grads)
    assert out[0].asnumpy().tolist() == [2.0, 4.0] and out[1][0].asnumpy().tolist() == [6.0]
    assert out[1][1] == 8.0 and isinstance(out, tuple) and isinstance(out[1], tuple)
    two = ops.HyperMap(ops.partial(scale, 3.0))([1.0, 2.0])
    assert two == (3.0, 6.0)
    pairs = ops.Map()(lambda a, b: a - b, (5, 7), [1, 2])
    assert pairs == (4, 5)
    with pytest.raises(ValueError, match="same length"):
        ops.HyperMap()(lambda a, b: a, (1, 2), (1,))
    with pytest.raises(TypeError, match="callable"):
        ops.HyperMap(3)
    with pytest.raises(TypeError, match="tuples or lists"):
        ops.Map()(abs, 3)


# ---- depend / dtype / rank / tuple_to_array / constexpr / mixed_precision_cast --------------
def test_small_helpers_as_mindspore():
    x = Tensor(np.ones((2, 3), np.float32))
    assert ops.depend(x, x + 1) is x and F.depend(1, x) == 1
    assert ops.dtype(x) == ms.float32 and F.dtype(x) == ms.float32
    assert ops.rank(x) == 2 and isinstance(ops.rank(x), int) and ops.rank(Tensor(3.0)) == 0
    with pytest.raises(TypeError, match="rank"):
        ops.rank(3)
    t = ops.tuple_to_array((1.0,))
    assert t.dtype == ms.float32 and t.asnumpy().tolist() == [1.0]
    assert ops.tuple_to_array((1, 2)).dtype == ms.int32
    assert ops.tuple_to_array((True, False)).asnumpy().tolist() == [1, 0]
    assert ops.tuple_to_array((1, 2 ** 40)).asnumpy().tolist() == [1, 0]   # int32 wrap
    assert ops.tuple_to_array(((1, 2), (3, 4))).dtype == ms.float32        # nested: float
    assert ops.tuple_to_array((1.0, 2)).dtype == ms.float32
    with pytest.raises(ValueError, match="non-empty"):
        ops.tuple_to_array(())
    with pytest.raises(TypeError, match="int, float or bool"):
        ops.tuple_to_array(("a",))


def test_constexpr_both_forms():
    @ops.constexpr
    def mul(a, b):
        return a * b

    @ops.constexpr(reuse_result=False)
    def inc(a):
        return a + 1
    assert mul(2, 3) == 6 and inc(1) == 2 and mul.__name__ == "mul"


def test_mixed_precision_cast_casts_float_tensors_only():
    f64 = Tensor(np.ones(2), ms.float64)
    i32 = Tensor(np.ones(2, np.int32))
    out = F.mixed_precision_cast(ms.float16, (f64, [i32, 2.0], {"a": f64}))
    assert out[0].dtype == ms.float16 and out[1][0].dtype == ms.int32 and out[1][1] == 2.0
    assert isinstance(out[1], tuple) and out[2]["a"].dtype == ms.float64     # dict untouched
    assert F.mixed_precision_cast(ms.float32, 2.0) == 2.0
    with pytest.raises(TypeError, match="dst_type"):
        F.mixed_precision_cast("float16", f64)


# ---- repeat_elements ------------------------------------------------------------------------
@SETTINGS
@given(data=st.data())
def test_repeat_elements_matches_numpy(data):
    a = data.draw(arrays(np.float32, shapes(min_dims=1, max_dims=3)))
    axis = data.draw(st.integers(-a.ndim, a.ndim - 1))
    rep = data.draw(st.integers(1, 3))
    x = tensor(noncontig(a)) if data.draw(st.booleans()) else Tensor(a)
    got = ops.repeat_elements(x, rep, axis).asnumpy()
    np.testing.assert_array_equal(got, np.repeat(a, rep, axis))


def test_repeat_elements_errors_and_gradient():
    x = Tensor(np.array([1.0, 2.0], np.float32))
    for rep, exc in ((0, ValueError), (2.0, TypeError)):
        with pytest.raises(exc, match="rep"):
            ops.repeat_elements(x, rep, 0)
    with pytest.raises(ValueError, match="axis"):
        ops.repeat_elements(Tensor(1.0), 2, 0)
    with pytest.raises(TypeError, match="number dtype"):
        ops.repeat_elements(Tensor(np.array([True])), 2, 0)
    check_grad(lambda t: ops.repeat_elements(t, 3, 1),
               np.random.default_rng(0).standard_normal((2, 3)))


# ---- boost, RowTensor, optimizer registration, parameters -----------------------------------
def test_gradient_accumulation_updates_every_n_steps():
    net = nn.Dense(2, 3)
    opt = nn.SGD(net.trainable_params(), learning_rate=0.5)
    from mindlite.boost import GradientAccumulation
    acc = GradientAccumulation(2, opt)
    w0 = net.weight.asnumpy().copy()
    grads = tuple(ops.ones_like(p) for p in opt.parameters)
    acc(Tensor(1.0), grads)
    np.testing.assert_array_equal(net.weight.asnumpy(), w0)            # accumulated only
    assert [p.name for p in acc._grad_accumulation][0].startswith("grad_accumulation.")
    np.testing.assert_allclose(acc._grad_accumulation[0].asnumpy(), 0.5)
    acc(Tensor(1.0), grads)
    np.testing.assert_allclose(net.weight.asnumpy(), w0 - 0.5, rtol=1e-6)  # sum of 2 halves
    np.testing.assert_array_equal(acc._grad_accumulation[0].asnumpy(), 0.0)
    assert int(acc._accumulation_step.asnumpy()) == 0


def test_row_tensor():
    r = ms.RowTensor(Tensor([0, 2]), Tensor([[1.0, 2.0], [3.0, 4.0]]), (3, 2))
    assert r.dense_shape == (3, 2) and r.indices.asnumpy().tolist() == [0, 2]
    np.testing.assert_array_equal(r.to_dense().asnumpy(), [[1, 2], [0, 0], [3, 4]])
    assert ms.RowTensor(row_tensor=r).values is r.values
    with pytest.raises(TypeError, match="shape"):
        ms.RowTensor(Tensor([0]), Tensor([[1.0]]), [3, 1])
    with pytest.raises(TypeError, match="indices"):
        ms.RowTensor([0], Tensor([[1.0]]), (3, 1))


def test_opt_init_args_register_records_arguments():
    from mindlite.nn.optim.optimizer import opt_init_args_register

    class MyOpt(nn.Optimizer):
        @opt_init_args_register
        def __init__(self, params, learning_rate=0.1, beta=0.9, eps=1e-8):
            super().__init__(learning_rate, params)
            self.moment = self._parameters.clone(prefix="moment", init="zeros")

        def construct(self, gradients):
            return True
    net = nn.Dense(2, 2)
    opt = MyOpt(net.trainable_params(), learning_rate=Tensor(0.5), beta=0.8)
    assert opt.init_args == {"beta": 0.8, "eps": 1e-8} and opt.init_learning_rate == 0.5
    assert opt.init_params["params"] == net.trainable_params() and opt.target == "CPU"
    assert [p.name for p in opt.moment] == ["moment.weight", "moment.bias"]
    assert all(not p.asnumpy().any() for p in opt.moment)


def test_parameter_clone_init_and_set_data_cast():
    p = Parameter(Tensor(np.full((2,), 3.0, np.float32)), name="w")
    assert p.clone().asnumpy().tolist() == [3.0, 3.0]
    assert p.clone(init="ones").asnumpy().tolist() == [1.0, 1.0]
    assert p.clone(init=2).asnumpy().tolist() == [2.0, 2.0]
    tup = ParameterTuple([p]).clone("m", init="zeros")
    assert isinstance(tup, ParameterTuple) and tup[0].name == "m.w"
    with pytest.raises(TypeError, match="prefix"):
        ParameterTuple([p]).clone("")
    q = Parameter(Tensor(0, ms.int32), name="step")
    q.set_data(Tensor(5.7))                     # cast to the Parameter's dtype, as MindSpore's
    assert q.dtype == ms.int32 and int(q.asnumpy()) == 5
    with pytest.raises(TypeError, match="implicitly"):
        q.set_data(2.5)
    # MindSpore's slice_shape (mindcv's ConViT passes it): a new shape is taken either way
    p.set_data(Tensor(np.eye(3, dtype=np.float32)), slice_shape=True)
    assert p.shape == (3, 3) and p.asnumpy()[1].tolist() == [0.0, 1.0, 0.0]


def test_tensor_assigned_to_cell_parameter_sets_its_data():
    class Counter(nn.Cell):
        def __init__(self):
            super().__init__()
            self.step = Parameter(Tensor(0, ms.int32), name="step")

        def construct(self):
            self.step += 1
            return self.step
    c = Counter()
    kept = c.step
    c()
    c()
    assert c.step is kept and int(c.step.asnumpy()) == 2 and c.step.dtype == ms.int32
    with pytest.raises(TypeError, match="Parameter"):
        c.step = 3
