"""Checkpoints in MindSpore's .ckpt format: round trips, exact bytes, damaged files, atomic
saves, and load_param_into_net's all-or-nothing checks."""
import binascii
import os

import numpy as np
import pytest
from helpers import ALL_DTYPES, arrays, shapes
from hypothesis import given
from hypothesis import strategies as st

import mindlite as ms
from mindlite import Parameter, Tensor, nn
from mindlite.common.initializer import initializer
from mindlite.train import _ckpt_proto as proto
from mindlite.train import serialization as ser
from mindlite.train.serialization import load_checkpoint, load_param_into_net, save_checkpoint

MS_NAMES = {np.bool_: "Bool", np.int8: "Int8", np.int16: "Int16", np.int32: "Int32",
            np.int64: "Int64", np.uint8: "UInt8", np.uint16: "UInt16", np.uint32: "UInt32",
            np.uint64: "UInt64", np.float16: "Float16", np.float32: "Float32",
            np.float64: "Float64"}


class Inner(nn.Cell):
    def __init__(self):
        super().__init__()
        self.b = Parameter(np.arange(4, dtype=np.float32), name="b")


class Net(nn.Cell):
    def __init__(self, seed=0):
        super().__init__()
        rng = np.random.default_rng(seed)
        self.w = Parameter(rng.standard_normal((3, 4)).astype(np.float32), name="w")
        self.step = Parameter(np.array(seed, np.int32), name="step", requires_grad=False)
        self.inner = Inner()


def values(net):
    return {n: p.asnumpy().copy() for n, p in net.parameters_and_names()}


