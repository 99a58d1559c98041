"""MINDIR's user API (issue 16, part 1): mindlite.export / mindlite.load argument checks and
format dispatch, and nn.GraphCell: input checks, params_init, GRAPH_MODE, gradients, the
lowered kernel program, dynamic dimensions, bfloat16."""
import os

import numpy as np
import pytest

import mindlite as ms
from mindlite import Tensor, nn, ops

pytest.importorskip("mindlite.train.mindir.mind_ir_pb2", reason="protobuf is required")
from test_mindir import MLP, Branch, _roundtrip, pb  # noqa: E402


def test_graph_cell_checks_inputs(tmp_path):
    cell = _roundtrip(MLP(), [Tensor(np.ones((2, 8), np.float32))], tmp_path)
    with pytest.raises(ValueError, match="takes 1 inputs, but got 2"):
        cell(Tensor(np.ones((2, 8), np.float32)), Tensor(np.ones((2, 8), np.float32)))
    with pytest.raises(TypeError, match="dtype Float32"):
        cell(Tensor(np.ones((2, 8), np.float64)))
    with pytest.raises(ValueError, match=r"shape \[2, 8\]"):
        cell(Tensor(np.ones((3, 8), np.float32)))
    with pytest.raises(TypeError, match="must be a Tensor"):
        cell(np.ones((2, 8), np.float32))
    with pytest.raises(TypeError, match="graph returned by mindlite.load"):
        nn.GraphCell(MLP())


def test_graph_cell_graph_mode_and_params_init(tmp_path):
    net = MLP((8, 4))
    x = Tensor(np.ones((2, 8), np.float32))
    ms.export(net, x, file_name=str(tmp_path / "p"), file_format="MINDIR")
    graph = ms.load(str(tmp_path / "p.mindir"))
    zero = Tensor(np.zeros((4,), np.float32))
    cell = nn.GraphCell(graph, params_init={"layers.0.bias": zero})
    want = ops.matmul(x, net.layers[0].weight.T).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        np.testing.assert_allclose(cell(x).asnumpy(), want, rtol=1e-6)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    with pytest.raises(ValueError, match="not a parameter"):
        nn.GraphCell(graph, params_init={"nope": zero})


def test_api_errors(tmp_path):
    x = Tensor(np.ones((1, 8), np.float32))
    with pytest.raises(ValueError, match="'file_format' must be one of"):
        ms.export(MLP(), x, file_name=str(tmp_path / "a"), file_format="PB")
    with pytest.raises(ValueError, match="'AIR' format with Ascend"):
        ms.export(MLP(), x, file_name=str(tmp_path / "a"), file_format="AIR")
    with pytest.raises(TypeError, match="file_format"):
        ms.export(MLP(), x, file_name=str(tmp_path / "a"))
    with pytest.raises(ValueError, match="should end with '.mindir'"):
        ms.load(str(tmp_path / "a.onnx"))
    with pytest.raises(ValueError, match="does not exist"):
        ms.load(str(tmp_path / "missing.mindir"))


def test_onnx_format_dispatches(tmp_path):
    pytest.importorskip("onnx", reason="file_format='ONNX' needs the onnx package")
    net = MLP((8, 4))
    x = Tensor(np.ones((2, 8), np.float32))
    ms.export(net, x, file_name=str(tmp_path / "o"), file_format="ONNX")
    assert any(f.startswith("o") and f.endswith(".onnx") for f in os.listdir(tmp_path))


def test_graph_cell_gradients(tmp_path):
    net = nn.SequentialCell(nn.Dense(4, 3), nn.ReLU(), nn.Dense(3, 2))
    x = Tensor(np.random.default_rng(5).standard_normal((2, 4)).astype(np.float32))
    cell = _roundtrip(net, [x], tmp_path)
    np.testing.assert_array_equal(ms.grad(lambda a: cell(a).sum())(x).asnumpy(),
                                  ms.grad(lambda a: net(a).sum())(x).asnumpy())
    _, grads = ms.grad(lambda a: cell(a).sum(), 0, cell.trainable_params())(x)
    _, want = ms.grad(lambda a: net(a).sum(), 0, net.trainable_params())(x)
    for g, w in zip(grads, want):
        np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-6)


def test_graph_cell_runs_lowered_program_and_reads_live_weights(tmp_path):
    net = MLP((8, 4))
    x = Tensor(np.ones((2, 8), np.float32))
    cell = _roundtrip(net, [x], tmp_path)
    np.testing.assert_array_equal(cell(x).asnumpy(), net(x).asnumpy())
    prog = cell._lowered._program
    assert prog is not None and prog.runner is not None, prog and prog.reason
    bias = cell.parameters_dict()["layers.0.bias"]
    bias.set_data(Tensor(np.full((4,), 10.0, np.float32)))
    net.layers[0].bias.set_data(Tensor(np.full((4,), 10.0, np.float32)))
    np.testing.assert_array_equal(cell(x).asnumpy(), net(x).asnumpy())
    branch = _roundtrip(Branch(), [x[0, :2], x[0, :2]], tmp_path, "b")
    branch(x[0, :2], x[0, :2])
    assert branch._lowered._program.runner is None          # control flow: interpreted


def test_dynamic_batch_dimension(tmp_path):
    net = MLP((8, 4))
    spec = Tensor(shape=[None, 8], dtype=ms.float32)
    ms.export(net, spec, file_name=str(tmp_path / "d"), file_format="MINDIR")
    model = pb.ModelProto.FromString((tmp_path / "d.mindir").read_bytes())
    assert list(model.graph.input[0].tensor[0].dims) == [-1, 8]
    cell = nn.GraphCell(ms.load(str(tmp_path / "d.mindir")))
    for batch in (1, 5):
        x = Tensor(np.random.default_rng(batch).standard_normal((batch, 8)).astype(np.float32))
        np.testing.assert_array_equal(cell(x).asnumpy(), net(x).asnumpy())
    with pytest.raises(ValueError, match=r"shape \[-1, 8\] \(-1: any\), but got \[3, 7\]"):
        cell(Tensor(np.ones((3, 7), np.float32)))


def test_bfloat16_roundtrip(tmp_path):
    pytest.importorskip("ml_dtypes", reason="bfloat16 tensors need ml_dtypes")
    if not hasattr(ms, "bfloat16"):
        pytest.skip("this mindlite has no bfloat16")

    def fn(x):
        return ops.cast(x, ms.bfloat16) * 2

    x = Tensor(np.array([1.5, 2.25, -3.0], np.float32))
    ms.export(fn, x, file_name=str(tmp_path / "bf"), file_format="MINDIR")
    out = nn.GraphCell(ms.load(str(tmp_path / "bf.mindir")))(x)
    assert out.dtype == ms.bfloat16
    np.testing.assert_array_equal(out.asnumpy().astype(np.float32), [3.0, 4.5, -6.0])
