"""The .ms codec and bad input: every op table round-trips its fields; MSL2 identifier and
version; damaged files at every byte class (header, vtables, offsets, lengths, scalars,
tensor data: truncated at every length, bytes overwritten across the file) raise ValueError
naming the file, or load and run cleanly; version mismatch, unknown op codes, bad indices,
unsupported ops name the file, the node and the op."""
import struct
import warnings

import numpy as np
import pytest

import mindlite as ms
from mindlite.lite import schema as S
from mindlite.lite.converter import convert
from mindlite.lite.ms_file import (MsFileError, MsModel, MsNode, MsSubGraph, MsTensor, read_ms,
                                   write_ms)

from lite_models import MLP, Branchy, build, rand, run

pytest.importorskip("flatbuffers", reason="the .ms format needs the flatbuffers package")


def _value(kind, i):
    return {"bool": True, "i8": 1 + i % 3, "i32": 1, "u32": 7, "i64": 5 + i, "f32": 0.5,
            "str": f"s{i}", "[i32]": [1, 2], "[u32]": [3], "[i64]": [i, -2, 3],
            "[f32]": [0.25], "[Attribute]": [("a", b"\x00\x01"), ("b", b"")],
            "Vec2D": [[0, 0], [i, 2]]}[kind]


@pytest.mark.parametrize("op_type", sorted(S.OPS))
def test_every_op_table_round_trips(op_type):
    fields = S.OPS[op_type][1]
    attrs = {name: _value(kind, i) for i, (name, kind, _) in enumerate(fields)}
    if op_type == "PartialFusion":
        attrs["sub_graph_index"] = 0
    m = MsModel("ops")
    m.tensors = [MsTensor("x", np.float32, [2], node_type=S.NODE_PARAMETER),
                 MsTensor("y", np.float32, [2])]
    m.nodes = [MsNode("n", op_type, attrs, [0], [1])]
    m.subgraphs = [MsSubGraph("main", [0], [1], [0], [0, 1])]
    m.inputs, m.outputs = [0], [1]
    data = write_ms(m)
    assert data[4:8] == b"MSL2"
    back = read_ms(data, "ops.ms").nodes[0]
    assert back.op_type == op_type and back.attrs == attrs


def test_header_version_and_tensors():
    data = convert(MLP(), ms.Tensor(rand(2, 8)))
    m = read_ms(data, "mlp.ms")
    assert m.version.startswith("MindSpore Lite 2") and m.fmk_type == S.FMK["MINDIR"]
    consts = [t for t in m.tensors if t.data is not None]
    assert consts and all(t.node_type == S.NODE_VALUE for t in consts)
    assert m.tensors[m.inputs[0]].dims == [2, 8] and m.tensors[m.inputs[0]].dtype == np.float32
    assert struct.unpack_from("<I", data, 0)[0] < len(data)


def test_old_identifier_and_version_mismatch():
    data = bytearray(convert(MLP(), ms.Tensor(rand(2, 8))))
    old = bytes(data[:4]) + b"MSL1" + bytes(data[8:])
    with pytest.raises(MsFileError, match="old.ms: version mismatch: the file is MSL1"):
        read_ms(old, "old.ms")
    with pytest.raises(MsFileError, match="x.ms: not a MindSpore Lite MSL2 model"):
        read_ms(b"\x00" * 4 + b"ABCD" + bytes(data[8:]), "x.ms")
    m = read_ms(bytes(data))
    m.version = "MindSpore Lite 1.8.0"       # a version string it does not know: a warning
    with pytest.warns(RuntimeWarning, match="v1.ms: the model was written by 'MindSpore Lite "
                                            "1.8.0', a version mindlite does not know"):
        assert read_ms(write_ms(m), "v1.ms").nodes
    m.version = None                          # as MindSpore Lite's own converter writes it
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert read_ms(write_ms(m), "none.ms").version == ""


