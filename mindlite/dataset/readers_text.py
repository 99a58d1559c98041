"""Text file readers (MindSpore's source datasets): CSVDataset (one column per field;
`column_defaults` gives each column's type: an int -> int32, a float -> float32, a str ->
string (the default); the header line names the columns unless `column_names` is given) and
TextFileDataset (column "text", one 0-d string per non-empty line), and the Shuffle enum.
Values are 0-d arrays, as MindSpore's. Both read every file at construction and are
random-access sources (shuffle, num_samples, num_shards / shard_id)."""
import csv
import enum
import os

import numpy as np

from .sources import _RandomAccessSource

__all__ = ["CSVDataset", "TextFileDataset", "Shuffle"]


class Shuffle(enum.Enum):
    GLOBAL = "global"
    FILES = "files"
    INFILE = "infile"


def _files(api, dataset_files):
    files = [dataset_files] if isinstance(dataset_files, str) else list(dataset_files)
    if not files:
        raise ValueError(f"For '{api}', 'dataset_files' must name at least one file")
    for f in files:
        if not isinstance(f, str) or not os.path.isfile(f):
            raise ValueError(f"For '{api}', the file {f!r} does not exist")
    return files


def _shuffle(api, shuffle):
    """MindSpore's shuffle argument as the source's bool (Shuffle modes all reorder rows)."""
    if isinstance(shuffle, Shuffle) or shuffle is None:
        return True
    if not isinstance(shuffle, bool):
        raise TypeError(f"For '{api}', 'shuffle' must be a bool or a Shuffle, but got "
                        f"{shuffle!r}")
    return shuffle


class CSVDataset(_RandomAccessSource):
    _fresh = True                       # every row's arrays are made anew
    def __init__(self, dataset_files, field_delim=",", column_defaults=None, column_names=None,
                 num_samples=None, num_parallel_workers=None, shuffle=Shuffle.GLOBAL,
                 num_shards=None, shard_id=None, cache=None):
        super().__init__()
        api = "CSVDataset"
        files = _files(api, dataset_files)
        if not isinstance(field_delim, str) or len(field_delim) != 1 or field_delim in '"\r\n':
            raise ValueError(f"For '{api}', 'field_delim' must be one character (not a quote "
                             f"or a line break), but got {field_delim!r}")
        self.rows, names = [], column_names
        for path in files:
            with open(path, newline="", encoding="utf-8") as f:
                lines = list(csv.reader(f, delimiter=field_delim))
            if column_names is None:
                if not lines:
                    raise RuntimeError(f"{api}: '{path}' is empty: no header line")
                header, lines = lines[0], lines[1:]
                names = names or header
            for k, line in enumerate(lines):
                if not line:
                    continue
                if len(line) != len(names):
                    raise RuntimeError(f"{api}: '{path}' row {k} has {len(line)} fields, the "
                                       f"header has {len(names)}")
                self.rows.append(line)
        self.names = tuple(names)
        defaults = column_defaults or [""] * len(self.names)
        if len(defaults) != len(self.names):
            raise ValueError(f"For '{api}', 'column_defaults' must give one value per column "
                             f"({len(self.names)}), but got {len(defaults)}")
        self.kinds = [int if isinstance(d, int) and not isinstance(d, bool) else
                      float if isinstance(d, float) else str for d in defaults]
        self.defaults = defaults
        self._setup(api, len(self.rows), num_samples, _shuffle(api, shuffle), None,
                    num_shards, shard_id)

    def get_col_names(self):
        return list(self.names)

    def _get(self, i):
        out = []
        for text, kind, default in zip(self.rows[i], self.kinds, self.defaults):
            if kind is str:
                out.append(np.array(text, dtype=str))
                continue
            try:
                value = kind(text) if text != "" else default
            except ValueError:
                raise RuntimeError(f"CSVDataset: row {i} value {text!r} is not a "
                                   f"{kind.__name__}") from None
            out.append(np.array(value, np.int32 if kind is int else np.float32))
        return tuple(out)


class TextFileDataset(_RandomAccessSource):
    _fresh = True                       # every row's arrays are made anew
    def __init__(self, dataset_files, num_samples=None, num_parallel_workers=None,
                 shuffle=Shuffle.GLOBAL, num_shards=None, shard_id=None, cache=None):
        super().__init__()
        api = "TextFileDataset"
        self.lines = []
        for path in _files(api, dataset_files):
            with open(path, encoding="utf-8") as f:
                self.lines += [ln.rstrip("\n").rstrip("\r") for ln in f
                               if ln.rstrip("\n").rstrip("\r")]
        self._setup(api, len(self.lines), num_samples, _shuffle(api, shuffle), None,
                    num_shards, shard_id)

    def get_col_names(self):
        return ["text"]

    def _get(self, i):
        return (np.array(self.lines[i], dtype=str),)
