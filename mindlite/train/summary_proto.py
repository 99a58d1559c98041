"""MindSpore's summary file format: the Event protobuf messages and the record framing that
SummaryRecord (summary_record.py) writes and `read_summary` reads back.

The messages are MindSpore 2.10's `summary.proto` (package mindspore.irpb, proto2) with the
`TensorProto` / `DataType` of its `anf_ir.proto`, built at import time (no protoc step):

    Event   { required double wall_time = 1; optional int64 step = 2;
              oneof what { string version = 3; Summary summary = 5; ... } }
    Summary { repeated Value value = 1; }
    Value   { required string tag = 1;
              oneof value { float scalar_value = 3; Image image = 4; TensorProto tensor = 8;
                            Histogram histogram = 9; } }
    Image   { required int32 height = 1, width = 2, colorspace = 3; required bytes
              encoded_image = 4; }                                   // PNG
    Histogram { repeated bucket buckets = 1 (left, width, count); nan_count = 2;
                pos_inf_count = 3; neg_inf_count = 4; max = 5; min = 6; sum = 7; count = 8; }
    TensorProto { repeated int64 dims = 1; DataType data_type = 2;
                  repeated float float_data = 3 [packed]; ... }

Fields MindSpore never fills (the graph, explain and loss-landscape parts) are left out; a
parser skips them as unknown fields, so MindSpore's own files still read here.

Framing (the TFRecord layout, which MindSpore's C++ EventWriter uses): each record is
uint64 length (little-endian), uint32 masked CRC-32C of those 8 bytes, the serialized Event,
uint32 masked CRC-32C of it; mask(c) = ((c >> 15) | (c << 17)) + 0xa282ead8 (mod 2**32).
The first record of a file is an Event whose `version` is "MindSpore.Event:1".
"""
import struct

import numpy as np
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

__all__ = ["Event", "TensorProto", "DATA_TYPES", "crc32c", "frame", "read_records",
           "read_summary", "SummaryFormatError"]

_F = descriptor_pb2.FieldDescriptorProto
_OPT, _REQ, _REP = _F.LABEL_OPTIONAL, _F.LABEL_REQUIRED, _F.LABEL_REPEATED
_DTYPES = ["DT_UNDEFINED", "DT_BOOL", "DT_INT8", "DT_INT16", "DT_INT32", "DT_INT64", "DT_UINT8",
           "DT_UINT16", "DT_UINT32", "DT_UINT64", "DT_FLOAT16", "DT_FLOAT32", "DT_FLOAT64"]
# numpy dtype -> DataType number, as MindSpore's _nptype_to_prototype
DATA_TYPES = {np.dtype(k): _DTYPES.index(v) for k, v in (
    (np.bool_, "DT_BOOL"), (np.int8, "DT_INT8"), (np.int16, "DT_INT16"), (np.int32, "DT_INT32"),
    (np.int64, "DT_INT64"), (np.uint8, "DT_UINT8"), (np.uint16, "DT_UINT16"),
    (np.uint32, "DT_UINT32"), (np.uint64, "DT_UINT64"), (np.float16, "DT_FLOAT16"),
    (np.float32, "DT_FLOAT32"), (np.float64, "DT_FLOAT64"))}


def _msg(parent, name, fields, oneof=None):
    msg = parent.add(name=name)
    if oneof:
        msg.oneof_decl.add(name=oneof)
    for fname, number, ftype, label, *rest in fields:
        f = msg.field.add(name=fname, number=number, type=ftype, label=label)
        for extra in rest:
            if extra == "packed":
                f.options.packed = True
            elif isinstance(extra, str):
                f.type_name = extra
            else:
                f.oneof_index = 0
    return msg


