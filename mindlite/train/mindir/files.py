"""MINDIR files on disk: `save_mindir(graph, file_name)` and `load_mindir(file_name)`.

One file, `<name>.mindir`, holds the serialized ModelProto with every weight's bytes inline
(TensorProto.raw_data). When the weights exceed SPLIT_BYTES (MindSpore: 1 GiB; protobuf
cannot hold a 2 GiB message) they are written as MindSpore does: the graph goes to
`<name>_graph.mindir` and the weights to `<name>_variables/data_0` (then data_1, ... past
DATA_FILE_BYTES each): each data file starts with a 64-byte header (byte 0 = 1 on
little-endian machines, then zeros), weights follow in name order, each padded to a multiple
of 64 bytes; a weight's TensorProto.external_data holds its location (relative to the model
file's folder), offset and length. Written files are made read-only for their owner, as
MindSpore does. Every problem with a file raises ValueError (RuntimeError for a failure to
build the graph) naming the file; nothing half-built is returned.
"""
import os
import shutil
import stat
import sys

import numpy as np
from google.protobuf.message import DecodeError

from . import mind_ir_pb2 as pb
from .reader import model_to_graph
from .values import MindIRFormatError
from .writer import MIND_IR_VERSION, graph_to_model

SPLIT_BYTES = 1 << 30
DATA_FILE_BYTES = 1 << 40
HEADER_BYTES = 64
ALIGN = 64


class _Weights:
    """Collects (TensorProto, Parameter) pairs while the model is built."""

    def __init__(self):
        self.items = []

    def add(self, proto, param):
        self.items.append((proto, param))

    def total(self):
        return sum(p.asnumpy().nbytes for _, p in self.items)


def _bytes_of(param):
    arr = param.asnumpy()
    return np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<"), copy=False).tobytes()


def _write_file(path, data_chunks):
    if os.path.exists(path):
        os.chmod(path, stat.S_IRUSR | stat.S_IWUSR)
    with open(path, "wb") as f:
        for chunk in data_chunks:
            f.write(chunk)
    os.chmod(path, stat.S_IRUSR)


def _header():
    return (1 if sys.byteorder == "little" else 0).to_bytes(1, "little") + bytes(HEADER_BYTES - 1)


def _write_external(weights, dirname, prefix):
    folder = prefix + "_variables"
    path = os.path.join(dirname, folder)
    if os.path.exists(path):
        shutil.rmtree(path)
    os.makedirs(path, mode=0o700)
    index, f, size = 0, None, 0
    try:
        for proto, param in sorted(weights.items, key=lambda item: item[0].name):
            raw = _bytes_of(param)
            padded = raw + bytes(-len(raw) % ALIGN)
            if f is None or (size > HEADER_BYTES and size + len(padded) > DATA_FILE_BYTES):
                if f is not None:
                    f.close()
                    index += 1
                location = os.path.join(folder, f"data_{index}")
                f = open(os.path.join(dirname, location), "wb")
                f.write(_header())
                size = HEADER_BYTES
            proto.external_data.location = location
            proto.external_data.offset = size
            proto.external_data.length = len(raw)
            f.write(padded)
            size += len(padded)
    finally:
        if f is not None:
            f.close()


def save_mindir(graph, file_name):
    """Write FuncGraph `graph` (graph_for_export's form) as MINDIR; returns the path written."""
    if not file_name.endswith(".mindir"):
        file_name += ".mindir"
    file_name = os.path.realpath(file_name)
    dirname = os.path.dirname(file_name)
    os.makedirs(dirname, exist_ok=True)
    weights = _Weights()
    try:
        model = graph_to_model(graph, weights)
    except MindIRFormatError as e:
        raise ValueError(f"export: cannot write '{file_name}' as MINDIR: {e}") from None
    if weights.total() <= SPLIT_BYTES:
        for proto, param in weights.items:
            proto.raw_data = _bytes_of(param)
        _write_file(file_name, [model.SerializeToString()])
        return file_name
    prefix = os.path.basename(file_name)[:-len(".mindir")]
    _write_external(weights, dirname, prefix)
    path = os.path.join(dirname, prefix + "_graph.mindir")
    _write_file(path, [model.SerializeToString()])
    return path


