"""`.ms` files (MINDIR_LITE, FlatBuffers, schema MSL2): the in-memory model and its codec.

    MsModel / MsNode / MsTensor / MsSubGraph    the file's MetaGraph, CNodes, Tensors, SubGraphs
    write_ms(model) -> bytes                    flatbuffers.Builder, file identifier "MSL2"
    read_ms(data, file) -> MsModel              bounded reader: every offset, length and index
                                                is checked, so a damaged or truncated file
                                                raises MsFileError (a ValueError) naming the
                                                file and what is wrong, never a crash; a
                                                version string mindlite does not know is a
                                                RuntimeWarning (MindSpore Lite's own converter
                                                writes none), not a refusal

The converter (converter.py) fills an MsModel from a FuncGraph; the Lite runtime
(session.py: LiteModel.construct_model) builds its nodes and tensors from one. Layout facts
(field slots, union codes, TypeIds) are in schema.py. The `flatbuffers` package writes;
reading is checked here because the package's Python reader does not verify buffers.
"""
import struct
import warnings

import numpy as np

from . import schema as S


class MsFileError(ValueError):
    """A .ms file that cannot be read: damaged, truncated, wrong version, bad indices."""


class MsTensor:
    """allTensors[i]: name, numpy dtype, dims, format, nodeType, data (bytes or None)."""
    __slots__ = ("name", "dtype", "dims", "format", "node_type", "data")

    def __init__(self, name, dtype, dims, fmt=S.FORMAT_NCHW, node_type=S.NODE_CNODE, data=None):
        self.name, self.dtype, self.dims = name, np.dtype(dtype), [int(d) for d in dims]
        self.format, self.node_type, self.data = fmt, node_type, data

    def array(self):
        """The constant's value (a read-only numpy array), or None for a runtime tensor."""
        if self.data is None:
            return None
        return np.frombuffer(self.data, self.dtype).reshape(self.dims)

    def __repr__(self):
        return f"MsTensor({self.name!r}, {self.dtype}, {self.dims}{', const' * bool(self.data)})"


class MsNode:
    """nodes[i]: name, op type (a PrimitiveType member), its table's fields, in/out tensors."""
    __slots__ = ("name", "op_type", "attrs", "inputs", "outputs", "device_type")

    def __init__(self, name, op_type, attrs, inputs, outputs, device_type=-1):
        self.name, self.op_type, self.attrs = name, op_type, dict(attrs)
        self.inputs, self.outputs = list(inputs), list(outputs)
        self.device_type = device_type

    def __repr__(self):
        return f"MsNode({self.name!r}, {self.op_type}, in={self.inputs}, out={self.outputs})"


class MsSubGraph:
    __slots__ = ("name", "inputs", "outputs", "nodes", "tensors")

    def __init__(self, name, inputs, outputs, nodes, tensors):
        self.name, self.inputs, self.outputs = name, list(inputs), list(outputs)
        self.nodes, self.tensors = list(nodes), list(tensors)


class MsModel:
    """The MetaGraph: subgraph 0 is the main graph; PartialFusion nodes name others by index."""

    def __init__(self, name="", version=S.VERSION, fmk_type=S.FMK["MINDIR"]):
        self.name, self.version, self.fmk_type = name, version, fmk_type
        self.inputs, self.outputs = [], []
        self.nodes, self.tensors, self.subgraphs = [], [], []


# ---- writing --------------------------------------------------------------------------------
_SCALAR = {"bool": "PrependBoolSlot", "i8": "PrependInt8Slot", "i32": "PrependInt32Slot",
           "u32": "PrependUint32Slot", "i64": "PrependInt64Slot", "f32": "PrependFloat32Slot"}
_VEC_DTYPE = {"[i32]": "<i4", "[u32]": "<u4", "[i64]": "<i8", "[f32]": "<f4", "[u8]": "u1"}
_VEC, _VEC2D = [("data", "[i64]", None)], [("data", "[table]", None)]     # ops_types' Vec, Vec2D


def _offsets(b, offs):
    b.StartVector(4, len(offs), 4)
    for o in reversed(offs):
        b.PrependUOffsetTRelative(o)
    return b.EndVector()


