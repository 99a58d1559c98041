"""MindDataset: rows of MindRecord files (mindlite.mindrecord, MindSpore's format) as a
random-access source. Columns are the schema's fields in name order (or `columns_list`),
as MindSpore returns them: int / float scalars as 0-d arrays of the schema's dtype, strings
as 0-d str arrays, bytes as a 1-element bytes array, shaped fields as arrays. Every shard
listed in the file's header is read (a file of a multi-shard set brings its siblings)."""
import numpy as np

from ..mindrecord import file_io
from ..mindrecord import shard_format as fmt
from .sources import _RandomAccessSource

__all__ = ["MindDataset"]


def _column(spec, value):
    kind = spec["type"]
    if kind == "bytes":
        return np.array([value], dtype=np.bytes_)
    if kind == "string":
        return np.array(value, dtype=str)
    return np.asarray(value, fmt.NUMERIC[kind])


class MindDataset(_RandomAccessSource):
    _fresh = False                      # array fields are handed out as stored
    def __init__(self, dataset_files, columns_list=None, num_parallel_workers=None,
                 shuffle=None, num_shards=None, shard_id=None, sampler=None,
                 padded_sample=None, num_padded=None, num_samples=None, cache=None):
        super().__init__()
        api = "MindDataset"
        paths = [dataset_files] if isinstance(dataset_files, str) else list(dataset_files)
        if not paths or not all(isinstance(p, str) for p in paths):
            raise ValueError(f"For '{api}', 'dataset_files' must be a file name or a list of "
                             f"them, but got {dataset_files!r}")
        files = file_io.shard_files(paths)
        schema = fmt.read_header(files[0])["schema"][0]["schema"]
        names = sorted(schema) if columns_list is None else list(columns_list)
        missing = [c for c in names if c not in schema]
        if missing:
            raise ValueError(f"For '{api}', 'columns_list' has fields {missing} the schema "
                             f"({sorted(schema)}) lacks")
        self.names, self.schema = tuple(names), schema
        self.rows = [row for path in files for row in fmt.read_rows(path, fmt.read_header(path))]
        if padded_sample is not None:
            self.rows += [dict(padded_sample) for _ in range(num_padded or 0)]
        self._setup(api, len(self.rows), num_samples, shuffle, sampler, num_shards, shard_id)

    def get_col_names(self):
        return list(self.names)

    def _get(self, i):
        row = self.rows[i]
        return tuple(_column(self.schema[n], row[n]) for n in self.names)
