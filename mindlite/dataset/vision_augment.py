"""Learned and random augmentation policies of mindspore.dataset.vision: AutoAugment (the
IMAGENET, CIFAR10 and SVHN policies of Cubuk et al., 2019: 25 pairs of (operation,
probability, magnitude level) each), RandAugment (num_ops operations drawn uniformly, all at
one magnitude), TrivialAugmentWide (one operation at a random magnitude), and the
AutoAugmentPolicy enum. The operations are vision_color's and vision_geometry's (Rotate,
shear and translate as nearest / bilinear warps filled with fill_value). Input: HWC uint8
RGB images."""
import enum

import numpy as np

from . import vision_color as C
from .vision_image import Inter, _rng
from .vision_geometry import _rotation, _warp

__all__ = ["AutoAugmentPolicy", "AutoAugment", "RandAugment", "TrivialAugmentWide"]


class AutoAugmentPolicy(enum.Enum):
    IMAGENET = "imagenet"
    CIFAR10 = "cifar10"
    SVHN = "svhn"


# (operation, probability, magnitude level 0..9 or None) pairs of each policy
_POLICIES = {
    AutoAugmentPolicy.IMAGENET: [
        (("Posterize", .4, 8), ("Rotate", .6, 9)),
        (("Solarize", .6, 5), ("AutoContrast", .6, None)),
        (("Equalize", .8, None), ("Equalize", .6, None)),
        (("Posterize", .6, 7), ("Posterize", .6, 6)),
        (("Equalize", .4, None), ("Solarize", .2, 4)), (("Equalize", .4, None), ("Rotate", .8, 8)),
        (("Solarize", .6, 3), ("Equalize", .6, None)),
        (("Posterize", .8, 5), ("Equalize", 1., None)),
        (("Rotate", .2, 3), ("Solarize", .6, 8)), (("Equalize", .6, None), ("Posterize", .4, 6)),
        (("Rotate", .8, 8), ("Color", .4, 0)), (("Rotate", .4, 9), ("Equalize", .6, None)),
        (("Equalize", .0, None), ("Equalize", .8, None)),
        (("Invert", .6, None), ("Equalize", 1., None)),
        (("Color", .6, 4), ("Contrast", 1., 8)), (("Rotate", .8, 8), ("Color", 1., 2)),
        (("Color", .8, 8), ("Solarize", .8, 7)), (("Sharpness", .4, 7), ("Invert", .6, None)),
        (("ShearX", .6, 5), ("Equalize", 1., None)), (("Color", .4, 0), ("Equalize", .6, None)),
        (("Equalize", .4, None), ("Solarize", .2, 4)),
        (("Solarize", .6, 5), ("AutoContrast", .6, None)),
        (("Invert", .6, None), ("Equalize", 1., None)), (("Color", .6, 4), ("Contrast", 1., 8)),
        (("Equalize", .8, None), ("Equalize", .6, None))],
    AutoAugmentPolicy.CIFAR10: [
        (("Invert", .1, None), ("Contrast", .2, 6)), (("Rotate", .7, 2), ("TranslateX", .3, 9)),
        (("Sharpness", .8, 1), ("Sharpness", .9, 3)), (("ShearY", .5, 8), ("TranslateY", .7, 9)),
        (("AutoContrast", .5, None), ("Equalize", .9, None)),
        (("ShearY", .2, 7), ("Posterize", .3, 7)),
        (("Color", .4, 3), ("Brightness", .6, 7)), (("Sharpness", .3, 9), ("Brightness", .7, 9)),
        (("Equalize", .6, None), ("Equalize", .5, None)),
        (("Contrast", .6, 7), ("Sharpness", .6, 5)),
        (("Color", .7, 7), ("TranslateX", .5, 8)),
        (("Equalize", .3, None), ("AutoContrast", .4, None)),
        (("TranslateY", .4, 3), ("Sharpness", .2, 6)), (("Brightness", .9, 6), ("Color", .2, 8)),
        (("Solarize", .5, 2), ("Invert", .0, None)),
        (("Equalize", .2, None), ("AutoContrast", .6, None)),
        (("Equalize", .2, None), ("Equalize", .6, None)),
        (("Color", .9, 9), ("Equalize", .6, None)),
        (("AutoContrast", .8, None), ("Solarize", .2, 8)),
        (("Brightness", .1, 3), ("Color", .7, 0)),
        (("Solarize", .4, 5), ("AutoContrast", .9, None)),
        (("TranslateY", .9, 9), ("TranslateY", .7, 9)),
        (("AutoContrast", .9, None), ("Solarize", .8, 3)),
        (("Equalize", .8, None), ("Invert", .1, None)),
        (("TranslateY", .7, 9), ("AutoContrast", .9, None))],
    AutoAugmentPolicy.SVHN: [
        (("ShearX", .9, 4), ("Invert", .2, None)), (("ShearY", .9, 8), ("Invert", .7, None)),
        (("Equalize", .6, None), ("Solarize", .6, 6)),
        (("Invert", .9, None), ("Equalize", .6, None)),
        (("Equalize", .6, None), ("Rotate", .9, 3)),
        (("ShearX", .9, 4), ("AutoContrast", .8, None)),
        (("ShearY", .9, 8), ("Invert", .4, None)), (("ShearY", .9, 5), ("Solarize", .2, 6)),
        (("Invert", .9, None), ("AutoContrast", .8, None)),
        (("Equalize", .6, None), ("Rotate", .9, 3)),
        (("ShearX", .9, 4), ("Solarize", .3, 3)), (("ShearY", .8, 8), ("Invert", .7, None)),
        (("Equalize", .9, None), ("TranslateY", .6, 6)),
        (("Invert", .9, None), ("Equalize", .6, None)),
        (("Contrast", .3, 3), ("Rotate", .8, 4)), (("Invert", .8, None), ("TranslateY", .0, 2)),
        (("ShearY", .7, 6), ("Solarize", .4, 8)), (("Invert", .6, None), ("Rotate", .8, 4)),
        (("ShearY", .3, 7), ("TranslateX", .9, 3)), (("ShearX", .1, 6), ("Invert", .6, None)),
        (("Solarize", .7, 2), ("TranslateY", .6, 7)), (("ShearY", .8, 4), ("Invert", .8, None)),
        (("ShearX", .7, 9), ("TranslateY", .8, 3)), (("ShearY", .8, 5), ("AutoContrast", .7, None)),
        (("ShearX", .7, 2), ("Invert", .1, None))],
}