def same(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.fixture
def ckpt(tmp_path):
    return str(tmp_path / "model.ckpt")


# ---- round trips ------------------------------------------------------------------------------
@given(st.data())
def test_round_trip_every_dtype(tmp_path_factory, data):
    path = str(tmp_path_factory.mktemp("rt") / "a.ckpt")
    saved = {f"p{i}": data.draw(arrays(dt, data.draw(shapes(max_side=4)))) for i, dt in
             enumerate(ALL_DTYPES)}
    save_checkpoint({k: Tensor(v) for k, v in saved.items()}, path)
    loaded = load_checkpoint(path) if any(v.size for v in saved.values()) else {}
    saved = {k: v for k, v in saved.items() if v.size}  # empty tensors are not written (MindSpore)
    assert list(loaded) == list(saved)
    with open(path, "rb") as f:                        # MindSpore's type names and dims
        msg = proto.Checkpoint.FromString(f.read())
    assert [(v.tensor.tensor_type, list(v.tensor.dims)) for v in msg.value] == [
        (MS_NAMES[v.dtype.type], list(v.shape)) for v in saved.values()]
    for k, v in saved.items():
        p = loaded[k]
        assert isinstance(p, Parameter) and p.name == k
        assert same(p.asnumpy(), v), k


def test_cell_round_trip(ckpt):
    src, dst = Net(1), Net(2)
    save_checkpoint(src, ckpt)
    params = load_checkpoint(ckpt)
    assert list(params) == ["w", "step", "inner.b"]
    assert load_param_into_net(dst, params) == ([], [])
    for (n, a), b in zip(values(src).items(), values(dst).values()):
        assert same(a, b), n
    dst2 = Net(3)
    load_checkpoint(ckpt, net=dst2)
    assert same(dst2.w.asnumpy(), src.w.asnumpy())


def test_empty_tensors_are_not_written(ckpt):
    save_checkpoint({"e": Tensor(np.zeros((0, 3), np.float32)), "x": Tensor(np.ones(1))}, ckpt)
    assert list(load_checkpoint(ckpt)) == ["x"]
    net = Net()
    net.inner.b = Parameter(np.zeros(0, np.float32), name="b")
    save_checkpoint(net, ckpt)
    with pytest.warns(UserWarning, match=r"\['inner.b'\] are not loaded"):   # as MindSpore
        assert load_param_into_net(Net(), load_checkpoint(ckpt)) == (["inner.b"], [])


def test_list_and_lazy_parameters(ckpt):
    lazy = Parameter(initializer("ones", (2, 2), ms.float32), name="lazy")
    t = Tensor(np.array([1, 2], np.int64))
    save_checkpoint([lazy, {"name": "t", "data": t}], ckpt)
    out = load_checkpoint(ckpt)
    assert same(out["lazy"].asnumpy(), np.ones((2, 2), np.float32))
    assert same(out["t"].asnumpy(), t.asnumpy())


def test_append_dict_strings_and_filters(ckpt):
    save_checkpoint({"a.w": Tensor(np.ones(2, np.float32)), "b.w": Tensor(np.zeros(1, np.int8))},
                    ckpt, append_dict={"epoch_num": 3, "lr": 0.5, "flag": True, "note": "héllo"},
                    choice_func=lambda n: n != "flag")
    out = load_checkpoint(ckpt)
    assert out["note"] == "héllo" and "flag" not in out
    assert same(out["epoch_num"].asnumpy(), np.array(3, np.int64))
    assert same(out["lr"].asnumpy(), np.array(0.5, np.float32))
    assert list(load_checkpoint(ckpt, specify_prefix="a.")) == ["a.w"]
    assert "a.w" not in load_checkpoint(ckpt, filter_prefix=["a."])
    assert list(load_checkpoint(ckpt, choice_func=lambda n: n == "b.w")) == ["b.w"]
    with pytest.raises(ValueError, match="no parameter"):
        load_checkpoint(ckpt, specify_prefix="zzz")


def test_file_name_rules(tmp_path):
    save_checkpoint({"x": Tensor(np.ones(1, np.float32))}, str(tmp_path / "noext"))
    assert os.path.isfile(tmp_path / "noext.ckpt")
    with pytest.raises(ValueError, match="'.ckpt'"):
        load_checkpoint(str(tmp_path / "noext"))
    with pytest.raises(ValueError, match="does not exist"):
        load_checkpoint(str(tmp_path / "missing.ckpt"))
    with pytest.raises(TypeError, match="save_obj"):
        save_checkpoint(3, str(tmp_path / "x.ckpt"))
    with pytest.raises(TypeError, match="'bad'"):
        save_checkpoint({"bad": object()}, str(tmp_path / "x.ckpt"))
    with pytest.raises(ValueError, match="'w' occurs twice"):
        save_checkpoint([Parameter(np.ones(1), name="w"), Parameter(np.ones(1), name="w")],
                        str(tmp_path / "x.ckpt"))


# ---- exact bytes (what MindSpore writes and reads) ----------------------------------------------
def test_bytes_match_hand_built_protobuf(ckpt):
    w = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    save_checkpoint({"w": Tensor(w), "n": Tensor(np.array(7, np.int64))}, ckpt)
    tensor_w = b"\x08\x02\x08\x02" + b"\x12\x07Float32" + b"\x1a\x10" + w.tobytes()
    value_w = b"\x0a\x01w" + b"\x12" + bytes([len(tensor_w)]) + tensor_w
    tensor_n = b"\x12\x05Int64" + b"\x1a\x08" + np.int64(7).tobytes()
    value_n = b"\x0a\x01n" + b"\x12" + bytes([len(tensor_n)]) + tensor_n
    want = (b"\x0a" + bytes([len(value_w)]) + value_w + b"\x0a" + bytes([len(value_n)]) + value_n)
    with open(ckpt, "rb") as f:
        assert f.read() == want
    # MindSpore reads a file as one Checkpoint message: check that view too.
    msg = proto.Checkpoint.FromString(want)
    assert [v.tag for v in msg.value] == ["w", "n"]
    assert list(msg.value[0].tensor.dims) == [2, 2] and msg.value[1].tensor.tensor_type == "Int64"


@given(dims=st.lists(st.integers(0, 300), max_size=4), tag=st.text(min_size=1, max_size=20),
       type_name=st.sampled_from(sorted(MS_NAMES.values())), size=st.integers(0, 300))
def test_framing_equals_protobuf_serialization(dims, tag, type_name, size):
    content = bytes(range(256)) * 2
    content = content[:size]
    msg = proto.Checkpoint()
    v = msg.value.add(tag=tag)
    v.tensor.dims.extend(dims)
    v.tensor.tensor_type = type_name
    v.tensor.tensor_content = content
    assert proto.encode_value(tag, dims, type_name, size) + content == msg.SerializeToString()


def test_large_tensor_is_sliced_like_mindspore(ckpt, monkeypatch):
    monkeypatch.setattr(proto, "SLICE_BYTES", 16)
    a = np.arange(10, dtype=np.float32).reshape(2, 5)           # 40 bytes -> 16 + 16 + 8
    save_checkpoint({"a": Tensor(a), "b": Tensor(np.ones(3, np.uint8))}, ckpt)
    with open(ckpt, "rb") as f:
        msg = proto.Checkpoint.FromString(f.read())
    assert [v.tag for v in msg.value] == ["a", "a", "a", "b"]
    assert all(list(v.tensor.dims) == [2, 5] for v in msg.value[:3])
    assert [len(v.tensor.tensor_content) for v in msg.value] == [16, 16, 8, 3]
    assert same(load_checkpoint(ckpt)["a"].asnumpy(), a)


def write_raw(path, records, trailer=b""):
    """A file as MindSpore writes it: one serialized Checkpoint per record, appended."""
    with open(path, "wb") as f:
        for tag, dims, type_name, content in records:
            msg = proto.Checkpoint()
            v = msg.value.add(tag=tag)
            v.tensor.dims.extend(dims)
            v.tensor.tensor_type = type_name
            v.tensor.tensor_content = content
            f.write(msg.SerializeToString())
        f.write(trailer)


def test_reads_mindspore_written_records(ckpt):
    f32 = np.array([1.0, -2.5, 3.0e38], np.float32)
    bf16 = f32.view(np.uint32) >> 16                    # bfloat16: the high half of a float32
    write_raw(ckpt, [("old_scalar", [0], "Float32", np.float32(1.5).tobytes()),
                     ("empty", [0], "Int32", b""),
                     ("bf", [3], "BFloat16", bf16.astype("<u2").tobytes()),
                     ("mode", [0], "str", np.array("train").tobytes()),
                     ("flags", [2], "Bool", bytes([0, 1]))])
    out = load_checkpoint(ckpt)
    assert same(out["old_scalar"].asnumpy(), np.array(1.5, np.float32))
    assert same(out["empty"].asnumpy(), np.zeros(0, np.int32))
    # BFloat16 loads as bfloat16 with ml_dtypes installed (as MindSpore), else as float32
    assert same(out["bf"].asnumpy().astype(np.float32),
                (bf16 << 16).astype(np.uint32).view(np.float32))
    assert out["mode"] == "train"
    assert same(out["flags"].asnumpy(), np.array([False, True]))


def test_crc_trailer(ckpt):
    save_checkpoint({"w": Tensor(np.arange(6, dtype=np.float32))}, ckpt, crc_check=True)
    with open(ckpt, "rb") as f:
        data = f.read()
    assert data[-17:-10] == b"crc_num"
    assert int.from_bytes(data[-10:], "big") == binascii.crc32(data[:-17])
    assert same(load_checkpoint(ckpt, crc_check=True)["w"].asnumpy(),
                np.arange(6, dtype=np.float32))
    bad = bytearray(data)
    bad[-20] ^= 1                                   # one bit of the tensor data
    with open(ckpt, "wb") as f:
        f.write(bad)
    with pytest.raises(ValueError, match="CRC"):
        load_checkpoint(ckpt)


# ---- damaged files ----------------------------------------------------------------------------
@pytest.mark.filterwarnings("ignore:.*no CRC code")
def test_every_truncation_is_detected(tmp_path):
    path = str(tmp_path / "t.ckpt")
    params = {"w": Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)),
              "b": Tensor(np.ones(2, np.int64))}
    boundary = len(proto.encode_value("w", [2, 3], "Float32", 24)) + 24
    for crc in (False, True):
        save_checkpoint(params, path, crc_check=crc)
        with open(path, "rb") as f:
            data = f.read()
        body_end = len(data) - 17 if crc else len(data)
        for cut in range(len(data)):
            with open(path, "wb") as f:
                f.write(data[:cut])
            if cut in (boundary, body_end):
                # NOTE: a cut exactly between two records (or just before the CRC trailer)
                # leaves a valid, shorter checkpoint: the format has no record count. A file
                # saved with crc_check=True and loaded with crc_check=True warns then.
                if crc:
                    with pytest.warns(UserWarning, match="no CRC"):
                        load_checkpoint(path, crc_check=True)
                assert len(load_checkpoint(path)) == (1 if cut == boundary else 2)
                continue
            with pytest.raises(ValueError, match="t.ckpt"):
                load_checkpoint(path, crc_check=crc)


