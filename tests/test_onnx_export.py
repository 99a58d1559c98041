"""mindlite -> ONNX export (mindlite/onnx/export*.py): every export runs in onnxruntime and
must match mindlite's eager output (MLP, LeNet, a Transformer block, control flow, the op
set one function at a time); unsupported primitives raise naming the op."""
import numpy as np
import pytest

import mindlite as ms
from mindlite import nn, ops
import models

onnx = pytest.importorskip("onnx", reason="the onnx extra is not installed")
ort = pytest.importorskip("onnxruntime", reason="the onnx extra is not installed")

from mindlite.jit.export_graph import graph_for_export  # noqa: E402
from mindlite.onnx import export_onnx, export_onnx_model  # noqa: E402

RNG = np.random.default_rng(0)


def rand(*shape, dtype=np.float32):
    return ms.Tensor(RNG.random(shape).astype(dtype))


def run_ort(proto, inputs):
    sess = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]
    return sess.run(None, {n: x.asnumpy() for n, x in zip(names, inputs)})


def check(net, *inputs, opset=13, atol=1e-5):
    proto = export_onnx_model(graph_for_export(net, *inputs), opset)
    got = run_ort(proto, inputs)
    want = net(*inputs)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        w = w.asnumpy()
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=atol)
    return proto


class LeNet(models.LeNet):
    """LeNet with fc1 and fc2 only (test_onnx_export_layers and the import tests use it too)."""

    def __init__(self):
        super().__init__(hidden=(120,))


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.body = nn.SequentialCell([nn.Dense(8, 16), nn.ReLU(), nn.Dense(16, 16),
                                       nn.Tanh(), nn.Dense(16, 4)])

    def construct(self, x):
        return ops.softmax(self.body(x), -1)


