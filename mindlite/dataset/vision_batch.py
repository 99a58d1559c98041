"""Batch-level mixing augmentations of mindspore.dataset.vision: MixUpBatch and CutMixBatch
(and the ImageBatchFormat enum). Applied after `.batch()` to (images, one-hot labels):
`dataset.map(operations=vision.MixUpBatch(), input_columns=["image", "label"])`.

MixUpBatch: lam ~ Beta(alpha, alpha); every image becomes lam * image + (1 - lam) *
another image of the batch (a random permutation), and its label the same mix.
CutMixBatch: for each image, with probability `prob`, a box of area (1 - lam) of the image
(lam ~ Beta(alpha, alpha), centre uniform, clipped to the image) is pasted from another
image; the label mixes by the box's actual area. Images keep their dtype (uint8 rounded),
labels become float32.
"""
import enum
import numbers

import numpy as np

from .vision_image import _rng

__all__ = ["ImageBatchFormat", "MixUpBatch", "CutMixBatch"]


class ImageBatchFormat(enum.Enum):
    NHWC = 0
    NCHW = 1


def _alpha(op, alpha):
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or alpha <= 0:
        raise ValueError(f"For '{op}', 'alpha' must be a positive number, but got {alpha!r}")
    return float(alpha)


def _batch(op, images, labels):
    images, labels = np.asarray(images), np.asarray(labels)
    if images.ndim != 4:
        raise ValueError(f"For '{op}', the images must be a 4-D batch, but got shape "
                         f"{images.shape}")
    if labels.ndim not in (2, 3) or labels.shape[0] != images.shape[0]:
        raise ValueError(f"For '{op}', the labels must be one-hot rows, one per image, but got "
                         f"shape {labels.shape} for {images.shape[0]} images")
    return images, labels


def _cast(mixed, dtype):
    if dtype == np.uint8:
        return np.clip(np.rint(mixed), 0, 255).astype(np.uint8)
    return mixed.astype(dtype)


class MixUpBatch:
    def __init__(self, alpha=1.0):
        self.alpha = _alpha("MixUpBatch", alpha)

    def __call__(self, images, labels):
        images, labels = _batch("MixUpBatch", images, labels)
        rng = _rng()
        lam = rng.beta(self.alpha, self.alpha)
        perm = rng.permutation(images.shape[0])
        mixed = lam * images.astype(np.float32) + (1 - lam) * images[perm].astype(np.float32)
        lab = lam * labels.astype(np.float32) + (1 - lam) * labels[perm].astype(np.float32)
        return _cast(mixed, images.dtype), lab.astype(np.float32)


class CutMixBatch:
    def __init__(self, image_batch_format, alpha=1.0, prob=1.0):
        if not isinstance(image_batch_format, ImageBatchFormat):
            raise TypeError(f"For 'CutMixBatch', 'image_batch_format' must be an "
                            f"ImageBatchFormat, but got {image_batch_format!r}")
        if isinstance(prob, bool) or not isinstance(prob, numbers.Real) or \
                not 0.0 <= prob <= 1.0:
            raise ValueError(f"For 'CutMixBatch', 'prob' must be in [0, 1], but got {prob!r}")
        self.nchw = image_batch_format is ImageBatchFormat.NCHW
        self.alpha, self.prob = _alpha("CutMixBatch", alpha), float(prob)

    def __call__(self, images, labels):
        images, labels = _batch("CutMixBatch", images, labels)
        rng = _rng()
        out = images.copy()
        lab = labels.astype(np.float32).copy()
        h, w = (images.shape[2], images.shape[3]) if self.nchw else images.shape[1:3]
        n = images.shape[0]
        for i in range(n):
            if rng.random() >= self.prob:
                continue
            lam = rng.beta(self.alpha, self.alpha)
            j = int(rng.integers(n))
            cut = np.sqrt(1.0 - lam)
            ch, cw = int(h * cut), int(w * cut)
            cy, cx = int(rng.integers(h)), int(rng.integers(w))
            y0, y1 = np.clip(cy - ch // 2, 0, h), np.clip(cy + ch // 2, 0, h)
            x0, x1 = np.clip(cx - cw // 2, 0, w), np.clip(cx + cw // 2, 0, w)
            if self.nchw:
                out[i, :, y0:y1, x0:x1] = images[j, :, y0:y1, x0:x1]
            else:
                out[i, y0:y1, x0:x1] = images[j, y0:y1, x0:x1]
            area = (y1 - y0) * (x1 - x0) / float(h * w)
            lab[i] = (1 - area) * labels[i] + area * labels[j]
        return out, lab
