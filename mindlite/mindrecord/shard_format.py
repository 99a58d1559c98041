"""The MindRecord shard file format (MindSpore 2.10), read and written.

A shard is two files. `NAME`: an 8-byte little-endian length and a JSON header (keys
sorted, no spaces), zero-padded to `header_size`; then pages of `page_size` bytes each at
header_size + page_id * page_size (the last page not padded). BLOB_DATA pages hold, per
row, a little-endian uint64 length and then, for each blob field (bytes fields and fields
with a shape, names sorted), a big-endian uint64 length and the field's bytes: float arrays
in little-endian C order, int32 / int64 arrays compressed (a big-endian uint32 count, two
bits per element (MSB first) giving its width, 1 / 2 / 4 / 8 bytes, then each element
little-endian in that width; the header's compression_size adds up the bytes saved); each
blob page is one row group. RAW_DATA pages hold the row groups
of the other fields: per row a little-endian uint64 length and a msgpack map (keys sorted).
`NAME.db`: an SQLite index, table INDEXES with one line per row (its raw and blob pages and
byte ranges, and the index fields) and table SHARD_NAME. The header's "page" list describes
every page (type, row range, row groups and their offsets).
"""
import json
import os
import struct

import numpy as np

HEADER_SIZE = 1 << 24         # MindSpore's defaults: 16 MB header, 32 MB pages
PAGE_SIZE = 1 << 25
VERSION = "3.0"

NUMERIC = {"int32": np.int32, "int64": np.int64, "float32": np.float32, "float64": np.float64}
TYPES = tuple(NUMERIC) + ("string", "bytes")
_SQL_TYPE = {"int32": "INTEGER", "int64": "INTEGER", "float32": "NUMERIC",
             "float64": "NUMERIC", "string": "TEXT"}


def sqlite():
    """sqlite3, imported on the first MindRecord read or write (out of `import mindlite`)."""
    import sqlite3
    return sqlite3


def msgpack():
    try:
        import msgpack as mp
    except ImportError as e:
        raise ImportError("MindRecord files need msgpack (pip install msgpack, or mindlite's "
                          f"'mindrecord' extra): {e}") from e
    return mp


def blob_fields(schema):
    return sorted(k for k, v in schema.items() if v["type"] == "bytes" or "shape" in v)


_WIDTHS = (np.int8, np.int16, np.int32, np.int64)


