"""MINDIR files that are large (external weight files, MindSpore's `<name>_variables/` layout,
checked with a lowered threshold) or bad: truncated, byte-flipped, an unknown op, a version
mismatch: each raises ValueError/RuntimeError naming the file (and the node and op where
there is one), never returns a half-built graph."""
import os
import shutil

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mindlite as ms
from mindlite import Tensor, nn

pb = pytest.importorskip("mindlite.train.mindir.mind_ir_pb2", reason="protobuf is required")
from mindlite.train.mindir import files  # noqa: E402

DATA = os.path.join(os.path.dirname(__file__), "data")
LENET = os.path.join(DATA, "ms_lenet.mindir")


def _net():
    ms.set_seed(3)
    return nn.SequentialCell(nn.Dense(8, 16), nn.ReLU(), nn.Dense(16, 5), nn.Dense(5, 3))


def _copy(tmp_path, data, name="bad.mindir"):
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def _load_cleanly(path):
    """Load `path`: a graph that runs, or ValueError/RuntimeError naming the file."""
    try:
        graph = ms.load(path)
    except (ValueError, RuntimeError) as e:
        assert os.path.basename(path) in str(e)
        return None
    return graph


def test_external_data_layout_and_load(tmp_path, monkeypatch):
    monkeypatch.setattr(files, "SPLIT_BYTES", 100)
    monkeypatch.setattr(files, "DATA_FILE_BYTES", 600)
    net = _net()
    x = Tensor(np.random.default_rng(0).standard_normal((2, 8)).astype(np.float32))
    ms.export(net, x, file_name=str(tmp_path / "big"), file_format="MINDIR")
    assert not (tmp_path / "big.mindir").exists()
    graph_file = tmp_path / "big_graph.mindir"
    data_files = sorted(os.listdir(tmp_path / "big_variables"))
    assert data_files[0] == "data_0" and len(data_files) > 1       # 600-byte data files
    head = (tmp_path / "big_variables" / "data_0").read_bytes()[:64]
    assert head == bytes([1]) + bytes(63)
    model = pb.ModelProto.FromString(graph_file.read_bytes())
    for t in model.graph.parameter:
        assert not t.raw_data and t.external_data.location.startswith("big_variables/data_")
        assert t.external_data.offset % 64 == 0
    cell = nn.GraphCell(ms.load(str(graph_file)))
    np.testing.assert_array_equal(cell(x).asnumpy(), net(x).asnumpy())


def test_external_data_problems_name_the_file(tmp_path, monkeypatch):
    monkeypatch.setattr(files, "SPLIT_BYTES", 100)
    ms.export(_net(), Tensor(np.ones((1, 8), np.float32)), file_name=str(tmp_path / "e"),
              file_format="MINDIR")
    graph_file = str(tmp_path / "e_graph.mindir")
    data = tmp_path / "e_variables" / "data_0"
    os.chmod(data, 0o600)
    data.write_bytes(data.read_bytes()[:200])
    with pytest.raises(ValueError, match="e_graph.mindir.*truncated"):
        ms.load(graph_file)
    model = pb.ModelProto.FromString((tmp_path / "e_graph.mindir").read_bytes())
    model.graph.parameter[0].external_data.location = "../outside"
    path = _copy(tmp_path, model.SerializeToString(), "escape.mindir")
    with pytest.raises(ValueError, match="escape.mindir.*inside the model's folder"):
        ms.load(path)
    shutil.rmtree(tmp_path / "e_variables")
    with pytest.raises(ValueError, match="cannot read external data"):
        ms.load(graph_file)