def _table(b, fields, values):
    """Build one table: pointers first (strings, vectors, sub-tables), then the object."""
    refs = {}
    for name, kind, _ in fields:
        v = values.get(name)
        if v is None or kind in _SCALAR or kind == "skip":
            continue
        if kind == "str":
            refs[name] = b.CreateString(v)
        elif kind in _VEC_DTYPE:
            refs[name] = b.CreateNumpyVector(np.ascontiguousarray(v, _VEC_DTYPE[kind]))
        elif kind == "[Attribute]":
            refs[name] = _offsets(b, [_table(b, S.ATTRIBUTE, {"name": k, "data": np.frombuffer(
                d, np.uint8)}) for k, d in v])
        elif kind == "Vec2D":
            rows = _offsets(b, [_table(b, _VEC, {"data": row}) for row in v])
            refs[name] = _table(b, _VEC2D, {"data": rows})
        elif kind in ("table", "[table]"):
            refs[name] = v                   # built by the caller
    b.StartObject(len(fields))
    for slot, (name, kind, default) in enumerate(fields):
        v = values.get(name)
        if name in refs:
            b.PrependUOffsetTRelativeSlot(slot, refs[name], 0)
        elif v is not None and kind in _SCALAR:
            getattr(b, _SCALAR[kind])(slot, v, default)
    return b.EndObject()


def _write_node(b, node):
    code, fields = S.OPS[node.op_type]
    op = _table(b, fields, node.attrs)
    b.StartObject(S.PRIMITIVE_SLOTS)
    b.PrependUOffsetTRelativeSlot(1, op, 0)
    b.PrependUint8Slot(0, code, 0)
    prim = b.EndObject()
    return _table(b, S.CNODE, {"name": node.name, "primitive": prim, "inputIndex": node.inputs,
                               "outputIndex": node.outputs, "deviceType": node.device_type})


def _write_tensor(b, t):
    data = None if t.data is None else np.frombuffer(t.data, np.uint8)
    return _table(b, S.TENSOR, {"nodeType": t.node_type, "dataType": S.TYPE_ID[t.dtype],
                                "dims": t.dims, "format": t.format, "data": data,
                                "name": t.name})


def write_ms(model):
    """The .ms bytes of `model` (an MsModel)."""
    b = __import__("flatbuffers").Builder(1024)
    tensors = _offsets(b, [_write_tensor(b, t) for t in model.tensors])
    nodes = _offsets(b, [_write_node(b, n) for n in model.nodes])
    subs = _offsets(b, [_table(b, S.SUBGRAPH, {
        "name": g.name, "inputIndices": g.inputs, "outputIndices": g.outputs,
        "nodeIndices": g.nodes, "tensorIndices": g.tensors}) for g in model.subgraphs])
    root = _table(b, S.METAGRAPH, {
        "name": model.name, "version": model.version, "fmkType": model.fmk_type,
        "inputIndex": model.inputs, "outputIndex": model.outputs, "nodes": nodes,
        "allTensors": tensors, "subGraph": subs})
    b.Finish(root, file_identifier=S.FILE_IDENTIFIER)
    return bytes(b.Output())


# ---- reading --------------------------------------------------------------------------------
_FMT = {"bool": "<?", "i8": "<b", "u8": "<B", "u16": "<H", "i32": "<i", "u32": "<I",
        "i64": "<q", "f32": "<f"}


class _Reader:
    """Bounds-checked access to a FlatBuffers buffer; `where` names the file in errors."""

    def __init__(self, data, where):
        self.data, self.where = data, where

    def fail(self, what):
        raise MsFileError(f"{self.where}: damaged or truncated .ms file: {what}")

    def get(self, kind, pos, what):
        fmt = _FMT[kind]
        if pos < 0 or pos + struct.calcsize(fmt) > len(self.data):
            self.fail(f"{what} at byte {pos} lies outside the {len(self.data)}-byte file")
        return struct.unpack_from(fmt, self.data, pos)[0]

    def table(self, pos, what):
        vt = pos - self.get("i32", pos, what)
        size = self.get("u16", vt, f"{what}'s vtable")
        if size < 4 or size % 2:
            self.fail(f"{what}'s vtable at byte {vt} has size {size}")
        return _Table(self, pos, vt, size, what)


