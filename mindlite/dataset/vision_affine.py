"""Affine warps, Gaussian blur and the fused crop-decode-resize of mindspore.dataset.vision:
Affine, RandomAffine, GaussianBlur, RandomCropDecodeResize (mindcv's augmentations use them).

Affine keeps the image centre ((w - 1) / 2, (h - 1) / 2) fixed: the forward map is
T(translate) C R(degrees clockwise, shear x, y) S(scale) C^-1 (torchvision's composition), the
warp samples the source through its inverse as OpenCV's warpAffine (vision_geometry._warp):
with nearest resampling MindSpore 2.10's pixels exactly, with bilinear within 1 step (6
recorded cases). RandomAffine draws degrees, translate (fractions of width / height), scale
and shear uniformly from its ranges, then applies Affine. GaussianBlur is OpenCV's separable
Gaussian (sigma None: 0.3 ((k - 1) / 2 - 1) + 0.8) with reflect-101 borders: float images
equal MindSpore's within 3e-5, uint8 within 1 step. RandomCropDecodeResize decodes, then
crops and resizes as RandomResizedCrop. Random draws come from mindlite's generator
(set_seed repeats them; MindSpore's draws differ).
"""
import math
import numbers

import numpy as np

from .vision import Decode, Inter, RandomResizedCrop, _image, _rng
from .vision_geometry import _warp

__all__ = ["Affine", "RandomAffine", "GaussianBlur", "RandomCropDecodeResize"]


def _is_num(v):
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def _resample(op, value):
    if not isinstance(value, Inter):
        raise TypeError(f"For '{op}', 'resample' must be of type Inter, but got {value!r}")
    if value not in (Inter.NEAREST, Inter.BILINEAR):
        raise ValueError(f"For '{op}', 'resample' must be Inter.NEAREST or Inter.BILINEAR here, "
                         f"but got {value!r}")
    return value


def _fill(op, value):
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        value = (int(value),) * 3
    if not isinstance(value, tuple) or len(value) != 3 or not all(
            isinstance(v, numbers.Integral) and 0 <= v <= 255 for v in value):
        raise TypeError(f"For '{op}', 'fill_value' must be an int or a tuple of 3 ints in "
                        f"[0, 255], but got {value!r}")
    return value


def affine_matrix(h, w, degrees, translate, scale, shear):
    """The forward 3 x 3 map of Affine on an h x w image (translate in pixels)."""
    cx, cy = (w - 1) * 0.5, (h - 1) * 0.5
    rot, sx, sy = math.radians(degrees), math.radians(shear[0]), math.radians(shear[1])
    a = math.cos(rot - sy) / math.cos(sy)
    b = -math.cos(rot - sy) * math.tan(sx) / math.cos(sy) - math.sin(rot)
    c = math.sin(rot - sy) / math.cos(sy)
    d = -math.sin(rot - sy) * math.tan(sx) / math.cos(sy) + math.cos(rot)
    rss = np.array([[a * scale, b * scale, 0.0], [c * scale, d * scale, 0.0], [0.0, 0.0, 1.0]])
    shift = np.array([[1.0, 0.0, translate[0] + cx], [0.0, 1.0, translate[1] + cy],
                      [0.0, 0.0, 1.0]])
    uncenter = np.array([[1.0, 0.0, -cx], [0.0, 1.0, -cy], [0.0, 0.0, 1.0]])
    return shift @ rss @ uncenter


def _affine(img, degrees, translate, scale, shear, resample, fill):
    h, w = img.shape[:2]
    fwd = affine_matrix(h, w, degrees, (translate[0] * w, translate[1] * h), scale, shear)
    return _warp(img, np.linalg.inv(fwd)[:2], (h, w), resample,
                 fill if img.ndim == 3 and img.shape[-1] == 3 else fill[0])


class Affine:
    """A fixed affine warp (degrees clockwise, translate as fractions of the width and
    height, scale, shear degrees along x or (x, y))."""

    def __init__(self, degrees, translate, scale, shear, resample=Inter.NEAREST, fill_value=0):
        if not _is_num(degrees) or not -180 <= degrees <= 180:
            raise TypeError(f"For 'Affine', 'degrees' must be a float in [-180, 180], but got "
                            f"{degrees!r}")
        if not isinstance(translate, (tuple, list)) or len(translate) != 2 or not all(
                _is_num(t) and -1 <= t <= 1 for t in translate):
            raise TypeError(f"For 'Affine', 'translate' must be a sequence of 2 floats in "
                            f"[-1, 1], but got {translate!r}")
        if not _is_num(scale) or scale <= 0:
            raise ValueError(f"For 'Affine', 'scale' must be a positive float, but got {scale!r}")
        shear = (shear, 0.0) if _is_num(shear) else shear
        if not isinstance(shear, (tuple, list)) or len(shear) != 2 or not all(
                _is_num(s) and -180 <= s <= 180 for s in shear):
            raise TypeError(f"For 'Affine', 'shear' must be a float or 2 floats in [-180, 180], "
                            f"but got {shear!r}")
        self.degrees, self.translate = float(degrees), tuple(map(float, translate))
        self.scale, self.shear = float(scale), tuple(map(float, shear))
        self.resample = _resample("Affine", resample)
        self.fill_value = _fill("Affine", fill_value)

    def __call__(self, img):
        return _affine(_image("Affine", img), self.degrees, self.translate, self.scale,
                       self.shear, self.resample, self.fill_value)