def _one_node(inputs=(0,), sub_index=None):
    m = MsModel("m")
    m.tensors = [MsTensor("x", np.float32, [2], node_type=S.NODE_PARAMETER),
                 MsTensor("y", np.float32, [2])]
    attrs = {} if sub_index is None else {"sub_graph_index": sub_index}
    m.nodes = [MsNode("the_node", "Neg" if sub_index is None else "PartialFusion", attrs,
                      list(inputs), [1])]
    m.subgraphs = [MsSubGraph("main", [0], [1], [0], [0, 1])]
    m.inputs, m.outputs = [0], [1]
    return write_ms(m)


@pytest.mark.parametrize("code,why", [
    (87, "the primitive LSTM .PrimitiveType code 87. is not supported by mindlite"),
    (250, "op with PrimitiveType code 250 is not a MSL2 op type")])
def test_unknown_and_unsupported_op_codes(monkeypatch, code, why):
    monkeypatch.setitem(S.OPS, "Neg", (code, []))       # write a node with that type code
    data = _one_node()
    monkeypatch.undo()
    with pytest.raises(MsFileError, match=f"u.ms: node 'the_node': {why}"):
        read_ms(data, "u.ms")


def test_tensor_size_cannot_wrap_around():
    """Issue 28.6: dims whose product wraps around int64 to the data's length are refused,
    naming the tensor (sizes are Python ints), not left to fail in a numpy reshape."""
    dims = [1722007169, 1722007169, 714156689, 714156689, 225]   # (2**64 - 1)**2 = 1 mod 2**64
    m = MsModel("wrap")
    m.tensors = [MsTensor("x", np.float32, [1], node_type=S.NODE_PARAMETER),
                 MsTensor("w", np.float32, dims, node_type=S.NODE_VALUE,
                          data=np.float32(2).tobytes()),
                 MsTensor("y", np.float32, [1])]
    m.nodes = [MsNode("mul", "MulFusion", {}, [0, 1], [2])]
    m.subgraphs = [MsSubGraph("main", [0], [2], [0], [0, 1, 2])]
    m.inputs, m.outputs = [0], [2]
    with pytest.raises(MsFileError, match="wrap.ms: tensor 'w' holds 4 bytes of data, but dims "):
        read_ms(write_ms(m), "wrap.ms")


def test_bad_indices_name_the_node():
    with pytest.raises(MsFileError, match="i.ms: node 'the_node' .Neg. inputs refers to index 9"):
        read_ms(_one_node(inputs=(9,)), "i.ms")
    with pytest.raises(MsFileError, match="PartialFusion"):
        read_ms(_one_node(sub_index=4), "p.ms")


def _loads_or_clean_error(data, arrays):
    """A damaged model either fails with ValueError/TypeError/RuntimeError, or runs."""
    try:
        model = build(data, name="damaged.ms")
    except MsFileError as err:
        assert "damaged.ms" in str(err)
        return "file"
    except (ValueError, TypeError, NotImplementedError, RuntimeError):
        return "build"
    try:
        run(model, *arrays)
    except (ValueError, TypeError, RuntimeError):
        return "run"
    return "ran"


def test_truncated_at_every_length():
    data = convert(MLP((3, 2)), ms.Tensor(rand(1, 3)))
    for n in range(len(data)):
        with pytest.raises(MsFileError, match="trunc.ms"):
            read_ms(data[:n], "trunc.ms")


@pytest.mark.filterwarnings("ignore:.*a version mindlite does not know:RuntimeWarning")
@pytest.mark.parametrize("net,arrays", [(MLP((4, 3)), (rand(1, 4),)),
                                         (Branchy(), (rand(2, 4), rand(2, 4, seed=1)))])