class Block(nn.Cell):
    """A Transformer encoder block: embedding, attention, LayerNorm, GELU feed-forward."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 8)
        self.att = nn.MultiheadAttention(8, 2)
        self.ln1 = nn.LayerNorm((8,))
        self.ln2 = nn.LayerNorm((8,))
        self.ff1 = nn.Dense(8, 16)
        self.ff2 = nn.Dense(16, 8)
        self.act = nn.GELU(approximate=False)
        self.act2 = nn.GELU()
        self.drop = nn.Dropout(p=0.1)

    def construct(self, idx):
        x = self.emb(idx)
        x = self.ln1(x + self.drop(self.att(x, x, x)[0]))
        return self.ln2(x + self.ff2(self.act(self.ff1(x)))) + self.act2(x)


class ConvBN(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, pad_mode="same", has_bias=True)
        self.conv2 = nn.Conv2d(4, 4, 3, pad_mode="pad", padding=(1, 0, 2, 1), group=2)
        self.bn = nn.BatchNorm2d(4)
        self.pool = nn.AvgPool2d(2, 2)

    def construct(self, x):
        return self.pool(self.conv2(ops.relu(self.bn(self.conv(x)))))


def test_lenet_and_file(tmp_path):
    x = rand(2, 1, 32, 32)
    net = LeNet()
    check(net, x)
    path = export_onnx(graph_for_export(net, x), str(tmp_path / "lenet"))
    assert path.endswith("lenet.onnx")
    model = onnx.load(path)
    onnx.checker.check_model(model)
    assert [i.name for i in model.graph.input] == ["x"]
    assert {"conv1.weight", "fc2.bias"} <= {i.name for i in model.graph.initializer}
    assert model.opset_import[0].version == 13


@pytest.mark.parametrize("opset", [13, 17, 18, 21])
def test_mlp_opsets(opset):
    check(MLP(), rand(3, 8), opset=opset)


def test_transformer_block():
    net = Block()
    net.set_train(False)
    idx = ms.Tensor(RNG.integers(0, 20, (2, 5)).astype(np.int32))
    check(net, idx, atol=1e-4)


def test_conv_bn_pool():
    net = ConvBN()
    net.set_train(False)
    check(net, rand(2, 3, 9, 9))


def branches(x, y):
    if x.sum() > y.sum():
        z = x * 2 + y
    else:
        z = x - y
        if z.mean() > 0:
            z = z * 3
    return z, ops.relu(z)


def test_control_flow_becomes_if():
    x, y = rand(2, 3), rand(2, 3)
    proto = check(branches, x, y)
    assert "If" in {n.op_type for n in proto.graph.node}
    check(branches, y * 0, y)                # the else branch, nested If
    check(branches, x + 5, y)


def elementwise(x, y):
    a = ops.softmax(x, -1) + ops.log_softmax(x, 1) + ops.gelu(x) * ops.sigmoid(x) - ops.tanh(x)
    b = ops.pow(x, 2.0) + ops.sqrt(x) + ops.exp(x) + ops.log(x + 1) - ops.neg(x) + ops.abs(x)
    c = ops.maximum(x, 0.5) + ops.minimum(x, y) + ops.clamp(x, 0.1, 0.5) + ops.rsqrt(x + 1)
    d = ops.select(x < 0.5, x, y * 2) + ops.where(x >= y, x, 0.0) + ops.div(x, 3)
    e = ops.leaky_relu(x, 0.2) + ops.elu(x) + ops.softplus(x) + ops.hardsigmoid(x) + \
        ops.relu6(x * 8) + ops.silu(x) + ops.erf(x) + ops.floor(x * 3) + ops.reciprocal(x + 1)
    f = ops.logical_not(x > 0.5)
    g = ops.equal(x, y) + ops.less_equal(x, 0.3) + ops.ne(x, y)
    return a, b, c, d, e, f, g, ops.cast(x * 10, ms.int32), ops.sin(x) + ops.cos(x)


def test_elementwise_ops():
    check(elementwise, rand(3, 4), rand(3, 4))


def reductions(x):
    return (x.sum(axis=1, keepdims=True), x.mean(-1), x.max(axis=(1, 2)), x.min(axis=1),
            x.prod(0), x.sum(), ops.argmax(x, 1), ops.cumsum(x, 2), ops.topk(x, 2)[0])


@pytest.mark.parametrize("opset", [13, 18])
def test_reductions(opset):
    check(reductions, rand(2, 3, 4), opset=opset)


def arrays(x, idx):
    t = ops.transpose(x, (0, 2, 1))
    c = ops.concat((x, x * 2), 1)
    s = ops.stack((x, x), 0)
    q = ops.squeeze(ops.expand_dims(x, 0), 0)
    g = ops.gather(x, idx, 1)
    sl = x[:, 1:3, ::2] + x[1:, :2, 1:3].sum()
    sp = ops.split(x, 2, axis=2)[1]
    p = ops.pad(x, (1, 2, 0, 1))
    r = ops.reshape(x, (4, -1)) + 1
    return (t, c, s, q, g, sl, sp, p, r, ops.tile(x, (1, 2, 1)), ops.zeros_like(x),
            ops.broadcast_to(x[:, :1], (2, 3, 4)), ops.matmul(x, t), x[0, 1])


def test_array_ops():
    idx = ms.Tensor(np.array([[0, 2], [1, 1]], np.int32))
    check(arrays, rand(2, 3, 4), idx)


def resize(x):
    return (ops.interpolate(x, size=(8, 6), mode="nearest"),
            ops.interpolate(x, size=(7, 9), mode="bilinear"),
            ops.interpolate(x, size=(7, 9), mode="bilinear", align_corners=True))


def test_resize():
    check(resize, rand(1, 2, 4, 4))


def test_dynamic_batch_input():
    net = MLP()
    proto = export_onnx_model(graph_for_export(net, ms.Tensor(shape=[None, 8],
                                                              dtype=ms.float32)))
    dims = proto.graph.input[0].type.tensor_type.shape.dim
    assert dims[0].dim_param and dims[1].dim_value == 8
    for n in (1, 5):
        x = rand(n, 8)
        np.testing.assert_allclose(run_ort(proto, [x])[0], net(x).asnumpy(), rtol=1e-5,
                                   atol=1e-6)


def sort_fn(x):
    return ops.sort(x)[0]


def test_unsupported_primitive_named():
    with pytest.raises(ValueError, match="Sort"):
        export_onnx_model(graph_for_export(sort_fn, rand(3, 4)))


def test_bad_arguments():
    g = graph_for_export(MLP(), rand(2, 8))
    with pytest.raises(ValueError, match="opset_version"):
        export_onnx_model(g, 9)
    with pytest.raises(TypeError, match="FuncGraph"):
        export_onnx_model("graph")
    with pytest.raises(TypeError, match="file_name"):
        export_onnx(g, None)


def test_large_model_external_data(tmp_path, monkeypatch):
    """Weights over the 2 GiB protobuf limit go to `<file>.data` (the limit lowered here)."""
    from mindlite.onnx import export as export_mod
    from mindlite.onnx import load_onnx, OnnxGraphCell
    monkeypatch.setattr(export_mod, "EXTERNAL_DATA_BYTES", 1000)
    net, x = LeNet(), rand(1, 1, 32, 32)
    path = export_onnx(graph_for_export(net, x), str(tmp_path / "big.onnx"))
    assert (tmp_path / "big.onnx.data").stat().st_size > 200_000
    assert (tmp_path / "big.onnx").stat().st_size < 20_000
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    want = net(x).asnumpy()
    np.testing.assert_allclose(sess.run(None, {"x": x.asnumpy()})[0], want, rtol=1e-5,
                               atol=1e-6)
    got = OnnxGraphCell(load_onnx(path))(x).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