@pytest.mark.parametrize("content", [b"", b"hello, this is not a checkpoint\n",
                                     b"\x0a\x00", b"\x0a\x05\x0a\x01a\x12\x00"]
                         + [np.random.default_rng(i).bytes(64) for i in range(50)])
def test_garbage_is_rejected(ckpt, content):
    with open(ckpt, "wb") as f:
        f.write(content)
    with pytest.raises(ValueError, match="model.ckpt"):
        load_checkpoint(ckpt)


@pytest.mark.parametrize("size", [0, 20, 23, 25, 48])
def test_wrong_content_size(ckpt, size):
    write_raw(ckpt, [("w", [2, 3], "Float32", bytes(size))])
    with pytest.raises(ValueError, match=rf"'w' holds {size} bytes.*\[2, 3\].*need 24"):
        load_checkpoint(ckpt)


def test_inconsistent_records(ckpt):
    write_raw(ckpt, [("w", [2], "Float32", bytes(8)), ("v", [1], "Int8", b"\x01"),
                     ("w", [2], "Float32", bytes(8))])
    with pytest.raises(ValueError, match="'w' occurs twice"):
        load_checkpoint(ckpt)
    write_raw(ckpt, [("w", [4], "Float32", bytes(8)), ("w", [4], "Float64", bytes(8))])
    with pytest.raises(ValueError, match="slices of 'w' disagree"):
        load_checkpoint(ckpt)
    write_raw(ckpt, [("w", [1], "Int4", bytes(1))])          # Complex64 loads since issue 13
    with pytest.raises(ValueError, match="'Int4'"):
        load_checkpoint(ckpt)


