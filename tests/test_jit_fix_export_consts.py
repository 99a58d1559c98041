"""Constant results in exported models (issue 16): a model returning `(x * 2, 5)` keeps the
5 as a graph output (a ValueNode in the output MakeTuple: jit/export_graph.py), and MINDIR
(export / load / nn.GraphCell, as MindSpore: the 5 comes back as a Python int), ONNX (run in
onnxruntime: a 0-d int64 output) and the Lite runtime (.ms) all return it."""
import sys
from pathlib import Path

import numpy as np
import pytest

import mindlite as ms
from mindlite import nn
from mindlite.ir.anf import MAKE_TUPLE, ValueNode
from mindlite.jit.export_graph import graph_for_export


def with_const(x):
    return x * 2, 5


class ConstNet(nn.Cell):
    def construct(self, x):
        return x + 1, 2.5, x * 3


X = np.arange(6, dtype=np.float32).reshape(2, 3)


def test_graph_output_holds_the_constant():
    g = graph_for_export(with_const, ms.Tensor(X))
    out = g.output
    assert out.inputs[0].value is MAKE_TUPLE
    assert isinstance(out.inputs[2], ValueNode) and out.inputs[2].value == 5
    g = graph_for_export(ConstNet(), ms.Tensor(X))
    assert [isinstance(i, ValueNode) for i in g.output.inputs[1:]] == [False, True, False]


def test_jit_still_keeps_constants_outside_the_graph():
    jf = ms.jit(with_const)
    y, five = jf(ms.Tensor(X))
    assert five == 5 and isinstance(five, int)
    g = jf.graph(ms.Tensor(X))
    assert not any(isinstance(i, ValueNode) for i in g.output.inputs[1:])


def test_mindir_round_trip(tmp_path):
    ms.export(with_const, ms.Tensor(X), file_name=str(tmp_path / "m"), file_format="MINDIR")
    y, five = nn.GraphCell(ms.load(str(tmp_path / "m.mindir")))(ms.Tensor(X))
    np.testing.assert_array_equal(y.asnumpy(), X * 2)
    assert five == 5
    ms.export(ConstNet(), ms.Tensor(X), file_name=str(tmp_path / "c"), file_format="MINDIR")
    a, b, c = nn.GraphCell(ms.load(str(tmp_path / "c.mindir")))(ms.Tensor(X))
    np.testing.assert_array_equal(a.asnumpy(), X + 1)
    assert b == 2.5
    np.testing.assert_array_equal(c.asnumpy(), X * 3)


def test_onnx_in_onnxruntime(tmp_path):
    ort = pytest.importorskip("onnxruntime", reason="the ONNX check runs the file in onnxruntime")
    pytest.importorskip("onnx", reason="ONNX export needs the onnx package")
    ms.export(with_const, ms.Tensor(X), file_name=str(tmp_path / "m"), file_format="ONNX")
    sess = ort.InferenceSession(str(tmp_path / "m.onnx"))
    y, five = sess.run(None, {sess.get_inputs()[0].name: X})
    np.testing.assert_array_equal(y, X * 2)
    assert five.shape == () and five.dtype == np.int64 and five == 5
    ms.export(ConstNet(), ms.Tensor(X), file_name=str(tmp_path / "c"), file_format="ONNX")
    sess = ort.InferenceSession(str(tmp_path / "c.onnx"))
    a, b, c = sess.run(None, {sess.get_inputs()[0].name: X})
    np.testing.assert_array_equal(a, X + 1)
    assert b.dtype == np.float64 and b == 2.5
    np.testing.assert_array_equal(c, X * 3)


def test_lite_runtime():
    pytest.importorskip("flatbuffers", reason="the .ms format needs the flatbuffers package")
    sys.path.insert(0, str(Path(__file__).parent))
    from lite_models import build, run
    from mindlite.lite.converter import convert
    y, five = run(build(convert(with_const, ms.Tensor(X)), None), X)
    np.testing.assert_array_equal(y, X * 2)
    assert five == 5
