"""Colour transforms of mindspore.dataset.vision on HWC uint8 (or float) RGB numpy images:
AdjustBrightness / Contrast / Saturation / Hue / Gamma / Sharpness, Invert, Posterize,
Solarize, Equalize, AutoContrast, their Random* forms and RandomColorAdjust.

The arithmetic follows MindSpore's OpenCV kernels (checked against MindSpore 2.10):
float32 blends rounded to nearest and saturated, grey = OpenCV's fixed-point
(4899 R + 9617 G + 1868 B + 8192) >> 14, contrast around the rounded mean grey, Equalize
with OpenCV's histogram mapping; Sharpness and AutoContrast are Pillow's, which agree with
MindSpore's. Brightness, Contrast, Invert, Posterize, Solarize, Equalize, AutoContrast and
Sharpness give MindSpore's bytes; Saturation and Gamma can differ by one step where a value
lands on .5, Hue (HSV in float here) by two (tests/test_dataset_vision_ms210.py).
"""
import numbers

import numpy as np

from .vision_image import _image, _rng

__all__ = ["AdjustBrightness", "AdjustContrast", "AdjustSaturation", "AdjustHue",
           "AdjustGamma", "AdjustSharpness", "Invert", "Posterize", "Solarize", "Equalize",
           "AutoContrast", "RandomColorAdjust", "RandomInvert", "RandomPosterize",
           "RandomSolarize", "RandomEqualize", "RandomAutoContrast", "RandomAdjustSharpness",
           "RandomSharpness", "RandomColor"]


def _rgb(op, img):
    img = _image(op, img)
    if img.ndim != 3 or img.shape[-1] != 3:
        raise ValueError(f"For '{op}', the image must be HWC with 3 channels (RGB), but got "
                         f"shape {img.shape}")
    return img


def _factor(op, name, value, lo=0.0, hi=None):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or value < lo or \
            (hi is not None and value > hi):
        rng = f"[{lo}, {hi}]" if hi is not None else f">= {lo}"
        raise ValueError(f"For '{op}', '{name}' must be a number {rng}, but got {value!r}")
    return float(value)


def _saturate(x, dtype):
    """float32 -> the image dtype: uint8 rounded to nearest and clipped, floats as they are."""
    if dtype == np.uint8:
        return np.clip(np.rint(x), 0, 255).astype(np.uint8)
    return x.astype(dtype)


def grey(img):
    """OpenCV's RGB -> grey: fixed point for uint8, the same weights for floats."""
    if img.dtype == np.uint8:
        c = img.astype(np.int64)
        return ((c[..., 0] * 4899 + c[..., 1] * 9617 + c[..., 2] * 1868 + 8192) >> 14) \
            .astype(np.float32)
    return (img[..., 0] * 0.299 + img[..., 1] * 0.587 + img[..., 2] * 0.114).astype(np.float32)


def adjust_brightness(img, factor):
    return _saturate(img.astype(np.float32) * np.float32(factor), img.dtype)


def adjust_contrast(img, factor):
    mean = np.rint(grey(img).mean()) if img.dtype == np.uint8 else grey(img).mean()
    f = np.float32(factor)
    return _saturate(img.astype(np.float32) * f + np.float32(mean) * (np.float32(1) - f),
                     img.dtype)


def adjust_saturation(img, factor):
    f = np.float32(factor)
    return _saturate(img.astype(np.float32) * f + grey(img)[..., None] * (np.float32(1) - f),
                     img.dtype)


def adjust_hue(img, factor):
    """Rotate the hue by factor (in [-0.5, 0.5]) of a full turn, in HSV."""
    x = img.astype(np.float32) / (255.0 if img.dtype == np.uint8 else 1.0)
    r, g, b = x[..., 0], x[..., 1], x[..., 2]
    mx, mn = x.max(-1), x.min(-1)
    delta = mx - mn
    safe = np.where(delta == 0, 1, delta)
    h = np.where(mx == r, ((g - b) / safe) % 6, np.where(mx == g, (b - r) / safe + 2,
                                                            (r - g) / safe + 4)) / 6.0
    h = np.where(delta == 0, 0, h)
    s = np.where(mx == 0, 0, delta / np.where(mx == 0, 1, mx))
    h = (h + factor) % 1.0
    i = np.floor(h * 6).astype(np.int64) % 6
    f = h * 6 - np.floor(h * 6)
    p, q, t = mx * (1 - s), mx * (1 - f * s), mx * (1 - (1 - f) * s)
    choices = [(mx, t, p), (q, mx, p), (p, mx, t), (p, q, mx), (t, p, mx), (mx, p, q)]
    out = np.zeros_like(x)
    for k, (cr, cg, cb) in enumerate(choices):
        sel = i == k
        out[..., 0][sel], out[..., 1][sel], out[..., 2][sel] = cr[sel], cg[sel], cb[sel]
    return _saturate(out * (255.0 if img.dtype == np.uint8 else 1.0), img.dtype)