# ---- atomic saves -------------------------------------------------------------------------------
@pytest.mark.parametrize("where", ["write", "fsync", "replace"])
def test_crash_mid_save_keeps_previous_file(tmp_path, monkeypatch, where):
    path = str(tmp_path / "m.ckpt")
    save_checkpoint(Net(1), path)
    with open(path, "rb") as f:
        before = f.read()

    def boom(*args, **kwargs):
        raise OSError("disk full")
    if where == "write":
        real = proto.write_records

        def half(f, records, crc):
            real(f, records[:1], crc)           # some bytes reach the temp file, then it fails
            boom()
        monkeypatch.setattr(proto, "write_records", half)
    else:
        monkeypatch.setattr(ser.os, where, boom)
    with pytest.raises(OSError, match="disk full"):
        save_checkpoint(Net(2), path)
    monkeypatch.undo()
    with open(path, "rb") as f:
        assert f.read() == before
    assert os.listdir(tmp_path) == ["m.ckpt"]          # no temp file left behind
    assert same(load_checkpoint(path)["w"].asnumpy(), Net(1).w.asnumpy())


# ---- load_param_into_net -------------------------------------------------------------------------
def test_shape_mismatch_leaves_net_unchanged():
    net, before = Net(1), values(Net(1))
    bad = {"w": Parameter(np.zeros((3, 4), np.float32)), "step": Parameter(np.int32(5)),
           "inner.b": Parameter(np.zeros(5, np.float32))}
    with pytest.raises(ValueError, match=r"inner\.b.*same shape.*\(4,\).*\(5,\)"):
        load_param_into_net(net, bad)
    with pytest.raises(RuntimeError):                  # MindSpore's exception class too
        load_param_into_net(net, bad)
    assert all(same(before[n], p.asnumpy()) for n, p in net.parameters_and_names())


@pytest.mark.filterwarnings("ignore:For 'load_param_into_net'.*not loaded:UserWarning")
def test_dtype_rules():
    net = Net(1)
    f64 = {"w": Parameter(np.ones((3, 4), np.float64))}
    with pytest.raises(ValueError, match="same type"):
        load_param_into_net(net, f64, strict_load=True)
    assert not np.all(net.w.asnumpy() == 1)
    load_param_into_net(net, f64)                      # float64 -> float32 when not strict
    assert same(net.w.asnumpy(), np.ones((3, 4), np.float32))
    with pytest.raises(ValueError, match="step.*same type"):
        load_param_into_net(net, {"step": Parameter(np.float32(1))})


def test_not_loaded_lists_and_prefixes():
    net = Net(1)
    d = {"w": Parameter(np.ones((3, 4), np.float32)), "extra": Parameter(np.ones(1)),
         "note": "text"}
    with pytest.warns(UserWarning, match=r"2 parameters .*\['step', 'inner.b'\] are not"):
        assert load_param_into_net(net, d) == (["step", "inner.b"], ["extra", "note"])
    d = {"backbone.w": Parameter(np.full((3, 4), 2, np.float32)),
         "backbone.inner.b": Parameter(np.full(4, 3, np.float32))}
    with pytest.warns(UserWarning, match=r"\['w', 'step', 'inner.b'\] are not loaded"):
        assert load_param_into_net(Net(1), d, strict_load=True) == (
            ["w", "step", "inner.b"], ["backbone.w", "backbone.inner.b"])
    with pytest.warns(UserWarning, match=r"\['step'\] are not loaded"):
        assert load_param_into_net(net, d) == (["step"], [])
    assert same(net.inner.b.asnumpy(), np.full(4, 3, np.float32))
    with pytest.raises(TypeError, match="'net'"):
        load_param_into_net({}, d)
    with pytest.raises(TypeError, match="parameter_dict"):
        load_param_into_net(net, {"w": np.ones(3)})
