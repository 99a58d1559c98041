"""General transforms (MindSpore's mindspore.dataset.transforms): Compose, TypeCast, OneHot."""
import numbers

import numpy as np

__all__ = ["Compose", "TypeCast", "OneHot"]


class Compose:
    """The transforms applied in order (each output feeds the next)."""

    def __init__(self, transforms):
        if not isinstance(transforms, (list, tuple)) or not transforms or not all(
                callable(t) for t in transforms):
            raise TypeError(f"For 'Compose', 'transforms' must be a non-empty list of callables, "
                            f"but got {transforms!r}")
        self.transforms = list(transforms)

    def __call__(self, *data):
        for t in self.transforms:
            out = t(*data)
            data = tuple(out) if isinstance(out, tuple) else (out,)
        return data[0] if len(data) == 1 else data


class TypeCast:
    """Cast to `data_type` (a mindlite dtype or a numpy dtype)."""

    def __init__(self, data_type):
        from ..common import dtype as mstype
        self.np_dtype = mstype.to_type(data_type).np if not isinstance(
            data_type, (type, np.dtype)) else np.dtype(data_type)

    def __call__(self, data):
        return np.asarray(data).astype(self.np_dtype)


class OneHot:
    """Class indices -> one-hot rows of num_classes (smoothing_rate spread over the others)."""

    def __init__(self, num_classes, smoothing_rate=0.0):
        if isinstance(num_classes, bool) or not isinstance(num_classes, numbers.Integral) \
                or num_classes < 1:
            raise ValueError(f"For 'OneHot', 'num_classes' must be a positive int, but got "
                             f"{num_classes!r}")
        if not 0.0 <= smoothing_rate <= 1.0:
            raise ValueError(f"For 'OneHot', 'smoothing_rate' must be in [0, 1], but got "
                             f"{smoothing_rate!r}")
        self.num_classes, self.smoothing_rate = int(num_classes), float(smoothing_rate)

    def __call__(self, label):
        label = np.asarray(label)
        if label.dtype.kind not in "iu" or (label < 0).any() or (label >= self.num_classes).any():
            raise ValueError(f"For 'OneHot', labels must be ints in [0, {self.num_classes}), but "
                             f"got {label!r}")
        out = np.eye(self.num_classes, dtype=np.float64 if self.smoothing_rate else label.dtype)
        out = out[label]
        if self.smoothing_rate:
            out = out * (1 - self.smoothing_rate) + self.smoothing_rate / self.num_classes
        return out


# The other transform families, in files of their own.
from .transforms_random import RandomApply, RandomChoice, RandomOrder, not_random  # noqa: E402
from .transforms_tensor import (Concatenate, Duplicate, Fill, Mask, PadEnd,  # noqa: E402
                                Relational, Slice, Unique)

__all__ += ["RandomApply", "RandomChoice", "RandomOrder", "not_random", "Concatenate",
            "Duplicate", "Fill", "Mask", "PadEnd", "Relational", "Slice", "Unique"]
