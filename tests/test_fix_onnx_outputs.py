"""ONNX export writes graph outputs without an Identity where the producing node can name
the output itself (onnxruntime's EliminateIdentity rewrites Identity -> graph output pairs
and breaks graphs where the value also feeds later nodes): a net returning (hidden, logits)
with hidden feeding logits runs in onnxruntime at its default (full) optimization level;
an Identity stays only for a graph input returned as is, a weight, a value returned twice,
and an If branch returning an outer value."""
import numpy as np
import pytest

import mindlite as ms
from mindlite import nn, ops

onnx = pytest.importorskip("onnx", reason="the onnx extra is not installed")
ort = pytest.importorskip("onnxruntime", reason="the onnx extra is not installed")

from mindlite.jit.export_graph import graph_for_export  # noqa: E402
from mindlite.onnx import OnnxGraphCell, export_onnx_model, load_onnx  # noqa: E402


class HiddenAndLogits(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 8)
        self.fc2 = nn.Dense(8, 3)

    def construct(self, x):
        hidden = ops.relu(self.fc1(x))
        return hidden, self.fc2(hidden), hidden * 1.0


def _x(*shape):
    return ms.Tensor(np.random.default_rng(0).standard_normal(shape).astype(np.float32))


def _run_default(proto, *inputs):
    opts = ort.SessionOptions()
    assert opts.graph_optimization_level == ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    sess = ort.InferenceSession(proto.SerializeToString(), opts,
                                providers=["CPUExecutionProvider"])
    return sess.run(None, {i.name: x.asnumpy() for i, x in zip(sess.get_inputs(), inputs)})


def _producers(proto):
    return {o: n.op_type for n in proto.graph.node for o in n.output}


def test_hidden_and_logits_run_with_default_optimizations():
    net, x = HiddenAndLogits(), _x(2, 4)
    proto = export_onnx_model(graph_for_export(net, x))
    kinds = _producers(proto)
    assert [kinds[o.name] for o in proto.graph.output] == ["Relu", "Gemm", "Mul"]
    assert "Identity" not in {n.op_type for n in proto.graph.node}
    for got, want in zip(_run_default(proto, x), net(x)):
        np.testing.assert_allclose(got, want.asnumpy(), rtol=1e-5, atol=1e-6)
    back = OnnxGraphCell(load_onnx(proto))(x)           # and it loads back
    for got, want in zip(back, net(x)):
        np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-5, atol=1e-6)


class Passthrough(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor(np.ones(4, np.float32)), name="w")

    def construct(self, x):
        h = ops.relu(x)
        return x, h, h, self.w, h + self.w


def test_identity_only_where_an_output_needs_its_own_name():
    net, x = Passthrough(), _x(3, 4)
    proto = export_onnx_model(graph_for_export(net, x))
    kinds = _producers(proto)
    names = [o.name for o in proto.graph.output]
    assert len(set(names)) == 5
    assert [kinds.get(n) for n in names] == ["Identity", "Relu", "Identity", "Identity", "Add"]
    for got, want in zip(_run_default(proto, x), net(x)):
        np.testing.assert_allclose(got, want.asnumpy(), rtol=1e-6)


def branches(x):
    h = ops.relu(x)
    if x.sum() > 0:
        y = h
    else:
        y = h * 2 + 1
    return h, y


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_if_branches_with_outer_and_inner_outputs(sign):
    x = ms.Tensor(np.abs(_x(2, 3).asnumpy()) * sign)
    proto = export_onnx_model(graph_for_export(branches, x))
    if_node = next(n for n in proto.graph.node if n.op_type == "If")
    then_g, else_g = (a.g for a in if_node.attribute)
    for g in (then_g, else_g):
        made = {o: n.op_type for n in g.node for o in n.output}
        assert all(o.name in made for o in g.output)
    for got, want in zip(_run_default(proto, x), branches(x)):
        np.testing.assert_allclose(got, want.asnumpy(), rtol=1e-6)
