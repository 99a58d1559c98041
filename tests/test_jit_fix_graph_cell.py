"""A GraphCell (a loaded model) called from graph code (issue 11/16): its FuncGraph is
inlined into the caller's graph (jit/parse_graph_cell.py), so a GRAPH_MODE Cell holding it
compiles (no eager fallback, no warning) and gives eager's results, with control flow in
the loaded model too; the loaded graph itself stays unchanged."""
import warnings

import numpy as np
import pytest

import mindlite as ms
from mindlite import nn, ops
from mindlite.ir.manager import reachable_graphs
from mindlite.jit import cell_graph
from mindlite.jit.errors import UnsupportedSyntaxError


class Inner(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 4)

    def construct(self, x):
        return ops.relu(self.fc(x)), x * 2


class Branchy(nn.Cell):
    def construct(self, x):
        if x.sum() > 0:
            y = x * 3
        else:
            y = x - 1
        return y


class Looping(nn.Cell):
    def construct(self, x):
        while x.sum() < 100:
            x = x * 2
        return x


class Holder(nn.Cell):
    def __init__(self, gc):
        super().__init__()
        self.gc = gc

    def construct(self, x):
        out = self.gc(x)
        if isinstance(out, tuple):
            return out[0].sum() + out[1].sum()
        return out + 1


@pytest.fixture
def graph_mode():
    yield
    ms.set_context(mode=ms.PYNATIVE_MODE)


def _load(net, x, tmp_path, name):
    ms.export(net, x, file_name=str(tmp_path / name), file_format="MINDIR")
    return nn.GraphCell(ms.load(str(tmp_path / f"{name}.mindir")))


def _nodes(g):
    """The loaded graphs' nodes as they are (ids, callees, abstracts), to see them unchanged."""
    return [(n.id, tuple(i.id for i in getattr(n, "inputs", ())), repr(n.abstract))
            for h in reachable_graphs(g) for n in h.order + [h.output]]


def _compare(holder, *inputs):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    want = [holder(x).asnumpy() for x in inputs]
    ms.set_context(mode=ms.GRAPH_MODE)
    with warnings.catch_warnings():
        warnings.simplefilter("error")            # no "runs eagerly" fallback
        got = [holder(x).asnumpy() for x in inputs]
    for w, g in zip(want, got):
        np.testing.assert_allclose(g, w, rtol=1e-6)
    assert cell_graph._CELL_JIT[holder] is not cell_graph._EAGER


def test_holder_of_loaded_dense_compiles(graph_mode, tmp_path):
    x = ms.Tensor(np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32))
    gc = _load(Inner(), x, tmp_path, "inner")
    before = _nodes(gc.graph)
    h = Holder(gc)
    _compare(h, x)
    prog = cell_graph._CELL_JIT[h].compiled((h, x), {})._program
    assert prog.runner is not None, prog.reason
    assert _nodes(gc.graph) == before
    w = next(iter(gc.parameters_dict().values()))
    w.set_data(ms.Tensor(np.zeros(w.shape, np.float32)))      # weights are read live
    ms.set_context(mode=ms.PYNATIVE_MODE)
    want = h(x).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    np.testing.assert_allclose(h(x).asnumpy(), want, rtol=1e-6)


def test_loaded_control_flow(graph_mode, tmp_path):
    pos = ms.Tensor(np.array([1.0, 2.0], np.float32))
    neg = ms.Tensor(np.array([-1.0, -2.0], np.float32))
    for net, inputs in ((Branchy(), (pos, neg)), (Looping(), (pos, neg * -3))):
        gc = _load(net, pos, tmp_path, type(net).__name__)
        before = _nodes(gc.graph)
        _compare(Holder(gc), *inputs)
        assert _nodes(gc.graph) == before


def test_jit_function_calls_graph_cell(tmp_path):
    x = ms.Tensor(np.ones((2, 3), np.float32))
    gc = _load(Inner(), x, tmp_path, "inner")

    @ms.jit
    def f(x):
        a, b = gc(x)
        return a * 2 + 1, b

    want = gc(x)
    got = f(x)
    np.testing.assert_allclose(got[0].asnumpy(), want[0].asnumpy() * 2 + 1, rtol=1e-6)
    np.testing.assert_array_equal(got[1].asnumpy(), want[1].asnumpy())


def test_wrong_input_is_a_compile_error(tmp_path):
    x = ms.Tensor(np.ones((2, 3), np.float32))
    gc = _load(Inner(), x, tmp_path, "inner")

    @ms.jit
    def f(x):
        return gc(x)

    with pytest.raises(TypeError, match="GraphCell.*dtype") as info:
        f(ms.Tensor(np.ones((2, 3), np.float64)))
    assert "test_jit_fix_graph_cell.py" in str(info.value)
    with pytest.raises(ValueError, match="GraphCell.*shape"):
        f(ms.Tensor(np.ones((2, 4), np.float32)))
    assert not issubclass(TypeError, UnsupportedSyntaxError)


def test_jit_of_a_bound_method_binds_its_object():
    """ms.jit(net.construct) (MindSpore accepts a bound method): compiled as the function
    with the cell as its first argument; equal to the eager call, graph available."""
    net = nn.SequentialCell([nn.Dense(4, 3), nn.ReLU()])
    x = ms.Tensor(np.random.default_rng(3).standard_normal((2, 4)).astype(np.float32))
    f = ms.jit(net.construct)
    np.testing.assert_array_equal(f(x).asnumpy(), net(x).asnumpy())
    assert f.graph(x).parameters[0].name == "x"
