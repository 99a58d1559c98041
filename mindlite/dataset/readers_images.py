"""Image data set readers beside readers.py (MindSpore's source datasets): Cifar100Dataset
(binary train.bin / test.bin: a coarse and a fine label byte, then 3x32x32 CHW bytes per
record; columns "image" HWC uint8, "coarse_label" and "fine_label" uint32) and
FashionMnistDataset (MNIST's IDX files and columns)."""
import os

import numpy as np

from .readers import MnistDataset, _ArraySource, _check_dir, _usage

__all__ = ["Cifar100Dataset", "FashionMnistDataset"]


class Cifar100Dataset(_ArraySource):
    RECORD = 2 + 3 * 32 * 32
    names = ("image", "coarse_label", "fine_label")

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None):
        super().__init__()
        api = "Cifar100Dataset"
        _check_dir(api, dataset_dir)
        usage = _usage(api, usage, ("train", "test", "all"))
        files = ["train.bin", "test.bin"] if usage == "all" else [f"{usage}.bin"]
        records = []
        for name in files:
            path = os.path.join(dataset_dir, name)
            if not os.path.exists(path):
                continue
            raw = np.fromfile(path, np.uint8)
            if raw.size % self.RECORD:
                raise RuntimeError(f"{api}: '{path}' is truncated: record "
                                   f"{raw.size // self.RECORD} has {raw.size % self.RECORD} of "
                                   f"{self.RECORD} bytes")
            rec = raw.reshape(-1, self.RECORD)
            bad = np.nonzero((rec[:, 0] > 19) | (rec[:, 1] > 99))[0]
            if bad.size:
                raise RuntimeError(f"{api}: '{path}' record {int(bad[0])} has labels "
                                   f"({int(rec[bad[0], 0])}, {int(rec[bad[0], 1])}), not in "
                                   f"[0, 19] x [0, 99]")
            records.append(rec)
        if not records:
            raise RuntimeError(f"{api}: no {usage} files ({files}) in '{dataset_dir}'")
        rec = np.concatenate(records)
        self.coarse = rec[:, 0].astype(np.uint32)
        self.fine = rec[:, 1].astype(np.uint32)
        self.images = rec[:, 2:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1)
        self._setup(api, len(self.fine), num_samples, shuffle, sampler, num_shards, shard_id)

    def _get(self, i):
        return self.images[i], self.coarse[i], self.fine[i]


class FashionMnistDataset(MnistDataset):
    """Fashion-MNIST: the same IDX files (train-images-idx3-ubyte, t10k-labels-idx1-ubyte,
    ...) and columns as MnistDataset."""