def _space(op, bins, h, w, wide=False):
    """(magnitude of each level, signed) of an operation, over `bins` levels."""
    top = {"Shear": 0.99 if wide else 0.3, "Translate": 32.0 if wide else None,
           "Rotate": 135.0 if wide else 30.0, "Enhance": 0.99 if wide else 0.9}
    if op.startswith("Shear"):
        return np.linspace(0.0, top["Shear"], bins), True
    if op == "TranslateX":
        return np.linspace(0.0, top["Translate"] or 150.0 / 331.0 * w, bins), True
    if op == "TranslateY":
        return np.linspace(0.0, top["Translate"] or 150.0 / 331.0 * h, bins), True
    if op == "Rotate":
        return np.linspace(0.0, top["Rotate"], bins), True
    if op in ("Brightness", "Color", "Contrast", "Sharpness"):
        return np.linspace(0.0, top["Enhance"], bins), True
    if op == "Posterize":
        step = (bins - 1) / (6 if wide else 4)
        return 8 - np.round(np.arange(bins) / step).astype(np.int64), False
    if op == "Solarize":
        return np.linspace(255.0, 0.0, bins), False
    return np.zeros(bins), False


def _apply(img, op, m, inter, fill):
    h, w = img.shape[:2]
    if op == "ShearX":
        return _warp(img, np.array([[1.0, m, 0.0], [0.0, 1.0, 0.0]]), (h, w), inter, fill)
    if op == "ShearY":
        return _warp(img, np.array([[1.0, 0.0, 0.0], [m, 1.0, 0.0]]), (h, w), inter, fill)
    if op == "TranslateX":
        return _warp(img, np.array([[1.0, 0.0, -float(int(m))], [0.0, 1.0, 0.0]]), (h, w),
                     inter, fill)
    if op == "TranslateY":
        return _warp(img, np.array([[1.0, 0.0, 0.0], [0.0, 1.0, -float(int(m))]]), (h, w),
                     inter, fill)
    if op == "Rotate":
        return _rotation(img, m, inter, False, None, fill)
    if op == "Brightness":
        return C.adjust_brightness(img, 1.0 + m)
    if op == "Color":
        return C.adjust_saturation(img, 1.0 + m)
    if op == "Contrast":
        return C.adjust_contrast(img, 1.0 + m)
    if op == "Sharpness":
        return C.AdjustSharpness(1.0 + m).apply(img)
    if op == "Posterize":
        return C.Posterize(int(m)).apply(img)
    if op == "Solarize":
        return C.Solarize(float(m)).apply(img)
    if op == "AutoContrast":
        return C.AutoContrast().apply(img)
    if op == "Equalize":
        return C.Equalize().apply(img)
    if op == "Invert":
        return C.Invert().apply(img)
    return img                                   # Identity


def _check(op, interpolation, fill_value):
    if interpolation not in (Inter.NEAREST, Inter.BILINEAR):
        raise ValueError(f"For '{op}', 'interpolation' must be Inter.NEAREST or Inter.BILINEAR, "
                         f"but got {interpolation!r}")
    fill = np.asarray(fill_value)
    if fill.ndim > 1 or fill.size not in (1, 3) or (fill < 0).any() or (fill > 255).any():
        raise ValueError(f"For '{op}', 'fill_value' must be an int or 3 ints in [0, 255], but "
                         f"got {fill_value!r}")
    return interpolation, fill_value


