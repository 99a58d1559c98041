"""File readers (dataset/readers.py) on small files the tests write: MNIST IDX files,
CIFAR-10 binary batches and an image folder; columns and dtypes as MindSpore's, samplers and
shards, corrupt files raising with the file and index."""
import os

import numpy as np
import pytest

from mindlite import dataset as ds


def _idx(path, magic, arr):
    with open(path, "wb") as f:
        f.write(np.array([magic] + list(arr.shape), ">u4").tobytes() + arr.tobytes())


def _mnist(tmp_path, n=5):
    rng = np.random.default_rng(0)
    imgs = rng.integers(0, 256, (n, 28, 28), dtype=np.uint8)
    labels = rng.integers(0, 10, n).astype(np.uint8)
    _idx(tmp_path / "train-images-idx3-ubyte", 2051, imgs)
    _idx(tmp_path / "train-labels-idx1-ubyte", 2049, labels)
    _idx(tmp_path / "t10k-images-idx3-ubyte", 2051, imgs[:2])
    _idx(tmp_path / "t10k-labels-idx1-ubyte", 2049, labels[:2])
    return imgs, labels


def _rows(d):
    return list(d.create_tuple_iterator(output_numpy=True))


def test_mnist(tmp_path):
    imgs, labels = _mnist(tmp_path)
    d = ds.MnistDataset(str(tmp_path), usage="train", shuffle=False)
    rows = _rows(d)
    assert d.get_col_names() == ["image", "label"] and len(rows) == 5
    assert rows[2][0].shape == (28, 28, 1) and rows[2][0].dtype == np.uint8
    np.testing.assert_array_equal(rows[2][0][..., 0], imgs[2])
    assert rows[2][1].dtype == np.uint32 and int(rows[2][1]) == labels[2]
    assert ds.MnistDataset(str(tmp_path), "all").get_dataset_size() == 7
    shard = ds.MnistDataset(str(tmp_path), "train", num_shards=2, shard_id=1, shuffle=False)
    assert [int(r[1]) for r in _rows(shard)] == [labels[1], labels[3], labels[0]]
    with open(tmp_path / "train-images-idx3-ubyte", "ab") as f:
        f.write(b"x")
    with pytest.raises(RuntimeError, match="train-images-idx3-ubyte' holds 3921 data bytes"):
        ds.MnistDataset(str(tmp_path), "train")


def test_mnist_reads_the_files_present(tmp_path):
    """As MindSpore 2.10: the default usage ("all") reads a folder holding only the train or
    only the t10k files (the model zoo's `MnistDataset(path/"test")`); a usage whose files
    are absent raises naming the folder."""
    imgs, _ = _mnist(tmp_path)
    for name in ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"):
        os.remove(tmp_path / name)
    d = ds.MnistDataset(str(tmp_path), shuffle=False)
    assert d.get_dataset_size() == 2
    np.testing.assert_array_equal(_rows(d)[1][0][..., 0], imgs[1])
    assert ds.MnistDataset(str(tmp_path), usage="test").get_dataset_size() == 2
    with pytest.raises(RuntimeError, match="Check mnist file in directory: .*'train-images"):
        ds.MnistDataset(str(tmp_path), usage="train")


def test_cifar10(tmp_path):
    rng = np.random.default_rng(1)
    rec = rng.integers(0, 256, (4, 3073), dtype=np.uint8)
    rec[:, 0] = [3, 1, 4, 1]
    rec.tofile(tmp_path / "data_batch_1.bin")
    rec[:2].tofile(tmp_path / "test_batch.bin")
    d = ds.Cifar10Dataset(str(tmp_path), usage="train", shuffle=False)
    rows = _rows(d)
    assert [int(r[1]) for r in rows] == [3, 1, 4, 1]
    assert rows[0][0].shape == (32, 32, 3)
    np.testing.assert_array_equal(rows[1][0], rec[1, 1:].reshape(3, 32, 32).transpose(1, 2, 0))
    assert ds.Cifar10Dataset(str(tmp_path), "test").get_dataset_size() == 2
    bad = rec.copy()
    bad[2, 0] = 12
    bad.tofile(tmp_path / "data_batch_2.bin")
    with pytest.raises(RuntimeError, match="data_batch_2.bin' record 2 has label 12"):
        ds.Cifar10Dataset(str(tmp_path), "train")
    with open(tmp_path / "data_batch_2.bin", "wb") as f:
        f.write(rec.tobytes()[:5000])
    with pytest.raises(RuntimeError, match="data_batch_2.bin' is truncated: record 1"):
        ds.Cifar10Dataset(str(tmp_path), "train")


def test_image_folder(tmp_path):
    from PIL import Image
    rng = np.random.default_rng(2)
    pics = {}
    for cls in ("cat", "dog"):
        os.makedirs(tmp_path / cls)
        for k in range(2):
            img = rng.integers(0, 256, (5, 6, 3), dtype=np.uint8)
            Image.fromarray(img).save(tmp_path / cls / f"{k}.png")
            pics[(cls, k)] = img
    (tmp_path / "dog" / "notes.txt").write_text("not an image")
    d = ds.ImageFolderDataset(str(tmp_path), shuffle=False, decode=True)
    rows = _rows(d)
    assert d.get_dataset_size() == 4 and d.get_class_indexing() == {"cat": 0, "dog": 1}
    assert [int(r[1]) for r in rows] == [0, 0, 1, 1]
    np.testing.assert_array_equal(rows[3][0], pics[("dog", 1)])
    raw = _rows(ds.ImageFolderDataset(str(tmp_path), shuffle=False))
    assert raw[0][0].ndim == 1 and raw[0][0].dtype == np.uint8       # the file's bytes
    (tmp_path / "dog" / "2.png").write_bytes(b"broken")
    with pytest.raises(RuntimeError, match="image 4 '.*2.png' cannot be decoded"):
        _rows(ds.ImageFolderDataset(str(tmp_path), shuffle=False, decode=True))
    with pytest.raises(ValueError, match="'dataset_dir' must be an existing directory"):
        ds.ImageFolderDataset(str(tmp_path / "missing"))