def _file_descriptor():
    fd = descriptor_pb2.FileDescriptorProto(name="mindlite/summary.proto", package="ml.irpb",
                                            syntax="proto2")
    enum = fd.enum_type.add(name="DataType")
    for number, name in enumerate(_DTYPES):
        enum.value.add(name=name, number=number)
    _msg(fd.message_type, "TensorProto", [
        ("dims", 1, _F.TYPE_INT64, _REP), ("data_type", 2, _F.TYPE_ENUM, _OPT, ".ml.irpb.DataType"),
        ("float_data", 3, _F.TYPE_FLOAT, _REP, "packed"),
        ("int32_data", 4, _F.TYPE_INT32, _REP, "packed"),
        ("int64_data", 5, _F.TYPE_INT64, _REP, "packed"),
        ("double_data", 6, _F.TYPE_DOUBLE, _REP, "packed"),
        ("uint64_data", 7, _F.TYPE_UINT64, _REP, "packed"), ("raw_data", 8, _F.TYPE_BYTES, _OPT)])
    summary = _msg(fd.message_type, "Summary", [
        ("value", 1, _F.TYPE_MESSAGE, _REP, ".ml.irpb.Summary.Value")])
    _msg(summary.nested_type, "Image", [
        ("height", 1, _F.TYPE_INT32, _REQ), ("width", 2, _F.TYPE_INT32, _REQ),
        ("colorspace", 3, _F.TYPE_INT32, _REQ), ("encoded_image", 4, _F.TYPE_BYTES, _REQ)])
    hist = _msg(summary.nested_type, "Histogram", [
        ("buckets", 1, _F.TYPE_MESSAGE, _REP, ".ml.irpb.Summary.Histogram.bucket"),
        ("nan_count", 2, _F.TYPE_INT64, _OPT), ("pos_inf_count", 3, _F.TYPE_INT64, _OPT),
        ("neg_inf_count", 4, _F.TYPE_INT64, _OPT), ("max", 5, _F.TYPE_DOUBLE, _OPT),
        ("min", 6, _F.TYPE_DOUBLE, _OPT), ("sum", 7, _F.TYPE_DOUBLE, _OPT),
        ("count", 8, _F.TYPE_INT64, _OPT)])
    _msg(hist.nested_type, "bucket", [
        ("left", 1, _F.TYPE_DOUBLE, _REQ), ("width", 2, _F.TYPE_DOUBLE, _REQ),
        ("count", 3, _F.TYPE_INT64, _REQ)])
    _msg(summary.nested_type, "Value", [
        ("tag", 1, _F.TYPE_STRING, _REQ),
        ("scalar_value", 3, _F.TYPE_FLOAT, _OPT, 0),
        ("image", 4, _F.TYPE_MESSAGE, _OPT, ".ml.irpb.Summary.Image", 0),
        ("tensor", 8, _F.TYPE_MESSAGE, _OPT, ".ml.irpb.TensorProto", 0),
        ("histogram", 9, _F.TYPE_MESSAGE, _OPT, ".ml.irpb.Summary.Histogram", 0)], oneof="value")
    _msg(fd.message_type, "Event", [
        ("wall_time", 1, _F.TYPE_DOUBLE, _REQ), ("step", 2, _F.TYPE_INT64, _OPT),
        ("version", 3, _F.TYPE_STRING, _OPT, 0),
        ("summary", 5, _F.TYPE_MESSAGE, _OPT, ".ml.irpb.Summary", 0)], oneof="what")
    return fd


# NOTE: a private pool, so these names cannot clash with MindSpore's when both are imported.
_POOL = descriptor_pool.DescriptorPool()
_POOL.Add(_file_descriptor())
Event = message_factory.GetMessageClass(_POOL.FindMessageTypeByName("ml.irpb.Event"))
TensorProto = message_factory.GetMessageClass(_POOL.FindMessageTypeByName("ml.irpb.TensorProto"))


class SummaryFormatError(ValueError):
    """The bytes are not a well-formed summary file (the message says where)."""


def _crc_table():
    table = np.zeros(256, np.uint32)
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ (0x82F63B78 if c & 1 else 0)
        table[i] = c
    return table


_TABLE = _crc_table()
_CRC_KERNEL = None