def _uint8_rgb(op, img):
    img = np.asarray(img)
    if img.dtype != np.uint8 or img.ndim != 3 or img.shape[-1] != 3:
        raise ValueError(f"For '{op}', the image must be HWC uint8 RGB, but got {img.dtype} "
                         f"of shape {img.shape}")
    return img


class AutoAugment:
    """One of the policy's 25 sub-policies, drawn uniformly; each of its two operations runs
    with its probability at its magnitude level (of 10), with a random sign."""

    def __init__(self, policy=AutoAugmentPolicy.IMAGENET, interpolation=Inter.NEAREST,
                 fill_value=0):
        if not isinstance(policy, AutoAugmentPolicy):
            raise TypeError(f"For 'AutoAugment', 'policy' must be an AutoAugmentPolicy, but got "
                            f"{policy!r}")
        self.policy = policy
        self.interpolation, self.fill_value = _check("AutoAugment", interpolation, fill_value)

    def __call__(self, img):
        img = _uint8_rgb("AutoAugment", img)
        rng = _rng()
        sub = _POLICIES[self.policy][int(rng.integers(len(_POLICIES[self.policy])))]
        for op, prob, level in sub:
            if rng.random() > prob:
                continue
            mags, signed = _space(op, 10, *img.shape[:2])
            m = float(mags[level]) if level is not None else 0.0
            if signed and rng.integers(2) == 0:
                m = -m
            img = _apply(img, op, m, self.interpolation, self.fill_value)
        return img


_RAND_OPS = ("Identity", "ShearX", "ShearY", "TranslateX", "TranslateY", "Rotate",
             "Brightness", "Color", "Contrast", "Sharpness", "Posterize", "Solarize",
             "AutoContrast", "Equalize")


class RandAugment:
    """num_ops operations drawn uniformly (with repetition), each at level `magnitude` of
    `num_magnitude_bins`, with a random sign."""

    def __init__(self, num_ops=2, magnitude=9, num_magnitude_bins=31,
                 interpolation=Inter.NEAREST, fill_value=0):
        for name, v, lo in (("num_ops", num_ops, 0), ("num_magnitude_bins", num_magnitude_bins,
                                                       2)):
            if isinstance(v, bool) or not isinstance(v, int) or v < lo:
                raise ValueError(f"For 'RandAugment', '{name}' must be an int >= {lo}, but got "
                                 f"{v!r}")
        if isinstance(magnitude, bool) or not isinstance(magnitude, int) or \
                not 0 <= magnitude < num_magnitude_bins:
            raise ValueError(f"For 'RandAugment', 'magnitude' must be an int in [0, "
                             f"{num_magnitude_bins}), but got {magnitude!r}")
        self.num_ops, self.magnitude, self.bins = num_ops, magnitude, num_magnitude_bins
        self.interpolation, self.fill_value = _check("RandAugment", interpolation, fill_value)

    def __call__(self, img):
        img = _uint8_rgb("RandAugment", img)
        rng = _rng()
        for _ in range(self.num_ops):
            op = _RAND_OPS[int(rng.integers(len(_RAND_OPS)))]
            mags, signed = _space(op, self.bins, *img.shape[:2])
            m = float(mags[self.magnitude]) if mags.ndim and mags.size > 1 else 0.0
            if signed and rng.integers(2) == 0:
                m = -m
            img = _apply(img, op, m, self.interpolation, self.fill_value)
        return img


class TrivialAugmentWide:
    """One operation drawn uniformly at a magnitude level drawn uniformly (the wide
    ranges: shear 0.99, translate 32 px, rotate 135 degrees, enhance 0.99)."""

    def __init__(self, num_magnitude_bins=31, interpolation=Inter.NEAREST, fill_value=0):
        if isinstance(num_magnitude_bins, bool) or not isinstance(num_magnitude_bins, int) or \
                num_magnitude_bins < 2:
            raise ValueError(f"For 'TrivialAugmentWide', 'num_magnitude_bins' must be an int "
                             f">= 2, but got {num_magnitude_bins!r}")
        self.bins = num_magnitude_bins
        self.interpolation, self.fill_value = _check("TrivialAugmentWide", interpolation,
                                                     fill_value)

    def __call__(self, img):
        img = _uint8_rgb("TrivialAugmentWide", img)
        rng = _rng()
        op = _RAND_OPS[int(rng.integers(len(_RAND_OPS)))]
        mags, signed = _space(op, self.bins, *img.shape[:2], wide=True)
        m = float(mags[int(rng.integers(self.bins))])
        if signed and rng.integers(2) == 0:
            m = -m
        return _apply(img, op, m, self.interpolation, self.fill_value)

