"""More mindlite -> ONNX export checks (mindlite/onnx/export*.py), each run in onnxruntime
against mindlite's eager output: nn layers, Conv/Gemm bias fusion, while loops as Loop,
division forms, the extra primitives, dynamic batch through Shape, random elementwise
chains (hypothesis), mindlite.export end to end."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mindlite as ms
from mindlite import nn, ops

pytest.importorskip("onnx", reason="the onnx extra is not installed")
ort = pytest.importorskip("onnxruntime", reason="the onnx extra is not installed")

from mindlite.jit.export_graph import graph_for_export  # noqa: E402
from mindlite.onnx import export_onnx_model  # noqa: E402

from test_onnx_export import (RNG, Block, ConvBN, LeNet, check, rand,  # noqa: E402
                              run_ort)


LAYERS = {
    "conv_transpose_valid": lambda: (nn.Conv2dTranspose(3, 4, 3, stride=2, pad_mode="valid",
                                                        has_bias=True), (1, 3, 5, 5)),
    "conv_transpose_same": lambda: (nn.Conv2dTranspose(4, 4, 3, stride=2, pad_mode="same",
                                                       group=2), (1, 4, 5, 5)),
    "conv_transpose_pad": lambda: (nn.Conv2dTranspose(3, 4, (3, 2), stride=(2, 1),
                                                      pad_mode="pad", padding=(1, 0, 1, 0)),
                                   (1, 3, 5, 5)),
    "adaptive_avg": lambda: (nn.AdaptiveAvgPool2d((2, 2)), (1, 3, 4, 6)),
    "adaptive_max": lambda: (nn.AdaptiveMaxPool2d((1, 1)), (1, 3, 4, 4)),
    "group_norm": lambda: (nn.GroupNorm(2, 4), (2, 4, 3, 3)),
    "batch_norm_1d": lambda: (nn.BatchNorm1d(3), (4, 3)),
    "prelu": lambda: (nn.PReLU(), (2, 3)),
    "activations": lambda: (nn.SequentialCell([nn.HSwish(), nn.Mish(), nn.Softsign(),
                                               nn.LogSigmoid(), nn.Hardtanh(), nn.Tanhshrink(),
                                               nn.LeakyReLU(0.1)]), (2, 3)),
    "zero_pad": lambda: (nn.ZeroPad2d(1), (1, 1, 2, 2)),
    "encoder_layer": lambda: (nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0,
                                                         batch_first=True), (2, 3, 8)),
}


@pytest.mark.parametrize("name", sorted(LAYERS))
@pytest.mark.parametrize("opset", [13, 18])
def test_layers(name, opset):
    net, shape = LAYERS[name]()
    net.set_train(False)
    check(net, ms.Tensor(RNG.standard_normal(shape).astype(np.float32)), opset=opset, atol=1e-4)


def test_adaptive_pool_uneven_refused():
    with pytest.raises(ValueError, match="AdaptiveAvgPool2D.*not a multiple"):
        export_onnx_model(graph_for_export(nn.AdaptiveAvgPool2d((3, 3)), rand(1, 2, 4, 4)))


def test_mindlite_export_api(tmp_path):
    """mindlite.export(net, x, file_name=..., file_format="ONNX") writes <file_name>.onnx."""
    net, x = ConvBN(), rand(1, 3, 9, 9)
    net.set_train(False)
    ms.export(net, x, file_name=str(tmp_path / "convbn"), file_format="ONNX")
    path = str(tmp_path / "convbn.onnx")
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    np.testing.assert_allclose(sess.run(None, {"x": x.asnumpy()})[0], net(x).asnumpy(),
                               rtol=1e-5, atol=1e-5)


def test_bias_fused_as_mindspore_does():
    """Conv2D + BiasAdd -> Conv with bias, MatMul + BiasAdd -> Gemm (MindSpore's exporter)."""
    proto = check(LeNet(), rand(2, 1, 32, 32))
    ops_used = [n.op_type for n in proto.graph.node]
    assert ops_used.count("Gemm") == 2 and "MatMul" not in ops_used
    assert "Transpose" not in ops_used and "Add" not in ops_used
    proto = check(ConvBN(), rand(1, 3, 9, 9))
    conv = [n for n in proto.graph.node if n.op_type == "Conv"]
    assert [len(n.input) for n in conv] == [3, 2]


def while_loop(x, n):
    i = ms.Tensor(0, ms.int32)
    while i < n:
        j = ms.Tensor(0, ms.int32)
        while j < i:                     # a nested loop whose bound changes
            x = x + 1
            j = j + 1
        if x.sum() > 50:
            x = x - 3
        x = x * 2
        i = i + 1
    return x - 1, i


def test_while_loops_become_loop():
    x = rand(4)
    for n in (0, 1, 4):
        proto = check(while_loop, x, ms.Tensor(n, ms.int32))
    top = [n.op_type for n in proto.graph.node]
    assert top.count("Loop") == 1
    body = next(n for n in proto.graph.node if n.op_type == "Loop").attribute[0].g
    assert {"Loop", "If"} <= {n.op_type for n in body.node}


def test_parameter_names_made_unique():
    """A hand-built graph whose parameters share a name still exports (the delegates build
    such graphs from kernel runs)."""
    from mindlite.ir.anf import FuncGraph
    from mindlite.ops import operations as P
    g = FuncGraph("sub")
    a = g.add_parameter("x", rand(2, 3)._abs)
    b = g.add_parameter("x", rand(2, 3)._abs)
    g.set_output(g.new_cnode([P.Add(), a, b], a.abstract))
    proto = export_onnx_model(g)
    assert len({i.name for i in proto.graph.input}) == 2
    x, y = rand(2, 3), rand(2, 3)
    np.testing.assert_allclose(run_ort(proto, [x, y])[0], (x + y).asnumpy(), rtol=1e-6)


def div_mod(a, b, x, y):
    return (a // b, a % b, ops.fmod(a, b), ops.div(a, b, rounding_mode="trunc"), x // y, x % y,
            ops.fmod(x, y))


def test_division_forms():
    a = ms.Tensor(np.array([-7, 7, -7, 7, 9], np.int32))
    b = ms.Tensor(np.array([2, -2, -2, 2, 3], np.int32))
    x = ms.Tensor(np.array([-7.5, 7.5, -7.5, 7.25, 1.0], np.float32))
    y = ms.Tensor(np.array([2.0, -2.0, -2.0, 2.0, 0.5], np.float32))
    proto = check(div_mod, a, b, x, y)
    from mindlite.onnx import OnnxGraphCell, load_onnx
    got = OnnxGraphCell(load_onnx(proto))(a, b, x, y)
    for g, w in zip(got, div_mod(a, b, x, y)):
        np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-6)


