"""Rows of tests/test_mindrecord.py and the writer of its MindSpore 2.10 file.

    cd /tmp && /opt/msvenv/bin/python /work/main/tests/data/make_mindrecord_fixtures.py \
        /work/main/tests/data/ms_written.mindrecord

SCHEMA and rows() (importable without MindSpore) are what both sides write; `main` writes
them with MindSpore's FileWriter (16 KB header, 32 KB pages, two write calls, so pages of
both kinds interleave), and `read_with_mindspore` (also run under MindSpore, by the test)
prints a file's rows as JSON.
"""
import json
import sys

import numpy as np

SCHEMA = {"id": {"type": "int64"}, "name": {"type": "string"}, "score": {"type": "float64"},
          "small": {"type": "float32"}, "label": {"type": "int32"}, "img": {"type": "bytes"},
          "vec": {"type": "float64", "shape": [-1]}, "mat": {"type": "int32", "shape": [2, 2]},
          "big": {"type": "int64", "shape": [-1]}}


def rows(n=25):
    return [{"id": i, "name": f"n{i}", "score": i / 3, "small": i * 0.25, "label": i % 7 - 3,
             "img": bytes([i % 256]) * (2000 + 37 * i),
             "vec": np.arange(i % 5 + 1, dtype=np.float64) / 7,
             "mat": np.arange(4, dtype=np.int32).reshape(2, 2) * (i - 12) * 999,
             "big": np.array([i, -i, 2 ** 40 + i, -300 * i][:i % 4 + 1], np.int64)}
            for i in range(n)]


def write(FileWriter, path):
    w = FileWriter(path, overwrite=True)
    w.set_header_size(1 << 14)
    w.set_page_size(1 << 15)
    w.add_schema(SCHEMA, "fixture")
    w.add_index(["id", "name"])
    data = rows()
    w.write_raw_data(data[:10])
    w.write_raw_data(data[10:])
    w.commit()


def read_with_mindspore(path):
    import mindspore.dataset as ds
    out = []
    for r in ds.MindDataset(path, shuffle=False).create_dict_iterator(output_numpy=True):
        out.append({k: (v.tolist() if v.dtype.kind != "S" else v.tobytes().hex()) for k, v in
                    r.items()})
    print(json.dumps(out))


if __name__ == "__main__":
    if sys.argv[1] == "--read":
        read_with_mindspore(sys.argv[2])
    else:
        from mindspore.mindrecord import FileWriter
        write(FileWriter, sys.argv[1])
