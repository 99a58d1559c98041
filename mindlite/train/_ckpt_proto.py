"""MindSpore's checkpoint protobuf messages, built at import time (no protoc step).

The schema is MindSpore's `checkpoint.proto` (proto2, no package):

    message Checkpoint {
        message Value {
            required string tag = 1;
            oneof value { TensorProto tensor = 2; MapTensorProto maptensor = 3; }
        }
        repeated Value value = 1;
    }
    message TensorProto {
        repeated int64 dims = 1;            // proto2: not packed, one tag per dim
        required string tensor_type = 2;    // "Float32", "Int64", "Bool", "UInt8", ...
        required bytes tensor_content = 3;  // C-order raw bytes, little-endian
    }
    message MapTensorProto { repeated TensorProto tensor = 1; }

The `oneof` (MindSpore >= 2.0) does not change the wire format of the older
`required TensorProto tensor = 2`, so files of every 2.x version parse alike.

File layout, as MindSpore writes it: one serialized `Checkpoint` holding a single
Value per parameter (or per 512 MiB slice of a large one: consecutive Values with
the same tag, full dims each, whose contents concatenate), all appended; parsed
together they are one `Checkpoint`. With `crc_check=True` (MindSpore >= 2.3) the
file ends with b"crc_num" and the CRC-32 of everything before it as 10 big-endian
bytes. Here the framing (`write_records`, `iter_values`) is done by hand around the
protobuf-encoded parts so that a large tensor is written from its buffer without
copies and a file is scanned one Value at a time (no 2 GiB message limit).
Importing this module costs the `protobuf` import (~40 ms), so serialization.py
imports it on first use, keeping `import mindlite` fast.
"""
import binascii

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.message import DecodeError

_F = descriptor_pb2.FieldDescriptorProto


def _field(msg, name, number, ftype, label, type_name=None, oneof_index=None):
    f = msg.field.add(name=name, number=number, type=ftype, label=label)
    if type_name is not None:
        f.type_name = type_name
    if oneof_index is not None:
        f.oneof_index = oneof_index
    return f


def _file_descriptor():
    fd = descriptor_pb2.FileDescriptorProto(name="mindlite/checkpoint.proto", syntax="proto2")
    ckpt = fd.message_type.add(name="Checkpoint")
    value = ckpt.nested_type.add(name="Value")
    value.oneof_decl.add(name="value")
    _field(value, "tag", 1, _F.TYPE_STRING, _F.LABEL_REQUIRED)
    _field(value, "tensor", 2, _F.TYPE_MESSAGE, _F.LABEL_OPTIONAL, ".TensorProto", 0)
    _field(value, "maptensor", 3, _F.TYPE_MESSAGE, _F.LABEL_OPTIONAL, ".MapTensorProto", 0)
    _field(ckpt, "value", 1, _F.TYPE_MESSAGE, _F.LABEL_REPEATED, ".Checkpoint.Value")
    tensor = fd.message_type.add(name="TensorProto")
    _field(tensor, "dims", 1, _F.TYPE_INT64, _F.LABEL_REPEATED)
    _field(tensor, "tensor_type", 2, _F.TYPE_STRING, _F.LABEL_REQUIRED)
    _field(tensor, "tensor_content", 3, _F.TYPE_BYTES, _F.LABEL_REQUIRED)
    map_tensor = fd.message_type.add(name="MapTensorProto")
    _field(map_tensor, "tensor", 1, _F.TYPE_MESSAGE, _F.LABEL_REPEATED, ".TensorProto")
    return fd


# NOTE: a private pool, so these unpackaged names cannot clash with another library's
# messages (MindSpore itself registers a global `Checkpoint` when both are installed).
_POOL = descriptor_pool.DescriptorPool()
_POOL.Add(_file_descriptor())

Checkpoint = message_factory.GetMessageClass(_POOL.FindMessageTypeByName("Checkpoint"))
CheckpointValue = message_factory.GetMessageClass(
    _POOL.FindMessageTypeByName("Checkpoint.Value"))
