"""Geometric transforms of mindspore.dataset.vision on HW / HWC numpy images: HorizontalFlip,
VerticalFlip, RandomVerticalFlip, Crop, Pad (Border modes), Rotate, RandomRotation, and
RandomErasing / Erase (on CHW float tensors, as MindSpore's).

Rotations are inverse-mapped warps in numpy with OpenCV's conventions, as MindSpore's
kernels (about ((w - 1) / 2, (h - 1) / 2); nearest rounds half up; bilinear weights in
1/32 steps), pixels from outside filled with `fill_value`; `expand=True` sizes the output
to round(|w cos| + |h sin|) x round(|w sin| + |h cos|). Checked against MindSpore 2.10:
nearest and bilinear rotations, expanded or not, give its pixels.
"""
import enum
import math
import numbers

import numpy as np

from .vision_image import Inter, _image, _rng

__all__ = ["Border", "HorizontalFlip", "VerticalFlip", "RandomVerticalFlip", "Crop", "Pad",
           "Rotate", "RandomRotation", "Erase", "RandomErasing"]


class Border(enum.Enum):
    CONSTANT = "constant"
    EDGE = "edge"
    REFLECT = "reflect"
    SYMMETRIC = "symmetric"


class HorizontalFlip:
    def __call__(self, img):
        return np.ascontiguousarray(_image("HorizontalFlip", img)[:, ::-1])


class VerticalFlip:
    def __call__(self, img):
        return np.ascontiguousarray(_image("VerticalFlip", img)[::-1])


class RandomVerticalFlip:
    def __init__(self, prob=0.5):
        if not isinstance(prob, numbers.Real) or not 0.0 <= prob <= 1.0:
            raise ValueError(f"For 'RandomVerticalFlip', 'prob' must be in [0, 1], but got "
                             f"{prob!r}")
        self.prob = float(prob)

    def __call__(self, img):
        img = _image("RandomVerticalFlip", img)
        return np.ascontiguousarray(img[::-1]) if _rng().random() < self.prob else img


class Crop:
    """The (height, width) window at `coordinates` = (top, left)."""

    def __init__(self, coordinates, size):
        self.top, self.left = (int(c) for c in coordinates)
        self.h, self.w = (size, size) if isinstance(size, numbers.Integral) else \
            (int(size[0]), int(size[1]))

    def __call__(self, img):
        img = _image("Crop", img)
        if self.top < 0 or self.left < 0 or self.top + self.h > img.shape[0] or \
                self.left + self.w > img.shape[1]:
            raise ValueError(f"For 'Crop', the window ({self.top}, {self.left}, {self.h}, "
                             f"{self.w}) must lie inside the image of shape {img.shape}")
        return np.ascontiguousarray(img[self.top:self.top + self.h,
                                        self.left:self.left + self.w])


def _padding(op, padding):
    if isinstance(padding, numbers.Integral):
        return (padding,) * 4
    p = tuple(int(v) for v in padding)
    if len(p) == 2:
        return (p[0], p[1], p[0], p[1])
    if len(p) == 4:
        return p
    raise ValueError(f"For '{op}', 'padding' must be an int or 2 or 4 ints, but got "
                     f"{padding!r}")


class Pad:
    """Pad (left, top, right, bottom) pixels: CONSTANT with fill_value (a number or one per
    channel), EDGE, REFLECT or SYMMETRIC."""

    def __init__(self, padding, fill_value=0, padding_mode=Border.CONSTANT):
        self.left, self.top, self.right, self.bottom = _padding("Pad", padding)
        if min(self.left, self.top, self.right, self.bottom) < 0:
            raise ValueError(f"For 'Pad', 'padding' must be non-negative, but got {padding!r}")
        if not isinstance(padding_mode, Border):
            raise TypeError(f"For 'Pad', 'padding_mode' must be a Border, but got "
                            f"{padding_mode!r}")
        self.fill_value, self.mode = fill_value, padding_mode

    def __call__(self, img):
        img = _image("Pad", img)
        widths = ((self.top, self.bottom), (self.left, self.right)) + \
            (((0, 0),) if img.ndim == 3 else ())
        if self.mode is not Border.CONSTANT:
            return np.pad(img, widths, self.mode.value)
        out = np.pad(img, widths)
        fill = np.asarray(self.fill_value, img.dtype)
        mask = np.ones(img.shape[:2], bool)
        mask = np.pad(mask, widths[:2]) == 0
        out[mask] = fill
        return out


