"""Module-level dataset functions of mindspore.dataset: `zip` (datasets side by side, as
Dataset.zip; the shortest one sets the length)."""
from .structure_ops import ZipDataset

__all__ = ["zip"]


def zip(datasets):  # noqa: A001 (MindSpore's name)
    """A dataset of the columns of every dataset in the tuple, row by row."""
    if not isinstance(datasets, tuple) or len(datasets) < 1:
        raise TypeError(f"For 'zip', 'datasets' must be a tuple of datasets, but got "
                        f"{type(datasets).__name__}")
    return ZipDataset(list(datasets))