def _external_reader(file_name):
    dirname = os.path.dirname(os.path.realpath(file_name))

    def read(proto, what):
        ext = proto.external_data
        loc = ext.location
        if not loc or os.path.isabs(loc) or ".." in loc.replace("\\", "/").split("/"):
            raise MindIRFormatError(f"{what}: external data location {loc!r} must be a path "
                                    f"inside the model's folder")
        if ext.offset < 0 or ext.length < 0:
            raise MindIRFormatError(f"{what}: negative external data offset/length")
        path = os.path.join(dirname, loc)
        try:
            with open(path, "rb") as f:
                f.seek(ext.offset)
                data = f.read(ext.length)
        except OSError as e:
            raise MindIRFormatError(f"{what}: cannot read external data '{path}': {e}") from None
        if len(data) != ext.length:
            raise MindIRFormatError(f"{what}: external data '{path}' is truncated (wanted "
                                    f"{ext.length} bytes at offset {ext.offset}, got "
                                    f"{len(data)})")
        return data
    return read


def _is_repeated(field):
    repeated = getattr(field, "is_repeated", None)          # protobuf >= 6; `label` before
    return field.label == field.LABEL_REPEATED if repeated is None else repeated


def _check_text(msg, path="model"):
    """Every string field holds valid UTF-8 (protobuf hands back bytes where it does not).
    Only string and message fields are read: weights' bytes are never copied here."""
    for field in msg.DESCRIPTOR.fields:
        if field.type not in (field.TYPE_STRING, field.TYPE_MESSAGE):
            continue
        repeated = _is_repeated(field)
        if not repeated and not msg.HasField(field.name):
            continue
        value = getattr(msg, field.name)
        if field.type == field.TYPE_STRING:
            if any(not isinstance(v, str) for v in (value if repeated else [value])):
                raise MindIRFormatError(f"{path}.{field.name} is not valid UTF-8 text")
        elif not repeated:
            _check_text(value, f"{path}.{field.name}")
        elif field.message_type.GetOptions().map_entry:
            if any(not isinstance(k, str) or not isinstance(v, str) for k, v in value.items()):
                raise MindIRFormatError(f"{path}.{field.name} is not valid UTF-8 text")
        else:
            for i, item in enumerate(value):
                _check_text(item, f"{path}.{field.name}[{i}]")


def _check_version(model):
    if model.mind_ir_version > MIND_IR_VERSION:
        raise MindIRFormatError(f"mind_ir_version {model.mind_ir_version} is newer than the "
                                f"newest mindlite reads ({MIND_IR_VERSION})")
    if not model.HasField("mind_ir_version") and any(p.HasField("prim_type")
                                                     for p in model.primitives):
        raise MindIRFormatError("the model has MindSpore 2.x primitives but no "
                                "mind_ir_version (the file is truncated)")
    major = model.ir_version.split(".")[0]
    if model.ir_version and major not in ("0", "1"):
        raise MindIRFormatError(f"ir_version {model.ir_version!r} is not a MindIR 1.x version")
    if model.HasField("little_endian") and not model.little_endian:
        raise MindIRFormatError("the model was written big-endian (little_endian = false)")


def load_mindir(file_name):
    """The FuncGraph of MINDIR file `file_name`."""
    try:
        with open(file_name, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ValueError(f"For 'load', cannot read '{file_name}': {e}") from None
    try:
        model = pb.ModelProto.FromString(data)
        _check_text(model)
        _check_version(model)
        return model_to_graph(model, _external_reader(file_name))
    except (DecodeError, MindIRFormatError) as e:
        raise ValueError(f"For 'load', '{file_name}' is not a valid MINDIR file: {e}") from None
    except RecursionError:
        raise ValueError(f"For 'load', '{file_name}' is not a valid MINDIR file: values "
                         f"nested too deeply") from None
    except Exception as e:  # noqa: BLE001 - any other failure is reported with the file
        raise RuntimeError(f"For 'load', building the graph of '{file_name}' failed: "
                           f"{type(e).__name__}: {e}") from e