def _range(op, arg, value, size, lo=None, hi=None):
    if not isinstance(value, (tuple, list)) or len(value) not in size or not all(
            _is_num(v) for v in value):
        raise TypeError(f"For '{op}', '{arg}' must be a sequence of {' or '.join(map(str, size))}"
                        f" numbers, but got {value!r}")
    if any((lo is not None and v < lo) or (hi is not None and v > hi) for v in value):
        raise ValueError(f"For '{op}', '{arg}' must lie in [{lo}, {hi}], but got {value!r}")
    pairs = [tuple(map(float, value[i:i + 2])) for i in range(0, len(value), 2)]
    if any(a > b for a, b in pairs):
        raise ValueError(f"For '{op}', '{arg}' must give (min, max) pairs, but got {value!r}")
    return pairs


class RandomAffine:
    """An affine warp with degrees, translate, scale and shear drawn from ranges."""

    def __init__(self, degrees, translate=None, scale=None, shear=None,
                 resample=Inter.NEAREST, fill_value=0):
        op = "RandomAffine"
        if _is_num(degrees):
            if degrees < 0:
                raise ValueError(f"For '{op}', 'degrees' must be non-negative, but got {degrees}")
            degrees = (-degrees, degrees)
        self.degrees = _range(op, "degrees", degrees, (2,))[0]
        self.translate = [(0.0, 0.0), (0.0, 0.0)]
        if translate is not None:
            got = _range(op, "translate", translate, (2, 4), -1.0, 1.0)
            self.translate[:len(got)] = got
        self.scale = (1.0, 1.0) if scale is None else _range(op, "scale", scale, (2,), 0.0)[0]
        self.shear = [(0.0, 0.0), (0.0, 0.0)]
        if shear is not None:
            if _is_num(shear):
                if shear < 0:
                    raise ValueError(f"For '{op}', 'shear' must be positive, but got {shear}")
                shear = (-shear, shear)
            got = _range(op, "shear", shear, (2, 4))
            self.shear[:len(got)] = got
        self.resample = _resample(op, resample)
        self.fill_value = _fill(op, fill_value)

    def __call__(self, img):
        rng = _rng()
        draw = [rng.uniform(*r) for r in (self.degrees, *self.translate, self.scale,
                                          *self.shear)]
        return _affine(_image("RandomAffine", img), draw[0], (draw[1], draw[2]), draw[3],
                       (draw[4], draw[5]), self.resample, self.fill_value)


def _gaussian_kernel(k, sigma):
    x = np.arange(k) - (k - 1) / 2.0
    e = np.exp(-x * x / (2.0 * sigma * sigma))
    return e / e.sum()


class GaussianBlur:
    """Blur with a Gaussian kernel: kernel_size (odd) and sigma, each one value or (x, y)."""

    def __init__(self, kernel_size, sigma=None):
        ks = (kernel_size,) * 2 if isinstance(kernel_size, numbers.Integral) else kernel_size
        if not isinstance(ks, (tuple, list)) or len(ks) != 2 or not all(
                isinstance(k, numbers.Integral) and not isinstance(k, bool) for k in ks):
            raise TypeError(f"For 'GaussianBlur', 'kernel_size' must be an int or 2 ints, but "
                            f"got {kernel_size!r}")
        if any(k <= 0 or k % 2 == 0 for k in ks):
            raise ValueError(f"For 'GaussianBlur', 'kernel_size' must be positive and odd, but "
                             f"got {kernel_size!r}")
        if sigma is None:
            sig = tuple(0.3 * ((k - 1) * 0.5 - 1) + 0.8 for k in ks)
        else:
            sig = (sigma,) * 2 if _is_num(sigma) else sigma
            if not isinstance(sig, (tuple, list)) or len(sig) != 2 or not all(map(_is_num, sig)):
                raise TypeError(f"For 'GaussianBlur', 'sigma' must be a float or 2 floats, but "
                                f"got {sigma!r}")
            if any(s <= 0 for s in sig):
                raise ValueError(f"For 'GaussianBlur', 'sigma' must be positive, but got "
                                 f"{sigma!r}")
        self.kernel_size, self.sigma = tuple(map(int, ks)), tuple(map(float, sig))

    def __call__(self, img):
        img = _image("GaussianBlur", img)
        (kx, ky), (sx, sy) = self.kernel_size, self.sigma
        a = img.astype(np.float64)
        a3 = a if a.ndim == 3 else a[..., None]
        h, w = a3.shape[:2]
        mode = "reflect" if min(h, w) > 1 else "edge"     # reflect-101; one row: replicate
        pad = np.pad(a3, ((ky // 2, ky // 2), (kx // 2, kx // 2), (0, 0)), mode=mode)
        gx, gy = _gaussian_kernel(kx, sx), _gaussian_kernel(ky, sy)
        rows = sum(gy[i] * pad[i:i + h] for i in range(ky))
        out = sum(gx[j] * rows[:, j:j + w] for j in range(kx))
        out = out if img.ndim == 3 else out[..., 0]
        if img.dtype == np.uint8:
            return np.clip(np.rint(out), 0, 255).astype(np.uint8)
        return out.astype(img.dtype)


class RandomCropDecodeResize(RandomResizedCrop):
    """Decode encoded image bytes, then RandomResizedCrop's random crop and resize."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0),
                 interpolation=Inter.BILINEAR, max_attempts=10):
        if not isinstance(max_attempts, numbers.Integral) or max_attempts <= 0:
            raise ValueError(f"For 'RandomCropDecodeResize', 'max_attempts' must be a positive "
                             f"int, but got {max_attempts!r}")
        super().__init__(size, scale, ratio, interpolation, max_attempts)
        self._decode = Decode()

    def __call__(self, data):
        return super().__call__(self._decode(data))