class _ImageOp:
    name = "?"

    def __call__(self, img):
        return self.apply(_rgb(self.name, img))


class AdjustBrightness(_ImageOp):
    """img * brightness_factor."""
    name = "AdjustBrightness"

    def __init__(self, brightness_factor):
        self.factor = _factor(self.name, "brightness_factor", brightness_factor)

    def apply(self, img):
        return adjust_brightness(img, self.factor)


class AdjustContrast(_ImageOp):
    """Blend with the mean grey level: factor 0 is flat grey, 1 the image."""
    name = "AdjustContrast"

    def __init__(self, contrast_factor):
        self.factor = _factor(self.name, "contrast_factor", contrast_factor)

    def apply(self, img):
        return adjust_contrast(img, self.factor)


class AdjustSaturation(_ImageOp):
    """Blend with the grey image: factor 0 is grey, 1 the image."""
    name = "AdjustSaturation"

    def __init__(self, saturation_factor):
        self.factor = _factor(self.name, "saturation_factor", saturation_factor)

    def apply(self, img):
        return adjust_saturation(img, self.factor)


class AdjustHue(_ImageOp):
    """Shift the hue by hue_factor (in [-0.5, 0.5]) of a turn."""
    name = "AdjustHue"

    def __init__(self, hue_factor):
        self.factor = _factor(self.name, "hue_factor", hue_factor, -0.5, 0.5)

    def apply(self, img):
        return adjust_hue(img, self.factor)


class AdjustGamma:
    """gain * (img / max) ** gamma * max, for any channel count."""

    def __init__(self, gamma, gain=1.0):
        self.gamma = _factor("AdjustGamma", "gamma", gamma)
        self.gain = float(gain)

    def __call__(self, img):
        img = _image("AdjustGamma", img)
        top = 255.0 if img.dtype == np.uint8 else 1.0
        out = top * self.gain * np.power(img.astype(np.float32) / top, self.gamma)
        return _saturate(out, img.dtype)


def _pil_apply(img, fn):
    from PIL import Image
    return np.asarray(fn(Image.fromarray(img)))


class AdjustSharpness(_ImageOp):
    """Blend with a smoothed image (Pillow's sharpness kernel): 0 smooth, 1 the image."""
    name = "AdjustSharpness"

    def __init__(self, sharpness_factor):
        self.factor = _factor(self.name, "sharpness_factor", sharpness_factor)

    def apply(self, img):
        from PIL import ImageEnhance
        return _pil_apply(img, lambda p: ImageEnhance.Sharpness(p).enhance(self.factor))


class Invert(_ImageOp):
    """255 - img."""
    name = "Invert"

    def apply(self, img):
        return (255 - img) if img.dtype == np.uint8 else (1.0 - img).astype(img.dtype)


class Posterize(_ImageOp):
    """Keep the top `bits` bits of each uint8 channel."""
    name = "Posterize"

    def __init__(self, bits):
        if isinstance(bits, bool) or not isinstance(bits, numbers.Integral) or \
                not 0 <= bits <= 8:
            raise ValueError(f"For 'Posterize', 'bits' must be an int in [0, 8], but got "
                             f"{bits!r}")
        self.bits = int(bits)

    def apply(self, img):
        mask = np.uint8((0xFF << (8 - self.bits)) & 0xFF)
        return img & mask


class Solarize(_ImageOp):
    """Invert the pixels at or above `threshold` (a number or a (min, max) range)."""
    name = "Solarize"

    def __init__(self, threshold):
        lo, hi = (threshold, 255.0) if isinstance(threshold, numbers.Real) else threshold
        self.lo, self.hi = float(lo), float(hi)

    def apply(self, img):
        sel = (img >= self.lo) & (img <= self.hi)
        return np.where(sel, 255 - img, img).astype(img.dtype)


def _equalize_channel(c):
    hist = np.bincount(c.ravel(), minlength=256)
    first = int(np.flatnonzero(hist)[0])
    if hist[first] == c.size:
        return c
    scale = 255.0 / (c.size - hist[first])
    lut = np.zeros(256)
    lut[first + 1:] = np.rint(np.cumsum(hist[first + 1:]) * scale)
    return np.clip(lut, 0, 255).astype(np.uint8)[c]


class Equalize(_ImageOp):
    """Histogram equalisation per channel (OpenCV's mapping)."""
    name = "Equalize"

    def apply(self, img):
        if img.dtype != np.uint8:
            raise TypeError(f"For 'Equalize', the image must be uint8, but got {img.dtype}")
        return np.stack([_equalize_channel(img[..., k]) for k in range(3)], -1)