def test_truncated_files_raise(tmp_path):
    data = open(LENET, "rb").read()
    cuts = sorted(set(range(0, len(data), max(1, len(data) // 60))) | {len(data) - 1,
                                                                       len(data) - 3})
    for cut in cuts:
        path = _copy(tmp_path, data[:cut])
        with pytest.raises((ValueError, RuntimeError), match="bad.mindir"):
            ms.load(path)


def test_truncated_mindlite_file_raises(tmp_path):
    ms.export(_net(), Tensor(np.ones((1, 8), np.float32)), file_name=str(tmp_path / "w"),
              file_format="MINDIR")
    data = (tmp_path / "w.mindir").read_bytes()
    for cut in range(0, len(data), max(1, len(data) // 40)):
        with pytest.raises((ValueError, RuntimeError), match="bad.mindir"):
            ms.load(_copy(tmp_path, data[:cut]))


@settings(max_examples=20, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1, exclude_max=True), st.integers(1, 255)),
                min_size=1, max_size=4))
def test_byte_flips_load_or_raise(tmp_path_factory, flips):
    data = bytearray(open(LENET, "rb").read())
    for where, xor in flips:
        data[int(where * len(data))] ^= xor
    path = _copy(tmp_path_factory.mktemp("flip"), bytes(data))
    graph = _load_cleanly(path)
    if graph is not None:
        x = Tensor(np.ones((2, 1, 16, 16), np.float32))
        try:
            nn.GraphCell(graph)(x)
        except (ValueError, TypeError, RuntimeError, IndexError):
            pass


def test_byte_flip_sweep(tmp_path):
    data = open(LENET, "rb").read()
    step = max(1, len(data) // 80)
    for pos in range(0, len(data), step):
        for xor in (0x01, 0x80, 0xFF):
            flipped = bytearray(data)
            flipped[pos] ^= xor
            _load_cleanly(_copy(tmp_path, bytes(flipped)))


def test_every_byte_position_of_a_small_file(tmp_path):
    """Each 5th byte of MindSpore's MLP file inverted: a clean error or a graph that runs (or
    whose ops reject what the damage left, with an op error)."""
    data = open(os.path.join(DATA, "ms_mlp.mindir"), "rb").read()
    x = Tensor(np.load(os.path.join(DATA, "ms_mlp.npz"))["input0"])
    for pos in range(0, len(data), 5):
        flipped = bytearray(data)
        flipped[pos] ^= 0xFF
        graph = _load_cleanly(_copy(tmp_path, bytes(flipped)))
        if graph is not None:
            try:
                nn.GraphCell(graph)(x)
            except (ValueError, TypeError, RuntimeError):
                pass


def _edited(tmp_path, edit, name="edit.mindir"):
    model = pb.ModelProto.FromString(open(LENET, "rb").read())
    edit(model)
    return _copy(tmp_path, model.SerializeToString(), name)


def test_unknown_op_names_file_node_and_op(tmp_path):
    def rename(model):
        prim = [p for p in model.primitives if p.op_type == "ReLU"][0]
        prim.op_type = "FancyReLU"
    with pytest.raises(ValueError, match=r"edit.mindir.*node '.*'.*unknown op 'FancyReLU'"):
        ms.load(_edited(tmp_path, rename))


def test_unknown_old_style_primitive(tmp_path):
    def rename(model):
        prim = [p for p in model.primitives if p.op_type == "MaxPool"][0]
        prim.op_type = "MaxPoolV9"
    with pytest.raises(ValueError, match="unknown op 'MaxPoolV9'"):
        ms.load(_edited(tmp_path, rename))


def test_bad_attribute_names_op(tmp_path):
    def bad(model):
        prim = [p for p in model.primitives if p.op_type == "Conv2D"][0]
        for a in prim.attribute:
            if a.name == "kernel_size":
                a.values[0].ints[0] = -3
    with pytest.raises(ValueError, match="op 'Conv2D'"):
        ms.load(_edited(tmp_path, bad))


def test_version_mismatch(tmp_path):
    def newer(model):
        model.mind_ir_version = 99
    with pytest.raises(ValueError, match="edit.mindir.*mind_ir_version 99"):
        ms.load(_edited(tmp_path, newer))

    def no_version(model):
        model.ClearField("mind_ir_version")
    with pytest.raises(ValueError, match="truncated"):
        ms.load(_edited(tmp_path, no_version, "nover.mindir"))

    def ir2(model):
        model.ir_version = "2.0"
    with pytest.raises(ValueError, match="ir_version"):
        ms.load(_edited(tmp_path, ir2, "ir2.mindir"))


def test_missing_input_and_wrong_data_size(tmp_path):
    def dangling(model):
        node = [n for n in model.graph.node if "ReLU" in n.op_type][0]
        node.input[0] = "nowhere"
    with pytest.raises(ValueError, match="input 'nowhere' is not defined"):
        ms.load(_edited(tmp_path, dangling))

    def short(model):
        model.graph.parameter[0].raw_data = model.graph.parameter[0].raw_data[:-4]
    with pytest.raises(ValueError, match="raw_data holds"):
        ms.load(_edited(tmp_path, short, "short.mindir"))


def test_empty_and_garbage_files(tmp_path):
    with pytest.raises(ValueError, match="e.mindir.*no graph"):
        ms.load(_copy(tmp_path, b"", "e.mindir"))
    with pytest.raises(ValueError, match="g.mindir"):
        ms.load(_copy(tmp_path, b"\xff" * 64, "g.mindir"))


# ---- Custom ops -------------------------------------------------------------------------------
def scaled_add(x, y, scale=3):
    return x + y * scale


class WithCustom(nn.Cell):
    def __init__(self, custom):
        super().__init__()
        self.custom = custom

    def construct(self, x, y):
        return self.custom(x, y) * 2


def test_custom_pyfunc_roundtrip(tmp_path):
    custom = ms.ops.Custom(scaled_add, out_shape=lambda a, b: a, out_dtype=lambda a, b: a,
                           func_type="pyfunc", attrs={"scale": 4})
    net = WithCustom(custom)
    x, y = Tensor(np.array([1.0, 2.0], np.float32)), Tensor(np.array([3.0, 4.0], np.float32))
    ms.export(net, x, y, file_name=str(tmp_path / "c"), file_format="MINDIR")
    model = pb.ModelProto.FromString((tmp_path / "c.mindir").read_bytes())
    prim = [p for p in model.primitives if p.op_type == "Custom"][0]
    attrs = {a.name: a for a in prim.attribute}
    assert attrs["func_type"].s == b"pyfunc" and attrs["func_name"].s == b"scaled_add"
    assert attrs["imply_path"].s.decode() == __file__ and attrs["custom_attr:scale"].i == 4
    graph = ms.load(str(tmp_path / "c.mindir"))
    loaded = [n.inputs[0].value for n in graph.order
              if type(n.inputs[0].value).__name__ == "Custom"][0]
    assert loaded.attr_values == {"scale": 4}
    np.testing.assert_array_equal(nn.GraphCell(graph)(x, y).asnumpy(), net(x, y).asnumpy())


def test_custom_type_with_registered_kernel_roundtrip(tmp_path):
    ms.register_kernel("mindir_cube", provider="vendor", custom=True,
                       kernel=lambda x, y, out: np.add(np.power(x, 3), y, out=out))
    try:
        custom = ms.ops.Custom(None, out_shape=lambda a, b: a, out_dtype=lambda a, b: a,
                               type="mindir_cube")
        net = WithCustom(custom)
        x = Tensor(np.array([1.0, 2.0], np.float32))
        ms.export(net, x, x, file_name=str(tmp_path / "k"), file_format="MINDIR")
        cell = nn.GraphCell(ms.load(str(tmp_path / "k.mindir")))
        np.testing.assert_array_equal(cell(x, x).asnumpy(), net(x, x).asnumpy())
    finally:
        ms.unregister_kernel("mindir_cube", "vendor", custom=True)
    with pytest.raises(ValueError, match=r"k.mindir.*op 'Custom' \(type 'mindir_cube'\)"):
        ms.load(str(tmp_path / "k.mindir"))                # no kernel, no function: an error


def test_custom_function_not_loaded_names_it(tmp_path):
    def edit(model):
        prim = [p for p in model.primitives if p.op_type == "Custom"][0]
        for a in prim.attribute:
            if a.name == "func_name":
                a.s = b"not_defined_anywhere"
    custom = ms.ops.Custom(scaled_add, func_type="pyfunc")
    x = Tensor(np.ones(2, np.float32))
    ms.export(WithCustom(custom), x, x, file_name=str(tmp_path / "n"), file_format="MINDIR")
    model = pb.ModelProto.FromString((tmp_path / "n.mindir").read_bytes())
    edit(model)
    path = _copy(tmp_path, model.SerializeToString(), "nf.mindir")
    with pytest.raises(ValueError, match="function 'not_defined_anywhere'.*is not loaded"):
        ms.load(path)