def more_ops(x, idx):
    return (ops.selu(x), ops.celu(x), ops.prelu(x, ms.Tensor([0.25], ms.float32)),
            ops.all(x > 0.1, 1), ops.any(x > 0.9, 1), ops.std(x, 1), ops.var(x, 0),
            ops.einsum("ij,kj->ik", x, x), ops.flip(x, (1,)), ops.roll(x, 1, 1),
            ops.gather_elements(x, 1, idx), ops.one_hot(idx, 5, ms.Tensor(1.0), ms.Tensor(0.0)),
            ops.triu(x), ops.tril(x, -1), ops.isnan(x), ops.isinf(x), ops.square(x))


@pytest.mark.parametrize("opset", [13, 14, 18])
def test_more_ops(opset):
    idx = ms.Tensor(np.array([[0, 1], [3, 2]], np.int32))
    check(more_ops, rand(2, 4), idx, opset=opset)


def prelu_channels(x):
    return ops.prelu(x, ms.Tensor([0.1, 0.2, 0.3], ms.float32))


def test_prelu_per_channel():
    check(prelu_channels, ms.Tensor(RNG.standard_normal((2, 3, 4, 4)).astype(np.float32)))


def test_exportable_primitives():
    from mindlite.onnx import exportable_primitives
    names = exportable_primitives()
    assert {"Conv2D", "MatMul", "BiasAdd", "ReLU", "Softmax", "Reshape"} <= names
    assert "Sort" not in names


UNARY_FNS = [ops.relu, ops.sigmoid, ops.tanh, ops.exp, ops.neg, ops.abs, ops.erf, ops.softplus,
             ops.silu, ops.elu, lambda v: ops.softmax(v, -1)]
BINARY_FNS = [ops.add, ops.sub, ops.mul, ops.maximum, ops.minimum,
              lambda a, b: ops.div(a, ops.abs(b) + 1)]


@settings(max_examples=20, deadline=None)
@given(st.lists(st.tuples(st.integers(0, len(UNARY_FNS) - 1),
                          st.integers(0, len(BINARY_FNS) - 1)), min_size=1, max_size=5),
       st.lists(st.integers(1, 4), min_size=1, max_size=3), st.booleans())
def test_random_elementwise_chains(steps, shape, broadcast_y):
    """Random chains of unary and broadcasting binary ops export and match eager."""
    def chain(x, y):
        for u, b in steps:
            x = BINARY_FNS[b](UNARY_FNS[u](x), y)
        return x
    x = ms.Tensor(RNG.standard_normal(shape).astype(np.float32))
    y_shape = [1] * len(shape) if broadcast_y else shape
    y = ms.Tensor(RNG.standard_normal(y_shape).astype(np.float32))
    proto = export_onnx_model(graph_for_export(chain, x, y))
    np.testing.assert_allclose(run_ort(proto, [x, y])[0], chain(x, y).asnumpy(), rtol=1e-4,
                               atol=1e-5)


@pytest.mark.parametrize("make", [LeNet, Block])
def test_dynamic_batch_through_shape(make):
    """A None batch reaches Reshape through Shape -> TupleGetItem -> MakeTuple: exported as
    ONNX Shape / Gather / Concat, so one file runs every batch size."""
    net = make()
    net.set_train(False)
    if make is LeNet:
        spec, inputs = ms.Tensor(shape=[None, 1, 32, 32], dtype=ms.float32), \
            [rand(n, 1, 32, 32) for n in (1, 3)]
    else:
        spec = ms.Tensor(shape=[None, 5], dtype=ms.int32)
        inputs = [ms.Tensor(RNG.integers(0, 20, (n, 5)).astype(np.int32)) for n in (1, 4)]
    proto = export_onnx_model(graph_for_export(net, spec))
    for x in inputs:
        np.testing.assert_allclose(run_ort(proto, [x])[0], net(x).asnumpy(), rtol=1e-4,
                                   atol=1e-5)


def test_custom_not_listed_as_onnxruntime_exportable():
    from mindlite.onnx import exportable_primitives
    from mindlite.onnx.export import CONVERTERS
    assert "Custom" not in exportable_primitives() and "Custom" not in CONVERTERS