class AutoContrast(_ImageOp):
    """Stretch each channel to [0, 255], `cutoff` percent of the histogram clipped at each
    end, `ignore` pixel values left out of the histogram."""
    name = "AutoContrast"

    def __init__(self, cutoff=0.0, ignore=None):
        self.cutoff = _factor(self.name, "cutoff", cutoff, 0.0, 50.0)
        self.ignore = ignore

    def apply(self, img):
        from PIL import ImageOps
        return _pil_apply(img, lambda p: ImageOps.autocontrast(p, self.cutoff, self.ignore))


def _prob(op, prob):
    return _factor(op, "prob", prob, 0.0, 1.0)


class _Random:
    """Apply `self.op` with probability `prob`."""

    def __call__(self, img):
        return self.op(img) if _rng().random() < self.prob else _image(self.name, img)


class RandomInvert(_Random):
    name = "RandomInvert"

    def __init__(self, prob=0.5):
        self.prob, self.op = _prob(self.name, prob), Invert()


class RandomEqualize(_Random):
    name = "RandomEqualize"

    def __init__(self, prob=0.5):
        self.prob, self.op = _prob(self.name, prob), Equalize()


class RandomAutoContrast(_Random):
    name = "RandomAutoContrast"

    def __init__(self, cutoff=0.0, ignore=None, prob=0.5):
        self.prob, self.op = _prob(self.name, prob), AutoContrast(cutoff, ignore)


class RandomAdjustSharpness(_Random):
    name = "RandomAdjustSharpness"

    def __init__(self, degree, prob=0.5):
        self.prob, self.op = _prob(self.name, prob), AdjustSharpness(degree)


def _range(op, name, value, center=1.0, lo=0.0):
    """A factor range: a number v gives [max(lo, center - v), center + v]; a pair as is."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        if value < 0:
            raise ValueError(f"For '{op}', '{name}' must be non-negative, but got {value}")
        return (max(lo, center - value), center + value)
    if isinstance(value, (tuple, list)) and len(value) == 2 and value[0] <= value[1]:
        return (float(value[0]), float(value[1]))
    raise ValueError(f"For '{op}', '{name}' must be a number or a (min, max) pair, but got "
                     f"{value!r}")


class RandomPosterize:
    """Posterize with bits drawn from `bits` ((min, max), inclusive)."""

    def __init__(self, bits=(8, 8)):
        self.bits = (bits, bits) if isinstance(bits, numbers.Integral) else tuple(bits)

    def __call__(self, img):
        return Posterize(int(_rng().integers(self.bits[0], self.bits[1] + 1)))(img)


class RandomSolarize:
    """Solarize the range between two thresholds drawn from `threshold`."""

    def __init__(self, threshold=(0, 255)):
        self.threshold = tuple(threshold)

    def __call__(self, img):
        a, b = sorted(_rng().uniform(self.threshold[0], self.threshold[1], 2))
        return Solarize((a, b))(img)


class RandomSharpness:
    """AdjustSharpness with a factor drawn from `degrees`."""

    def __init__(self, degrees=(0.1, 1.9)):
        self.degrees = _range("RandomSharpness", "degrees", degrees)

    def __call__(self, img):
        return AdjustSharpness(_rng().uniform(*self.degrees))(img)


class RandomColor:
    """AdjustSaturation with a factor drawn from `degrees`."""

    def __init__(self, degrees=(0.1, 1.9)):
        self.degrees = _range("RandomColor", "degrees", degrees)

    def __call__(self, img):
        return AdjustSaturation(_rng().uniform(*self.degrees))(img)


class RandomColorAdjust(_ImageOp):
    """Brightness, contrast, saturation and hue adjusted by factors drawn from their ranges
    (a number v: [max(0, 1 - v), 1 + v]; hue: [-v, v] within [-0.5, 0.5]), in a random
    order."""
    name = "RandomColorAdjust"

    def __init__(self, brightness=(1, 1), contrast=(1, 1), saturation=(1, 1), hue=(0, 0)):
        self.ranges = [(adjust_brightness, _range(self.name, "brightness", brightness)),
                       (adjust_contrast, _range(self.name, "contrast", contrast)),
                       (adjust_saturation, _range(self.name, "saturation", saturation)),
                       (adjust_hue, _range(self.name, "hue", hue, center=0.0, lo=-0.5))]
        lo, hi = self.ranges[3][1]
        if lo < -0.5 or hi > 0.5:
            raise ValueError(f"For 'RandomColorAdjust', 'hue' must be within [-0.5, 0.5], but "
                             f"got {hue!r}")

    def apply(self, img):
        rng = _rng()
        for k in rng.permutation(4):
            fn, (lo, hi) = self.ranges[k]
            neutral = 0.0 if fn is adjust_hue else 1.0
            if lo == hi == neutral:
                continue
            img = fn(img, rng.uniform(lo, hi))
        return img