class _Table:
    __slots__ = ("r", "pos", "vt", "size", "what")

    def __init__(self, r, pos, vt, size, what):
        self.r, self.pos, self.vt, self.size, self.what = r, pos, vt, size, what

    def _field(self, slot):
        o = 4 + 2 * slot
        return 0 if o >= self.size else self.r.get("u16", self.vt + o, self.what)

    def _ref(self, slot, name):
        off = self._field(slot)
        if not off:
            return None
        at = self.pos + off
        return at + self.r.get("u32", at, f"{self.what}.{name}")

    def scalar(self, slot, kind, default, name):
        off = self._field(slot)
        return default if not off else self.r.get(kind, self.pos + off, f"{self.what}.{name}")

    def vector(self, slot, kind, name):
        """(start, count) of a vector field, the elements checked to lie inside the file."""
        at = self._ref(slot, name)
        if at is None:
            return None
        n = self.r.get("u32", at, f"{self.what}.{name} length")
        size = {"str": 1, "[u8]": 1, "[table]": 4, "[Attribute]": 4}.get(kind) or \
            np.dtype(_VEC_DTYPE[kind]).itemsize
        if at + 4 + n * size > len(self.r.data):
            self.r.fail(f"{self.what}.{name} claims {n} elements past the end of the file")
        return at + 4, n

    def string(self, slot, name):
        v = self.vector(slot, "str", name)
        if v is None:
            return None
        try:
            return bytes(self.r.data[v[0]:v[0] + v[1]]).decode("utf-8")
        except UnicodeDecodeError:
            self.r.fail(f"{self.what}.{name} is not UTF-8")

    def array(self, slot, kind, name):
        v = self.vector(slot, kind, name)
        if v is None:
            return None
        return np.frombuffer(self.r.data, _VEC_DTYPE[kind], v[1], v[0])

    def tables(self, slot, name):
        v = self.vector(slot, "[table]", name)
        if v is None:
            return []
        start, n = v
        return [self.r.table(start + 4 * i + self.r.get("u32", start + 4 * i, name),
                             f"{name}[{i}]") for i in range(n)]

    def sub(self, slot, name):
        at = self._ref(slot, name)
        return None if at is None else self.r.table(at, f"{self.what}.{name}")

    def read(self, fields):
        out = {}
        for slot, (name, kind, default) in enumerate(fields):
            if kind in _SCALAR:
                out[name] = self.scalar(slot, kind, default, name)
            elif kind == "str":
                out[name] = self.string(slot, name)
            elif kind == "[u8]":                 # bytes (a tensor's data): never a list
                arr = self.array(slot, kind, name)
                out[name] = None if arr is None else arr.tobytes()
            elif kind in _VEC_DTYPE:
                arr = self.array(slot, kind, name)
                out[name] = None if arr is None else arr.tolist()
            elif kind == "[Attribute]":          # Custom's attr: (name, data bytes) pairs
                out[name] = [(t.string(0, "name") or "", _bytes(t.array(1, "[u8]", "data")))
                             for t in self.tables(slot, name)]
            elif kind == "Vec2D":                # PadFusion's paddings: rows of longs
                sub = self.sub(slot, name)
                out[name] = None if sub is None else [
                    [int(x) for x in _ints(row.array(0, "[i64]", f"{name}.data"))]
                    for row in sub.tables(0, f"{self.what}.{name}.data")]
        return out


def _bytes(arr):
    return b"" if arr is None else arr.tobytes()


def _ints(arr):
    return () if arr is None else arr


def _check_header(data, where):
    if len(data) < 8:
        raise MsFileError(f"{where}: not a .ms file: {len(data)} bytes is shorter than the "
                          f"8-byte FlatBuffers header")
    ident = bytes(data[4:8])
    if ident != S.FILE_IDENTIFIER:
        old = S.KNOWN_IDENTIFIERS.get(ident)
        if old:
            raise MsFileError(f"{where}: version mismatch: the file is {old}; mindlite reads "
                              f"MSL2 (MindSpore Lite 2.x): convert the model again")
        raise MsFileError(f"{where}: not a MindSpore Lite MSL2 model: file identifier "
                          f"{ident!r}, expected {S.FILE_IDENTIFIER!r}")


