"""Bad input to load_onnx (mindlite/onnx/importer.py): damaged and truncated files (bounded
sweeps over every byte class of a real export), unsupported opsets, ops and domains, and
bad arguments raise clearly (ValueError / TypeError / FileNotFoundError naming the file,
node and op), never crash or return a half-built graph."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mindlite as ms

onnx = pytest.importorskip("onnx", reason="the onnx extra is not installed")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from mindlite.ir.anf import FuncGraph  # noqa: E402
from mindlite.jit.export_graph import graph_for_export  # noqa: E402
from mindlite.onnx import OnnxGraphCell, export_onnx_model, load_onnx  # noqa: E402

import test_onnx_export as ex  # noqa: E402

X = ex.rand(2, 8)
GOOD = export_onnx_model(graph_for_export(ex.MLP(), X)).SerializeToString()


def load_damaged(tmp_path, data, name="m.onnx"):
    """load_onnx on `data`: either a ValueError naming the file or a graph that runs."""
    path = tmp_path / name
    path.write_bytes(data)
    try:
        graph = load_onnx(str(path))
    except ValueError as e:
        assert str(path) in str(e)
        return None
    assert isinstance(graph, FuncGraph)
    cell = OnnxGraphCell(graph)
    try:
        cell(X)
    except (ValueError, TypeError):        # a damaged but well-formed model may refuse X
        pass
    return graph


def test_truncations_every_region(tmp_path):
    cuts = sorted(set(np.linspace(0, len(GOOD) - 1, 60).astype(int)) | {1, 2, 3, 8, 16})
    refused = 0
    for cut in cuts:
        refused += load_damaged(tmp_path, GOOD[:cut]) is None
    assert refused >= len(cuts) // 2


@settings(max_examples=20, deadline=None)
@given(pos=st.integers(0, len(GOOD) - 1), xor=st.integers(1, 255))
def test_byte_flips(tmp_path_factory, pos, xor):
    data = bytearray(GOOD)
    data[pos] ^= xor
    load_damaged(tmp_path_factory.mktemp("flip"), bytes(data))


def test_flip_sweep_over_byte_classes(tmp_path):
    """Flips at header, graph-structure, name-string and weight-data offsets."""
    for pos in list(range(0, 40, 3)) + list(range(40, len(GOOD), max(1, len(GOOD) // 40))):
        for xor in (0x01, 0x80, 0xFF):
            data = bytearray(GOOD)
            data[pos] ^= xor
            load_damaged(tmp_path, bytes(data))


def test_empty_and_garbage_files(tmp_path):
    for data in (b"", b"\x00" * 64, b"not an onnx file at all", bytes(range(256)) * 4):
        with pytest.raises(ValueError, match="load_onnx"):
            load_damaged_strict(tmp_path, data)


def load_damaged_strict(tmp_path, data):
    path = tmp_path / "bad.onnx"
    path.write_bytes(data)
    return load_onnx(str(path))


def relu_model(opset, op="Relu", domain=""):
    node = helper.make_node(op, ["x"], ["y"], name="n0", domain=domain)
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                                      [2])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    opsets = [helper.make_opsetid("", opset)]
    if domain:
        opsets.append(helper.make_opsetid(domain, 1))
    m = helper.make_model(g, opset_imports=opsets)
    m.ir_version = 8
    return m


@pytest.mark.parametrize("opset", [1, 6, 22])
def test_unsupported_opset(opset):
    with pytest.raises(ValueError, match=f"opset {opset}.*13-21"):
        load_onnx(relu_model(opset))


def test_old_opset_upgraded():
    cell = OnnxGraphCell(load_onnx(relu_model(11)))
    x = ms.Tensor(np.array([-1.0, 2.0], np.float32))
    np.testing.assert_array_equal(cell(x).asnumpy(), [0.0, 2.0])


def test_unsupported_op_names_node_and_op(tmp_path):
    path = tmp_path / "nz.onnx"
    onnx.save(relu_model(13, "NonZero"), str(path))
    with pytest.raises(ValueError, match=r"nz\.onnx.*node 'n0' \(op NonZero\).*not supported"):
        load_onnx(str(path))


def test_custom_domain_refused():
    with pytest.raises(ValueError, match="domain 'com.example'"):
        load_onnx(relu_model(13, "MyOp", "com.example"))


def test_dynamic_constant_input_refused():
    node = helper.make_node("Reshape", ["x", "s"], ["y"], name="r")
    g = helper.make_graph([node], "g", [
        helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3]),
        helper.make_tensor_value_info("s", TensorProto.INT64, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 2])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    with pytest.raises(ValueError, match=r"node 'r' \(op Reshape\).*must be a constant"):
        load_onnx(m)


def test_huge_constant_of_shape_refused():
    node = helper.make_node("ConstantOfShape", ["s"], ["y"], name="c")
    g = helper.make_graph([node], "g", [], [helper.make_tensor_value_info(
        "y", TensorProto.FLOAT, [1 << 20, 1 << 20])],
        [numpy_helper.from_array(np.array([1 << 20, 1 << 20], np.int64), "s")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    with pytest.raises(ValueError, match="too large"):
        load_onnx(m)


def test_bad_arguments(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such file"):
        load_onnx(str(tmp_path / "missing.onnx"))
    with pytest.raises(TypeError, match="ModelProto"):
        load_onnx(42)
    with pytest.raises(TypeError, match="FuncGraph"):
        OnnxGraphCell(3)
    cell = OnnxGraphCell(load_onnx(onnx.load_from_string(GOOD)))
    with pytest.raises(ValueError, match="takes 1 inputs"):
        cell(X, X)
    with pytest.raises(TypeError, match="must be a Tensor"):
        cell(X.asnumpy())
    with pytest.raises(TypeError, match="dtype Float32"):
        cell(ms.Tensor(np.zeros((2, 8), np.float64)))
    with pytest.raises(ValueError, match=r"shape \[2, 8\]"):
        cell(ms.Tensor(np.zeros((3, 8), np.float32)))


def test_huge_folded_constant_refused():
    """Tile of a constant by damaged repeats: refused before anything is allocated."""
    node = helper.make_node("Tile", ["c", "r"], ["t"], name="tile")
    add = helper.make_node("Add", ["x", "t"], ["y"], name="add")
    g = helper.make_graph([node, add], "g", [helper.make_tensor_value_info(
        "x", TensorProto.INT64, [1 << 14, 1 << 14])],
        [helper.make_tensor_value_info("y", TensorProto.INT64, [1 << 14, 1 << 14])],
        [numpy_helper.from_array(np.ones((1, 1), np.int64), "c"),
         numpy_helper.from_array(np.array([1 << 14, 1 << 14], np.int64), "r")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    with pytest.raises(ValueError, match=r"node 'tile' \(op Tile\).*too large"):
        load_onnx(m)


def test_missing_onnx_package_message(monkeypatch):
    """Without the optional package the error says how to install it."""
    import sys
    monkeypatch.setitem(sys.modules, "onnx", None)
    with pytest.raises(ImportError, match=r"mindlite\[onnx\]"):
        load_onnx(str(__file__))
    with pytest.raises(ImportError, match=r"mindlite\[onnx\]"):
        export_onnx_model(graph_for_export(ex.MLP(), X))
