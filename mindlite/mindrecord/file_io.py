"""FileWriter and FileReader of mindspore.mindrecord over shard_format.py.

    writer = FileWriter("data.mindrecord", shard_num=1, overwrite=True)
    writer.add_schema({"label": {"type": "int32"}, "image": {"type": "bytes"},
                       "feature": {"type": "float32", "shape": [2, 3]}}, "my data")
    writer.add_index(["label"])
    writer.write_raw_data([{"label": 1, "image": b"...", "feature": array}, ...])
    writer.commit()

Field types: int32, int64, float32, float64, string, bytes; numeric fields with a `shape`
(-1 for one free axis) are arrays. With shard_num = n > 1 the files are NAME0 ... NAME{n-1},
and row i goes to shard i % n.
"""
import numbers
import os

import numpy as np

from . import shard_format as fmt

__all__ = ["FileWriter", "FileReader"]


def _check_schema(schema):
    if not isinstance(schema, dict) or not schema:
        raise ValueError(f"For 'FileWriter.add_schema', 'content' must be a non-empty dict, "
                         f"but got {schema!r}")
    out = {}
    for name, spec in schema.items():
        if not isinstance(name, str) or not isinstance(spec, dict) or \
                spec.get("type") not in fmt.TYPES:
            raise ValueError(f"For 'FileWriter.add_schema', field {name!r} must be a dict with "
                             f"'type' one of {list(fmt.TYPES)}, but got {spec!r}")
        clean = {"type": spec["type"]}
        if "shape" in spec:
            shape = list(spec["shape"])
            if spec["type"] not in fmt.NUMERIC or shape.count(-1) > 1 or not all(
                    isinstance(d, int) and (d > 0 or d == -1) for d in shape):
                raise ValueError(f"For 'FileWriter.add_schema', field {name!r} has a bad "
                                 f"shape {spec['shape']!r} (numeric types only, ints > 0 or "
                                 f"one -1)")
            clean["shape"] = shape
        out[name] = clean
    return out