def read_ms(data, where="<bytes>"):
    """Parse .ms bytes into an MsModel, checking every offset, length and index."""
    _check_header(data, where)
    r = _Reader(memoryview(data).toreadonly() if not isinstance(data, bytes) else data, where)
    root = r.table(r.get("u32", 0, "root offset"), "MetaGraph")
    meta = root.read(S.METAGRAPH)
    version = meta["version"] or ""
    if version and not version.startswith(S.KNOWN_VERSIONS):
        warnings.warn(f"{where}: the model was written by {version!r}, a version mindlite does "
                      "not know (it reads MindSpore Lite 2.x); its MSL2 schema reads, so it is "
                      "loaded as such", RuntimeWarning, stacklevel=2)
    model = MsModel(meta["name"] or "", version, meta["fmkType"])
    model.tensors = [_read_tensor(r, t, i) for i, t in enumerate(root.tables(7, "allTensors"))]
    model.nodes = [_read_node(r, t, i) for i, t in enumerate(root.tables(6, "nodes"))]
    for i, t in enumerate(root.tables(8, "subGraph")):
        g = t.read(S.SUBGRAPH)
        model.subgraphs.append(MsSubGraph(g["name"] or f"subgraph_{i}", g["inputIndices"] or [],
                                          g["outputIndices"] or [], g["nodeIndices"] or [],
                                          g["tensorIndices"] or []))
    model.inputs, model.outputs = meta["inputIndex"] or [], meta["outputIndex"] or []
    _check_indices(model, where)
    return model


def _read_tensor(r, t, i):
    f = t.read(S.TENSOR)
    name = f["name"] or f"tensor_{i}"
    dtype = S.DTYPE_OF.get(f["dataType"])
    if dtype is None:
        raise MsFileError(f"{r.where}: tensor {name!r} has data type {f['dataType']}, which "
                          f"mindlite does not support (TypeIds {sorted(S.DTYPE_OF)})")
    dims = f["dims"] or []
    if any(d < -1 for d in dims) or len(dims) > 8:
        raise MsFileError(f"{r.where}: tensor {name!r} has invalid dims {dims}")
    data = None
    v = t.vector(6, "[u8]", "data")
    if v is not None and v[1]:
        need = -1                           # NOTE: Python ints: a product cannot wrap around
        if -1 not in dims:
            need = dtype.itemsize
            for d in dims:
                need *= d
        if need != v[1]:
            raise MsFileError(f"{r.where}: tensor {name!r} holds {v[1]} bytes of data, but dims "
                              f"{dims} of {dtype} need {need}")
        data = bytes(r.data[v[0]:v[0] + v[1]])
    return MsTensor(name, dtype, dims, f["format"], f["nodeType"], data)


def _read_node(r, t, i):
    f = t.read(S.CNODE)
    name = f["name"] or f"node_{i}"
    prim = t.sub(2, "primitive")
    if prim is None:
        raise MsFileError(f"{r.where}: node {name!r} has no primitive")
    code = prim.scalar(0, "u8", 0, "value_type")
    op_type = S.OP_OF_CODE.get(code)
    if op_type is None:
        if 0 < code <= S.PRIMITIVE_TYPE_COUNT:
            raise MsFileError(f"{r.where}: node {name!r}: the primitive "
                              f"{S.PRIMITIVE_TYPES[code - 1]} (PrimitiveType code {code}) is "
                              f"not supported by mindlite's Lite runtime (supported: "
                              f"{sorted(S.OPS)})")
        raise MsFileError(f"{r.where}: node {name!r}: op with PrimitiveType code {code} is not "
                          "a MSL2 op type")
    table = prim.sub(1, "value")
    attrs = table.read(S.OPS[op_type][1]) if table is not None else {}
    return MsNode(name, op_type, attrs, f["inputIndex"] or [], f["outputIndex"] or [],
                  f["deviceType"])


def _check_indices(model, where):
    nt, nn, ng = len(model.tensors), len(model.nodes), len(model.subgraphs)

    def check(idx, bound, what):
        bad = [i for i in idx if i >= bound]
        if bad:
            raise MsFileError(f"{where}: {what} refers to index {bad[0]}, but the model has "
                              f"only {bound}")
    for n in model.nodes:
        check(n.inputs, nt, f"node {n.name!r} ({n.op_type}) inputs")
        check(n.outputs, nt, f"node {n.name!r} ({n.op_type}) outputs")
        if n.op_type == "PartialFusion":
            check([n.attrs["sub_graph_index"]], ng, f"node {n.name!r} (PartialFusion)")
            if n.attrs["sub_graph_index"] < 0:
                raise MsFileError(f"{where}: node {n.name!r}: negative sub_graph_index")
    check(model.inputs, nt, "the model inputs")
    check(model.outputs, nt, "the model outputs")
    if not ng:
        raise MsFileError(f"{where}: the model has no subgraph")
    for g in model.subgraphs:
        check(g.nodes, nn, f"subgraph {g.name!r} nodes")
        for what, idx in (("inputs", g.inputs), ("outputs", g.outputs), ("tensors", g.tensors)):
            check(idx, nt, f"subgraph {g.name!r} {what}")