def compress_ints(arr):
    """An int array in MindSpore's blob compression (count, 2-bit widths, values)."""
    flat = np.asarray(arr, np.int64).reshape(-1)
    codes = np.full(flat.shape, 3, np.uint8)
    for code in (2, 1, 0):
        info = np.iinfo(_WIDTHS[code])
        codes[(flat >= info.min) & (flat <= info.max)] = code
    packed = np.zeros((flat.size + 3) // 4, np.uint8)
    for k in range(4):
        part = codes[k::4]
        packed[:part.size] |= part << (6 - 2 * k)
    values = b"".join(np.asarray(v, _WIDTHS[c]).astype(np.dtype(_WIDTHS[c]).newbyteorder("<"))
                      .tobytes() for v, c in zip(flat.tolist(), codes.tolist()))
    return struct.pack(">I", flat.size) + packed.tobytes() + values


def decompress_ints(data, dtype):
    (n,) = struct.unpack(">I", data[:4])
    packed = np.frombuffer(data[4:4 + (n + 3) // 4], np.uint8)
    pos = 4 + (n + 3) // 4
    out = np.empty(n, dtype)
    for i in range(n):
        code = (int(packed[i // 4]) >> (6 - 2 * (i % 4))) & 3
        width = _WIDTHS[code]
        size = np.dtype(width).itemsize
        out[i] = np.frombuffer(data[pos:pos + size], np.dtype(width).newbyteorder("<"))[0]
        pos += size
    return out


def encode_blob(schema, fields, row):
    """A row's blob record and the bytes its int compression saved."""
    parts, saved = [], 0
    for name in fields:
        spec, value = schema[name], row[name]
        if spec["type"] == "bytes":
            data = bytes(value)
        elif spec["type"] in ("int32", "int64"):
            arr = np.asarray(value, NUMERIC[spec["type"]])
            data = compress_ints(arr)
            saved += arr.nbytes - len(data)
        else:
            arr = np.ascontiguousarray(np.asarray(value, NUMERIC[spec["type"]]))
            data = arr.astype(arr.dtype.newbyteorder("<")).tobytes()
        parts.append(struct.pack(">Q", len(data)) + data)
    body = b"".join(parts)
    return struct.pack("<Q", len(body)) + body, saved


def encode_raw(schema, blobs, row):
    fields = {}
    for name in sorted(schema):
        if name in blobs:
            continue
        kind, value = schema[name]["type"], row[name]
        if kind == "string":
            fields[name] = str(value)
        elif kind.startswith("int"):
            fields[name] = int(value)
        else:
            fields[name] = float(value)
    body = msgpack().packb(fields, use_bin_type=True, use_single_float=False)
    return struct.pack("<Q", len(body)) + body


def decode_blob(schema, fields, data):
    out, pos = {}, 0
    for name in fields:
        (n,) = struct.unpack(">Q", data[pos:pos + 8])
        raw = data[pos + 8:pos + 8 + n]
        pos += 8 + n
        spec = schema[name]
        if spec["type"] == "bytes":
            out[name] = bytes(raw)
        elif spec["type"] in ("int32", "int64"):
            arr = decompress_ints(raw, NUMERIC[spec["type"]])
            out[name] = arr.reshape(spec.get("shape", [-1]))
        else:
            arr = np.frombuffer(raw, np.dtype(NUMERIC[spec["type"]]).newbyteorder("<"))
            shape = spec.get("shape", [-1])
            out[name] = arr.astype(NUMERIC[spec["type"]]).reshape(shape)
    return out


def read_header(path):
    with open(path, "rb") as f:
        head = f.read(8)
        if len(head) < 8:
            raise RuntimeError(f"MindRecord: '{path}' is too short for a header")
        (n,) = struct.unpack("<Q", head)
        raw = f.read(n)
    try:
        header = json.loads(raw.rstrip(b"\x00"))
    except ValueError:
        raise RuntimeError(f"MindRecord: '{path}' does not start with a MindRecord header") \
            from None
    for key in ("header_size", "page_size", "schema", "page", "shard_addresses"):
        if key not in header:
            raise RuntimeError(f"MindRecord: the header of '{path}' lacks '{key}'")
    return header


def read_rows(path, header):
    """Yield each row of one shard (a dict of field -> value), in row order."""
    schema = header["schema"][0]["schema"]
    blobs = header["schema"][0].get("blob_fields", blob_fields(schema))
    hs, ps = header["header_size"], header["page_size"]
    db = path + ".db"
    if not os.path.exists(db):
        raise RuntimeError(f"MindRecord: the index file '{db}' is missing")
    con = sqlite().connect(db)
    try:
        rows = con.execute("SELECT ROW_ID, PAGE_ID_RAW, PAGE_OFFSET_RAW, PAGE_OFFSET_RAW_END, "
                           "PAGE_ID_BLOB, PAGE_OFFSET_BLOB, PAGE_OFFSET_BLOB_END FROM INDEXES "
                           "ORDER BY ROW_ID").fetchall()
    finally:
        con.close()
    unpack = msgpack().unpackb
    with open(path, "rb") as f:
        for _, praw, raw0, raw1, pblob, blob0, blob1 in rows:
            row = {}
            if praw >= 0 and raw1 > raw0:
                f.seek(hs + praw * ps + raw0)
                chunk = f.read(raw1 - raw0)
                (n,) = struct.unpack("<Q", chunk[:8])
                row.update(unpack(chunk[8:8 + n], raw=False))
            if blobs and pblob >= 0:
                f.seek(hs + pblob * ps + blob0)
                chunk = f.read(blob1 - blob0)
                row.update(decode_blob(schema, blobs, chunk[8:]))
            yield row


class ShardWriter:
    """Pages and index lines of one shard, built in memory, written by `close`."""

    def __init__(self, path, schema, desc, index_fields, header_size, page_size):
        self.path, self.schema, self.desc = path, schema, desc
        self.blobs = blob_fields(schema)
        self.index_fields = index_fields
        self.hs, self.ps = header_size, page_size
        self.pages = []              # dicts: type, type_id, data (bytearray), rows / groups
        self.index = []              # per row: raw page, raw offsets, group, blob page, offsets
        self.blob_page = self.raw_page = None
        self.nrows = 0
        self.saved = 0

    def _new_page(self, kind):
        type_id = sum(p["type"] == kind for p in self.pages)
        page = {"type": kind, "type_id": type_id, "id": len(self.pages), "data": bytearray(),
                "start": self.nrows, "end": self.nrows, "groups": []}
        self.pages.append(page)
        return page

    def add(self, row):
        raw = encode_raw(self.schema, self.blobs, row)
        blob, saved = encode_blob(self.schema, self.blobs, row) if self.blobs else (b"", 0)
        self.saved += saved
        if max(len(raw), len(blob)) > self.ps:
            raise ValueError(f"MindRecord: a row of {max(len(raw), len(blob))} bytes does not "
                             f"fit a page of {self.ps} bytes (FileWriter.set_page_size)")
        new_group = False
        if self.blobs:
            if self.blob_page is None or len(self.blob_page["data"]) + len(blob) > self.ps:
                self.blob_page = self._new_page("BLOB_DATA")
                self.blob_page["groups"].append((0, 0))
                new_group = True
        elif self.raw_page is None or not self.raw_page["groups"]:
            new_group = True
        if self.raw_page is None or len(self.raw_page["data"]) + len(raw) > self.ps:
            self.raw_page = self._new_page("RAW_DATA")
            new_group = True
        if new_group:
            gid = self.blob_page["type_id"] if self.blobs else len(self.raw_page["groups"])
            self.raw_page["groups"].append((gid, len(self.raw_page["data"])))
        group = self.raw_page["groups"][-1][0]
        r0 = len(self.raw_page["data"])
        self.raw_page["data"] += raw
        b0 = b1 = 0
        bpage = -1
        if self.blobs:
            b0 = len(self.blob_page["data"])
            self.blob_page["data"] += blob
            b1 = len(self.blob_page["data"])
            bpage = self.blob_page["id"]
            self.blob_page["end"] = self.nrows + 1
        self.index.append((self.nrows, self.raw_page["id"], r0, r0 + len(raw), group, bpage,
                           b0, b1, {k: row[k] for k in self.index_fields}))
        self.nrows += 1

    def header(self, addresses, shard_id):
        pages = []
        for p in self.pages:
            blob = p["type"] == "BLOB_DATA"
            pages.append({"end_row_id": p["end"] if blob else 0, "page_id": p["id"],
                          "page_size": len(p["data"]), "page_type": p["type"],
                          "page_type_id": p["type_id"],
                          "row_group_ids": [{"id": g, "offset": o} for g, o in p["groups"]],
                          "shard_id": shard_id, "start_row_id": p["start"] if blob else 0})
        return {"header_size": self.hs,
                "index_fields": [{"index_field": f, "schema_id": 0} for f in self.index_fields],
                "page": pages, "page_size": self.ps, "compression_size": self.saved,
                "schema": [{"blob_fields": self.blobs, "desc": self.desc,
                            "schema": self.schema}],
                "shard_addresses": addresses, "shard_id": shard_id, "statistics": None,
                "version": VERSION}

    def close(self, addresses, shard_id):
        # MindSpore's key order at the top, sorted keys inside
        text = ("{" + ",".join(f'"{k}":' + json.dumps(v, sort_keys=True, separators=(",", ":"))
                               for k, v in self.header(addresses, shard_id).items())
                + "}").encode()
        if len(text) + 8 > self.hs:
            raise ValueError(f"MindRecord: the header ({len(text) + 8} bytes) does not fit "
                             f"header_size {self.hs} (FileWriter.set_header_size)")
        with open(self.path, "wb") as f:
            f.write(struct.pack("<Q", len(text)) + text)
            for k, p in enumerate(self.pages):
                f.seek(self.hs + p["id"] * self.ps)
                f.write(p["data"])
                if k != len(self.pages) - 1 and len(p["data"]) < self.ps:
                    f.seek(self.hs + (p["id"] + 1) * self.ps - 1)
                    f.write(b"\x00")
            if not self.pages:
                f.seek(self.hs - 1)
                f.write(b"\x00")
        self._write_index()

    def _write_index(self):
        db = self.path + ".db"
        if os.path.exists(db):
            os.remove(db)
        cols = "".join(f",INC_{k} INT, {f}_0 {_SQL_TYPE[self.schema[f]['type']]}"
                       for k, f in enumerate(self.index_fields))
        key = "".join(f",INC_{k}" for k in range(len(self.index_fields)))
        con = sqlite().connect(db)
        try:
            con.execute("CREATE TABLE INDEXES(  ROW_ID               INT  NOT NULL, "
                        "PAGE_ID_RAW          INT  NOT NULL, PAGE_OFFSET_RAW      INT  NOT NULL, "
                        "PAGE_OFFSET_RAW_END  INT  NOT NULL, ROW_GROUP_ID         INT  NOT NULL, "
                        "PAGE_ID_BLOB         INT  NOT NULL, PAGE_OFFSET_BLOB     INT  NOT NULL, "
                        f"PAGE_OFFSET_BLOB_END INT  NOT NULL{cols}, PRIMARY KEY(ROW_ID{key}))")
            con.execute("CREATE TABLE SHARD_NAME(NAME TEXT NOT NULL)")
            con.execute("INSERT INTO SHARD_NAME VALUES (?)", (os.path.basename(self.path),))
            marks = ",".join("?" * (8 + 2 * len(self.index_fields)))
            for *pos, values in self.index:
                extra = []
                for f in self.index_fields:
                    extra += [0, values[f]]
                con.execute(f"INSERT INTO INDEXES VALUES ({marks})", (*pos, *extra))
            con.commit()
        finally:
            con.close()
