"""copy.deepcopy and pickle of Cells and Primitives (EMA / teacher-model code deep-copies a
network): the copy computes the same outputs, owns its own Parameters, and a primitive comes
back with its name, attributes and a working runner cache."""
import copy
import pickle

import numpy as np

import mindlite as ms
from mindlite import Tensor, nn, ops


def _net():
    ms.set_seed(3)
    return nn.SequentialCell([nn.Dense(3, 4), nn.ReLU(), nn.Dense(4, 2), nn.LeakyReLU(0.1)])


X = Tensor(np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], np.float32))


def test_primitives_pickle_and_deepcopy_with_their_attributes():
    for prim in (ops.Add(), ops.ReduceSum(keep_dims=True), ops.Softmax(axis=0),
                 ops.Cast()):
        for clone in (pickle.loads(pickle.dumps(prim)), copy.deepcopy(prim)):
            assert type(clone) is type(prim) and clone == prim
            assert clone.name == prim.name and clone.attrs == prim.attrs
    summed = pickle.loads(pickle.dumps(ops.ReduceSum(keep_dims=True)))(Tensor(np.ones((2, 3))), 1)
    np.testing.assert_array_equal(summed.asnumpy(), [[3.0], [3.0]])


def test_deepcopy_of_a_cell_is_independent():
    net = _net()
    want = net(X).asnumpy()
    twin = copy.deepcopy(net)
    np.testing.assert_array_equal(twin(X).asnumpy(), want)
    assert [p.name for p in twin.trainable_params()] == [p.name for p in net.trainable_params()]
    for a, b in zip(twin.trainable_params(), net.trainable_params()):
        assert a is not b
        a.set_data(Tensor(np.zeros(a.shape, np.float32)))
    np.testing.assert_array_equal(net(X).asnumpy(), want)     # the original is untouched
    np.testing.assert_array_equal(twin(X).asnumpy(), np.zeros((2, 2), np.float32))


def test_pickle_round_trip_of_a_cell():
    net = _net()
    back = pickle.loads(pickle.dumps(net))
    np.testing.assert_array_equal(back(X).asnumpy(), net(X).asnumpy())
    assert repr(back) == repr(net)


def test_deepcopy_after_graph_mode_compile_uses_the_copys_parameters():
    net = _net()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        want = net(X).asnumpy()
        twin = copy.deepcopy(net)
        for p in twin.trainable_params():
            p.set_data(Tensor(np.full(p.shape, 0.5, np.float32)))
        np.testing.assert_array_equal(net(X).asnumpy(), want)
        ms.set_context(mode=ms.PYNATIVE_MODE)
        eager_twin = twin(X).asnumpy()
        ms.set_context(mode=ms.GRAPH_MODE)
        np.testing.assert_array_equal(twin(X).asnumpy(), eager_twin)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
