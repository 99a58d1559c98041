"""CSVDataset, TextFileDataset, Cifar100Dataset, FashionMnistDataset and dataset.zip: the
columns, dtypes and values MindSpore 2.10 gives for the same files (recorded from its CPU
build), shuffling and sharding as the other sources, and errors naming the reader."""
import numpy as np
import pytest

import mindlite as ms
from mindlite import dataset as ds


def _rows(data):
    return list(data.create_dict_iterator(output_numpy=True))


def test_csv_as_mindspore(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text('a,b,c\n1,2.5,x\n3,4.5,"y,z"\n')
    rows = _rows(ds.CSVDataset(str(path), shuffle=False))
    assert [r["c"].item() for r in rows] == ["x", "y,z"]
    assert rows[0]["b"].dtype.kind == "U" and rows[0]["b"].shape == ()
    typed = _rows(ds.CSVDataset(str(path), column_defaults=[0, 0.0, ""], shuffle=False))
    assert typed[1]["a"].dtype == np.int32 and typed[1]["a"] == 3
    assert typed[1]["b"].dtype == np.float32 and typed[1]["b"] == np.float32(4.5)
    named = _rows(ds.CSVDataset(str(path), column_names=["p", "q", "r"], shuffle=False))
    assert [r["p"].item() for r in named] == ["a", "1", "3"]
    (tmp_path / "bad.csv").write_text("a,b\n1\n")
    with pytest.raises(RuntimeError, match="CSVDataset.*row 0"):
        ds.CSVDataset(str(tmp_path / "bad.csv"))
    with pytest.raises(ValueError, match="'CSVDataset'.*does not exist"):
        ds.CSVDataset(str(tmp_path / "none.csv"))


def test_text_file_as_mindspore(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("line one\nline two\n\nlast")
    data = ds.TextFileDataset(str(path), shuffle=False)
    assert data.get_col_names() == ["text"] and data.get_dataset_size() == 3
    assert [r["text"].item() for r in _rows(data)] == ["line one", "line two", "last"]
    ms.set_seed(0)
    shard = ds.TextFileDataset(str(path), num_shards=3, shard_id=1, shuffle=ds.Shuffle.GLOBAL)
    assert shard.get_dataset_size() == 1


def test_zip_as_mindspore():
    z = ds.zip((ds.NumpySlicesDataset({"a": [1, 2, 3]}, shuffle=False),
                ds.NumpySlicesDataset({"b": [4, 5]}, shuffle=False)))
    assert [(int(r["a"]), int(r["b"])) for r in _rows(z)] == [(1, 4), (2, 5)]
    with pytest.raises(TypeError, match="'zip'"):
        ds.zip([1])


def test_cifar100_records(tmp_path):
    rng = np.random.default_rng(0)
    recs = np.zeros((3, 2 + 3072), np.uint8)
    recs[:, 0] = [1, 19, 5]
    recs[:, 1] = [7, 99, 0]
    recs[:, 2:] = rng.integers(0, 256, (3, 3072))
    recs.tofile(tmp_path / "train.bin")
    data = ds.Cifar100Dataset(str(tmp_path), usage="train", shuffle=False)
    assert data.get_col_names() == ["image", "coarse_label", "fine_label"]
    rows = _rows(data)
    assert [int(r["fine_label"]) for r in rows] == [7, 99, 0]
    assert rows[0]["coarse_label"].dtype == np.uint32
    np.testing.assert_array_equal(rows[2]["image"],
                                  recs[2, 2:].reshape(3, 32, 32).transpose(1, 2, 0))
    recs[1, 1] = 100
    recs.tofile(tmp_path / "train.bin")
    with pytest.raises(RuntimeError, match="Cifar100Dataset.*record 1"):
        ds.Cifar100Dataset(str(tmp_path), usage="train")


def test_fashion_mnist_reads_idx_files(tmp_path):
    imgs = np.arange(2 * 28 * 28, dtype=np.uint8).reshape(2, 28, 28)
    labels = np.array([3, 9], np.uint8)
    (tmp_path / "t10k-images-idx3-ubyte").write_bytes(
        np.array([2051, 2, 28, 28], ">u4").tobytes() + imgs.tobytes())
    (tmp_path / "t10k-labels-idx1-ubyte").write_bytes(
        np.array([2049, 2], ">u4").tobytes() + labels.tobytes())
    rows = _rows(ds.FashionMnistDataset(str(tmp_path), usage="test", shuffle=False))
    assert [int(r["label"]) for r in rows] == [3, 9]
    assert rows[1]["image"].shape == (28, 28, 1)
