"""More ONNX import checks against onnxruntime (mindlite/onnx/import_ops_extra.py): PRelu
slopes, Selu/Celu, IsNaN/IsInf, Einsum, GatherElements, OneHot, Trilu, the L1/L2/
SumSquare/LogSumExp reductions, InstanceNormalization; and round trips of the exporters'
extra primitives."""
import numpy as np
import pytest

import mindlite as ms

onnx = pytest.importorskip("onnx", reason="the onnx extra is not installed")
pytest.importorskip("onnxruntime", reason="the onnx extra is not installed")

from onnx import TensorProto, helper  # noqa: E402

from mindlite.jit.export_graph import graph_for_export  # noqa: E402
from mindlite.onnx import OnnxGraphCell, export_onnx_model, load_onnx  # noqa: E402

import test_onnx_export as ex  # noqa: E402
import test_onnx_export_layers as exm  # noqa: E402
from test_onnx_import import F, I64, against_ort, make_model, one, x_of  # noqa: E402


@pytest.mark.parametrize("slope", [(1,), (3, 1, 1), (4,), (1, 1, 4), (2, 3, 4, 4)])
def test_prelu_slopes(slope):
    m = one("PRelu", shape=(2, 3, 4, 4), inits=[("s", x_of(*slope))])
    against_ort(m, x_of(2, 3, 4, 4))


@pytest.mark.parametrize("op,attrs", [("Selu", {}), ("Selu", {"alpha": 1.5, "gamma": 2.0}),
                                      ("Celu", {"alpha": 0.7})])
def test_selu_celu(op, attrs):
    against_ort(one(op, opset=13, **attrs), x_of(2, 3, 4))


def test_isnan_isinf():
    x = np.array([1.0, np.nan, np.inf, -np.inf, 0.0], np.float32)
    for op in ("IsNaN", "IsInf"):
        against_ort(one(op, shape=(5,), out_type=TensorProto.BOOL), x)


def test_einsum_gather_elements_one_hot_trilu():
    nodes = [helper.make_node("Einsum", ["x", "x"], ["e"], equation="bij, bkj -> bik"),
             helper.make_node("GatherElements", ["x", "gi"], ["ge"], axis=2),
             helper.make_node("OneHot", ["oi", "depth", "vals"], ["oh"], axis=1),
             helper.make_node("Trilu", ["x", "k"], ["tu"]),
             helper.make_node("Trilu", ["x"], ["tl"], upper=0)]
    inits = [("gi", np.array([[[0, -1], [1, 2], [3, 3]]] * 2, I64)),
             ("oi", np.array([[0, 2], [-1, 1]], I64)), ("depth", np.array(4, I64)),
             ("vals", np.array([0.5, 2.0], np.float32)), ("k", np.array(1, I64))]
    outs = [("e", F), ("ge", F), ("oh", F), ("tu", F), ("tl", F)]
    m = make_model(nodes, [("x", F, [2, 3, 4])], outs, inits, 14)
    against_ort(m, x_of(2, 3, 4))


@pytest.mark.parametrize("op", ["ReduceL1", "ReduceL2", "ReduceSumSquare", "ReduceLogSumExp"])
@pytest.mark.parametrize("keep", [0, 1])
def test_more_reductions(op, keep):
    against_ort(one(op, 13, axes=[1, 2], keepdims=keep), x_of(2, 3, 4))
    against_ort(one(op, 18, inits=[("a", np.array([-1], I64))], keepdims=keep), x_of(2, 3, 4))


def test_instance_norm():
    m = one("InstanceNormalization", shape=(2, 3, 4, 5),
            inits=[("s", x_of(3)), ("b", x_of(3))], epsilon=1e-3)
    against_ort(m, x_of(2, 3, 4, 5), atol=1e-4)


@pytest.mark.parametrize("opset", [13, 14])
def test_round_trip_more_ops(opset):
    args = (ex.rand(2, 4), ms.Tensor(np.array([[0, 1], [3, 2]], np.int32)))
    cell = OnnxGraphCell(load_onnx(export_onnx_model(graph_for_export(exm.more_ops, *args),
                                                     opset)))
    for g, w in zip(cell(*args), exm.more_ops(*args)):
        np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-5, atol=1e-6)


