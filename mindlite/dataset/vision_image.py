"""What every image transform of dataset.vision shares: the Inter enum, the HW/HWC image
check, the size argument's check, resampling by Inter (dataset/resample.py) and the random
generator the random transforms draw from (mindlite.random_state, so set_seed reproduces
them). vision.py and its families (vision_color, vision_geometry, vision_augment,
vision_batch) import these from here, below all of them.
"""
import enum
import numbers

import numpy as np

from . import resample


class Inter(enum.Enum):
    NEAREST = 0
    LINEAR = 1
    BILINEAR = 1
    CUBIC = 2
    BICUBIC = 2
    AREA = 3


def _rng():
    from ..random_state import generator
    return generator()


def _image(op, img):
    img = np.asarray(img)
    if img.ndim not in (2, 3):
        raise ValueError(f"For '{op}', the image must be HW or HWC, but got shape {img.shape}")
    return img


def _size(op, size):
    if isinstance(size, numbers.Integral) and not isinstance(size, bool) and size > 0:
        return int(size)
    if isinstance(size, (tuple, list)) and len(size) == 2 and all(
            isinstance(s, numbers.Integral) and s > 0 for s in size):
        return (int(size[0]), int(size[1]))
    raise ValueError(f"For '{op}', 'size' must be a positive int or a (height, width) pair, but "
                     f"got {size!r}")


def _resize(img, h, w, inter):
    return resample.resize(img, h, w, {Inter.NEAREST: "nearest", Inter.LINEAR: "linear",
                                       Inter.CUBIC: "cubic", Inter.AREA: "area"}[inter])