def _warp(img, inverse, out_hw, inter, fill):
    """out[y, x] = img at inverse @ (x, y, 1) (index coordinates), as OpenCV's warpAffine
    computes it: source coordinates in fixed point (1/1024 pixel, the row term and the
    column term rounded separately), nearest rounding half up, bilinear weights in 1/32
    steps."""
    h, w = out_hw
    m = np.asarray(inverse, np.float64)
    xs, ys = np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64)
    half = 512 if inter is Inter.NEAREST else 16
    ax = np.rint(m[0, 0] * xs * 1024).astype(np.int64)[None, :]
    ay = np.rint(m[1, 0] * xs * 1024).astype(np.int64)[None, :]
    bx = (np.rint((m[0, 1] * ys + m[0, 2]) * 1024).astype(np.int64) + half)[:, None]
    by = (np.rint((m[1, 1] * ys + m[1, 2]) * 1024).astype(np.int64) + half)[:, None]
    src = img if img.ndim == 3 else img[..., None]
    fill = np.broadcast_to(np.asarray(fill, np.float64), (src.shape[-1],))
    H, W = src.shape[:2]

    def gather(px, py):
        ok = (px >= 0) & (px < W) & (py >= 0) & (py < H)
        val = np.empty((h, w, src.shape[-1]), np.float64)
        val[:] = fill
        val[ok] = src[py[ok], px[ok]]
        return val
    if inter is Inter.NEAREST:
        out = gather((bx + ax) >> 10, (by + ay) >> 10)
    else:
        qx, qy = (bx + ax) >> 5, (by + ay) >> 5
        x0, y0 = qx >> 5, qy >> 5
        fx, fy = ((qx & 31) / 32.0)[..., None], ((qy & 31) / 32.0)[..., None]
        out = ((1 - fx) * (1 - fy) * gather(x0, y0) + fx * (1 - fy) * gather(x0 + 1, y0)
               + (1 - fx) * fy * gather(x0, y0 + 1) + fx * fy * gather(x0 + 1, y0 + 1))
    if img.dtype == np.uint8:
        out = np.clip(np.rint(out), 0, 255)
    out = out.astype(img.dtype)
    return out if img.ndim == 3 else out[..., 0]


def _inter(op, value):
    if value not in (Inter.NEAREST, Inter.BILINEAR):
        raise ValueError(f"For '{op}', 'resample' must be Inter.NEAREST or Inter.BILINEAR, but "
                         f"got {value!r}")
    return value


def _rotation(img, degrees, resample, expand, center, fill):
    """OpenCV's getRotationMatrix2D about `center` (default ((w - 1) / 2, (h - 1) / 2)),
    counter-clockwise; expand moves it into the bounding box of the rotated image."""
    h, w = img.shape[:2]
    a = math.radians(degrees)
    cos, sin = math.cos(a), math.sin(a)
    cx, cy = ((w - 1) / 2, (h - 1) / 2) if center is None else center
    fwd = np.array([[cos, sin, (1 - cos) * cx - sin * cy],
                    [-sin, cos, sin * cx + (1 - cos) * cy], [0.0, 0.0, 1.0]])
    out_h, out_w = h, w
    if expand:
        bw, bh = abs(w * cos) + abs(h * sin), abs(w * sin) + abs(h * cos)
        fwd[0, 2] += bw / 2 - w / 2
        fwd[1, 2] += bh / 2 - h / 2
        out_w, out_h = int(round(bw)), int(round(bh))
    return _warp(img, np.linalg.inv(fwd)[:2], (out_h, out_w), resample, fill)


class Rotate:
    """Rotate counter-clockwise by `degrees` about `center` (default the image centre)."""

    def __init__(self, degrees, resample=Inter.NEAREST, expand=False, center=None,
                 fill_value=0):
        if isinstance(degrees, bool) or not isinstance(degrees, numbers.Real):
            raise TypeError(f"For 'Rotate', 'degrees' must be a number, but got {degrees!r}")
        self.degrees, self.resample = float(degrees), _inter("Rotate", resample)
        self.expand, self.center, self.fill_value = bool(expand), center, fill_value

    def __call__(self, img):
        return _rotation(_image("Rotate", img), self.degrees, self.resample, self.expand,
                         self.center, self.fill_value)