def _kernel():
    """The CRC-32C byte loop, compiled by numba on first use (a summary of a large tensor is
    megabytes: a Python loop would take seconds)."""
    global _CRC_KERNEL
    if _CRC_KERNEL is None:
        import numba

        @numba.njit(cache=True, nogil=True)
        def crc_loop(data, table):
            crc = np.uint32(0xFFFFFFFF)
            for b in data:
                crc = table[(crc ^ b) & 0xFF] ^ (crc >> np.uint32(8))
            return crc ^ np.uint32(0xFFFFFFFF)
        _CRC_KERNEL = crc_loop
    return _CRC_KERNEL


def crc32c(data):
    """CRC-32C (Castagnoli) of bytes."""
    if len(data) < 256:
        crc = 0xFFFFFFFF
        for b in data:
            crc = int(_TABLE[(crc ^ b) & 0xFF]) ^ (crc >> 8)
        return crc ^ 0xFFFFFFFF
    return int(_kernel()(np.frombuffer(data, np.uint8), _TABLE))


def _masked(data):
    c = crc32c(data)
    return ((((c >> 15) | (c << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def frame(payload):
    """One record: length, its masked CRC, the payload, its masked CRC."""
    head = struct.pack("<Q", len(payload))
    return b"".join((head, struct.pack("<I", _masked(head)), payload,
                     struct.pack("<I", _masked(payload))))


def read_records(path):
    """The payloads of the records in the file at `path`, CRCs checked."""
    with open(path, "rb") as f:
        data = f.read()
    out, pos = [], 0
    while pos < len(data):
        if len(data) - pos < 12:
            raise SummaryFormatError(f"{path}: truncated record header at byte {pos}")
        head = data[pos:pos + 8]
        (length,) = struct.unpack("<Q", head)
        if struct.unpack("<I", data[pos + 8:pos + 12])[0] != _masked(head):
            raise SummaryFormatError(f"{path}: bad length CRC in the record at byte {pos}")
        end = pos + 12 + length
        if end + 4 > len(data):
            raise SummaryFormatError(f"{path}: the record at byte {pos} is truncated (needs "
                                     f"{length} bytes of payload)")
        payload = data[pos + 12:end]
        if struct.unpack("<I", data[end:end + 4])[0] != _masked(payload):
            raise SummaryFormatError(f"{path}: bad data CRC in the record at byte {pos}")
        out.append(payload)
        pos = end + 4
    return out


def _tensor_value(t):
    dtype = next((k for k, v in DATA_TYPES.items() if v == t.data_type), np.dtype(np.float32))
    return np.array(t.float_data, np.float64).astype(dtype).reshape(tuple(t.dims))


def read_summary(path):
    """The events of a summary file as dicts: {"wall_time", "step", "version"} for the header,
    {"wall_time", "step", "values": {tag: value}} for the others, a value being a float
    (scalar), an ndarray (tensor), a dict (histogram: buckets as (left, width, count) and the
    counts and extrema) or a dict (image: height, width, colorspace, png bytes)."""
    events = []
    for payload in read_records(path):
        ev = Event()
        try:
            ev.ParseFromString(payload)
        except Exception as err:           # protobuf's DecodeError and friends
            raise SummaryFormatError(f"{path}: an undecodable event: {err}") from err
        item = {"wall_time": ev.wall_time, "step": ev.step}
        if ev.WhichOneof("what") == "version":
            item["version"] = ev.version
        else:
            item["values"] = {v.tag: _decode_value(v) for v in ev.summary.value}
        events.append(item)
    return events


def _decode_value(v):
    kind = v.WhichOneof("value")
    if kind == "scalar_value":
        return v.scalar_value
    if kind == "tensor":
        return _tensor_value(v.tensor)
    if kind == "image":
        return {"height": v.image.height, "width": v.image.width,
                "colorspace": v.image.colorspace, "png": v.image.encoded_image}
    h = v.histogram
    return {"buckets": [(b.left, b.width, b.count) for b in h.buckets], "count": h.count,
            "nan_count": h.nan_count, "pos_inf_count": h.pos_inf_count,
            "neg_inf_count": h.neg_inf_count, "min": h.min, "max": h.max, "sum": h.sum}
