"""The C check of a compiled graph's guards (mindlite/jit/guards.py): every change the Python
check sees makes the graph stale in the C check too (a Parameter or sub-cell replaced, an
attribute changed, a list appended to, to_float, a weight of a new shape), a value that is
equal but a new object keeps the graph, and the last-call memo of JitFunction.__call__ never
serves a call whose arguments differ."""
import numpy as np
import pytest

import mindlite as ms
from mindlite import nn, ops
from mindlite.jit import api as jit_api
from mindlite.jit import cell_graph


@pytest.fixture
def graph_mode():
    ms.set_context(mode=ms.GRAPH_MODE)
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(3, 2)
        self.scale = 2.0
        self.extra = []                    # a Python list of cells read as a constant
        self.w = ms.Parameter(ms.Tensor(np.ones(2, np.float32)), name="w")

    def construct(self, x):
        y = self.dense(x) * self.scale * self.w
        for c in self.extra:
            y = c(y)
        return y


def _eager(net, x):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    try:
        return net(x).asnumpy()
    finally:
        ms.set_context(mode=ms.GRAPH_MODE)


def _entry(net, x):
    return cell_graph._CELL_JIT[net].compiled((net, x), {})


X = ms.Tensor(np.array([[1.0, -2.0, 0.5]], np.float32))


def test_the_c_check_holds_for_an_unchanged_net(graph_mode):
    net = Net()
    net(X)
    entry = _entry(net, X)
    assert entry.fast is not None and jit_api.guards_hold(*entry.fast)


@pytest.mark.parametrize("change", [
    "attribute", "parameter", "sub_cell", "list_append", "to_float", "weight_shape"])
def test_every_change_is_seen_and_recompiled(graph_mode, change):
    net = Net()
    np.testing.assert_allclose(net(X).asnumpy(), _eager(net, X), rtol=1e-6)
    entry = _entry(net, X)
    if change == "attribute":
        net.scale = 3.0
    elif change == "parameter":
        net.w = ms.Parameter(ms.Tensor(np.full(2, 5.0, np.float32)), name="w")
    elif change == "sub_cell":
        net.dense = nn.Dense(3, 2)
    elif change == "list_append":
        net.extra.append(nn.ReLU())
    elif change == "to_float":
        net.dense.to_float(ms.float16)
    else:
        net.w.set_data(ms.Tensor(np.ones(1, np.float32)))
    assert not entry._valid()                   # the Python check's verdict ...
    assert not jit_api.guards_hold(*entry.fast)  # ... is the C check's
    got = net(X).asnumpy()
    np.testing.assert_allclose(got, _eager(net, X), rtol=1e-3)


def test_an_equal_new_value_keeps_the_graph_and_the_c_check(graph_mode):
    net = Net()
    net(X)
    entry = _entry(net, X)
    net.scale = float("2.0")                   # equal, another object
    net.scale = 1.0 + 1.0
    assert net(X) is not None
    assert _entry(net, X) is entry              # not recompiled
    assert jit_api.guards_hold(*entry.fast)     # the C form was rebuilt from the new value


def test_the_last_call_memo_never_serves_other_arguments(graph_mode):
    net = Net()
    a = net(X).asnumpy()
    x2 = ms.Tensor(np.array([[0.0, 1.0, 1.0], [1.0, 1.0, 1.0]], np.float32))
    b = net(x2).asnumpy()                      # another shape: its own graph
    assert b.shape == (2, 2)
    with pytest.raises(TypeError, match="MatMul"):               # another dtype: checked
        net(ms.Tensor(X.asnumpy().astype(np.float64)))
    other = Net()                              # another cell: its own JitFunction
    np.testing.assert_allclose(other(X).asnumpy(), _eager(other, X), rtol=1e-6)
    np.testing.assert_array_equal(net(X).asnumpy(), a)


def test_jit_function_memo_keys_values_not_identity():
    @ms.jit
    def f(x, k):
        return x * k

    x = ms.Tensor(np.ones(2, np.float32))
    assert f(x, 2).asnumpy().tolist() == [2.0, 2.0]
    assert f(x, 3).asnumpy().tolist() == [3.0, 3.0]          # an int: keyed by value
    assert f(x, (4,)[0]).asnumpy().tolist() == [4.0, 4.0]
    y = ops.ones((3,), ms.float32)
    assert f(y, 2).asnumpy().tolist() == [2.0, 2.0, 2.0]


def test_cells_called_in_graph_mode_are_freed_and_copies_compile_their_own(graph_mode):
    """A cell's compiled graphs live in the cell (a WeakKeyDictionary value referring back
    to its key kept every GRAPH_MODE cell alive); deepcopy / pickle give copies that compile
    their own graphs and compute the same."""
    import copy
    import gc
    import pickle
    import weakref
    refs = []
    for _ in range(20):
        net = Net()
        net(X)
        refs.append(weakref.ref(net))
    want = net(X).asnumpy()
    for other in (copy.deepcopy(net), pickle.loads(pickle.dumps(net))):
        np.testing.assert_array_equal(other(X).asnumpy(), want)
        assert cell_graph._CELL_JIT[other] is not cell_graph._CELL_JIT[net]
    del net, other
    gc.collect()
    assert all(r() is None for r in refs)