def _degree_range(op, degrees):
    if isinstance(degrees, numbers.Real) and not isinstance(degrees, bool):
        if degrees < 0:
            raise ValueError(f"For '{op}', 'degrees' must be non-negative, but got {degrees}")
        return (-float(degrees), float(degrees))
    if isinstance(degrees, (tuple, list)) and len(degrees) == 2 and degrees[0] <= degrees[1]:
        return (float(degrees[0]), float(degrees[1]))
    raise ValueError(f"For '{op}', 'degrees' must be a number or a (min, max) pair, but got "
                     f"{degrees!r}")


class RandomRotation:
    """Rotate by an angle drawn uniformly from `degrees` (a number d: [-d, d])."""

    def __init__(self, degrees, resample=Inter.NEAREST, expand=False, center=None,
                 fill_value=0):
        self.range = _degree_range("RandomRotation", degrees)
        self.resample = _inter("RandomRotation", resample)
        self.expand, self.center, self.fill_value = bool(expand), center, fill_value

    def __call__(self, img):
        angle = _rng().uniform(*self.range)
        return _rotation(_image("RandomRotation", img), angle, self.resample, self.expand,
                         self.center, self.fill_value)


class Erase:
    """Set the (height, width) window at (top, left) of a CHW / HWC image to `value`."""

    def __init__(self, top, left, height, width, value=0, inplace=False):
        self.box = (int(top), int(left), int(height), int(width))
        self.value, self.inplace = value, bool(inplace)

    def __call__(self, img):
        img = np.asarray(img)
        out = img if self.inplace else img.copy()
        t, l_, h, w = self.box
        chw = img.ndim == 3 and img.shape[0] in (1, 3) and img.shape[-1] not in (1, 3)
        if chw:
            out[:, t:t + h, l_:l_ + w] = np.asarray(self.value, img.dtype).reshape(-1, 1, 1)
        else:
            out[t:t + h, l_:l_ + w] = self.value
        return out


class RandomErasing:
    """With probability `prob`, erase a random rectangle of a CHW float tensor (area a
    fraction in `scale` of the image, aspect ratio in `ratio` drawn log-uniformly; up to
    `max_attempts` tries), filled with `value` (numbers per channel, or 'random': normal
    noise)."""

    def __init__(self, prob=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0,
                 inplace=False, max_attempts=10):
        if not 0.0 <= prob <= 1.0:
            raise ValueError(f"For 'RandomErasing', 'prob' must be in [0, 1], but got {prob!r}")
        if scale[0] > scale[1] or ratio[0] > ratio[1] or scale[0] < 0 or ratio[0] <= 0:
            raise ValueError(f"For 'RandomErasing', 'scale' and 'ratio' must be increasing "
                             f"positive ranges, but got {scale!r} and {ratio!r}")
        self.prob, self.scale, self.ratio = float(prob), tuple(scale), tuple(ratio)
        self.value, self.inplace, self.max_attempts = value, bool(inplace), int(max_attempts)

    def __call__(self, img):
        img = np.asarray(img)
        if img.ndim != 3:
            raise ValueError(f"For 'RandomErasing', the image must be CHW, but got shape "
                             f"{img.shape}")
        rng = _rng()
        if rng.random() >= self.prob:
            return img
        c, h, w = img.shape
        area = h * w
        log_r = (math.log(self.ratio[0]), math.log(self.ratio[1]))
        for _ in range(self.max_attempts):
            target = area * rng.uniform(*self.scale)
            aspect = math.exp(rng.uniform(*log_r))
            eh = int(round(math.sqrt(target * aspect)))
            ew = int(round(math.sqrt(target / aspect)))
            if not (eh < h and ew < w):
                continue
            top, left = int(rng.integers(0, h - eh + 1)), int(rng.integers(0, w - ew + 1))
            out = img if self.inplace else img.copy()
            if isinstance(self.value, str) and self.value == "random":
                out[:, top:top + eh, left:left + ew] = rng.standard_normal((c, eh, ew))
            else:
                out[:, top:top + eh, left:left + ew] = \
                    np.asarray(self.value, img.dtype).reshape(-1, 1, 1)
            return out
        return img