class ScaleShift:
    """A class kernel for the Custom type 'onnx_scale_shift': y = x * scale + shift, its
    attrs arriving as bytes (MindSpore Lite's Custom attr)."""

    def execute(self, x, out):
        import json
        np.multiply(x, json.loads(self.attrs["scale"]), out=out)
        out += float(self.attrs["shift"].decode())


@pytest.fixture
def scale_shift():
    from mindlite.kernels import registry
    ms.register_kernel("onnx_scale_shift", provider="onnx_test", custom=True,
                       kernel=ScaleShift)
    yield ms.ops.Custom(None, type="onnx_scale_shift", attrs={"scale": 2.5, "shift": "1.0"})
    registry.unregister_kernel("onnx_scale_shift", "onnx_test", custom=True)


def test_custom_op_round_trip(scale_shift, tmp_path):
    from mindlite import ops

    def net(x):
        y = ops.relu(scale_shift(x))
        if y.sum() > 10:
            y = scale_shift(y) - 1
        return y
    x = ex.rand(2, 3)
    for value in (x, x * 10):
        proto = export_onnx_model(graph_for_export(net, value))
        custom = [n for n in proto.graph.node if n.domain == "ai.mindlite.custom"]
        assert [n.op_type for n in custom] == ["onnx_scale_shift"]
        assert {a.name: a.s for a in custom[0].attribute} == {"scale": b"2.5", "shift": b"1.0"}
        assert "ai.mindlite.custom" in {o.domain for o in proto.opset_import}
        onnx.save(proto, str(tmp_path / "custom.onnx"))
        cell = OnnxGraphCell(str(tmp_path / "custom.onnx"))
        np.testing.assert_allclose(cell(value).asnumpy(), net(value).asnumpy(), rtol=1e-6)


def test_custom_op_without_shapes_refused():
    node = helper.make_node("my_op", ["x"], ["y"], name="c", domain="ai.mindlite.custom")
    g = helper.make_graph([node, helper.make_node("Relu", ["y"], ["z"])], "g",
                          [helper.make_tensor_value_info("x", F, [2])],
                          [helper.make_tensor_value_info("z", F, [2])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13),
                                            helper.make_opsetid("ai.mindlite.custom", 1)])
    with pytest.raises(ValueError, match=r"node 'c' \(op my_op\).*value_info"):
        load_onnx(m)


THREADED_FIRST_USE = """
import threading
import numpy as np
import mindlite as ms
from mindlite import nn
from mindlite.jit.export_graph import graph_for_export
from mindlite.onnx import OnnxGraphCell, export_onnx_model, load_onnx

x = ms.Tensor(np.arange(8, dtype=np.float32).reshape(2, 4))
net = nn.Dense(4, 3)
want = net(x).asnumpy()
graph = graph_for_export(net, x)
results, errors, start = [None] * 4, [], threading.Barrier(4)

def work(i):
    try:
        start.wait()
        model = export_onnx_model(graph)          # the first use imports onnx lazily
        results[i] = OnnxGraphCell(load_onnx(model))(x).asnumpy()
    except Exception as e:
        errors.append(repr(e))

threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
assert not errors, errors
for r in results:
    np.testing.assert_allclose(r, want, rtol=1e-5, atol=1e-6)
print("ok")
"""


def test_first_use_from_four_threads():
    """The onnx package is imported on first use (onnx/_lib.py): 4 threads exporting and
    importing at once in a fresh interpreter all get the model and the same results."""
    import os
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-c", THREADED_FIRST_USE], capture_output=True,
                         text=True, timeout=120, cwd=os.path.dirname(__file__))
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().endswith("ok")


@pytest.mark.parametrize("itype,np_type", [(TensorProto.INT64, np.int64),
                                           (TensorProto.INT32, np.int32),
                                           (TensorProto.FLOAT, np.float32)])
@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_one_hot_negative_indices_given_at_run_time(itype, np_type, axis):
    # issue 28: an index in [-depth, -1] counts from the end (ONNX, onnxruntime); one outside
    # [-depth, depth - 1] gives an all-off row
    node = helper.make_node("OneHot", ["i", "depth", "vals"], ["y"], axis=axis)
    depth = np.array(4, I64 if np_type is np.int64 else np_type)   # pairs onnxruntime runs
    inits = [("depth", depth), ("vals", np.array([0.5, 2.0], np.float32))]
    m = make_model([node], [("i", itype, [2, 4])], [("y", F)], inits, 11)
    against_ort(m, np.array([[0, -1, -4, 3], [-5, 4, 2, -2]], np_type))