TensorProto = message_factory.GetMessageClass(_POOL.FindMessageTypeByName("TensorProto"))
MapTensorProto = message_factory.GetMessageClass(_POOL.FindMessageTypeByName("MapTensorProto"))

SLICE_BYTES = 512 * 1024 * 1024      # MindSpore's SLICE_SIZE: largest content in one Value
CRC_MAGIC = b"crc_num"
CRC_TRAILER_LEN = len(CRC_MAGIC) + 10


class CheckpointFormatError(ValueError):
    """The bytes are not a well-formed MindSpore checkpoint (the message says where)."""


def _varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def encode_value(tag, dims, tensor_type, content_len):
    """The bytes of `Checkpoint{value: [Value{tag, tensor{dims, tensor_type, content}}]}`
    that precede the raw content (the content itself follows them in the file).

    Byte-identical to protobuf's serialization of the same message (tested), so the
    content can be written straight from the array's buffer.
    """
    head = TensorProto(dims=dims, tensor_type=tensor_type).SerializePartialToString()
    tensor_len = len(head) + 1 + len(_varint(content_len)) + content_len
    tag_bytes = tag.encode("utf-8")
    value_len = (1 + len(_varint(len(tag_bytes))) + len(tag_bytes)
                 + 1 + len(_varint(tensor_len)) + tensor_len)
    return b"".join((b"\x0a", _varint(value_len), b"\x0a", _varint(len(tag_bytes)), tag_bytes,
                     b"\x12", _varint(tensor_len), head, b"\x1a", _varint(content_len)))


def write_records(f, records, crc_check):
    """Write (name, tensor_type, dims, raw bytes) records to file `f`, each in slices of at
    most SLICE_BYTES; with `crc_check`, end with the CRC trailer."""
    crc = 0
    for name, type_name, dims, data in records:
        n = len(data)
        for off in range(0, max(n, 1), SLICE_BYTES):
            piece = data[off:off + SLICE_BYTES]
            head = encode_value(name, dims, type_name, len(piece))
            f.write(head)
            f.write(piece)
            if crc_check:
                crc = binascii.crc32(piece, binascii.crc32(head, crc))
    if crc_check:
        f.write(CRC_MAGIC + (crc & 0xFFFFFFFF).to_bytes(10, "big"))


def _read_varint(buf, pos, end):
    result = shift = 0
    while pos < end:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            break
    raise CheckpointFormatError(f"a malformed or truncated length at byte {pos}")


def split_crc(buf):
    """-> (body, stored crc or None): strips MindSpore's optional CRC trailer."""
    if len(buf) >= CRC_TRAILER_LEN and bytes(buf[-CRC_TRAILER_LEN:-10]) == CRC_MAGIC:
        return buf[:-CRC_TRAILER_LEN], int.from_bytes(bytes(buf[-10:]), "big")
    return buf, None


def crc32(buf):
    return binascii.crc32(buf) & 0xFFFFFFFF


def iter_values(buf):
    """Yield each top-level `Checkpoint.Value` (a parsed message) of a checkpoint body.

    The top level of a checkpoint holds only field 1 (`value`), length-delimited;
    anything else, a length running past the end, or a Value protobuf cannot parse
    raises CheckpointFormatError naming the byte offset.
    """
    pos, end = 0, len(buf)
    while pos < end:
        start = pos
        key, pos = _read_varint(buf, pos, end)
        if key != 0x0A:
            raise CheckpointFormatError(f"unexpected field {key >> 3} (wire type {key & 7}) "
                                        f"at byte {start}")
        length, pos = _read_varint(buf, pos, end)
        if pos + length > end:
            raise CheckpointFormatError(f"the record at byte {start} needs {length} bytes but "
                                        f"only {end - pos} remain (truncated)")
        try:
            value = CheckpointValue.FromString(buf[pos:pos + length])
        except DecodeError as e:
            raise CheckpointFormatError(f"the record at byte {start} cannot be parsed ({e})")
        pos += length
        yield start, value