def test_damaged_bytes_raise_cleanly(net, arrays):
    data = convert(net, *[ms.Tensor(a) for a in arrays])
    positions = sorted(set(range(0, len(data), max(1, len(data) // 150))) | set(range(16)))
    outcomes = {}
    for pos in positions:
        for value in (0x00, 0xFF, data[pos] ^ 0x80):
            damaged = data[:pos] + bytes([value]) + data[pos + 1:]
            kind = _loads_or_clean_error(damaged, arrays)
            outcomes[kind] = outcomes.get(kind, 0) + 1
    assert outcomes.get("file", 0) > 0 and outcomes.get("ran", 0) > 0


def test_nhwc_layout_as_lite_converter_writes_it():
    """NHWC input, NHWC convolutions and pools with KHWC weights (format fields set), a
    Transpose back to NCHW before Flatten: MindSpore Lite's converter's layout."""
    from lite_models import LeNet, nhwc
    net, x = LeNet(), rand(1, 1, 32, 32)
    m = read_ms(convert(net, ms.Tensor(x)))
    assert m.tensors[m.inputs[0]].dims == [1, 32, 32, 1]
    assert m.tensors[m.inputs[0]].format == S.FORMAT_NHWC
    convs = [n for n in m.nodes if n.op_type in ("Conv2DFusion", "MaxPoolFusion")]
    assert len(convs) == 4 and all(n.attrs["format"] == S.FORMAT_NHWC for n in convs)
    w = m.tensors[convs[0].inputs[1]]
    assert w.dims == [6, 5, 5, 1] and w.format == S.FORMAT_NHWC
    np.testing.assert_array_equal(w.array(), net.conv1.weight.asnumpy().transpose(0, 2, 3, 1))
    assert [n.op_type for n in m.nodes][4:6] == ["Transpose", "Flatten"]
    got = run(build(write_ms(m), name="nhwc.ms"), nhwc(x))[0]
    np.testing.assert_array_equal(got, net(ms.Tensor(x)).asnumpy())
    nchw = read_ms(convert(net, ms.Tensor(x), input_format="NCHW"))
    assert nchw.tensors[nchw.inputs[0]].dims == [1, 1, 32, 32]
    assert nchw.nodes[0].op_type == "Transpose"


def test_nchw_files_of_older_mindlite_still_run():
    """mindlite wrote NCHW convolutions and pools (format NCHW, weights KCHW) before it wrote
    Lite's layout: the runtime reads the format field and runs them as they were meant."""
    from mindlite.ir.manager import FuncGraphManager
    from mindlite.jit.export_graph import graph_for_export
    from mindlite.lite import fusion
    from mindlite.lite.ms_export import export_graph
    from lite_models import LeNet
    net, x = LeNet(), rand(2, 1, 32, 32)
    g = graph_for_export(net, ms.Tensor(x))
    fusion.run(g, FuncGraphManager(g))
    m = export_graph(g)
    assert all(n.attrs.get("format", 0) == S.FORMAT_NCHW for n in m.nodes)
    got = run(build(write_ms(m), name="nchw.ms"), x)[0]
    np.testing.assert_array_equal(got, net(ms.Tensor(x)).asnumpy())


def test_non_tail_self_call_is_bounded():
    m = MsModel("selfcall")
    m.tensors = [MsTensor("x", np.float32, [2], node_type=S.NODE_PARAMETER),
                 MsTensor("p", np.int32, []), MsTensor("r", np.float32, [2]),
                 MsTensor("y", np.float32, [2])]
    m.nodes = [MsNode("again", "PartialFusion", {"sub_graph_index": 0}, [0], [1]),
               MsNode("call", "Call", {}, [1], [2]),
               MsNode("add", "AddFusion", {}, [2, 0], [3])]
    m.subgraphs = [MsSubGraph("main", [0], [3], [0, 1, 2], [0, 1, 2, 3])]
    m.inputs, m.outputs = [0], [3]
    model = build(write_ms(m), name="self.ms")
    with pytest.raises(ValueError, match="self.ms: subgraph calls nest more than 100 deep"):
        run(model, np.ones(2, np.float32))
