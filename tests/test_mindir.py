"""MINDIR export/load (issue 16, part 1): round trips mindlite -> .mindir -> mindlite, the files
MindSpore 2.10 wrote (tests/data/ms_*.mindir, made by tests/data/make_mindir_fixtures.py),
MindSpore's file conventions, the export/load API and nn.GraphCell."""
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mindlite as ms
from mindlite import Tensor, nn, ops
from models import LeNet, MLP

pb = pytest.importorskip("mindlite.train.mindir.mind_ir_pb2", reason="protobuf is required")
DATA = os.path.join(os.path.dirname(__file__), "data")


class Branch(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(Tensor(np.array([2.0, 3.0], np.float32)), name="w")

    def construct(self, x, y):
        if x.sum() > 0:
            z = x * y + self.w
        else:
            z = x - y
        return z, x + 1


class Capture(nn.Cell):
    """Branches that capture a value computed before the `if` (a Partial's bound argument)."""

    def construct(self, x, y):
        t = x * 2 + y
        if x.sum() > 0:
            z = t * y
        else:
            z = t - 1
        return z


class Loop(nn.Cell):
    def construct(self, x, n):
        i = Tensor(0, ms.int32)
        while i < n:
            x = x * 2 + 1
            i = i + 1
        return x


class Ops(nn.Cell):
    """BatchNorm, AvgPool, Transpose, LayerNorm, GeLU, Concat, Softmax, sum/mean, Cast."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, pad_mode="pad", padding=1, has_bias=True)
        self.bn = nn.BatchNorm2d(4)
        self.avg = nn.AvgPool2d(2, 2)
        self.ln = nn.LayerNorm((4,))
        self.gelu = nn.GELU()
        self.softmax = nn.Softmax(-1)

    def construct(self, x):
        x = self.avg(self.bn(self.conv(x)))
        x = self.gelu(self.ln(ops.transpose(x, (0, 2, 3, 1))))
        y = ops.concat((x, x * 2), -1)
        return (self.softmax(y), y.sum(), y.mean(axis=1), ops.tanh(y) + ops.sigmoid(y),
                ops.cast(y, ms.float16))


class ArgIndex(nn.Cell):
    """Argmax/Argmin with an output dtype (a TypeId in the file), Meshgrid's indexing enum."""

    def construct(self, x, y):
        gx, gy = ops.Meshgrid(indexing="ij")((y, y))
        return ops.Argmax(axis=1, output_type=ms.int64)(x), gx + gy, ops.Argmin(axis=0)(x)


class Attention(nn.Cell):
    """Embedding (Gather on int ids), Dense on reshaped tokens, BatchMatMul, Softmax,
    LayerNorm, ReLU6, reductions."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(20, 8)
        self.q, self.k, self.v = nn.Dense(8, 8), nn.Dense(8, 8), nn.Dense(8, 8)
        self.ln = nn.LayerNorm((8,))
        self.act = nn.ReLU6()
        self.scores = ops.BatchMatMul(transpose_b=True)
        self.mix = ops.BatchMatMul()

    def construct(self, ids):
        x = self.emb(ids)
        b, s, d = x.shape
        h = x.reshape(b * s, d)
        q, k, v = (f(h).reshape(b, s, d) for f in (self.q, self.k, self.v))
        out = self.mix(ops.softmax(self.scores(q, k) / 8 ** 0.5, -1), v)
        return self.act(self.ln(out + x)), ops.sigmoid(out).max(axis=-1), ops.exp(out).min()


def _roundtrip(net, inputs, tmp_path, name="m"):
    ms.export(net, *inputs, file_name=str(tmp_path / name), file_format="MINDIR")
    path = tmp_path / f"{name}.mindir"
    assert path.exists()
    return nn.GraphCell(ms.load(str(path)))


def test_mlp_roundtrip(tmp_path):
    net = MLP()
    x = Tensor(np.random.default_rng(0).standard_normal((3, 8)).astype(np.float32))
    cell = _roundtrip(net, [x], tmp_path)
    np.testing.assert_array_equal(cell(x).asnumpy(), net(x).asnumpy())
    assert sorted(n for n, _ in cell.parameters_and_names()) == sorted(
        p.name for p in net.get_parameters())


def test_lenet_roundtrip(tmp_path):
    net = LeNet()
    x = Tensor(np.random.default_rng(1).standard_normal((2, 1, 32, 32)).astype(np.float32))
    cell = _roundtrip(net, [x], tmp_path)
    np.testing.assert_array_equal(cell(x).asnumpy(), net(x).asnumpy())


def test_control_flow_roundtrip(tmp_path):
    net = Branch()
    x = Tensor(np.array([1.0, 2.0], np.float32))
    y = Tensor(np.array([3.0, 5.0], np.float32))
    cell = _roundtrip(net, [x, y], tmp_path)
    for a in (x, -x):
        got, want = cell(a, y), net(a, y)
        assert len(got) == 2
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g.asnumpy(), w.asnumpy())
    model = pb.ModelProto.FromString((tmp_path / "m.mindir").read_bytes())
    assert len(model.functions) == 2
    ops_used = {n.op_type.split("::")[1].split(":")[0] for g in [model.graph, *model.functions]
                for n in g.node if n.op_type.startswith("REF::")}
    assert {"Switch", "Partial", "MakeTuple"} <= ops_used


def test_ops_model_roundtrip(tmp_path):
    net = Ops()
    net.set_train(False)
    x = Tensor(np.random.default_rng(2).standard_normal((2, 3, 8, 8)).astype(np.float32))
    got, want = _roundtrip(net, [x], tmp_path)(x), net(x)
    assert got[4].dtype == ms.float16
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.asnumpy(), w.asnumpy())


def test_dtype_and_enum_arguments_roundtrip(tmp_path):
    x = Tensor(np.random.default_rng(3).standard_normal((3, 4)).astype(np.float32))
    y = Tensor(np.arange(3, dtype=np.float32))
    net = ArgIndex()
    got, want = _roundtrip(net, [x, y], tmp_path)(x, y), net(x, y)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g.asnumpy(), w.asnumpy())


def test_attention_roundtrip(tmp_path):
    net = Attention()
    ids = Tensor(np.array([[1, 2, 3, 4], [5, 6, 7, 19]], np.int32))
    for g, w in zip(_roundtrip(net, [ids], tmp_path)(ids), net(ids)):
        np.testing.assert_array_equal(g.asnumpy(), w.asnumpy())


def test_while_loop_roundtrip(tmp_path):
    net = Loop()
    x = Tensor(np.array([1.0, 2.0], np.float32))
    cell = _roundtrip(net, [x, Tensor(3, ms.int32)], tmp_path)
    for n in (0, 1, 5):
        n = Tensor(n, ms.int32)
        np.testing.assert_array_equal(cell(x, n).asnumpy(), net(x, n).asnumpy())


def test_branch_capturing_computed_value(tmp_path):
    net = Capture()
    x = Tensor(np.array([1.0, 2.0], np.float32))
    y = Tensor(np.array([3.0, 4.0], np.float32))
    cell = _roundtrip(net, [x, y], tmp_path)
    for a in (x, -x):
        np.testing.assert_array_equal(cell(a, y).asnumpy(), net(a, y).asnumpy())


def test_function_export_and_reexport(tmp_path):
    def fn(a, b):
        return ops.matmul(a, b) * 2.0 - 1.0

    a = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    b = Tensor(np.ones((3, 4), np.float32))
    ms.export(fn, a, b, file_name=str(tmp_path / "f.mindir"), file_format="MINDIR")
    graph = ms.load(str(tmp_path / "f.mindir"))
    want = fn(a, b).asnumpy()
    np.testing.assert_array_equal(nn.GraphCell(graph)(a, b).asnumpy(), want)
    ms.export(nn.GraphCell(graph), a, b, file_name=str(tmp_path / "g"), file_format="MINDIR")
    again = nn.GraphCell(ms.load(str(tmp_path / "g.mindir")))
    np.testing.assert_array_equal(again(a, b).asnumpy(), want)


@settings(max_examples=8, deadline=None)
@given(st.lists(st.integers(1, 6), min_size=2, max_size=4), st.integers(1, 3))
def test_mlp_shapes_roundtrip(tmp_path_factory, sizes, batch):
    tmp = tmp_path_factory.mktemp("mlp")
    net = MLP(tuple(sizes))
    x = Tensor(np.random.default_rng(batch).standard_normal((batch, sizes[0]))
               .astype(np.float32))
    np.testing.assert_array_equal(_roundtrip(net, [x], tmp)(x).asnumpy(), net(x).asnumpy())


@pytest.mark.parametrize("name", ["mlp", "lenet"])
def test_mindspore_written_files_run(name):
    data = np.load(os.path.join(DATA, f"ms_{name}.npz"))
    cell = nn.GraphCell(ms.load(os.path.join(DATA, f"ms_{name}.mindir")))
    got = cell(Tensor(data["input0"])).asnumpy()
    np.testing.assert_allclose(got, data["output"], rtol=1e-5, atol=1e-6)


def test_mindspore_written_switch_runs():
    data = np.load(os.path.join(DATA, "ms_switch.npz"))
    cell = nn.GraphCell(ms.load(os.path.join(DATA, "ms_switch.mindir")))
    y = Tensor(data["input1"])
    np.testing.assert_allclose(cell(Tensor(data["input0"]), y).asnumpy(), data["output"],
                               rtol=1e-6)
    np.testing.assert_allclose(cell(Tensor(data["neg_input0"]), y).asnumpy(),
                               data["neg_output"], rtol=1e-6)


def test_mindspore_written_loop_runs():
    data = np.load(os.path.join(DATA, "ms_loop.npz"))
    cell = nn.GraphCell(ms.load(os.path.join(DATA, "ms_loop.mindir")))
    x = Tensor(data["input0"])
    np.testing.assert_allclose(cell(x, Tensor(data["input1"])).asnumpy(), data["output"])
    np.testing.assert_allclose(cell(x, Tensor(np.array(0, np.int32))).asnumpy(),
                               data["input0"])
    from mindlite.train.mindir.values import Monad
    from mindlite.train.mindir.writer import reachable_graphs
    graphs = reachable_graphs(cell.graph)
    assert len(graphs) >= 3                              # the loop's header, body and exit
    for g in graphs:                                     # MindSpore's monads are dropped
        for node in g.order:
            assert not any(isinstance(getattr(i, "value", None), Monad) for i in node.inputs)


@pytest.mark.parametrize("name,n_out", [("ops", 4), ("attn", 3)])
def test_mindspore_written_ops_run(name, n_out):
    """BatchNorm, AvgPool, Transpose, LayerNorm, GeLU, Concat, Softmax, ReduceMean, Gather,
    BatchMatMul, ReLU6 and the 2.x ops mindlite runs under other names (SumExt -> ReduceSum,
    Muls -> Mul, Divs -> Div, Max -> ReduceMax)."""
    data = np.load(os.path.join(DATA, f"ms_{name}.npz"))
    cell = nn.GraphCell(ms.load(os.path.join(DATA, f"ms_{name}.mindir")))
    outs = cell(Tensor(data["input0"]))
    assert len(outs) == n_out
    for i, o in enumerate(outs):
        want = data["output" if i == 0 else f"output{i}"]
        np.testing.assert_allclose(o.asnumpy(), want, rtol=1e-5, atol=1e-5)


def test_mindspore_file_maps_ops_and_weights():
    graph = ms.load(os.path.join(DATA, "ms_lenet.mindir"))
    names = [type(n.inputs[0].value).__name__ for n in graph.order]
    assert names == ["Conv2D", "ReLU", "MaxPool", "Conv2D", "ReLU", "MaxPool", "Flatten",
                     "MatMul", "BiasAdd", "ReLU", "MatMul", "BiasAdd", "ReLU", "MatMul",
                     "BiasAdd"]           # Load / UpdateState / Depend / MakeTuple dropped
    matmul = graph.order[7].inputs[0].value
    assert matmul.attrs["transpose_b"] is True and matmul.attrs["transpose_a"] is False
    weights = [p.default.name for p in graph.parameters if p.default is not None]
    assert "conv1.weight" in weights and "fc3.bias" in weights


def test_written_file_follows_mindspore_conventions(tmp_path):
    net = MLP((8, 4))
    x = Tensor(np.ones((2, 8), np.float32))
    ms.export(net, x, file_name=str(tmp_path / "c"), file_format="MINDIR")
    model = pb.ModelProto.FromString((tmp_path / "c.mindir").read_bytes())
    assert model.producer_name == "MindSpore" and model.mind_ir_version == 3
    assert model.little_endian
    g = model.graph
    assert [i.name.split(":")[1] for i in g.input] == ["x"]
    assert list(g.input[0].tensor[0].dims) == [2, 8] and g.input[0].tensor[0].data_type == 1
    refs = {t.ref_key: t for t in g.parameter}
    assert set(refs) == {"layers.0.weight", "layers.0.bias"}
    w = refs["layers.0.weight"]
    np.testing.assert_array_equal(np.frombuffer(w.raw_data, "<f4").reshape(4, 8),
                                  net.layers[0].weight.asnumpy())
    prims = {p.name: p for p in model.primitives}
    matmul = [n for n in g.node if "MatMul" in n.op_type][0]
    proto = prims[matmul.op_type[len("REF::"):]]
    assert proto.prim_type == pb.PrimitiveProto.PRIMITIVE_FUNCTION
    consts = {n.output[0]: n.attribute[0] for n in g.node if n.op_type == "Constant"}
    flags = [consts[i] for i in matmul.input[2:]]
    assert [(f.type, f.i) for f in flags] == [(pb.AttributeProto.BOOL, 0),
                                              (pb.AttributeProto.BOOL, 1)]
    assert g.output[0].name == g.node[-1].output[0]


def test_conv_attributes_written_as_primitive(tmp_path):
    net = nn.Conv2d(1, 2, 3, pad_mode="pad", padding=1)
    x = Tensor(np.ones((1, 1, 5, 5), np.float32))
    ms.export(net, x, file_name=str(tmp_path / "conv"), file_format="MINDIR")
    model = pb.ModelProto.FromString((tmp_path / "conv.mindir").read_bytes())
    conv = [p for p in model.primitives if p.op_type == "Conv2D"][0]
    assert conv.prim_type == pb.PrimitiveProto.PRIMITIVE
    attrs = {a.name: a for a in conv.attribute}
    assert attrs["format"].s == b"NCHW" and attrs["pad_mode"].s == b"pad"
    assert [v.ints[0] for v in attrs["pad_list"].values] == [1, 1, 1, 1]
    cell = nn.GraphCell(ms.load(str(tmp_path / "conv.mindir")))
    np.testing.assert_array_equal(cell(x).asnumpy(), net(x).asnumpy())
