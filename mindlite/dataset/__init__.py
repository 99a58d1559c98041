"""mindlite.dataset: MindSpore's mindspore.dataset pipeline for in-memory and Python data.

Also: samplers.py (Sequential/Random/Subset/Weighted/Distributed samplers), map_ops.py
(parallel map, per_batch_map), structure_ops.py (skip/filter/project/rename/zip/concat/split/
padded_batch), and the submodules `vision` (image transforms, Pillow) and `transforms`.

Sources (sources.py): NumpySlicesDataset, GeneratorDataset. Ops and iterators
(engine.py): .shuffle, .batch, .map, .repeat, .take, .create_tuple_iterator,
.create_dict_iterator, .get_dataset_size, .get_col_names. Seed: config.set_seed
(the same global seed as mindlite.set_seed).
"""
from . import config
from .engine import Dataset, DatasetIterator
from .map_ops import BatchInfo
from .readers import Cifar10Dataset, ImageFolderDataset, MnistDataset
from .samplers import (DistributedSampler, RandomSampler, Sampler, SequentialSampler,
                       SubsetRandomSampler, SubsetSampler, WeightedRandomSampler)
from .sources import GeneratorDataset, NumpySlicesDataset
from .functions import zip  # noqa: A004 (mindspore.dataset.zip)
from .mind_dataset import MindDataset
from .readers_images import Cifar100Dataset, FashionMnistDataset
from .readers_text import CSVDataset, Shuffle, TextFileDataset

__all__ = ["BatchInfo", "Cifar10Dataset", "Dataset", "DatasetIterator", "DistributedSampler",
           "GeneratorDataset", "ImageFolderDataset", "MnistDataset", "NumpySlicesDataset",
           "RandomSampler", "Sampler", "SequentialSampler", "SubsetRandomSampler", "SubsetSampler",
           "WeightedRandomSampler", "config", "zip", "MindDataset", "Cifar100Dataset",
           "FashionMnistDataset", "CSVDataset", "Shuffle", "TextFileDataset"]