class FileWriter:
    def __init__(self, file_name, shard_num=1, overwrite=False):
        if not isinstance(file_name, str) or not file_name:
            raise ValueError(f"For 'FileWriter', 'file_name' must be a path, but got "
                             f"{file_name!r}")
        if isinstance(shard_num, bool) or not isinstance(shard_num, numbers.Integral) or \
                not 1 <= shard_num <= 1000:
            raise ValueError(f"For 'FileWriter', 'shard_num' must be an int in [1, 1000], but "
                             f"got {shard_num!r}")
        self.paths = [file_name] if shard_num == 1 else \
            [f"{file_name}{k}" for k in range(shard_num)]
        for p in self.paths:
            for q in (p, p + ".db"):
                if os.path.exists(q) and not overwrite:
                    raise RuntimeError(f"For 'FileWriter', '{q}' exists (overwrite=True "
                                       f"replaces it)")
        self.schema = self.desc = None
        self.index_fields = None
        self.header_size, self.page_size = fmt.HEADER_SIZE, fmt.PAGE_SIZE
        self.shards = None
        self.rows = 0

    def add_schema(self, content, desc=None):
        if self.schema is not None:
            raise RuntimeError("For 'FileWriter.add_schema', a schema was already added")
        self.schema, self.desc = _check_schema(content), desc or ""
        return 0

    def add_index(self, index_fields):
        if self.schema is None:
            raise RuntimeError("For 'FileWriter.add_index', call add_schema first")
        for f in index_fields:
            spec = self.schema.get(f)
            if spec is None or spec["type"] == "bytes" or "shape" in spec:
                raise ValueError(f"For 'FileWriter.add_index', {f!r} must be a scalar field of "
                                 f"the schema")
        self.index_fields = list(index_fields)
        return 0

    def set_header_size(self, header_size):
        if not (1 << 14) <= header_size <= (1 << 27):
            raise ValueError(f"For 'FileWriter.set_header_size', it must be in [16 KB, 128 MB], "
                             f"but got {header_size}")
        self.header_size = int(header_size)
        return 0

    def set_page_size(self, page_size):
        if not (1 << 15) <= page_size <= (1 << 28):
            raise ValueError(f"For 'FileWriter.set_page_size', it must be in [32 KB, 256 MB], "
                             f"but got {page_size}")
        self.page_size = int(page_size)
        return 0

    def _start(self):
        if self.schema is None:
            raise RuntimeError("For 'FileWriter.write_raw_data', call add_schema first")
        if self.index_fields is None:       # MindSpore indexes the scalar fields itself
            self.index_fields = [f for f in sorted(self.schema)
                                 if self.schema[f]["type"] != "bytes" and
                                 "shape" not in self.schema[f]][:1]
        self.shards = [fmt.ShardWriter(p, self.schema, self.desc, self.index_fields,
                                       self.header_size, self.page_size) for p in self.paths]

    def _check_row(self, k, row):
        if not isinstance(row, dict) or set(row) != set(self.schema):
            raise ValueError(f"For 'FileWriter.write_raw_data', row {k} must be a dict with "
                             f"the schema's fields {sorted(self.schema)}, but got "
                             f"{sorted(row) if isinstance(row, dict) else type(row).__name__}")
        for name, spec in self.schema.items():
            v = row[name]
            if spec["type"] == "bytes" and not isinstance(v, (bytes, bytearray)):
                raise TypeError(f"For 'FileWriter.write_raw_data', row {k} field {name!r} must "
                                f"be bytes, but got {type(v).__name__}")
            if "shape" in spec:
                arr = np.asarray(v)
                want = spec["shape"]
                if -1 not in want and list(arr.shape) != want and arr.size != np.prod(want):
                    raise ValueError(f"For 'FileWriter.write_raw_data', row {k} field "
                                     f"{name!r} has shape {arr.shape}, the schema says {want}")

    def write_raw_data(self, raw_data, parallel_writer=False):
        if self.shards is None:
            self._start()
        if not isinstance(raw_data, list):
            raise TypeError(f"For 'FileWriter.write_raw_data', 'raw_data' must be a list of "
                            f"dicts, but got {type(raw_data).__name__}")
        for k, row in enumerate(raw_data):
            self._check_row(k, row)
        for row in raw_data:
            self.shards[self.rows % len(self.shards)].add(row)
            self.rows += 1
        return 0

    def commit(self):
        if self.shards is None:
            self._start()
        names = [os.path.basename(p) for p in self.paths]
        for k, shard in enumerate(self.shards):
            shard.close(names, k)
        return 0


class FileReader:
    """Rows of a MindRecord file (and the other shards its header lists), as dicts:
    ints and floats as Python numbers, strings as str, bytes as bytes, arrays as ndarrays."""

    def __init__(self, file_name, num_consumer=4, columns=None, operator=None):
        paths = [file_name] if isinstance(file_name, str) else list(file_name)
        self.files = shard_files(paths)
        self.columns = columns
        self._schema = fmt.read_header(self.files[0])["schema"][0]["schema"]

    def schema(self):
        return dict(self._schema)

    def len(self):
        return sum(_count(p) for p in self.files)

    def get_next(self):
        for path in self.files:
            header = fmt.read_header(path)
            for row in fmt.read_rows(path, header):
                if self.columns is not None:
                    row = {k: row[k] for k in self.columns}
                yield {k: (v.item() if isinstance(v, np.generic) else v) for k, v in row.items()}

    def close(self):
        return None


def _count(path):
    con = fmt.sqlite().connect(path + ".db")
    try:
        return con.execute("SELECT COUNT(*) FROM INDEXES").fetchone()[0]
    finally:
        con.close()


def shard_files(paths):
    """Every shard file of the given files: a file's header lists its siblings."""
    out = []
    for p in paths:
        if not os.path.exists(p):
            raise RuntimeError(f"MindRecord: the file '{p}' does not exist")
        header = fmt.read_header(p)
        folder = os.path.dirname(os.path.abspath(p))
        for name in header["shard_addresses"]:
            full = os.path.join(folder, os.path.basename(name))
            if full not in out:
                out.append(full)
    return out
