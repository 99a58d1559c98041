"""MindRecord files (mindlite.mindrecord, dataset.MindDataset) in MindSpore 2.10's format:
a file MindSpore wrote (tests/data/ms_written.mindrecord, by
tests/data/make_mindrecord_fixtures.py) reads back exactly; files mindlite writes read
back here and, when MindSpore's venv is present, in MindSpore (else that test is skipped,
saying so); the int compression round-trips (hypothesis); errors name the call."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

pytest.importorskip("msgpack", reason="MindRecord rows are msgpack (the 'mindrecord' extra)")

from mindlite import dataset as ds  # noqa: E402
from mindlite.mindrecord import FileReader, FileWriter  # noqa: E402
from mindlite.mindrecord import shard_format as fmt  # noqa: E402

DATA = os.path.join(os.path.dirname(__file__), "data")
sys.path.insert(0, DATA)
import make_mindrecord_fixtures as fx  # noqa: E402

MS_PYTHON = "/opt/msvenv/bin/python"


def _same(got, want):
    assert set(got) == set(want)
    for k, v in want.items():
        if isinstance(v, np.ndarray):
            np.testing.assert_array_equal(np.asarray(got[k]).reshape(v.shape), v)
        elif isinstance(v, float):
            assert got[k] == pytest.approx(v, rel=1e-6)
        else:
            assert got[k] == v, k


def test_reads_a_file_mindspore_wrote():
    rows = list(FileReader(os.path.join(DATA, "ms_written.mindrecord")).get_next())
    want = fx.rows()
    assert len(rows) == len(want)
    for got, exp in zip(rows, want):
        _same(got, exp)
    data = ds.MindDataset(os.path.join(DATA, "ms_written.mindrecord"), shuffle=False)
    assert data.get_col_names() == sorted(fx.SCHEMA)
    first = next(data.create_dict_iterator(output_numpy=True))
    assert first["id"].dtype == np.int64 and first["id"].shape == ()
    assert first["small"].dtype == np.float32 and first["name"].dtype.kind == "U"
    assert first["img"].shape == (1,) and first["img"].dtype.kind == "S"
    assert first["mat"].shape == (2, 2) and first["mat"].dtype == np.int32


def test_writes_and_reads_back(tmp_path):
    path = str(tmp_path / "ml.mindrecord")
    fx.write(FileWriter, path)
    reader = FileReader(path)
    assert reader.len() == 25 and reader.schema() == fx.SCHEMA
    for got, exp in zip(reader.get_next(), fx.rows()):
        _same(got, exp)
    header = fmt.read_header(path)
    kinds = [p["page_type"] for p in header["page"]]
    assert kinds.count("RAW_DATA") >= 1 and kinds.count("BLOB_DATA") >= 2
    data = ds.MindDataset(path, columns_list=["id", "vec"], shuffle=True, num_samples=5)
    ids = [int(r["id"]) for r in data.create_dict_iterator(output_numpy=True)]
    assert len(ids) == 5 and len(set(ids)) == 5


def test_shards_and_scalar_only_schema(tmp_path):
    path = str(tmp_path / "s.mindrecord")
    w = FileWriter(path, shard_num=3)
    w.add_schema({"a": {"type": "int32"}, "s": {"type": "string"}}, "plain")
    w.write_raw_data([{"a": i, "s": str(i)} for i in range(7)])
    w.commit()
    assert sorted(os.listdir(tmp_path)) == sorted(
        [f"s.mindrecord{k}{ext}" for k in range(3) for ext in ("", ".db")])
    rows = [(int(r["a"]), str(r["s"])) for r in
            ds.MindDataset(path + "1", shuffle=False).create_dict_iterator(output_numpy=True)]
    assert sorted(rows) == [(i, str(i)) for i in range(7)]


@settings(max_examples=40, deadline=None)
@given(values=st.lists(st.integers(-2 ** 63, 2 ** 63 - 1), max_size=9),
       wide=st.booleans())
def test_int_compression_round_trips(values, wide):
    dtype = np.int64 if wide else np.int32
    arr = np.array([v if wide else max(min(v, 2 ** 31 - 1), -2 ** 31) for v in values], dtype)
    packed = fmt.compress_ints(arr)
    np.testing.assert_array_equal(fmt.decompress_ints(packed, dtype), arr)
    assert len(packed) <= 4 + (arr.size + 3) // 4 + 8 * arr.size


def test_errors_name_the_call(tmp_path):
    path = str(tmp_path / "e.mindrecord")
    w = FileWriter(path)
    with pytest.raises(ValueError, match="add_schema"):
        w.add_schema({"x": {"type": "complex"}})
    w.add_schema({"x": {"type": "int32"}, "b": {"type": "bytes"}})
    with pytest.raises(ValueError, match="write_raw_data"):
        w.write_raw_data([{"x": 1}])
    with pytest.raises(ValueError, match="add_index"):
        w.add_index(["b"])
    w.write_raw_data([{"x": 1, "b": b"z"}])
    w.commit()
    with pytest.raises(RuntimeError, match="exists"):
        FileWriter(path)
    with pytest.raises(ValueError, match="'MindDataset'.*columns_list"):
        ds.MindDataset(path, columns_list=["nope"])
    with pytest.raises(RuntimeError, match="does not exist"):
        ds.MindDataset(str(tmp_path / "missing.mindrecord"))


@pytest.mark.skipif(not os.path.exists(MS_PYTHON), reason="MindSpore 2.10's venv "
                    "(/opt/msvenv) is absent: the MindSpore-reads-mindlite check needs it")
def test_mindspore_reads_what_mindlite_wrote(tmp_path):
    path = str(tmp_path / "for_ms.mindrecord")
    fx.write(FileWriter, path)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([MS_PYTHON, os.path.join(DATA, "make_mindrecord_fixtures.py"),
                           "--read", path], capture_output=True, text=True, timeout=300,
                          env=env, cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = json.loads(proc.stdout.strip().splitlines()[-1])
    want = fx.rows()
    assert len(rows) == len(want)
    for got, exp in zip(rows, want):
        got = dict(got, img=bytes.fromhex(got["img"]))
        _same(got, exp)
