"""File readers (MindSpore's source datasets): MnistDataset (IDX files), Cifar10Dataset
(binary batches) and ImageFolderDataset (one folder per class). Each is a random-access
source, so `shuffle`, `num_samples`, `sampler=` and `num_shards` / `shard_id` work as on
NumpySlicesDataset. Columns and dtypes are MindSpore's: MNIST and CIFAR-10 give "image" (HWC
uint8) and "label" (uint32); ImageFolder gives "image" (the file's bytes as 1-D uint8, or HWC
uint8 RGB with decode=True) and "label" (int32). A truncated or malformed file raises
naming the file (and, for records, the index) — nothing is skipped silently.
"""
import os

import numpy as np

from .sources import _RandomAccessSource

__all__ = ["MnistDataset", "Cifar10Dataset", "ImageFolderDataset"]


def _check_dir(api, path):
    if not isinstance(path, str) or not os.path.isdir(path):
        raise ValueError(f"For '{api}', 'dataset_dir' must be an existing directory, but got "
                         f"{path!r}")


def _usage(api, usage, allowed):
    usage = "all" if usage is None else usage
    if usage not in allowed:
        raise ValueError(f"For '{api}', 'usage' must be one of {list(allowed)}, but got "
                         f"{usage!r}")
    return usage


def _read_idx(path, magic, dims):
    """An IDX file's uint8 payload with its header checked (magic number, sizes)."""
    with open(path, "rb") as f:
        raw = f.read()
    head = 4 * (1 + dims)
    if len(raw) < head:
        raise RuntimeError(f"MnistDataset: '{path}' is too short for an IDX header")
    words = np.frombuffer(raw[:head], ">u4")
    if words[0] != magic:
        raise RuntimeError(f"MnistDataset: '{path}' has magic number {int(words[0])}, expected "
                           f"{magic}")
    shape = tuple(int(w) for w in words[1:])
    need = int(np.prod(shape))
    if len(raw) - head != need:
        raise RuntimeError(f"MnistDataset: '{path}' holds {len(raw) - head} data bytes, but its "
                           f"header says {shape} = {need}")
    return np.frombuffer(raw[head:], np.uint8).reshape(shape)


class _ArraySource(_RandomAccessSource):
    names = ("image", "label")
    _fresh = False

    def get_col_names(self):
        return list(self.names)

    def _get(self, i):
        return self.images[i], self.labels[i]


class MnistDataset(_ArraySource):
    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None):
        super().__init__()
        api = "MnistDataset"
        _check_dir(api, dataset_dir)
        usage = _usage(api, usage, ("train", "test", "all"))
        wanted = {"train": ["train"], "test": ["t10k"], "all": ["train", "t10k"]}[usage]
        images, labels = [], []
        # as MindSpore: every pair of files of the usage that is present is read ("all", the
        # default, takes a folder holding only the train or only the t10k files); none at all
        # is an error
        prefixes = [p for p in wanted
                    if os.path.exists(os.path.join(dataset_dir, f"{p}-images-idx3-ubyte"))]
        if not prefixes:
            raise RuntimeError("Invalid data, MnistDataset API can't read the data file "
                               "(interface mismatch or no data found). Check mnist file in "
                               f"directory: {dataset_dir} (usage {usage!r} reads "
                               + " or ".join(f"'{p}-images-idx3-ubyte'" for p in wanted) + ")")
        for p in prefixes:
            img = _read_idx(os.path.join(dataset_dir, f"{p}-images-idx3-ubyte"), 2051, 3)
            lab = _read_idx(os.path.join(dataset_dir, f"{p}-labels-idx1-ubyte"), 2049, 1)
            if len(img) != len(lab):
                raise RuntimeError(f"MnistDataset: {len(img)} images but {len(lab)} labels in "
                                   f"'{dataset_dir}' ({p})")
            images.append(img[..., None])
            labels.append(lab.astype(np.uint32))
        self.images, self.labels = np.concatenate(images), np.concatenate(labels)
        self._setup(api, len(self.labels), num_samples, shuffle, sampler, num_shards, shard_id)


class Cifar10Dataset(_ArraySource):
    RECORD = 1 + 3 * 32 * 32

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None):
        super().__init__()
        api = "Cifar10Dataset"
        _check_dir(api, dataset_dir)
        usage = _usage(api, usage, ("train", "test", "all"))
        files = {"train": [f"data_batch_{i}.bin" for i in range(1, 6)],
                 "test": ["test_batch.bin"]}
        names = files["train"] + files["test"] if usage == "all" else files[usage]
        records = []
        for name in names:
            path = os.path.join(dataset_dir, name)
            if not os.path.exists(path):
                continue
            raw = np.fromfile(path, np.uint8)
            if raw.size % self.RECORD:
                raise RuntimeError(f"Cifar10Dataset: '{path}' is truncated: record "
                                   f"{raw.size // self.RECORD} has {raw.size % self.RECORD} of "
                                   f"{self.RECORD} bytes")
            rec = raw.reshape(-1, self.RECORD)
            bad = np.nonzero(rec[:, 0] > 9)[0]
            if bad.size:
                raise RuntimeError(f"Cifar10Dataset: '{path}' record {int(bad[0])} has label "
                                   f"{int(rec[bad[0], 0])}, not in [0, 9]")
            records.append(rec)
        if not records:
            raise RuntimeError(f"Cifar10Dataset: no {usage} batch files ({names}) in "
                               f"'{dataset_dir}'")
        rec = np.concatenate(records)
        self.labels = rec[:, 0].astype(np.uint32)
        self.images = rec[:, 1:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)
        self._setup(api, len(self.labels), num_samples, shuffle, sampler, num_shards, shard_id)


class ImageFolderDataset(_ArraySource):
    EXTENSIONS = (".jpg", ".jpeg", ".png", ".bmp", ".gif", ".tif", ".tiff", ".webp")

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, extensions=None, class_indexing=None, decode=False,
                 num_shards=None, shard_id=None):
        super().__init__()
        api = "ImageFolderDataset"
        _check_dir(api, dataset_dir)
        exts = tuple(e.lower() for e in (extensions or self.EXTENSIONS))
        classes = sorted(d for d in os.listdir(dataset_dir)
                         if os.path.isdir(os.path.join(dataset_dir, d)))
        if class_indexing is None:
            class_indexing = {c: i for i, c in enumerate(classes)}
        elif not isinstance(class_indexing, dict):
            raise TypeError(f"For '{api}', 'class_indexing' must be a dict, but got "
                            f"{type(class_indexing).__name__}")
        self.files, labels = [], []
        for c in classes:
            if c not in class_indexing:
                continue
            folder = os.path.join(dataset_dir, c)
            for f in sorted(os.listdir(folder)):
                if f.lower().endswith(exts):
                    self.files.append(os.path.join(folder, f))
                    labels.append(class_indexing[c])
        self.labels = np.asarray(labels, np.int32)
        self.class_indexing, self.decode = class_indexing, decode
        self._setup(api, len(self.files), num_samples, shuffle, sampler, num_shards, shard_id)

    def get_class_indexing(self):
        return dict(self.class_indexing)

    def _get(self, i):
        path = self.files[i]
        data = np.fromfile(path, np.uint8)
        if self.decode:
            from .vision import Decode
            try:
                data = Decode()(data)
            except RuntimeError as e:
                raise RuntimeError(f"ImageFolderDataset: image {i} '{path}' cannot be "
                                   f"decoded: {e}") from None
        return data, self.labels[i]
